"""Whose turn it is and what each seat did last: the memory the region rules share to say who made a move and
whether that seat may make it now."""

from __future__ import annotations

import numpy as np

from vision import events as ev

#: Observations that are a seat's own move (what ``Turns.last_move`` remembers).
SEAT_MOVES = tuple(o.type for o in (ev.DiscardDown, ev.Picked, ev.Racked, ev.ExposurePlaced, ev.JokerExchanged,
                                    ev.HandDisplayed))
TAKEN_FROM_FLOOR_S = 10.0 # a tile taken off the floor this recently may be racked out of turn (Mah Jongg on it)


class Turns:
    """The turn (the referee's when it says, else the reader's own from the moves it saw), the arms seen
    reaching in, and per seat its last move, its slope's picture at its last pick, and the standing tiles it
    lost without a move (``unexplained``: a hand over the rack, or the model missing a tile for a reading)."""

    def __init__(self) -> None:
        self.turn: int | None = None
        self.arm_seen: dict[int, float] = {}          # seat -> last time an arm reached in from that seat's edge
        self.last_move: dict[int, str] = {}           # seat -> type of the last move observed of it (SEAT_MOVES)
        self.slope_at_pick: dict[int, np.ndarray | None] = {}  # seat -> its slope's picture at its last pick (or None)
        self.last_discard: tuple[int, int] | None = None    # (floor track id, seat) of the latest discard
        self.floor_taken: tuple[float, set[int]] = (-1e9, set())  # when a tile last left the floor; who may have
        self.unexplained: dict[int, list[tuple[float, float, float, int]]] = {}  # seat -> (t, x, y, how many)

    def actor(self, since: float, now: float) -> int:
        """Who did it: the seat whose arm reached in while this region was changing; among several the
        referee's turn (or ours), else the most recent; with no arm seen, the turn holder."""
        seen = self.arms(since, now)
        if len(seen) == 1:
            return next(iter(seen))
        if self.turn is not None and (not seen or self.turn in seen):
            return self.turn
        return max(seen, key=seen.get) if seen else -1

    def arms(self, since: float, now: float) -> dict[int, float]:
        """The seats whose arms reached in from ``since`` (less half a second) to ``now``, and when last."""
        return {s: at for s, at in self.arm_seen.items() if since - 0.5 <= at <= now}

    def may_rack(self, seat: int, t: float) -> bool:
        """Only the player in turn racks, or one who just took a tile off the floor (Mah Jongg on a discard; a
        tile called for an exposure goes onto the rack top instead). Elsewhere a row grown longer is the tile
        model finding a standing tile it had missed (seen edge-on from above they are the hardest to see),
        typically on the re-read after a bump or a light change: adopted silently, since a rack out of turn
        would be taken for a call."""
        taken_t, takers = self.floor_taken
        if self.turn is None or seat == self.turn:
            return True
        return t - taken_t <= TAKEN_FROM_FLOOR_S and bool({seat, -1} & takers)

    def explain_removal(self, seat: int, n: int = 1) -> None:
        """A move of ``seat`` that took ``n`` standing tiles: those removals were no occlusion."""
        gone = self.unexplained.get(seat, [])
        del gone[max(0, len(gone) - n):]

    def remember(self, moves: list[ev.Observation]) -> None:
        """Note each seat's latest move among ``moves``."""
        for o in moves:
            if o.type in SEAT_MOVES and o.seat >= 0:
                self.last_move[o.seat] = o.type
