"""What the referee answers: rulings, each a kind name the board, display and speech key on, plus data."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Ruling:
    """One decision. ``kind`` is one of the names in docs/referee.md (e.g. ``window_opened``, ``dead_hand``);
    ``seat`` the chair it concerns (None for table-wide rulings); ``data`` JSON-ready details."""

    kind: str
    t: float
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A ruling records the moment it was given: copy the data so later changes to the referee's state
        # (e.g. a joker exchanged out of an exposure the data lists) never rewrite a ruling already issued.
        object.__setattr__(self, "data", copy.deepcopy(self.data))

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "t": self.t, "seat": self.seat, "data": self.data}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Ruling:
        return cls(kind=d["kind"], t=float(d["t"]), seat=d.get("seat"), data=dict(d.get("data") or {}))


def seat_keys(amounts: dict[int, int]) -> dict[str, int]:
    """Seat-keyed amounts with string keys in seat order, so ruling data survives a JSON round trip unchanged."""
    return {str(s): v for s, v in sorted(amounts.items())}


#: Every ruling kind the referee emits (docs/referee.md describes each one's data).
KINDS: frozenset[str] = frozenset({
    # the contract kinds the board, display and speech act on
    "window_opened", "window_closed", "claim_pending", "claim_awarded", "turn", "exposure_accepted", "dead_hand",
    "rejected", "mahjong_verified", "mahjong_in_error", "settlement", "wall_game", "game_over",
    # the rest of the game
    "dealt", "charleston_skipped", "charleston_passed", "charleston_step_done", "charleston_stopped",
    "courtesy_offered", "courtesy_agreed", "picked", "pick_returned", "claim_denied", "joker_exchange_announced",
    "joker_exchanged", "joker_exchange_wrong_tile", "misnamed_discard", "challenge_upheld", "challenge_failed",
    "take_tile", "redeal", "threw_in", "penalty", "pivot_switch", "east_rotates", "last_survivor",
    "survivor_payment_due", "hand_value_needed", "seats_changed", "corrected", "warning", "claim_withdrawn",
    "discard_at_fault",
    # the camera's evidence put to a person (engine/referee/doubt.py), and the rule additions of issue 30
    "question", "question_dropped", "confirmed", "exposure_extended", "challenge_pending",
})
