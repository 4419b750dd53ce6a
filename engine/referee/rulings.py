"""What the referee answers: rulings, each a kind name the board, display and speech key on, plus data."""

from __future__ import annotations

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

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "t": self.t, "seat": self.seat, "data": self.data}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Ruling:
        return cls(kind=d["kind"], t=float(d["t"]), seat=d.get("seat"), data=dict(d.get("data") or {}))
