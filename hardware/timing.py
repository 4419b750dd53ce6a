"""Timings read off a rig's logs: when the board had a command line, and when its pins answered."""

from __future__ import annotations

from hardware import protocol as proto
from hardware.pins import PinChange, levels_at

PIN_VERBS = ("LEDS", "WIN", "SEAT", "BEEP", "QUIET")  # verbs whose effect shows on a pin at once


COLOR_BITS = {"off": (0, 0, 0), "red": (1, 0, 0), "green": (0, 1, 0), "amber": (1, 1, 0), "blue": (0, 0, 1)}


def expected_pins(fields: tuple[str, ...]) -> dict[str, bool]:
    """The pins a command line must set at once (True = lit/sounding), from PROTOCOL.md's semantics.

    Every window mode starts lit; a seat in LEDS keeps its blink phase when its mode is unchanged, so only
    steady seats (0/1) are predictable from the line alone."""
    verb, args = fields[1], fields[2:]
    want: dict[str, bool] = {}
    if verb in ("LEDS", "WIN") and len(args) >= 2 and args[0] in COLOR_BITS:
        lit = args[1] != "0"
        rgb = zip(("WIN_R", "WIN_G", "WIN_B"), COLOR_BITS[args[0]], strict=True)
        want.update({pin: bool(bit) and lit for pin, bit in rgb})
    if verb == "LEDS" and len(args) == 3:
        want.update({f"SEAT{i}": m == "1" for i, m in enumerate(args[2]) if m in "01"})
    if verb == "SEAT" and len(args) == 2:
        want[f"SEAT{args[0]}"] = args[1] != "0"
    if verb in ("BEEP", "QUIET"):
        want["BUZZ"] = verb == "BEEP"
    return want


def command_latencies(rx_log: list[tuple[float, bytes]], pins: list[PinChange], since: float = 0.0) -> list[float]:
    """Seconds from the end of each command line to the moment its pins show what it asked for.

    Only commands that had to change a pin count (setting what is already shown has no latency), and a command
    is only credited with changes before the next host line."""
    out = []
    lines = [(t, line) for t, line in rx_log if t >= since]
    for i, (t, line) in enumerate(lines):
        try:
            frame = proto.parse(line)
        except proto.ProtocolError:
            continue
        if frame.kind != "C" or len(frame.fields) < 2 or frame.fields[1] not in PIN_VERBS:
            continue
        before = levels_at([p for p in pins if p.t < t])
        todo = {pin: lit for pin, lit in expected_pins(frame.fields).items() if bool(before[pin]) != lit}
        if not todo:
            continue
        end = lines[i + 1][0] if i + 1 < len(lines) else float("inf")
        for p in pins:
            if t <= p.t < end and p.pin in todo and bool(p.value) == todo[p.pin]:
                del todo[p.pin]
                if not todo:
                    out.append(p.t - t)
                    break
    return out


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def edges(pins: list[PinChange], pin: str, since: float = 0.0) -> list[PinChange]:
    return [p for p in pins if p.pin == pin and p.t >= since]
