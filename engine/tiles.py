"""The American Mah Jongg tile set: codes, spoken names, parsing of what people type.

Tile identity is the tile *code* (``"3B"``, ``"N"``, ``"WD"``, ``"F"``, ``"J"``): it is what files, JSON and
the command line use, so the rest of the product passes codes around and only converts to small integers
(``INDEX``) where speed matters (matchers, model class ids). The order of ``TILES`` is fixed and is also the
class order of the tile model, so never reorder it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import Enum

from engine.spelling import did_you_mean


class Suit(Enum):
    """The three numbered suits. The value is the letter used in tile codes."""

    BAM = "B"
    CRAK = "C"
    DOT = "D"

    @property
    def word(self) -> str:
        return {"B": "Bam", "C": "Crak", "D": "Dot"}[self.value]


SUITS: tuple[Suit, ...] = (Suit.BAM, Suit.CRAK, Suit.DOT)
WINDS: tuple[str, ...] = ("N", "E", "W", "S")
DRAGONS: tuple[str, ...] = ("RD", "GD", "WD")
FLOWER = "F"
JOKER = "J"

#: All 36 tile kinds in their fixed order (suits 1-9, winds, dragons, flower, joker).
TILES: tuple[str, ...] = (
    tuple(f"{n}{s.value}" for s in SUITS for n in range(1, 10)) + WINDS + DRAGONS + (FLOWER, JOKER)
)
INDEX: dict[str, int] = {code: i for i, code in enumerate(TILES)}

#: How many of each kind a standard 152-tile American set holds.
SET_COUNTS: dict[str, int] = {code: 4 for code in TILES} | {FLOWER: 8, JOKER: 8}

#: The dragon that "belongs" to each suit on the card (Bam-Green, Crak-Red, Dot-Soap).
DRAGON_OF_SUIT: dict[Suit, str] = {Suit.BAM: "GD", Suit.CRAK: "RD", Suit.DOT: "WD"}

_NUMBER_WORDS = ("One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")
_HONOR_NAMES = {
    # "wind" always: a seat is also called East or North, and a blind player must never confuse the two.
    "N": "North wind", "E": "East wind", "W": "West wind", "S": "South wind",
    "RD": "Red Dragon", "GD": "Green Dragon", "WD": "Soap", FLOWER: "Flower", JOKER: "Joker",
}


class TileError(ValueError):
    """Text that does not name a tile. ``position`` is the 0-based index in the input list, if known."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


def suit_of(code: str) -> Suit | None:
    """The suit of a numbered tile, ``None`` for winds, dragons, flowers and jokers."""
    if len(code) == 2 and code[0].isdigit():
        return Suit(code[1])
    return None


def rank_of(code: str) -> int | None:
    """The number (1-9) of a suit tile, ``None`` otherwise."""
    return int(code[0]) if len(code) == 2 and code[0].isdigit() else None


def suit_tile(rank: int, suit: Suit) -> str:
    """The code of number ``rank`` in ``suit``."""
    if not 1 <= rank <= 9:
        raise TileError(f"no tile numbered {rank}")
    return f"{rank}{suit.value}"


def spoken_name(code: str) -> str:
    """The name a caller says aloud: "Three Bam", "North wind", "Soap", "Flower", "Joker"."""
    if code in _HONOR_NAMES:
        return _HONOR_NAMES[code]
    suit = suit_of(code)
    if suit is None or code not in INDEX:
        raise TileError(f"unknown tile code {code!r}")
    return f"{_NUMBER_WORDS[int(code[0]) - 1]} {suit.word}"


def name_or_code(code: object) -> str:
    """The spoken name of a tile code, or the text itself when it is not one (e.g. a misread the camera
    reported, or "?"): what speech and the display say must never fail on odd input."""
    try:
        return spoken_name(str(code))
    except TileError:
        return str(code)


# --- parsing what people type ------------------------------------------------------------------------------

