"""Framing of the board protocol (hardware/PROTOCOL.md), shared by the host driver and the Python emulator.

A line is ``<body>*<CRC>\\n`` with CRC-16/XMODEM of the body as four upper-case hex digits. Host commands are
``C <seq> <VERB> args``; the board answers ``A <seq> OK ...`` or ``A <seq> ERR <code>``, sends events
``E <n> <TYPE> ...`` with their own counter, heartbeats ``H <ms> <last event> IDLE|LINK`` and ``X <reason>`` for
a line it could not trust.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

PROTO_VERSION = 1
LINE_MAX = 80  # bytes in one line, the '\n' included
COLORS = ("off", "red", "green", "amber", "blue")
MODES = "01BF"  # off, on, blink 1 Hz (500/500 ms), fast 4 Hz (125/125 ms); the board adds P (fail-safe pulse)
SEATS = 4
HOLD_MS = 1500  # a call button down this long from first contact is also reported as HOLD (the undo gesture)
BEEP_LIMITS = {"freq": (100, 8000), "on_ms": (1, 2000), "off_ms": (0, 2000), "count": (1, 9)}


def ahead(n: int, last: int) -> int:
    """How many steps counter value ``n`` is past ``last`` on the 1..65535 circle both counters wrap around
    (65535 -> 1); 0 or less: ``n`` is ``last`` or older. Half the circle ahead counts as newer, as in serial
    number arithmetic (RFC 1982), so a wrap is never mistaken for an old number."""
    steps = (n - last) % 65535
    return steps if steps < 32768 else steps - 65535


def next_number(n: int, steps: int = 1) -> int:
    """``n`` moved ``steps`` along the 1..65535 circle."""
    return (n - 1 + steps) % 65535 + 1


class ProtocolError(ValueError):
    """A line that is not a valid frame (bad CRC, bad shape); the message says what was wrong."""


def crc16_xmodem(data: bytes) -> int:
    """CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection; check value 0x31C3 for b"123456789"."""
    return binascii.crc_hqx(data, 0)  # the standard library's CCITT CRC with initial value 0 is exactly XMODEM


def frame(body: str) -> bytes:
    """One wire line for ``body``: the body, ``*``, its CRC in hex, ``\\n``."""
    raw = body.encode("ascii")
    line = raw + b"*%04X\n" % crc16_xmodem(raw)
    if len(line) > LINE_MAX:
        raise ProtocolError(f"line of {len(line)} bytes exceeds {LINE_MAX}: {body!r}")
    return line


def command(seq: int, verb: str, *args: object) -> bytes:
    """A host command line; ``seq`` is 1..65535 and is reused unchanged when the command is retried."""
    if not 1 <= seq <= 65535:
        raise ProtocolError(f"sequence number {seq} outside 1..65535")
    return frame(" ".join(["C", str(seq), verb, *map(str, args)]))


@dataclass(frozen=True)
class Frame:
    """A checked line: ``kind`` is the first field (C, A, E, H, X), ``fields`` the rest split on spaces."""

    kind: str
    fields: tuple[str, ...]
    crc: int

    @property
    def number(self) -> int:
        """The sequence number of C and A lines, the event counter of E lines."""
        return int(self.fields[0])


def parse(line: bytes) -> Frame:
    """Checks one line (with or without its line end) and splits it; raises ProtocolError saying why not."""
    text = line.rstrip(b"\r\n")
    if len(text) + 1 > LINE_MAX:
        raise ProtocolError(f"line longer than {LINE_MAX} bytes")
    if any(b < 0x20 or b > 0x7E for b in text):
        raise ProtocolError("non-printable byte in line")
    body, star, crc_text = text.rpartition(b"*")
    if not star or len(crc_text) != 4:
        raise ProtocolError("no '*CRC' at the end of the line")
    try:
        want = int(crc_text, 16)
    except ValueError:
        raise ProtocolError(f"CRC {crc_text!r} is not hex") from None
    if crc_text.upper() != crc_text:
        raise ProtocolError("CRC must be upper-case hex")
    got = crc16_xmodem(body)
    if got != want:
        raise ProtocolError(f"CRC mismatch: line says {want:04X}, body gives {got:04X}")
    parts = body.decode("ascii").split(" ")
    if not parts[0] or any(not p for p in parts):
        raise ProtocolError("empty field (fields are separated by exactly one space)")
    kind, fields = parts[0], tuple(parts[1:])
    if kind in ("C", "A", "E") and (not fields or not fields[0].isdigit()):
        raise ProtocolError(f"{kind} line without a number")
    return Frame(kind, fields, want)


class LineSplitter:
    """Cuts a byte stream into lines, recovering from partial and overlong lines.

    The first bytes after opening a port may be the tail of a line the board sent earlier, and noise may
    swallow a line end: such fragments still end at a ``\\n`` and then fail their CRC in ``parse``; a run of
    bytes longer than LINE_MAX without a line end is dropped up to the next ``\\n``.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._skipping = False
        self.dropped = 0  # overlong fragments thrown away

    def feed(self, data: bytes) -> list[bytes]:
        lines = []
        for byte in data:
            if byte == 0x0A:
                if not self._skipping:
                    lines.append(bytes(self._buf))
                self._buf.clear()
                self._skipping = False
            elif not self._skipping:
                self._buf.append(byte)
                if len(self._buf) >= LINE_MAX:
                    self._buf.clear()
                    self._skipping = True
                    self.dropped += 1
        return [line for line in lines if line.strip()]


#: What each board event carries after its type: the checks a host makes before acting on one.
EVENT_ARGS = {"BTN": 2, "HOLD": 2, "FAILSAFE": 1}


def board_line_problem(frame: Frame) -> str | None:
    """Why a CRC-valid line from a board cannot be acted on (a field that is not a number, a seat that does not
    exist, too few fields), or None. A board speaking garbage is reported, never a crash in the host."""
    f = frame.fields
    if frame.kind == "H":
        if len(f) < 3 or not f[0].isdigit() or not f[1].isdigit() or f[2] not in ("IDLE", "LINK"):
            return f"heartbeat {' '.join(f)!r} is not H <board_ms> <last_n> IDLE|LINK"
        if int(f[1]) > 65535:
            return f"heartbeat event count {f[1]} outside 0..65535"
    elif frame.kind == "E":
        if len(f) < 2 or not 1 <= int(f[0]) <= 65535:
            return f"event {' '.join(f)!r} has no number in 1..65535 and type"
        want = EVENT_ARGS.get(f[1])
        if want is not None and (len(f) - 2 < want or not all(x.isdigit() for x in f[2:2 + want])):
            return f"event {f[1]} needs {want} number(s): {' '.join(f)!r}"
        if f[1] in ("BTN", "HOLD") and int(f[2]) >= SEATS:
            return f"event {f[1]} for seat {f[2]}: seats are 0..{SEATS - 1}"
    return None
