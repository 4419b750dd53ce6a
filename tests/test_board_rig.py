"""The board end to end: the real firmware in simavr (and the Python emulator, same protocol) through a raw
protocol client and through the real driver. Timings come from the simulation's own clock."""

from __future__ import annotations

import logging
import time
from types import SimpleNamespace

import pytest
from board_kit import Raw, make_rig, rx_time

from hardware import protocol as proto
from hardware.driver import BoardIncompatible, attach
from hardware.emulator import BoardEmulator
from hardware.pins import levels_at, window_color
from hardware.rig import EmulatorRig, wait_until
from hardware.signals import Beep, BoardState
from hardware.timing import command_latencies, edges, percentile

MS = 1e-3


@pytest.fixture(params=["sim", "simavr"])
def rig(request):
    r = make_rig(request.param)
    yield r
    r.close()


@pytest.fixture
def raw(rig):
    client = Raw(rig)
    assert client.cmd(1, "HELLO", proto.PROTO_VERSION)[:3] == ("OK", "HELLO", "1")
    yield client
    client.close()


# ---- every command, with pins and timings ------------------------------------------------------------------
def test_leds_colours_and_blink_periods(rig, raw):
    for seq, colour in enumerate(("red", "green", "amber", "blue"), start=2):
        assert raw.cmd(seq, "WIN", colour, "1") == ("OK",)
        # the rig's pin report travels on another pipe than the ack: wait for it rather than assume order
        assert wait_until(lambda c=colour: window_color(levels_at(rig.pin_changes())) == c, 1), colour
    assert raw.cmd(10, "LEDS", "green", "B", "0F01") == ("OK",)
    t0 = rx_time(rig, 10)
    assert rig.sleep_until(t0 + 1.1)
    pins = rig.pin_changes()
    green = [p.t - t0 for p in edges(pins, "WIN_G", t0)]
    assert green[0] < 2 * MS
    assert green[1] == pytest.approx(0.5, abs=2 * MS) and green[2] == pytest.approx(1.0, abs=2 * MS)
    seat1 = [p.t - t0 for p in edges(pins, "SEAT1", t0)][:5]
    assert [round(t / 0.125) for t in seat1] == [0, 1, 2, 3, 4]
    assert all(abs(t - round(t / 0.125) * 0.125) < 2 * MS for t in seat1)
    assert levels_at(pins)["SEAT3"] == 1 and levels_at(pins)["SEAT0"] == 0
    assert raw.cmd(11, "SEAT", 3, "0") == ("OK",)
    assert raw.cmd(12, "STATUS")[:4] == ("OK", "green", "B", "0F00")


def test_beep_pattern_frequency_and_durations(rig, raw):
    assert raw.cmd(2, "BEEP", 1000, 40, 20, 3) == ("OK",)
    t0 = rx_time(rig, 2)
    assert rig.sleep_until(t0 + 0.25)
    buzz = edges(rig.pin_changes(), "BUZZ", t0)
    assert [p.value > 0 for p in buzz] == [True, False] * 3
    assert all(p.value == pytest.approx(1000, rel=0.01) for p in buzz if p.value)
    on = [buzz[i + 1].t - buzz[i].t for i in range(0, 6, 2)]
    gaps = [buzz[i + 1].t - buzz[i].t for i in range(1, 5, 2)]
    assert on == pytest.approx([0.040] * 3, abs=2 * MS)  # the tone's first/last edge: within half a period
    assert gaps == pytest.approx([0.020] * 2, abs=2 * MS)
    assert buzz[0].t - t0 < 2 * MS
    assert raw.cmd(3, "BEEP", 500, 2000, 0, 1) == ("OK",)
    assert raw.cmd(4, "QUIET") == ("OK",)
    assert wait_until(lambda: levels_at(rig.pin_changes())["BUZZ"] == 0, 1)
    assert raw.cmd(5, "STATUS")[4] == "0"


def test_button_presses_carry_board_time(rig, raw):
    pressed = rig.press(2, hold_ms=40)
    fields = raw.event("BTN")
    assert fields[2] == "2"
    board_ms = int(fields[3])
    assert board_ms == pytest.approx((pressed - rig.boot_time()) * 1000, abs=2)
    time.sleep(0.1)
    rig.press(0, hold_ms=40)
    second = raw.event("BTN")
    assert second[2] == "0" and int(second[0]) == int(fields[0]) + 1  # one event per press despite bounce
    assert raw.read_until(lambda line: b" BTN " in line, timeout=0.2) is None
    reply = raw.cmd(9, "REPLAY", fields[0])
    assert reply[0] == "OK"
    replayed = raw.event("BTN")
    assert replayed[:4] == fields[:4]


