"""What the card answers about a hand: a ``Verdict`` for a Mah Jongg claim, ``Suggestion``s for a hand in play."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.card.model import CardLine


@dataclass(frozen=True)
class MissingTile:
    """Tiles a line still needs: ``count`` copies of ``tile``; ``joker_ok`` if a joker may stand for them;
    ``unseen`` how many of that tile are not visible anywhere (discards, exposures, the player's own hand)."""

    tile: str
    count: int
    joker_ok: bool
    unseen: int

    def to_json(self) -> dict:
        return {"tile": self.tile, "count": self.count, "joker_ok": self.joker_ok, "unseen": self.unseen}


@dataclass(frozen=True)
class Suggestion:
    """One card line judged against a hand. ``missing`` is None when exposures rule the line out."""

    line: CardLine
    missing: int | None
    need: tuple[MissingTile, ...] = ()
    target: tuple[tuple[str, ...], ...] = ()
    dead: bool = False
    reason: str | None = None

    def to_json(self) -> dict:
        return self.line.to_json() | {
            "missing": self.missing, "need": [m.to_json() for m in self.need],
            "target": [list(g) for g in self.target], "dead": self.dead, "reason": self.reason,
        }


@dataclass(frozen=True)
class Verdict:
    """Whether 14 tiles (concealed + exposures) are Mah Jongg on the card.

    ``lines`` are all matching lines, best first (highest value); ``value`` is the best line's value.
    ``jokerless`` is True only when the bonus applies: no joker anywhere and the best line is not a Singles and
    Pairs hand. ``nearest`` (for a non-match) lists the closest lines; ``reason`` says why a hand could not be
    checked at all (wrong tile count, an exposure of mixed tiles or of jokers only) or why no line can be near
    (no exposed line allows the exposures).
    """

    mahjong: bool
    value: int | None = None
    jokerless: bool = False
    singles_and_pairs: bool = False
    lines: list[CardLine] = field(default_factory=list)
    nearest: list[Suggestion] = field(default_factory=list)
    reason: str | None = None

    def to_json(self) -> dict:
        return {
            "mahjong": self.mahjong, "value": self.value, "jokerless": self.jokerless,
            "singles_and_pairs": self.singles_and_pairs, "lines": [ln.to_json() for ln in self.lines],
            "nearest": [s.to_json() for s in self.nearest], "reason": self.reason,
        }
