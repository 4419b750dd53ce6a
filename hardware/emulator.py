"""A pure-Python signal board speaking hardware/PROTOCOL.md, selected with ``--port sim``.

It mirrors the firmware (hardware/firmware/src) for machines without the AVR tools and for people trying the
assistant without a board: same verbs, duplicate cache, events, heartbeats and 3 s fail-safe, on a 1 ms tick
like the firmware's Timer2, and the same EEPROM record of the last beep, kept across ``reset``. It records every
pin change with its time so the assistant can draw the LEDs and tests can check timings. Time only moves when
``advance`` is called (the link does it while the driver reads), which makes it deterministic under a fake clock.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import serial

from hardware import protocol as proto
from hardware.beep_record import EEPROM_BYTES, BeepRecord
from hardware.pins import PINS, PinChange

FW_VERSION = "0.3.0-emu"
BOARD_NAME = "mahj-emulator"
HOST_SILENCE_MS = 3000
HEARTBEAT_MS = 1000
DEBOUNCE_MS = 5
CACHE_LEN = 4
EVENT_LEN = 8
COLOR_PINS = {"off": (), "red": ("WIN_R",), "green": ("WIN_G",), "amber": ("WIN_R", "WIN_G"), "blue": ("WIN_B",)}


@dataclass
class _Pattern:
    mode: str = "0"  # 0 1 B F, or P (fail-safe pulse)
    since_ms: float = 0.0   # ms since boot: a tick's, or a host line's arrival (between ticks)

    def lit(self, now_ms: float) -> bool:
        dt = now_ms - self.since_ms
        return {"1": True, "B": dt % 1000 < 500, "F": dt % 250 < 125, "P": dt % 2000 < 50}.get(self.mode, False)


class BoardEmulator:
    """The board. Thread-safe: the driver's link and a display may call it from different threads."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        self.pin_changes: list[PinChange] = []
        self.rx_log: list[tuple[float, bytes]] = []  # (time the board had the whole line, line)
        self.boots: list[float] = []
        self.drop_acks = 0  # acknowledgements to lose on the way to the host (fault injection)
        self.drop_events = 0  # events to lose the same way (the board still holds them for REPLAY)
        self.crash_after_ms: int | None = None  # see crash_after_next_ack
        self._crash_at: int | None = None
        self.eeprom = bytearray(b"\xff" * EEPROM_BYTES)  # kept across resets and power cycles, erased when new
        self.beep_record = BeepRecord(self.eeprom)
        self._levels = dict.fromkeys(PINS, 0)
        self.reset("power")

    # ---- life cycle -------------------------------------------------------------------------------------
    def reset(self, cause: str = "external", at: float | None = None) -> None:
        """A reset (the reset line, ``cause`` external; power, watchdog) at ``at`` (default now): everything but the
        EEPROM lost, then the BOOT event."""
        with self._lock:
            self._boot_t = self._clock() if at is None else at
            self.boots.append(self._boot_t)
            self._ms = 0
            self._line_ms = 0.0   # when the host line being handled arrived, ms since boot (_handle)
            for pin in PINS:  # a reset turns every output off until the firmware runs again
                self._set_pin(pin, 0)
            self._out = bytearray()
            self._line = bytearray()
            self._line_bad = ""  # "", or the X answer the line in progress will get: FORMAT or LONG
            self._win_color = "off"
            self._win = _Pattern()
            self._seats = [_Pattern() for _ in range(proto.SEATS)]
            self._beep: dict | None = None
            self._idle = True
            self._last_host_ms = 0
            self._last_hb_ms = 0
            self._event_n = 0
            self._events: deque[str] = deque(maxlen=EVENT_LEN)
            self._cache: deque[tuple[int, int, bytes]] = deque(maxlen=CACHE_LEN)
            record = self.beep_record.boot()
            if record is not None:  # the last beep played before the reset: a resend of it is a repeat
                self._cache.append((*record, proto.frame(f"A {record[0]} OK")))
            self._crash_at = None
            self._presses: list[tuple[int, str, int, int]] = []  # (due ms, BTN or HOLD, seat, first-contact ms)
            self.crc_errors = 0
            self.duplicates = 0
            self._window("blue", "P", self._ms)
            self._out += b"\n"  # as the firmware: ends a line a reset cut off
            self._emit(f"BOOT {proto.PROTO_VERSION} {FW_VERSION} {cause}")

    # ---- the wire -----------------------------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        """Bytes from the host."""
        with self._lock:
            self.advance()
            for byte in data:
                if byte == 0x0A:
                    line = bytes(self._line).removesuffix(b"\r")
                    if not self._line_bad and b"\r" in line:
                        self._line_bad = "FORMAT"  # a '\r' may only end a line
                    if self._line_bad:
                        self._send(f"X {self._line_bad}")
                    elif line:
                        self.rx_log.append((self._clock(), line))
                        self._handle(line)
                    self._line.clear()
                    self._line_bad = ""
                elif (byte < 0x20 and byte != 0x0D) or byte > 0x7E:
                    self._line_bad = self._line_bad or "FORMAT"  # not a byte a line may hold: a bad shape
                elif len(self._line) >= proto.LINE_MAX - 1:
                    self._line_bad = "LONG"
                else:
                    self._line.append(byte)

    def read(self) -> bytes:
        """Bytes for the host, after advancing time."""
        with self._lock:
            self.advance()
            out, self._out = bytes(self._out), bytearray()
            return out

    # ---- what tests and displays look at ------------------------------------------------------------------
    def press(self, seat: int, hold_ms: int = 60) -> float:
        """A call button pressed now and let go ``hold_ms`` later: BTN once it has debounced (DEBOUNCE_MS, like the
        firmware), and HOLD as well when it stays down proto.HOLD_MS. Returns the press time."""
        with self._lock:
            self.advance()
            self._presses.append((self._ms + DEBOUNCE_MS, "BTN", seat, self._ms))
            if hold_ms > proto.HOLD_MS:
                self._presses.append((self._ms + proto.HOLD_MS, "HOLD", seat, self._ms))
            return self._boot_t + self._ms / 1000

    def crash_after_next_ack(self, delay_ms: int) -> None:
        """The board acts on the next command but resets ``delay_ms`` after its acknowledgement, which never reaches
        the host, nor does any other until the reset (fault injection: a reset between acting and the host hearing
        of it)."""
        with self._lock:
            self.crash_after_ms = delay_ms

    def inject_noise(self, data: bytes) -> None:
        """Bytes on the line to the host that the board never meant to send (a test of the host's resync)."""
        with self._lock:
            self._out += data

    def levels(self) -> dict[str, int]:
        """Current pin levels (LEDs 0/1, BUZZ in Hz)."""
        with self._lock:
            self.advance()
            return dict(self._levels)

    def now(self) -> float:
        return self._clock()

    @property
    def boot_time(self) -> float:
        return self._boot_t

    # ---- time -----------------------------------------------------------------------------------------------
    def advance(self, to: float | None = None) -> None:
        """Runs the 1 ms ticks up to ``to`` (default: the clock's now; a long gap only replays its last 10 s)."""
        with self._lock:
            boot = self._boot_t
            target = int(((self._clock() if to is None else to) - boot) * 1000)
            self._ms = max(self._ms, target - 10_000)
            while self._ms < target:
                self._ms += 1
                self._tick()
                if self._boot_t != boot:  # the tick reset the board: its clock starts again
                    boot = self._boot_t
                    target = int((self._clock() - boot) * 1000)

    def _tick(self) -> None:
        if self._crash_at is not None and self._ms >= self._crash_at:
            self.crash_after_ms = None
            self.reset(at=self._t())
            return
        self._update_leds()
        self._update_beep()
        for due, kind, seat, at in [p for p in self._presses if p[0] <= self._ms]:
            self._presses.remove((due, kind, seat, at))
            self._emit(f"{kind} {seat} {at}")
        if not self._idle and self._ms - self._last_host_ms >= HOST_SILENCE_MS:
            self._enter_idle()
        if self._ms - self._last_hb_ms >= HEARTBEAT_MS:
            self._last_hb_ms = self._ms
            self._send(f"H {self._ms} {self._event_n} {'IDLE' if self._idle else 'LINK'}")

    def _t(self) -> float:
        return self._boot_t + self._ms / 1000

    def _set_pin(self, pin: str, value: int, t: float | None = None) -> None:
        if self._levels[pin] != value:
            self._levels[pin] = value
            self.pin_changes.append(PinChange(self._t() if t is None else t, pin, value))

    def _update_leds(self, t: float | None = None) -> None:
        """The LED pins as their patterns have them at ``t`` (default: the tick being run)."""
        at_ms = self._ms if t is None else (t - self._boot_t) * 1000
        lit = COLOR_PINS[self._win_color] if self._win.lit(at_ms) else ()
        for pin in ("WIN_R", "WIN_G", "WIN_B"):
            self._set_pin(pin, int(pin in lit), t)
        for i, seat in enumerate(self._seats):
            self._set_pin(f"SEAT{i}", int(seat.lit(at_ms)), t)
        self._set_pin("LINK", int(not self._idle), t)

    def _update_beep(self) -> None:
        b = self._beep
        if not b:
            return
        dt = self._ms - b["phase"]
        if b["sounding"] and dt >= b["on"]:
            b["sounding"], b["phase"] = False, b["phase"] + b["on"]
            self._set_pin("BUZZ", 0)
            if not b["left"]:
                self._beep = None
        elif not b["sounding"] and dt >= b["off"]:
            b["left"], b["phase"], b["sounding"] = b["left"] - 1, b["phase"] + b["off"], True
            self._set_pin("BUZZ", b["freq"])

    # ---- protocol -------------------------------------------------------------------------------------------
    def _send(self, body: str) -> bytes:
        line = proto.frame(body)
        if body.startswith("A ") and self.crash_after_ms is not None:
            if self._crash_at is None:  # lost, and the reset is coming
                self._crash_at = self._ms + self.crash_after_ms
        elif body.startswith("A ") and self.drop_acks:
            self.drop_acks -= 1  # lost on the wire (a test's fault injection); the cache still holds it
        elif body.startswith("E ") and self.drop_events:
            self.drop_events -= 1  # lost on the wire; the event buffer still holds it
        else:
            self._out += line
        return line

    def _emit(self, text: str) -> None:
        self._event_n = self._event_n % 65535 + 1
        self._events.append(f"E {self._event_n} {text}")
        self._send(self._events[-1])

    def _window(self, color: str, mode: str, since_ms: float) -> None:
        self._win_color = color
        self._win = _Pattern("0" if color == "off" else mode, since_ms)

    def _enter_idle(self) -> None:
        self._idle = True
        self._seats = [_Pattern() for _ in range(proto.SEATS)]
        self._window("blue", "P", self._ms)
        self._beep = None
        self._set_pin("BUZZ", 0)
        self._update_leds()
        self._emit(f"FAILSAFE {self._ms}")

    def _handle(self, line: bytes) -> None:
        now = self._clock()
        # What the line starts (a blink, a tone) is timed from its arrival, not from the last tick: on a busy
        # machine the clock runs ms ahead of the ticks replayed, and a pattern timed from the tick ended that much
        # early (a 40 ms tone measured 37.3 ms in a loaded test run). The ticks are run up to the arrival first,
        # so that none stamped before it is run after it.
        self.advance(now)
        self._line_ms = (now - self._boot_t) * 1000
        try:
            frame = proto.parse(line)
        except proto.ProtocolError as exc:
            if "CRC mismatch" in str(exc):
                self.crc_errors += 1
                self._send("X CRC")
            else:
                self._send("X FORMAT")
            return
        if frame.kind != "C" or len(frame.fields) < 2 or not 1 <= frame.number <= 65535:
            self._send("X FORMAT")
            return
        self._last_host_ms = self._ms
        if self._idle:
            self._idle = False
            self._window("off", "0", self._line_ms)
        for seq, crc, reply in self._cache:
            if seq == frame.number and crc == frame.crc:
                self.duplicates += 1
                self._send(reply.decode().rstrip("\n").rpartition("*")[0])
                return
        replay: list[str] = []
        result = self._run(frame.fields[1], list(frame.fields[2:]), replay)
        if frame.fields[1] == "BEEP" and result == "OK":
            self.beep_record.save(frame.number, frame.crc)  # the firmware writes it before the tone starts
        reply = self._send(f"A {frame.number} {result}")
        self._cache.append((frame.number, frame.crc, reply))
        for event in replay:
            self._send(event)
        self._update_leds(now)
        if frame.fields[1] == "RESET" and result == "OK":
            sent = bytes(self._out)
            self.reset()  # the ack is out first, then the board restarts
            self._out[:0] = sent

    def _run(self, verb: str, args: list[str], replay: list[str]) -> str:
        """Executes one verb; returns the reply after ``A <seq>``."""

        def num(text: str, lo: int, hi: int) -> int:
            if not text.isdigit() or len(text) > 5 or not lo <= int(text) <= hi:
                raise ValueError(text)
            return int(text)

        def mode(text: str) -> str:
            if len(text) != 1 or text not in proto.MODES:
                raise ValueError(text)
            return text

        arity = {"HELLO": 1, "PING": 0, "LEDS": 3, "WIN": 2, "SEAT": 2, "BEEP": 4, "QUIET": 0, "STATUS": 0,
                 "REPLAY": 1, "RESET": 0}
        if verb not in arity:
            return "ERR VERB"
        if len(args) != arity[verb]:
            return "ERR ARG"
        try:
            if verb == "HELLO":
                if num(args[0], 0, 65535) != proto.PROTO_VERSION:
                    return f"ERR PROTO {proto.PROTO_VERSION}"
                self._cache.clear()
                self.beep_record.spend()
                return f"OK HELLO {proto.PROTO_VERSION} {FW_VERSION} {BOARD_NAME} {self._event_n}"
            if verb == "PING":
                return f"OK {self._ms}"
            if verb in ("LEDS", "WIN"):
                if args[0] not in proto.COLORS:
                    raise ValueError(args[0])
                win_mode = mode(args[1])
                seats = [mode(c) for c in args[2]] if verb == "LEDS" else []
                if verb == "LEDS" and len(seats) != proto.SEATS:
                    raise ValueError(args[2])
                self._window(args[0], win_mode, self._line_ms)
                for i, m in enumerate(seats):
                    if self._seats[i].mode != m:
                        self._seats[i] = _Pattern(m, self._line_ms)
                return "OK"
            if verb == "SEAT":
                self._seats[num(args[0], 0, 3)] = _Pattern(mode(args[1]), self._line_ms)
                return "OK"
            if verb == "BEEP":
                values = [num(a, *limits) for a, limits in zip(args, proto.BEEP_LIMITS.values(), strict=True)]
                freq, on, off, count = values
                self._beep = {"freq": freq, "on": on, "off": off, "left": count - 1, "phase": self._line_ms,
                              "sounding": True}
                self._set_pin("BUZZ", 0)  # a new pattern restarts the tone
                self._set_pin("BUZZ", freq, self._boot_t + self._line_ms / 1000)
                return "OK"
            if verb == "QUIET":
                self._beep = None
                self._set_pin("BUZZ", 0, self._boot_t + self._line_ms / 1000)
                return "OK"
            if verb == "STATUS":
                seats = "".join(s.mode for s in self._seats)
                return (f"OK {self._win_color} {self._win.mode} {seats} {int(self._beep is not None)} "
                        f"{self.crc_errors} {self.duplicates} {self._ms}")
            if verb == "REPLAY":
                start = num(args[0], 1, 65535)
                kept = [e for e in self._events if proto.ahead(int(e.split()[1]), start) >= 0]
                replay.extend(kept)
                first = int(kept[0].split()[1]) if kept else start
                return f"OK {first} {self._event_n}"
            return "OK"  # RESET: _handle restarts the board once the ack is out
        except ValueError:
            return "ERR ARG"


class EmulatorLink:
    """A pyserial-like port onto a BoardEmulator (read/write/close, timeouts), for the driver's ``sim`` port.

    ``unplug()`` on the owning rig makes reads and writes fail like a vanished USB port.
    """

    def __init__(self, board: BoardEmulator, is_plugged: Callable[[], bool], timeout: float = 0.01) -> None:
        self._board = board
        self._plugged = is_plugged
        self.timeout = timeout
        self.is_open = True

    def _check(self) -> None:
        if not self.is_open or not self._plugged():
            raise serial.SerialException("sim: device disconnected")

    def read(self, size: int = 1) -> bytes:
        deadline = time.monotonic() + (self.timeout or 0)
        while True:
            self._check()
            data = self._board.read()
            if data or time.monotonic() >= deadline:
                return data
            time.sleep(0.002)

    def write(self, data: bytes) -> int:
        self._check()
        self._board.write(data)
        return len(data)

    def reset_input_buffer(self) -> None:
        self._board.read()

    def close(self) -> None:
        self.is_open = False