def test_a_held_button_reports_hold_once_with_its_first_contact(rig, raw):
    """The undo gesture: a button still down proto.HOLD_MS after first contact sends HOLD (once, with the time of
    that first contact); a short press never does, and letting go sends nothing."""
    rig.press(0, hold_ms=300)
    pressed = rig.press(2, hold_ms=proto.HOLD_MS + 300)
    short, long = raw.event("BTN"), raw.event("BTN")
    assert (short[2], long[2]) == ("0", "2")
    held = raw.event("HOLD", timeout=proto.HOLD_MS / 1000 + 3)
    assert rig.now() - pressed >= proto.HOLD_MS / 1000  # not before the button was down that long
    assert held[2:] == long[2:] and int(held[0]) == int(long[0]) + 1  # the long press's own first contact
    assert rig.sleep_until(pressed + (proto.HOLD_MS + 600) / 1000)  # past the release
    assert raw.read_until(lambda line: b" BTN " in line or b" HOLD " in line, timeout=0.3) is None


def test_crc_error_is_rejected_and_not_acted_on(rig, raw):
    bad = bytearray(proto.command(2, "WIN", "red", "1"))
    bad[-3] = ord("0") if bad[-3] != ord("0") else ord("1")  # break the CRC
    assert raw.send(bytes(bad)) == proto.frame("X CRC").rstrip(b"\n")
    time.sleep(0.05)
    assert levels_at(rig.pin_changes())["WIN_R"] == 0
    assert raw.cmd(3, "STATUS")[5] == "1"  # crc error counter


def test_duplicate_sequence_number_is_answered_from_cache_not_acted_twice(rig, raw):
    line = proto.command(7, "BEEP", 2000, 20, 0, 1)
    first = raw.send(line)
    assert rig.sleep_until(rx_time(rig, 7) + 0.04)  # the first tone is over, so a second one would show
    second = raw.send(line)  # the host lost the ack and retries with the same number
    assert first == second == proto.frame("A 7 OK").rstrip(b"\n")
    assert rig.sleep_until(rx_time(rig, 7) + 0.05)
    assert len([p for p in edges(rig.pin_changes(), "BUZZ") if p.value]) == 1
    assert raw.cmd(8, "STATUS")[6] == "1"  # duplicates counter
    assert raw.cmd(7, "WIN", "red", "1") == ("OK",)  # same number, another command: acted on
    assert wait_until(lambda: levels_at(rig.pin_changes())["WIN_R"] == 1, 1)


def test_errors_are_answered_clearly(rig, raw):
    assert raw.cmd(2, "DANCE") == ("ERR", "VERB")
    assert raw.cmd(3, "WIN", "purple", "1") == ("ERR", "ARG")
    assert raw.cmd(4, "BEEP", 20, 10, 0, 1) == ("ERR", "ARG")
    assert raw.cmd(5, "SEAT", 4, "1") == ("ERR", "ARG")
    assert raw.cmd(6, "HELLO", 99) == ("ERR", "PROTO", "1")
    assert raw.send(proto.frame("Z 1 PING")) == proto.frame("X FORMAT").rstrip(b"\n")
    assert raw.send(b"C 9 " + b"x" * 100 + b"\n") == proto.frame("X LONG").rstrip(b"\n")
    assert raw.cmd(10, "PING")[0] == "OK"


def test_host_silence_puts_the_board_in_fail_safe(rig, raw):
    assert raw.cmd(2, "LEDS", "green", "1", "1000") == ("OK",)
    assert raw.cmd(3, "BEEP", 800, 1500, 0, 1) == ("OK",)
    last = rx_time(rig, 3)
    fields = raw.event("FAILSAFE", timeout=10)
    assert rig.sleep_until(last + 3.1)
    pins = rig.pin_changes()
    off = next(p.t for p in edges(pins, "WIN_G", last) if p.value == 0)
    assert off - last == pytest.approx(3.0, abs=3 * MS)
    assert int(fields[2]) == pytest.approx((off - rig.boot_time()) * 1000, abs=2)
    level = levels_at(pins)
    assert level["SEAT0"] == 0 and level["LINK"] == 0 and level["BUZZ"] == 0
    assert [p.value for p in edges(pins, "WIN_B", off)][:2] == [1, 0]  # the "alive, no host" pulse
    assert raw.read_until(lambda line: line.startswith(b"H ") and b" IDLE*" in line, timeout=5)
    assert raw.cmd(5, "PING")[0] == "OK"  # a host again: idle ends
    assert wait_until(lambda: levels_at(rig.pin_changes())["LINK"] == 1, 1)


