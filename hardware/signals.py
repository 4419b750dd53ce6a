"""What the board shows for each referee ruling: the one table to edit to change the signals.

Rulings are duck-typed (``kind``, ``seat``, ``data`` attributes, like engine.referee.Ruling) so this package
never imports the engine. Seat LEDs: lit = whose turn; blinking = that seat is dead or its Mah Jongg was in
error (the blink survives turn changes until the game ends; on that seat's own turn it blinks fast).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from hardware import protocol as proto


@dataclass(frozen=True)
class Beep:
    freq: int
    on_ms: int
    off_ms: int = 0
    count: int = 1


@dataclass(frozen=True)
class BoardState:
    """The LEDs the host wants lit; the driver re-applies it after any reconnect or board reset."""

    window: str = "off"  # protocol colour
    window_mode: str = "1"  # protocol mode: 0 off, 1 on, B blink 1 Hz, F fast 4 Hz
    seats: tuple[str, ...] = ("0",) * proto.SEATS

    def leds_args(self) -> tuple[str, str, str]:
        """Arguments of the LEDS command that sets all of this at once."""
        return self.window, self.window_mode, "".join(self.seats)


@dataclass(frozen=True)
class Signal:
    window: tuple[str, str] | None = None  # (colour, mode) of the window LED, None = leave it
    seat: str | None = None  # "turn": light only the ruling's seat; "B": blink it; "clear": all seats off
    beep: Beep | None = None


SIGNALS: dict[str, Signal] = {
    "window_opened": Signal(window=("green", "1"), beep=Beep(2000, 40)),
    "claim_pending": Signal(window=("amber", "1"), beep=Beep(1500, 60, 60, 2)),
    "window_closed": Signal(window=("red", "1"), beep=Beep(880, 150)),
    "turn": Signal(seat="turn"),
    "mahjong_verified": Signal(window=("green", "F"), beep=Beep(2000, 120, 80, 3)),
    "mahjong_in_error": Signal(window=("red", "F"), seat="B", beep=Beep(300, 500)),
    "dead_hand": Signal(seat="B", beep=Beep(400, 250)),
    "wall_game": Signal(window=("off", "0"), seat="clear"),
    "game_over": Signal(window=("off", "0"), seat="clear"),
    # A correction (an undo, say from a held call button) replayed the game: the host sets the replayed game's
    # lights itself; the low double beep tells the table, and the player holding the button can let go.
    "corrected": Signal(beep=Beep(600, 80, 60, 2)),
    # The camera's evidence would cost someone: mahj asks (blue, blinking, and three short mid beeps, like no other
    # signal) until a person answers; the host then sets the game's lights again, as after a correction.
    "question": Signal(window=("blue", "B"), beep=Beep(1200, 80, 80, 3)),
}


def apply(state: BoardState, ruling: Any) -> tuple[BoardState, Beep | None] | None:
    """The state after ``ruling`` and the beep to play, or None when the board has nothing to show for it."""
    signal = SIGNALS.get(getattr(ruling, "kind", None))
    if signal is None:
        return None
    seat = getattr(ruling, "seat", None)
    if signal.window:
        state = replace(state, window=signal.window[0], window_mode=signal.window[1])
    if signal.seat == "clear":
        state = replace(state, seats=("0",) * proto.SEATS)
    elif signal.seat and isinstance(seat, int) and 0 <= seat < proto.SEATS:
        if signal.seat == "turn":  # a dead seat whose turn it is blinks fast, so neither fact is lost
            dead = tuple(m in "BF" for m in state.seats)
            seats = tuple(("F" if dead[i] else "1") if i == seat else ("B" if dead[i] else "0") for i in range(4))
        else:
            seats = tuple(signal.seat if i == seat else m for i, m in enumerate(state.seats))
        state = replace(state, seats=seats)
    return state, signal.beep
