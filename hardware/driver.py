"""Host driver for the signal board: ``open_board(port)`` -> Board.

A background thread owns the serial port; the game only changes the *desired* state (``signal``, ``set_leds``,
``beep``) and never waits on the board. The thread handshakes (HELLO), re-applies the desired state after any
reconnect, board reset or fail-safe, retries lost commands with the same sequence number (the board answers a
repeat from its cache, so a lost ack never beeps twice), heartbeats every second and turns board events into
button presses with host times. Each recovery is logged as one line on the ``mahj.board`` logger.

Ports: ``sim`` (the Python emulator), ``simavr`` (the real firmware in simavr, see hardware/rig.py), a device
path, a pseudo-terminal, any pyserial URL such as ``socket://host:port``, or None to find a board by USB id.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import serial
import serial.tools.list_ports

from hardware import protocol as proto
from hardware import signals
from hardware.signals import Beep, BoardState

log = logging.getLogger("mahj.board")

BAUD = 250_000  # exact at 16 MHz with U2X (hardware/README.md)
# USB ids of the Uno's own USB chip and of the usual clone/adapter chips.
USB_IDS = {
    (0x2341, 0x0043): "Arduino Uno (16U2)",
    (0x2341, 0x0001): "Arduino Uno (8U2)",
    (0x2A03, 0x0043): "Arduino Uno (arduino.org)",
    (0x2341, 0x0243): "Arduino Uno R3 (16U2)",
    (0x1A86, 0x7523): "CH340 Uno clone",
    (0x0403, 0x6001): "FTDI FT232R adapter",
}


_RAW = "raw line"  # marks an exchange_raw request in the request queue
RECOVERIES_KEPT = 500  # the newest recoveries kept for `mahj board check` and tests (a hostile board sends many)
REPLAY_AGAIN_S = 1.0  # a gap the board's REPLAY did not fill is asked for again only after this long
REPLAY_TRIES = 3  # ... and this many times in all, then its events are counted lost for good
HANDSHAKE_TRIES = 8  # right after opening the port: an Uno resets then and its bootloader waits about a second


class BoardIncompatible(RuntimeError):
    """The board speaks another protocol version; the driver refuses it instead of guessing."""


class CommandRejected(RuntimeError):
    """The board acknowledged a command with ERR (bad verb or arguments)."""


class LinkLost(RuntimeError):
    """The port failed or the board stopped answering; the thread reconnects."""


class Link(Protocol):
    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...
    def reset_input_buffer(self) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class ButtonPress:
    """A call button press: ``board_ms`` is the board's clock at first contact, ``t`` the same instant on the
    host's ``time.monotonic`` clock (estimated from heartbeat round trips; None before the first estimate).
    ``held``: the board's HOLD event, the same press still down after 1.5 s (the undo gesture); it comes after
    that press's own BTN and carries the same ``board_ms``, so the host knows which call it belongs to."""

    seat: int
    board_ms: int
    t: float | None
    event: int
    held: bool = False


@dataclass(frozen=True)
class BoardInfo:
    protocol: int
    firmware: str
    name: str
    port: str


@dataclass
class Recovery:
    kind: str  # reconnect | board_reset | failsafe | resend | garbage | event_gap
    detail: str
    t: float = field(default_factory=time.monotonic)


def discover() -> str | None:
    """The first serial port whose USB vendor/product id is a known board chip, or None."""
    for port in serial.tools.list_ports.comports():
        if port.vid is not None and (port.vid, port.pid) in USB_IDS:
            return port.device
    return None


def serial_ports() -> list[str]:
    """The serial ports this machine has, to list when the one asked for is not there."""
    return sorted(p.device for p in serial.tools.list_ports.comports())


def port_problem(port: str | None) -> str | None:
    """Why no board can be on ``port`` before trying it (a device path that does not exist, or no board found
    by USB id), naming the serial ports there are; None when the port is worth trying."""
    if port in ("sim", "simavr") or (port and "://" in port):
        return None
    here = ", ".join(serial_ports()) or "none"
    if port is None:
        if discover() is not None:
            return None
        ids = ", ".join(f"{v:04x}:{p:04x}" for v, p in USB_IDS)
        return f"no board found (no serial port with a board's USB id {ids}); serial ports here: {here}; " \
               "plug the board in or pass --port"
    if port.startswith("/") and not os.path.exists(port):
        return f"{port} does not exist; serial ports here: {here}"
    return None


