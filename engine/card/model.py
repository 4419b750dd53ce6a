"""The parsed card: lines as the user typed them, their groups, and the diagnostics a bad file produces.

These types are what the rest of the product holds on to (the referee keeps ``CardLine`` objects in its rulings),
so they are small, immutable and JSON-friendly; the compiled, fast form lives in ``engine.card.compiled``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

#: Symbols a group may contain: suit numbers, zero (White Dragon, suitless), Flower, winds, the suit's Dragon.
NUMBERS = "123456789"
SUITLESS = "0FNEWS"
SYMBOLS = NUMBERS + SUITLESS + "D"
TAGS = "abc"


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a card file, at a 1-based line and column."""

    file: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.message}"

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "col": self.col, "message": self.message}


class CardError(ValueError):
    """A card file that does not parse. ``diagnostics`` holds every problem found, as ``file:line:col: msg``."""

    def __init__(self, errors: list[Diagnostic]) -> None:
        self.errors = list(errors)
        self.diagnostics = [str(d) for d in self.errors]
        super().__init__("\n".join(self.diagnostics))


@dataclass(frozen=True)
class Group:
    """One group as written on the card (``2026a``, ``DDD``, ``NEWS``), before suits and shifts are applied."""

    symbols: str
    tag: str | None
    col: int = field(compare=False)

    @property
    def size(self) -> int:
        return len(self.symbols)

    @property
    def joker_ok(self) -> bool:
        """Jokers may stand only in groups of three or more identical tiles (pung, kong, quint, sextet)."""
        return len(self.symbols) >= 3 and len(set(self.symbols)) == 1

    @functools.cached_property
    def suited(self) -> bool:
        """Whether the group has tiles that take a suit (numbers 1-9 or the suit's dragon)."""
        return any(s in NUMBERS or s == "D" for s in self.symbols)

    def __str__(self) -> str:
        return self.symbols + (self.tag or "")


@dataclass(frozen=True)
class Slot:
    """A position in a hand line: one group, or several alternatives (``333a|666a|999a``) of equal size."""

    alternatives: tuple[Group, ...]

    @property
    def size(self) -> int:
        return self.alternatives[0].size

    def __str__(self) -> str:
        return "|".join(str(g) for g in self.alternatives)


@dataclass(frozen=True)
class CardLine:
    """One hand on the card. ``number`` is 1-based within its section, as players count lines on the card."""

    section: str
    number: int
    text: str
    value: int
    concealed: bool
    slots: tuple[Slot, ...] = field(default=(), compare=False, repr=False)
    shifts: tuple[int, ...] | None = field(default=None, compare=False, repr=False)  # None: `shift any`
    shifted: bool = field(default=False, compare=False, repr=False)
    note: str = field(default="", compare=False, repr=False)
    source_line: int = field(default=0, compare=False, repr=False)

    @property
    def singles_and_pairs(self) -> bool:
        """A line with no pung-or-larger group: jokers can never be used, and no jokerless bonus applies."""
        return not any(g.joker_ok for s in self.slots for g in s.alternatives)

    @property
    def label(self) -> str:
        return f"{self.section} #{self.number}"

    def to_json(self) -> dict:
        return {"section": self.section, "line": self.number, "text": self.text, "value": self.value,
                "concealed": self.concealed}