# ---- the driver ------------------------------------------------------------------------------------------
def ruling(kind, seat=None):
    return SimpleNamespace(kind=kind, seat=seat, data={}, t=0.0)


@pytest.fixture
def board(rig):
    b = attach(rig, ack_timeout=0.2)
    assert b.wait_ready(5)
    yield b
    b.close()


def shows(rig, state: BoardState) -> bool:
    """Whether the pins show ``state`` (blinking patterns are checked by being lit or just toggled)."""
    level = levels_at(rig.pin_changes())
    lit_window = window_color(level) == state.window or state.window_mode in "BF"
    seats = all(level[f"SEAT{i}"] == int(m == "1") or m in "BF" for i, m in enumerate(state.seats))
    return lit_window and seats


def test_signals_reach_the_pins_quickly(rig, board):
    since = rig.now() if rig.kind == "simavr" else 0.0
    for kind, seat in [("window_opened", 0), ("claim_pending", 1), ("window_closed", 0), ("turn", 1),
                       ("window_opened", 1), ("window_closed", 1), ("turn", 2), ("dead_hand", 3),
                       ("mahjong_verified", 2)]:
        board.signal(ruling(kind, seat))
        assert board.wait_applied(2)
        time.sleep(0.03)
    assert wait_until(lambda: shows(rig, board.state()), 1), (board.state(), levels_at(rig.pin_changes()))
    latencies = command_latencies(rig.rx_log(), rig.pin_changes(), since)
    assert len(latencies) >= 9, latencies
    assert percentile(latencies, 95) < 10 * MS, latencies


def test_button_presses_reach_the_game_with_host_time(rig, board):
    time.sleep(0.05)
    before = time.monotonic()
    rig.press(3)
    assert wait_until(lambda: board._presses, 1.0)
    (press,) = board.events()
    assert press.seat == 3 and press.t is not None
    # host time is estimated from PING round trips: good to half a round trip, which load can stretch
    assert before - 0.2 < press.t < time.monotonic()


def test_board_reset_mid_game_restores_state(rig, board, caplog):
    board.signal(ruling("claim_pending", 2))
    board.signal(ruling("turn", 2))
    assert board.wait_applied(2)
    caplog.set_level(logging.INFO, logger="mahj.board")
    reset_at = rig.reset()
    assert wait_until(lambda: any(r.kind == "board_reset" for r in board.recoveries), 2)
    assert wait_until(lambda: shows(rig, board.state()), 2)
    assert levels_at(rig.pin_changes())["WIN_R"] == levels_at(rig.pin_changes())["WIN_G"] == 1  # amber again
    restored = next(p.t for p in edges(rig.pin_changes(), "SEAT2", reset_at) if p.value)
    assert restored - reset_at < 2.0
    assert len([r for r in caplog.records if "reset" in r.getMessage()]) == 1


def test_port_vanishing_and_returning_is_recovered(rig, board, caplog):
    board.signal(ruling("window_opened", 0))
    assert board.wait_applied(2)
    caplog.set_level(logging.INFO, logger="mahj.board")
    rig.unplug()
    time.sleep(0.3)
    slowest = 0.0
    for _ in range(50):  # the game keeps signalling while the board is gone: nothing waits on the board
        started = time.monotonic()
        board.signal(ruling("window_closed", 0))
        slowest = max(slowest, time.monotonic() - started)
    assert slowest < 0.1  # far below one ack timeout (0.2 s), let alone a reconnect
    assert board.dropped_beeps > 0  # the bounded queue dropped the oldest beeps
    rig.replug()
    assert wait_until(lambda: any(r.kind == "reconnect" for r in board.recoveries), 3)
    assert wait_until(lambda: shows(rig, board.state()), 2)
    assert board.state().window == "red"
    assert len([r for r in caplog.records if "recovered" in r.getMessage()]) == 1


def test_garbage_from_the_board_is_survived(rig, board):
    rig.garbage("\\x01noise without end")  # no line end: the next good line arrives glued to it
    rig.garbage("E 9 BTN 1 5*0000\\n")  # a forged event with a bad CRC
    board.set_leds(BoardState(window="green"))
    assert board.wait_applied(2)
    assert wait_until(lambda: shows(rig, board.state()), 1)
    assert board.events() == []
    assert board.request("PING")[0] == "OK"