def serial_opener(port: str | None) -> Callable[[], Link]:
    """Opens a real port (exclusive, so two programs never fight over the board) or a pyserial URL."""

    def open_link() -> Link:
        device = port or discover()
        if device is None:
            ids = ", ".join(f"{v:04x}:{p:04x}" for v, p in USB_IDS)
            raise LinkLost(f"no board found by USB id ({ids}); pass --port")
        try:
            return serial.serial_for_url(device, baudrate=BAUD, timeout=0.01, write_timeout=0.5, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkLost(f"cannot open {device}: {exc}") from exc

    return open_link


class Board:
    """A signal board behind a background thread. All public methods return at once."""

    def __init__(self, port: str, opener: Callable[[], Link], *, rig: Any = None, ack_timeout: float = 0.25,
                 retries: int = 3, heartbeat_s: float = 1.0, queue_len: int = 8, beep_ttl_s: float = 5.0) -> None:
        self.port = port
        self.rig = rig  # the emulator or simavr rig behind "sim"/"simavr" (pin changes, button injection)
        self.info: BoardInfo | None = None
        self.error: Exception | None = None
        self.recoveries: list[Recovery] = []  # the newest RECOVERIES_KEPT
        self.dropped_beeps = 0
        self._open = opener
        self._ack_timeout = ack_timeout
        self._retries = retries
        self._heartbeat_s = heartbeat_s
        self._beep_ttl = beep_ttl_s
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._desired = BoardState()
        self._applied: BoardState | None = None
        self._beeps: deque[tuple[float, Beep]] = deque(maxlen=queue_len)
        self._requests: queue.Queue = queue.Queue(maxsize=queue_len)
        self._presses: deque[ButtonPress] = deque(maxlen=64)
        self._link: Link | None = None
        self._splitter = proto.LineSplitter()
        self._unread: deque[bytes] = deque()  # lines read from the port but not yet dispatched
        self._seq = 0
        self._unacked: tuple[Beep, int, bytes] | None = None  # a BEEP sent but never acknowledged: (beep, seq, line)
        self._last_event = 0
        self._replay_from = 0
        self._replay_asked: tuple[int, int, float] = (0, 0, 0.0)  # (gap start, times asked, when last asked)
        self._offset: tuple[float, float] | None = None  # (round trip, host - board seconds)
        self._last_tx = 0.0
        self._lost_since: float | None = None
        self._lost_cause = ""
        self._lost_warned = False
        self._last_log: dict[str, float] = {}
        self._hold_until = 0.0
        self._thread = threading.Thread(target=self._run, name=f"board {port}", daemon=True)
        self._thread.start()

    # ---- the game's side ------------------------------------------------------------------------------------
    def signal(self, ruling: Any) -> bool:
        """Shows a referee ruling (see hardware/signals.py); False when the ruling has no signal."""
        with self._lock:
            result = signals.apply(self._desired, ruling)
            if result is None:
                return False
            self._desired, beep = result
        if beep:
            self.beep(beep)
        return True

    def set_leds(self, state: BoardState) -> None:
        """Replaces the whole desired LED state (what ``signal`` does through the signals table)."""
        with self._lock:
            self._desired = state

    def beep(self, beep: Beep) -> None:
        """Queues a beep; when the queue is full the oldest waiting beep is dropped (and counted)."""
        with self._lock:
            if len(self._beeps) == self._beeps.maxlen:
                self.dropped_beeps += 1
            self._beeps.append((time.monotonic(), beep))

    def state(self) -> BoardState:
        with self._lock:
            return self._desired

    def events(self) -> list[ButtonPress]:
        """Button presses and holds since the last call (oldest first)."""
        out = []
        while self._presses:
            out.append(self._presses.popleft())
        return out

    def pin_levels(self) -> dict[str, int] | None:
        """What the LEDs and buzzer show right now (hardware.pins names; ``pins.render`` draws it) when a rig
        lets us see the pins (sim, simavr); None for a real board."""
        return self.rig.levels() if self.rig is not None else None

    @property
    def connected(self) -> bool:
        return self._ready.is_set()

    def wait_ready(self, timeout: float = 5.0) -> bool:
        """Waits for the handshake (for tools and tests, not the game); raises BoardIncompatible if refused."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._ready.is_set() and self.error is None:
            self._ready.wait(0.02)
        if self.error is not None:
            raise self.error
        return self._ready.is_set()

    def wait_applied(self, timeout: float = 2.0) -> bool:
        """Waits until the board has acknowledged the current desired state and every queued beep."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self._ready.is_set() and self._applied == self._desired and not self._beeps:
                    return True
            time.sleep(0.005)
        return False

    def request(self, verb: str, *args: object, timeout: float = 2.0) -> tuple[str, ...]:
        """Sends one raw command through the thread and returns the reply fields after ``A <seq>``.

        For ``mahj board check`` and tests; raises TimeoutError, CommandRejected or LinkLost."""
        done: queue.Queue = queue.Queue(maxsize=1)
        self._requests.put_nowait((verb, args, done))
        try:
            result = done.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"board on {self.port}: no answer to {verb} within {timeout} s") from None
        if isinstance(result, Exception):
            raise result
        return result

    def exchange_raw(self, line: bytes, timeout: float = 2.0) -> proto.Frame | None:
        """Writes one line exactly as given (say with a broken CRC, or a repeated sequence number) and returns the
        board's answer (A with the line's number, or X), None if none came. For ``mahj board check``."""
        return self.request(_RAW, line, timeout=timeout)

    def hold(self, seconds: float) -> None:
        """Stops talking to the board (heartbeats included) for ``seconds``, to check its fail-safe."""
        self._hold_until = time.monotonic() + seconds

    def close(self) -> None:
        """Stops the thread and closes the port (and the rig behind sim/simavr). The board itself goes to its
        fail-safe idle state 3 s later."""
        self._stop.set()
        self._thread.join(timeout=3)
        if self.rig is not None:
            self.rig.close()

    def __enter__(self) -> Board:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the thread ---------------------------------------------------------------------------------------
    def _run(self) -> None:
        backoff = 0.05
        while not self._stop.is_set():
            if self._link is None:
                try:
                    self._connect()
                    backoff = 0.05
                except BoardIncompatible as exc:
                    self.error = exc
                    log.error("board on %s: %s", self.port, exc)
                    self._drop_link()
                    return
                except (LinkLost, serial.SerialException, OSError) as exc:
                    self._drop_link()
                    self._note_lost(str(exc))
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, 1.0)
                continue
            try:
                self._service()
            except (LinkLost, serial.SerialException, OSError) as exc:
                self._drop_link()
                self._note_lost(str(exc))
            except Exception as exc:  # a bug here must not leave a dead thread behind a board that looks connected
                self.error = exc
                log.error("board on %s: the driver stopped (%s: %s); signals no longer reach the board",
                          self.port, type(exc).__name__, exc)
                break
        self._drop_link()

    def _note_lost(self, cause: str) -> None:
        """Remembers why the link is down; says so once if it stays down for 5 s (the recovery line follows)."""
        now = time.monotonic()
        if self._lost_since is None:
            self._lost_since, self._lost_cause, self._lost_warned = now, cause, False
        if not self._lost_warned and now - self._lost_since > 5:
            what = "unreachable for 5 s" if self.info is not None else "no board answering yet"
            log.warning("board on %s: %s (%s); signals wait, retrying in the background", self.port, what, cause)
            self._lost_warned = True

    def _drop_link(self) -> None:
        self._ready.clear()
        if self._link is not None:
            try:
                self._link.close()
            except (serial.SerialException, OSError):
                pass
        self._link = None

    def _recovered(self, kind: str, detail: str) -> None:
        self.recoveries.append(Recovery(kind, detail))
        if len(self.recoveries) > RECOVERIES_KEPT:
            del self.recoveries[0]
        now = time.monotonic()
        if now - self._last_log.get(kind, -1e9) >= 5 or kind in ("reconnect", "board_reset", "failsafe"):
            log.warning("board on %s: %s", self.port, detail)
            self._last_log[kind] = now

    def _connect(self) -> None:
        link = self._open()
        self._link = link
        self._splitter = proto.LineSplitter()
        self._unread.clear()
        link.reset_input_buffer()
        link.write(b"\n")  # ends whatever partial line the board may hold from before
        self._offset = None
        self._finish_unacked_beep()
        reply = self._transact("HELLO", proto.PROTO_VERSION, tries=HANDSHAKE_TRIES, handshake=True)
        if reply[0] == "ERR":
            raise BoardIncompatible(f"board speaks protocol {reply[-1]}, this driver {proto.PROTO_VERSION}")
        if len(reply) < 6 or reply[1] != "HELLO" or reply[2] != str(proto.PROTO_VERSION):
            raise BoardIncompatible(f"unexpected HELLO reply {' '.join(reply)!r}; is this a mahj board?")
        first = self.info is None
        self.info = BoardInfo(int(reply[2]), reply[3], reply[4], self.port)
        self._last_event = int(reply[5]) if reply[5].isdigit() else 0  # events from before we connected are stale
        self._transact("PING")  # first clock sample, so button presses get host times at once
        with self._lock:
            self._applied = None
        self._ready.set()
        if self._lost_since is not None and not first:
            self._recovered("reconnect", f"recovered from '{self._lost_cause}' after "
                            f"{time.monotonic() - self._lost_since:.1f} s; state re-applied")
        elif first:
            log.info("board on %s: %s firmware %s, protocol %d", self.port, self.info.name, self.info.firmware,
                     self.info.protocol)
        self._lost_since = None

    def _service(self) -> None:
        if time.monotonic() < self._hold_until:
            self._pump(0.02)  # listen only
            return
        with self._lock:
            desired, applied = self._desired, self._applied
            now = time.monotonic()
            while self._beeps and now - self._beeps[0][0] > self._beep_ttl:
                self._beeps.popleft()  # a beep that could not be played in time is no longer news
                self.dropped_beeps += 1
            beep = self._beeps[0][1] if self._beeps else None
        if desired != applied:
            self._transact("LEDS", *desired.leds_args())
            with self._lock:
                self._applied = desired
            return
        if beep is not None:
            self._send_beep(beep)
            return
        if self._replay_from:
            start, self._replay_from = self._replay_from, 0
            reply = self._transact("REPLAY", start)
            first = int(reply[1]) if len(reply) > 1 and reply[1].isdigit() else start
            if proto.ahead(first, start) > 0:  # the board no longer holds them: count them lost once
                self._recovered("event_gap", f"events {start}..{proto.next_number(first, -1)} lost for good")
                self._last_event = proto.next_number(first, -1)
            return
        try:
            verb, args, done = self._requests.get_nowait()
        except queue.Empty:
            pass
        else:
            try:
                done.put(self._raw(*args) if verb is _RAW else self._transact(verb, *args))
            except (CommandRejected, LinkLost) as exc:
                done.put(exc)
                if isinstance(exc, LinkLost):
                    raise
            return
        if time.monotonic() - self._last_tx >= self._heartbeat_s:
            self._transact("PING")
            return
        self._pump(0.0)  # one read: blocks for at most the port's 10 ms timeout, so new signals go out fast

    def _send_beep(self, beep: Beep, tries: int | None = None) -> None:
        """Plays a queued beep once. A BEEP whose acks were all lost keeps its number and line, so its retry after
        a reconnect (before HELLO clears the board's memory of replies) is a repeat the board does not play
        again, even across a board reset (PROTOCOL.md: a lost ack never causes a second beep)."""
        if self._unacked is not None and self._unacked[0] is beep:
            seq, line = self._unacked[1:]
        else:
            self._seq = proto.next_number(self._seq)
            seq, line = self._seq, proto.command(self._seq, "BEEP", beep.freq, beep.on_ms, beep.off_ms, beep.count)
        self._unacked = (beep, seq, line)
        self._exchange(seq, line, "BEEP", tries or self._retries + 1)
        self._unacked = None
        with self._lock:
            if self._beeps and self._beeps[0][1] is beep:
                self._beeps.popleft()

    def _finish_unacked_beep(self) -> None:
        """On a reconnect: the BEEP in flight when the link was given up is sent again exactly as before, if it is
        still wanted (queued, and not older than the beep time-to-live). It gets the handshake's tries: opening
        the port resets an Uno, whose bootloader ignores the first second of lines."""
        if self._unacked is None:
            return
        now = time.monotonic()
        with self._lock:
            queued = [(t, beep) for t, beep in self._beeps if beep is self._unacked[0]]
            if queued and now - queued[0][0] > self._beep_ttl:
                self._beeps.remove(queued[0])  # no longer news
                self.dropped_beeps += 1
                queued = []
        if queued:
            self._send_beep(self._unacked[0], HANDSHAKE_TRIES)
        self._unacked = None

    def _write(self, data: bytes) -> None:
        assert self._link is not None
        self._link.write(data)
        self._last_tx = time.monotonic()

    def _transact(self, verb: str, *args: object, tries: int | None = None, handshake: bool = False) -> tuple[str, ...]:
        """Sends one command and waits for its ack, resending the same line on a timeout or an ``X`` notice."""
        self._seq = proto.next_number(self._seq)
        return self._exchange(self._seq, proto.command(self._seq, verb, *args), verb, tries or self._retries + 1,
                              handshake)

    def _exchange(self, seq: int, line: bytes, verb: str, tries: int, handshake: bool = False) -> tuple[str, ...]:
        """Writes command ``line`` (number ``seq``) until its ack comes, ``tries`` times at most."""
        for attempt in range(1, tries + 1):
            sent = time.monotonic()
            self._write(line)
            answer = self._pump(self._ack_timeout, want=seq)
            if answer is not None and answer.kind == "A":
                reply = answer.fields[1:]
                if attempt > 1 and not handshake:
                    self._recovered("resend", f"{verb} #{seq} acknowledged on try {attempt}")
                if verb == "PING" and len(reply) == 2 and reply[1].isdigit():
                    self._clock_sample(sent, time.monotonic(), int(reply[1]))
                if reply[0] == "ERR" and not handshake:
                    raise CommandRejected(f"board on {self.port} rejected {line.decode().strip()}: "
                                          f"{' '.join(reply)}")
                return reply
        raise LinkLost(f"no answer to {verb} #{seq} after {tries} tries")

    def _raw(self, line: bytes) -> proto.Frame | None:
        self._write(line)
        fields = line.split(b" ")
        want = int(fields[1]) if fields[0] == b"C" and len(fields) > 1 and fields[1].isdigit() else -1
        return self._pump(self._ack_timeout * 2, want=want)

    def _pump(self, timeout: float, want: int | None = None) -> proto.Frame | None:
        """Reads and dispatches lines for up to ``timeout`` s; returns early with the ack for ``want`` or an ``X``
        notice (the board could not trust our line: resend at once), or None on timeout."""
        assert self._link is not None
        deadline = time.monotonic() + timeout
        while True:
            if not self._unread:
                self._unread.extend(self._splitter.feed(self._link.read(256)))
            while self._unread:  # lines behind the ack we return (a REPLAY's events) stay for the next call
                raw = self._unread.popleft()
                try:
                    frame = proto.parse(raw)
                except proto.ProtocolError as exc:
                    if self._ready.is_set():  # before the handshake a torn first line is normal, not news
                        self._recovered("garbage", f"dropped a corrupt line from the board ({exc})")
                    continue
                if want is not None and (frame.kind == "X" or (frame.kind == "A" and frame.number == want)):
                    return frame
                self._dispatch(frame)
            if time.monotonic() >= deadline:
                return None

    def _dispatch(self, frame: proto.Frame) -> None:
        problem = proto.board_line_problem(frame)
        if problem is not None:
            if self._ready.is_set():
                self._recovered("garbage", f"dropped a line from the board: {problem}")
            return
        if frame.kind == "E":
            self._event(frame)
        elif frame.kind == "H":
            # A heartbeat's event count reveals lost events (its IDLE flag is not acted on: it may predate our
            # last command; the FAILSAFE event, replayable, is what says the state was dropped).
            last = int(frame.fields[1])
            if proto.ahead(last, self._last_event) > 0:
                self._ask_replay(last)

    def _ask_replay(self, last: int) -> None:
        """Events after the last one seen up to ``last`` never arrived: the service loop asks the board again
        (once: later signs of the same gap, before the replay is served, are not a new loss). A board whose
        REPLAY does not fill the gap is asked again after REPLAY_AGAIN_S, REPLAY_TRIES times in all; then the
        gap is lost for good and said once, not a command storm and a log without end."""
        if self._replay_from:
            return
        start = proto.next_number(self._last_event)
        asked_start, times, when = self._replay_asked
        now = time.monotonic()
        if asked_start == start and now - when < REPLAY_AGAIN_S:
            return
        times = times + 1 if asked_start == start else 1
        if times > REPLAY_TRIES:
            self._recovered("event_gap", f"events {start}..{last} lost for good: the board did not replay them")
            self._last_event = last
            self._replay_asked = (0, 0, 0.0)
            return
        self._replay_asked = (start, times, now)
        self._recovered("event_gap", f"events {start}..{last} lost; asked for a replay")
        self._replay_from = start

    def _event(self, frame: proto.Frame) -> None:
        n, kind, args = frame.number, frame.fields[1], frame.fields[2:]
        if kind == "BOOT":
            self._last_event = n
            self._offset = None
            if self._ready.is_set():  # a reset while we were talking: say hello again, then re-apply
                self._recovered("board_reset", f"board reset detected (cause: {' '.join(args[2:]) or '?'}); "
                                "state re-applied")
                with self._lock:
                    self._applied = None
            return
        gap = proto.ahead(n, self._last_event)
        if gap <= 0:
            return  # already seen (a REPLAY overlaps what arrived)
        if gap > 1:
            self._ask_replay(proto.next_number(n, -1))
            return
        self._last_event = n
        if kind in ("BTN", "HOLD"):
            board_ms = int(args[1])
            t = self._offset[1] + board_ms / 1000 if self._offset else None
            self._presses.append(ButtonPress(int(args[0]), board_ms, t, n, held=kind == "HOLD"))
        elif kind == "FAILSAFE":
            with self._lock:
                self._applied = None
            self._recovered("failsafe", "board entered fail-safe (it missed the host for 3 s); state re-applied")

    def _clock_sample(self, sent: float, received: float, board_ms: int) -> None:
        """Keeps the board-to-host clock offset from the tightest PING round trip (NTP's simplest rule)."""
        rtt = received - sent
        offset = (sent + received) / 2 - board_ms / 1000
        if self._offset is None or rtt <= self._offset[0] * 1.5:
            self._offset = (min(rtt, self._offset[0]) if self._offset else rtt, offset)


def attach(rig: Any, **options: Any) -> Board:
    """A Board on a test rig (hardware/rig.py); closing the board closes the rig."""
    if rig.kind == "sim":
        return Board("sim", rig.open_link, rig=rig, **options)
    return Board(f"simavr:{rig.port}", serial_opener(rig.port), rig=rig, **options)


def open_board(port: str | None = None, **options: Any) -> Board:
    """A Board on ``port``: "sim" (emulator), "simavr" (firmware in simavr), a device, pty or pyserial URL, or
    None to find one by USB id. Returns at once; the connection is made (and remade) in the background."""
    if port in ("sim", "simavr"):
        from hardware.rig import EmulatorRig, SimavrRig

        return attach(EmulatorRig() if port == "sim" else SimavrRig.start(), **options)
    return Board(port or "auto", serial_opener(port), **options)
