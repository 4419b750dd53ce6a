"""``mahj board check``: runs every command and every fault case a port allows, and measures latency.

On ``sim`` and ``simavr`` the rig also presses buttons, resets the board, pulls the cable and reads the pins
(latency from the simulated pin times); on a real board the checks that need a person's hands are listed as
skipped.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from types import SimpleNamespace
from typing import Any

from hardware import protocol as proto
from hardware.driver import Board, CommandRejected, open_board, port_problem
from hardware.pins import levels_at, window_color
from hardware.rig import wait_until
from hardware.signals import SIGNALS, Beep, BoardState
from hardware.timing import command_latencies, percentile


@dataclass
class Check:
    name: str
    ok: bool | None  # None = skipped
    detail: str = ""


@dataclass
class Report:
    port: str
    board: dict[str, Any] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    latency_ms: dict[str, float] | None = None
    recoveries: list[str] = field(default_factory=list)
    avr_size: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.board) and all(c.ok is not False for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def _shows(board: Board) -> bool:
    if board.rig is None:
        return True
    state, level = board.state(), levels_at(board.rig.pin_changes())
    window = window_color(level) == state.window or state.window_mode in "BF"
    return window and all(level[f"SEAT{i}"] == int(m == "1") or m in "BF" for i, m in enumerate(state.seats))


def run_check(port: str | None, progress: Callable[[str], None] = lambda _: None) -> Report:
    report = Report(port=port or "auto")
    problem = port_problem(port)
    if problem:
        report.checks.append(Check("port", False, problem))
        return report
    if port == "simavr":
        from hardware.rig import build

        report.avr_size = build()
    board = open_board(port, ack_timeout=0.25)
    try:
        if not board.wait_ready(8):
            why = f" ({board.error})" if board.error else ""
            report.checks.append(Check("handshake", False, f"no HELLO answer within 8 s{why}"))
            return report
        report.board = {"name": board.info.name, "firmware": board.info.firmware, "protocol": board.info.protocol}
        rig = board.rig
        since = rig.now() if rig is not None and rig.kind == "simavr" else 0.0
        steps: list[tuple[str, Callable[[], tuple[bool | None, str]]]] = [
            ("commands", lambda: _commands(board)),
            ("errors answered", lambda: _errors(board)),
            ("signals table", lambda: _signals(board)),
            ("crc error rejected", lambda: _crc(board)),
            ("duplicate not acted twice", lambda: _duplicate(board)),
            ("lost ack -> resent, beeped once", lambda: _lost_ack(board)),
            ("button press timed", lambda: _button(board)),
            ("button held -> HOLD", lambda: _hold(board)),
            ("lost event -> replayed", lambda: _lost_event(board)),
            ("host silence -> fail-safe", lambda: _silence(board)),
            ("board reset -> state restored", lambda: _reset(board)),
            ("beep kept across a reset", lambda: _beep_across_reset(board)),
            ("port lost -> recovered", lambda: _unplug(board)),
        ]
        for name, step in steps:
            progress(name)
            try:
                ok, detail = step()
            except (CommandRejected, TimeoutError, OSError, RuntimeError) as exc:
                ok, detail = False, str(exc)
            report.checks.append(Check(name, ok, detail))
        if rig is not None:
            lat = command_latencies(rig.rx_log(), rig.pin_changes(), since)
            if lat:
                report.latency_ms = {"n": len(lat), "median": round(statistics.median(lat) * 1000, 3),
                                     "p95": round(percentile(lat, 95) * 1000, 3), "max": round(max(lat) * 1000, 3)}
        report.recoveries = [f"{r.kind}: {r.detail}" for r in board.recoveries]
    finally:
        board.close()
    return report


def _commands(board: Board) -> tuple[bool, str]:
    replies = {
        "PING": board.request("PING"),
        "LEDS": board.request("LEDS", "amber", "B", "1B0F"),
        "WIN": board.request("WIN", "blue", "1"),
        "SEAT": board.request("SEAT", 2, "1"),
        "BEEP": board.request("BEEP", 1200, 30, 20, 2),
        "QUIET": board.request("QUIET"),
        "STATUS": board.request("STATUS"),
        "REPLAY": board.request("REPLAY", 1),
    }
    bad = [verb for verb, reply in replies.items() if reply[0] != "OK"]
    status = replies["STATUS"]
    if status[1:4] != ("blue", "1", "1B1F"):
        bad.append(f"STATUS shows {' '.join(status[1:4])}")
    board.set_leds(BoardState())  # the driver's desired state wins again
    board.wait_applied(2)
    return not bad, "8 verbs acknowledged" if not bad else f"failed: {', '.join(bad)}"


def _errors(board: Board) -> tuple[bool, str]:
    answers = []
    for verb, args in (("DANCE", ()), ("WIN", ("purple", "1")), ("HELLO", (99,))):
        try:
            board.request(verb, *args)
            answers.append(f"{verb}: accepted")
        except CommandRejected as exc:
            answers.append(str(exc).rsplit(": ", 1)[-1])
    return answers == ["ERR VERB", "ERR ARG", "ERR PROTO 1"], "; ".join(answers)


def _signals(board: Board) -> tuple[bool, str]:
    for kind in SIGNALS:
        board.signal(SimpleNamespace(kind=kind, seat=1, data={}))
        if not board.wait_applied(2):
            return False, f"{kind} not acknowledged"
        if not wait_until(lambda: _shows(board), 2):
            return False, f"{kind}: pins do not show {board.state()}"
    return True, f"{len(SIGNALS)} ruling kinds shown" + (" and seen on the pins" if board.rig else "")


def _crc(board: Board) -> tuple[bool, str]:
    line = bytearray(proto.command(60001, "WIN", "red", "1"))
    line[-2] = ord("0") if line[-2] != ord("0") else ord("1")
    answer = board.exchange_raw(bytes(line))
    ok = answer is not None and answer.kind == "X" and answer.fields == ("CRC",)
    status = board.request("STATUS")
    return ok and status[1] != "red", f"answer {answer.kind + ' ' + ' '.join(answer.fields) if answer else 'none'}"


def _duplicate(board: Board) -> tuple[bool, str]:
    board.request("QUIET")  # a silent buzzer, so the one tone below is visible on the pin
    before = int(board.request("STATUS")[6])
    line = proto.command(60002, "BEEP", 1800, 20, 0, 1)
    rig = board.rig
    t0 = rig.now() if rig is not None else 0.0
    first = board.exchange_raw(line)
    if rig is not None:
        rig.sleep_until(t0 + 0.05)  # the tone is over: a second one would show on the pin
    second = board.exchange_raw(line)
    after = int(board.request("STATUS")[6])
    ok = first is not None and first == second and after == before + 1
    if rig is not None:
        rig.sleep_until(rig.now() + 0.05)
        tones = [p for p in rig.pin_changes() if p.pin == "BUZZ" and p.value and p.t >= t0]
        ok = ok and len(tones) == 1
        return ok, f"same reply twice, {len(tones)} tone(s) on the pin"
    return ok, "same reply twice, duplicate counter +1"


def _lost_ack(board: Board) -> tuple[bool | None, str]:
    rig = board.rig
    if rig is None:
        return None, "needs a rig to lose an ack on purpose"
    board.request("QUIET")
    before = int(board.request("STATUS")[6])
    count, t0 = len(board.recoveries), rig.now()
    rig.drop_next_ack()
    board.beep(Beep(1600, 30))
    if not board.wait_applied(3):
        return False, "beep never acknowledged"
    rig.sleep_until(rig.now() + 0.05)
    tones = len([p for p in rig.pin_changes() if p.pin == "BUZZ" and p.value and p.t >= t0])
    resent = any(r.kind == "resend" for r in board.recoveries[count:])
    repeats = int(board.request("STATUS")[6]) - before
    return resent and tones == 1 and repeats == 1, f"resent: {resent}, {tones} tone(s), {repeats} cache answer(s)"


def _button(board: Board) -> tuple[bool | None, str]:
    if board.rig is None:
        return None, "needs a person at the board"
    board.events()
    pressed = board.rig.press(3)
    if not wait_until(lambda: board._presses, 1.0):
        return False, "no button event"
    (event,) = board.events()
    want = (pressed - board.rig.boot_time()) * 1000
    return abs(event.board_ms - want) <= 2 and event.seat == 3, f"board time {event.board_ms} ms, pin {want:.1f} ms"


def _hold(board: Board) -> tuple[bool | None, str]:
    """A long press (the undo gesture) is reported as BTN at first contact, then HOLD with the same time."""
    if board.rig is None:
        return None, "needs a person at the board"
    board.events()
    board.rig.press(1, hold_ms=proto.HOLD_MS + 200)
    # The hold is timed on the board's clock, which a loaded host running simavr may slow down: wait generously.
    if not wait_until(lambda: any(p.held for p in board._presses), proto.HOLD_MS / 1000 + 10.0):
        return False, f"no HOLD event after holding {proto.HOLD_MS + 200} ms"
    got = board.events()
    shape = [(p.seat, p.held) for p in got]
    same_press = len({p.board_ms for p in got}) == 1
    return shape == [(1, False), (1, True)] and same_press, f"events {shape}, first contact {[p.board_ms for p in got]}"


def _lost_event(board: Board) -> tuple[bool | None, str]:
    """A button event lost on the wire: the next heartbeat shows the gap and the REPLAY brings the press back."""
    rig = board.rig
    if rig is None:
        return None, "needs a rig to lose an event on purpose"
    board.events()
    count = len(board.recoveries)
    rig.drop_next_event()
    rig.press(2)
    # The gap shows at the board's next heartbeat (1 s of its clock, which a loaded simavr host slows down).
    if not wait_until(lambda: board._presses, 10.0):
        return False, "the press never arrived"
    got = [(p.seat, p.held) for p in board.events()]
    asked = any(r.kind == "event_gap" for r in board.recoveries[count:])
    return got == [(2, False)] and asked, f"events {got}, replay asked: {asked}"


def _silence(board: Board) -> tuple[bool, str]:
    board.signal(SimpleNamespace(kind="window_opened", seat=0, data={}))
    board.wait_applied(2)
    count = len(board.recoveries)
    # Silent until the board reports its fail-safe: it counts 3 s on its own clock, which a loaded host running
    # simavr may slow down, so no wall-clock hold length would be honest.
    board.hold(10.0)
    seen = wait_until(lambda: any(r.kind == "failsafe" for r in board.recoveries[count:]), 10)
    board.hold(0)
    if not seen:
        return False, "no fail-safe seen within 10 s of silence"
    ok = board.wait_applied(2) and wait_until(lambda: _shows(board), 2)
    return ok, "board went idle after 3 s and was restored"


def _reset(board: Board) -> tuple[bool, str]:
    board.signal(SimpleNamespace(kind="claim_pending", seat=2, data={}))
    board.wait_applied(2)
    count = len(board.recoveries)
    if board.rig is not None:
        board.rig.reset()
        how = "reset line pulled"
    else:
        board.request("RESET")
        how = "RESET command (watchdog)"
    if not wait_until(lambda: any(r.kind == "board_reset" for r in board.recoveries[count:]), 3):
        return False, f"{how}: reset not detected"
    ok = board.wait_applied(2) and wait_until(lambda: _shows(board), 2)
    return ok, f"{how}; state re-applied"


def _beep_across_reset(board: Board) -> tuple[bool, str]:
    """A BEEP played, then the board restarts (RESET: a watchdog reset, so this runs on a real board too) before the
    host resends it: the board kept it in EEPROM and answers the resend as a repeat instead of beeping again."""
    board.request("QUIET")
    rig = board.rig
    t0 = rig.now() if rig is not None else 0.0
    line = proto.command(60003, "BEEP", 1700, 20, 0, 1)
    first = board.exchange_raw(line)
    count = len(board.recoveries)
    board.request("RESET")
    if not wait_until(lambda: any(r.kind == "board_reset" for r in board.recoveries[count:]), 3):
        return False, "reset not detected"
    applied = board.wait_applied(2)
    second = board.exchange_raw(line)
    repeats = board.request("STATUS")[6]
    ok = applied and first is not None and first == second and repeats == "1"
    detail = f"resend after the reset answered {'as a repeat' if ok else second}"
    if rig is not None:
        rig.sleep_until(rig.now() + 0.05)
        tones = len([p for p in rig.pin_changes() if p.pin == "BUZZ" and p.value and p.t >= t0])
        return ok and tones == 1, f"{detail}, {tones} tone(s) on the pin"
    return ok, detail


def _unplug(board: Board) -> tuple[bool | None, str]:
    if board.rig is None:
        return None, "needs a person to pull the cable"
    board.beep(Beep(1000, 20))
    count = len(board.recoveries)
    board.rig.unplug()
    time.sleep(0.3)
    board.signal(SimpleNamespace(kind="window_closed", seat=0, data={}))
    board.rig.replug()
    if not wait_until(lambda: any(r.kind == "reconnect" for r in board.recoveries[count:]), 4):
        return False, "not reconnected within 4 s"
    ok = board.wait_applied(2) and wait_until(lambda: _shows(board), 2)
    return ok, "reconnected; state re-applied"