def test_incompatible_board_is_refused_with_a_clear_error():
    class OldBoard(BoardEmulator):
        def _run(self, verb, args, replay):
            return "ERR PROTO 0" if verb == "HELLO" else super()._run(verb, args, replay)

    rig = EmulatorRig()
    rig.board = OldBoard()
    board = attach(rig)
    with pytest.raises(BoardIncompatible, match="protocol 0"):
        board.wait_ready(3)
    board.close()


def test_a_lost_event_is_replayed_and_the_press_still_arrives(rig, board):
    """An event lost on the wire shows as a gap (the next heartbeat's event count); the driver asks for a REPLAY,
    whose events come right behind its ack, and must keep them."""
    rig.drop_next_event()
    pressed = rig.press(3, hold_ms=40)
    presses = []
    assert wait_until(lambda: presses.extend(board.events()) or presses, timeout=4)
    assert [(p.seat, p.held) for p in presses] == [(3, False)]
    assert presses[0].board_ms == pytest.approx((pressed - rig.boot_time()) * 1000, abs=2)
    assert any(r.kind == "event_gap" and "asked for a replay" in r.detail for r in board.recoveries)
    assert not any("lost for good" in r.detail for r in board.recoveries)


def test_beeps_are_played_once(rig, board):
    board.beep(Beep(1500, 30))
    assert board.wait_applied(2)
    assert rig.sleep_until(rig.now() + 0.1)
    assert len([p for p in edges(rig.pin_changes(), "BUZZ") if p.value]) == 1


def test_lost_ack_is_resent_and_the_beep_plays_once(rig, board):
    board.request("QUIET")
    t0 = rig.now()
    rig.drop_next_ack()
    board.beep(Beep(1500, 30))
    assert board.wait_applied(2)
    assert any(r.kind == "resend" and "BEEP" in r.detail for r in board.recoveries)
    assert rig.sleep_until(t0 + 0.6)  # past the driver's 200 ms ack timeout and the retry
    assert len([p for p in edges(rig.pin_changes(), "BUZZ", t0) if p.value]) == 1
    assert board.request("STATUS")[6] == "1"  # the board answered the retry from its cache


def test_socket_url_port():
    """A board behind a TCP bridge (ser2net and the like), opened with a pyserial socket:// URL."""
    import socket
    import threading

    emulator = BoardEmulator()
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        conn, _ = server.accept()
        conn.settimeout(0.01)
        with conn:
            while not stop.is_set():
                try:
                    data = conn.recv(256)
                    if not data:
                        return
                    emulator.write(data)
                except TimeoutError:
                    pass
                out = emulator.read()
                if out:
                    conn.sendall(out)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    from hardware.driver import open_board

    board = open_board(f"socket://127.0.0.1:{server.getsockname()[1]}")
    try:
        assert board.wait_ready(5) and board.info.name == "mahj-emulator"
        board.signal(ruling("window_closed", 0))
        assert board.wait_applied(2)
        assert window_color(emulator.levels()) == "red"
    finally:
        board.close()
        stop.set()
        thread.join(2)
        server.close()


# ---- a hostile or unlucky board (issue 31) -------------------------------------------------------------------
@pytest.mark.parametrize("lost", range(1, 11))
def test_one_tone_per_beep_whatever_the_acks_lost(lost):
    """After 4 lost acks the driver gives up and reconnects; the BEEP is then sent again with its old number and
    line before HELLO, so the board answers it from its cache instead of playing it twice."""
    rig = EmulatorRig()
    board = attach(rig, ack_timeout=0.05)
    try:
        assert board.wait_ready(5)
        t0 = rig.now()
        rig.board.drop_acks = lost
        board.beep(Beep(1500, 30))
        assert board.wait_applied(10)
        assert rig.sleep_until(rig.now() + 0.1)
        assert len([p for p in edges(rig.pin_changes(), "BUZZ", t0) if p.value]) == 1
        assert board.connected and board.error is None
    finally:
        board.close()


def test_events_after_the_counter_wraps_are_delivered():
    rig = EmulatorRig()
    rig.board._event_n = 65533  # the board has been up a long time
    board = attach(rig, ack_timeout=0.1)
    try:
        assert board.wait_ready(5)
        presses = []
        for seat in (0, 1, 2, 3):  # events 65534, 65535, 1, 2
            rig.press(seat)
            assert wait_until(lambda n=seat + 1: presses.extend(board.events()) or len(presses) >= n, 2), presses
        assert [p.event for p in presses] == [65534, 65535, 1, 2]
        rig.drop_next_event()  # a gap across the wrap is replayed, not taken for old news
        rig.press(1)
        assert wait_until(lambda: presses.extend(board.events()) or len(presses) > 4, 4), presses
        assert presses[-1].event == 3
    finally:
        board.close()


