"""Board outputs as observed on the pins, shared by the Python emulator and the simavr rig.

Pin names: WIN_R, WIN_G, WIN_B (window RGB LED), SEAT0..SEAT3 (East, South, West, North), LINK (host talking)
are 0/1; BUZZ is the tone frequency in Hz while the piezo sounds, 0 when silent. Times are the board
simulation's own clock in seconds (simavr: simulated time; emulator: its clock), so latencies measured from
them do not depend on how loaded the host is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

LED_PINS = ("WIN_R", "WIN_G", "WIN_B", "SEAT0", "SEAT1", "SEAT2", "SEAT3", "LINK")
PINS = (*LED_PINS, "BUZZ")
SEAT_NAMES = ("East", "South", "West", "North")


@dataclass(frozen=True)
class PinChange:
    t: float
    pin: str
    value: int


def window_color(levels: dict[str, int]) -> str:
    """The colour a person sees from the three window LED channels."""
    rgb = (levels.get("WIN_R", 0), levels.get("WIN_G", 0), levels.get("WIN_B", 0))
    return {(1, 0, 0): "red", (0, 1, 0): "green", (1, 1, 0): "amber", (0, 0, 1): "blue", (0, 0, 0): "off"}.get(
        rgb, "mixed"
    )


def levels_at(changes: Iterable[PinChange], t: float | None = None) -> dict[str, int]:
    """Pin levels after replaying ``changes`` up to time ``t`` (all of them when None)."""
    levels = dict.fromkeys(PINS, 0)
    for c in changes:
        if t is not None and c.t > t:
            break
        levels[c.pin] = c.value
    return levels


def render(levels: dict[str, int]) -> str:
    """One terminal line for the board: window colour, lit seats, tone. For the assistant's status bar."""
    seats = " ".join(f"{name[0]}{'*' if levels.get(f'SEAT{i}') else '.'}" for i, name in enumerate(SEAT_NAMES))
    tone = f" beep {levels['BUZZ']} Hz" if levels.get("BUZZ") else ""
    return f"window {window_color(levels):5} | {seats}{tone}"
