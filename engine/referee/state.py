"""What the referee knows about the table: only what is observable (counts, exposures, discards, who is out)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any


class Rejected(Exception):
    """Internal signal: the event is illegal now; becomes a ``rejected`` ruling and leaves the state untouched."""


class Phase(Enum):
    """Where the player in turn is within the turn (rules 001: pick or claim, optional exchanges, discard)."""

    WAIT_PICK = "wait_pick"  # 13 tiles: must pick (or someone claims the live discard)
    PICKED = "picked"  # picked but not racked: the window on the previous discard is still open
    HOLDING = "holding"  # 14 tiles in: may exchange jokers, declare Mah Jongg or discard
    CLAIMED = "claimed"  # a claimed discard is in: must expose it (or declare Mah Jongg)


class Stage(Enum):
    IDLE = "idle"  # before the first deal
    CHARLESTON = "charleston"
    PLAY = "play"
    OVER = "over"


@dataclass
class SeatState:
    """One chair. ``concealed``: tiles on the rack's sloped side; ``exposures`` as displayed (jokers "J")."""

    concealed: int = 0
    exposures: list[list[str]] = field(default_factory=list)
    exposure_tiles: list[str] = field(default_factory=list)  # the natural tile each exposure is made of
    discards: list[str] = field(default_factory=list)  # tiles this seat threw that still lie on the floor
    out: str | None = None  # None (live), "dead", "mahjong_in_error", "threw_in"
    out_reason: str | None = None
    fault: str | None = None  # a play that makes this seat pay for the table if its discard wins
    attempted_value: int | None = None

    @property
    def total(self) -> int:
        return self.concealed + sum(len(e) for e in self.exposures)

    def clone(self) -> SeatState:
        return replace(self, exposures=[list(e) for e in self.exposures], exposure_tiles=list(self.exposure_tiles),
                       discards=list(self.discards))

    def to_json(self) -> dict[str, Any]:
        return {
            "tiles": self.total, "concealed": self.concealed, "exposures": [list(e) for e in self.exposures],
            "discards": list(self.discards), "dead": self.out is not None, "out": self.out,
            "out_reason": self.out_reason,
        }


@dataclass
class Window:
    """The live discard and its window of opportunity."""

    discarder: int
    tile: str
    named: str | None
    opened_at: float
    fault_seat: int | None = None  # set when a win on this discard makes its discarder pay for the table
    claims: dict[int, tuple[str, float]] = field(default_factory=dict)  # seat -> (purpose, t)

    def clone(self) -> Window:
        return replace(self, claims=dict(self.claims))

    @property
    def misnamed(self) -> bool:
        return self.named is not None and self.named != self.tile

    @property
    def wins_as_named(self) -> bool:
        """A Mah Jongg may be won on the spoken name of a misnamed discard, unless that name is "Joker": a
        discarded joker is dead, named or not."""
        return self.misnamed and self.named != "J"


@dataclass
class Award:
    """A claim that won: the claimant must now expose (or declare). ``resume`` is the turn the claim interrupted
    (seat, phase, turn source), given back if the claim is withdrawn."""

    seat: int
    purpose: str
    window: Window
    resume: tuple[int, Phase, str]


#: The Charleston passes in order (NMJL: first Charleston right-across-left, second left-across-right).
CHARLESTON_STEPS: tuple[str, ...] = ("right", "across", "left", "left", "across", "right")
BLIND_STEPS = (2, 5)  # first left and last right allow a blind pass