_SUIT_WORDS = {
    "b": Suit.BAM, "bam": Suit.BAM, "bams": Suit.BAM, "bamboo": Suit.BAM, "bamboos": Suit.BAM, "s": Suit.BAM,
    "c": Suit.CRAK, "crak": Suit.CRAK, "craks": Suit.CRAK, "crack": Suit.CRAK, "cracks": Suit.CRAK,
    "character": Suit.CRAK, "characters": Suit.CRAK, "m": Suit.CRAK,
    "d": Suit.DOT, "dot": Suit.DOT, "dots": Suit.DOT, "circle": Suit.DOT, "circles": Suit.DOT, "p": Suit.DOT,
}
_WORD_TILES = {
    "n": "N", "north": "N", "e": "E", "east": "E", "w": "W", "west": "W", "s": "S", "south": "S",
    "north wind": "N", "east wind": "E", "west wind": "W", "south wind": "S",
    "rd": "RD", "red": "RD", "red dragon": "RD", "r": "RD",
    "gd": "GD", "green": "GD", "green dragon": "GD", "g": "GD",
    "wd": "WD", "white": "WD", "white dragon": "WD", "soap": "WD", "0": "WD", "zero": "WD",
    "f": FLOWER, "flower": FLOWER, "flowers": FLOWER, "fl": FLOWER,
    "j": JOKER, "joker": JOKER, "jokers": JOKER, "jk": JOKER,
}
_NUMBER_TEXT = {w.lower(): i + 1 for i, w in enumerate(_NUMBER_WORDS)} | {str(i): i for i in range(1, 10)}
_SUITED = re.compile(r"^(?P<n>[1-9]|[a-z]+)\s*-?\s*(?P<s>[a-z]+)$")


def parse_tile(text: str) -> str:
    """Read one tile as people write it ("3B", "3 bam", "three bams", "soap", "red", "flower", "J").

    Winds win over suit letters for the bare single letters ``N E W S``; a number must come with a suit.
    """
    t = " ".join(text.strip().lower().replace("_", " ").split())
    if not t:
        raise TileError("empty tile name")
    if t in _WORD_TILES:
        return _WORD_TILES[t]
    m = _SUITED.match(t)
    if m and m.group("n") in _NUMBER_TEXT:
        if m.group("s") in _SUIT_WORDS:
            return suit_tile(_NUMBER_TEXT[m.group("n")], _SUIT_WORDS[m.group("s")])
        raise _SuitError(f"{m.group('s')!r} is not a suit{did_you_mean(m.group('s'), _SUIT_NAMES) or _SUIT_HINT}")
    hint = did_you_mean(t, _TILE_WORDS) or " (try codes like 3B, 7C, 1D, N, RD, WD, F, J)"
    raise TileError(f"not a tile: {text.strip()!r}{hint}")


class _SuitError(TileError):
    """A number followed by a word that is not a suit ("3 bma"): the word is the one to blame."""


_SUIT_NAMES = ("bam", "crak", "dot", "bams", "craks", "dots", "bamboo", "crack", "circle")
_SUIT_HINT = " (suits are bam, crak, dot)"
#: Whole-word names worth offering for a typo (single letters and digits would match anything).
_TILE_WORDS = tuple(w for w in _WORD_TILES if len(w) > 2)


def parse_tiles(text: str | Iterable[str]) -> list[str]:
    """Read a list of tiles: a whitespace/comma separated string ("3B 3B J, N") or an iterable of names.

    Multi-word names ("3 bam", "red dragon") are recognised in a string by trying two-word chunks first.
    Errors carry the 0-based position of the offending token.
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        pair_error: TileError | None = None
        if isinstance(text, str) and i + 1 < len(tokens):
            try:
                out.append(parse_tile(f"{tokens[i]} {tokens[i + 1]}"))
                i += 2
                continue
            except _SuitError as exc:
                pair_error = exc  # "3 bma": blame "bma" if "3" alone is no tile either
            except TileError:
                pass
        try:
            out.append(parse_tile(tokens[i]))
        except TileError as exc:
            raise TileError(f"tile {i + 1}: {pair_error or exc}", position=i) from None
        i += 1
    return out


def format_tiles(codes: Iterable[str]) -> str:
    """Codes joined by spaces, the way the product prints hands."""
    return " ".join(codes)


def sort_key(code: str) -> int:
    """Sort order used for display: suits, winds, dragons, flowers, jokers."""
    return INDEX[code]
