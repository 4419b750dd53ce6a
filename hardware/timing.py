"""Timings read off a rig's logs: when the board had a command line, and when its pins answered."""

from __future__ import annotations

from hardware import protocol as proto
from hardware.pins import PinChange

PIN_VERBS = ("LEDS", "WIN", "SEAT", "BEEP", "QUIET")  # verbs whose effect shows on a pin at once


def command_latencies(rx_log: list[tuple[float, bytes]], pins: list[PinChange], since: float = 0.0) -> list[float]:
    """Seconds from the end of each pin-changing command line to its first pin change.

    A command that changes nothing (the pins were already so) has no latency and is skipped; the search for a
    command's pin change stops at the next host line, so a later command is never credited to it.
    """
    out = []
    lines = [(t, line) for t, line in rx_log if t >= since]
    for i, (t, line) in enumerate(lines):
        try:
            frame = proto.parse(line)
        except proto.ProtocolError:
            continue
        if frame.kind != "C" or len(frame.fields) < 2 or frame.fields[1] not in PIN_VERBS:
            continue
        end = lines[i + 1][0] if i + 1 < len(lines) else float("inf")
        first = next((p.t for p in pins if t <= p.t < end), None)
        if first is not None:
            out.append(first - t)
    return out


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def edges(pins: list[PinChange], pin: str, since: float = 0.0) -> list[PinChange]:
    return [p for p in pins if p.pin == pin and p.t >= since]