@pytest.mark.parametrize("line", ["E 2 BTN x 100", "E 2 BTN 9 100", "E 2 HOLD 1", "H x 1 LINK", "H 5 y IDLE",
                                  "E 2 FAILSAFE z", "H 5 99999 LINK"])
def test_a_board_line_with_bad_fields_is_reported_and_survived(line):
    rig = EmulatorRig()
    board = attach(rig, ack_timeout=0.1)
    try:
        assert board.wait_ready(5)
        rig.garbage(proto.frame(line).decode().replace("\n", "\\n"))
        assert wait_until(lambda: any(r.kind == "garbage" for r in board.recoveries), 2)
        board.set_leds(BoardState(window="green"))
        assert board.wait_applied(2) and board.connected and board.error is None
        assert board.events() == []
        rig.press(2)
        assert wait_until(lambda: board._presses, 2)
    finally:
        board.close()


def test_a_board_that_never_replays_is_not_stormed():
    """A board that acknowledges REPLAY but never resends its events: the host asks a few times, a second apart,
    then counts the events lost once; it does not send thousands of commands a second or log without end."""
    class Forgetful(BoardEmulator):
        def _run(self, verb, args, replay):
            return super()._run(verb, args, []) if verb == "REPLAY" else super()._run(verb, args, replay)

    rig = EmulatorRig()
    rig.board = Forgetful()
    board = attach(rig, ack_timeout=0.1)
    try:
        assert board.wait_ready(5)
        rig.drop_next_event()
        rig.press(1)
        sent_before = len(rig.rx_log())
        assert wait_until(lambda: any("lost for good" in r.detail for r in board.recoveries), 15)
        time.sleep(0.5)
        sent = len(rig.rx_log()) - sent_before
        assert sent < 40, sent  # pings and a few REPLAYs, not a storm
        assert sum(r.kind == "event_gap" for r in board.recoveries) <= 4
        rig.press(2)  # the link is still good
        assert wait_until(lambda: any(p.seat == 2 for p in board.events()), 3)
    finally:
        board.close()


def test_the_recovery_log_is_bounded():
    rig = EmulatorRig()
    board = attach(rig)
    try:
        assert board.wait_ready(5)
        for _ in range(2000):
            board._recovered("garbage", "noise")
        assert len(board.recoveries) <= 500 and board.recoveries[-1:][0].detail == "noise"
    finally:
        board.close()


def test_a_driver_that_cannot_go_on_says_so(monkeypatch, caplog):
    """Whatever stops the driver's thread, the board no longer looks connected and the log says why."""
    rig = EmulatorRig()
    board = attach(rig, ack_timeout=0.1)
    try:
        assert board.wait_ready(5)
        monkeypatch.setattr(board, "_service", lambda: 1 / 0)
        assert wait_until(lambda: not board.connected, 2)
        assert isinstance(board.error, ZeroDivisionError)
        assert any("driver stopped" in r.getMessage() for r in caplog.records)
    finally:
        board.close()


def _framed(body: bytes) -> bytes:
    return body + b"*%04X\n" % proto.crc16_xmodem(body)


@pytest.mark.parametrize("line, answer", [
    (_framed(b"C 7 PI\x01NG"), b"X FORMAT"),            # a control byte
    (_framed(b"C 7 PI\x7fNG"), b"X FORMAT"),            # DEL
    (_framed(b"C 7 PI\xc3NG"), b"X FORMAT"),            # a high byte
    (_framed(b"C 7 PI\rNG"), b"X FORMAT"),              # a '\r' inside the line, CRC and all
    (b"C 7 PING\r*1234\n", b"X FORMAT"),                # ... or before the CRC
    (b"C 7 " + b"P" * 90 + b"*0000\n", b"X LONG"),     # over 80 bytes
    (b"C 7 \x01" + b"P" * 90 + b"*0000\n", b"X LONG"),  # over 80 bytes, noise too: the length decides
    (_framed(b"C 7 PING")[:-1] + b"\r\n", b"A 7 OK"),   # one '\r' before the '\n' is fine
    (b"C 7 PING*0000\n", b"X CRC"),
    (_framed(b"C 7  PING"), b"X FORMAT"),
])
def test_the_emulator_and_the_firmware_answer_every_line_alike(raw, line, answer):
    """The same lines go to the emulator and (where simavr is installed) the real firmware: PROTOCOL.md's answer
    for a byte a line may not hold is X FORMAT; only a line over 80 bytes is X LONG."""
    got = raw.send(line)
    assert got is not None and got.startswith(answer), got
