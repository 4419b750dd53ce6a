"""Japanese tiles in mpsz notation and as the small integers the scorer works with.

The scorer counts tiles in 34 ints (index = tile kind), because every rule it checks is a question about
counts: ``0..8`` are 1m..9m (Craks), ``9..17`` 1p..9p (Dots), ``18..26`` 1s..9s (Bams), ``27..33`` the
honours East, South, West, North, White, Green, Red (``1z..7z``). A red five (``0m 0p 0s``) is the same kind
as its plain five; the parser reports how many red fives it saw separately, because only dora cares.

The Japanese suits are the American ones under other letters, so the suit identity comes from
:mod:`engine.tiles` (``m`` = Crak, ``p`` = Dot, ``s`` = Bam) and :func:`american_code` turns a kind into the
product's tile code (for spoken names and display); nothing else is shared: the sets differ (no flowers or
jokers here, red fives there).
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.tiles import Suit

#: mpsz suit letter -> the product's suit, in index order (m, p, s).
SUIT_LETTERS: dict[str, Suit] = {"m": Suit.CRAK, "p": Suit.DOT, "s": Suit.BAM}
_SUIT_BASE = {"m": 0, "p": 9, "s": 18}
#: Honour kinds in ``1z..7z`` order, as the product's tile codes.
HONOUR_CODES: tuple[str, ...] = ("E", "S", "W", "N", "WD", "GD", "RD")

EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WIND_INDEX: dict[str, int] = {"E": EAST, "S": SOUTH, "W": WEST, "N": NORTH}

#: Terminals and honours (the 13 kinds of thirteen orphans).
TERMINALS_AND_HONOURS: tuple[int, ...] = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
IS_TERMINAL_OR_HONOUR: tuple[bool, ...] = tuple(i in TERMINALS_AND_HONOURS for i in range(34))
#: The kinds of All Green: 2, 3, 4, 6, 8 Bams and the Green Dragon.
GREEN_KINDS: frozenset[int] = frozenset((19, 20, 21, 23, 25, GREEN))


class MpszError(ValueError):
    """Text that is not mpsz tiles; the message says which character and why."""


_RUN = re.compile(r"[0-9]+[mps]|[1-7]+z")


@lru_cache(maxsize=4096)
def _run(run: str) -> tuple[tuple[int, ...], int]:
    """One run of digits with its suit letter ("406p") as kinds and a red-five count."""
    letter = run[-1]
    if letter == "z":
        return tuple(26 + int(d) for d in run[:-1]), 0
    base = _SUIT_BASE[letter]
    return tuple(base + (int(d) or 5) - 1 for d in run[:-1]), run.count("0")


def _parse(text: str) -> tuple[tuple[int, ...], int]:
    runs = _RUN.findall(text)
    if sum(map(len, runs)) != len(text):
        raise MpszError(_what_is_wrong(text))
    if len(runs) == 1:
        return _run(runs[0])
    kinds: list[int] = []
    red = 0
    for run in runs:
        run_kinds, run_red = _run(run)
        kinds += run_kinds
        red += run_red
    return tuple(kinds), red


_parse_short = lru_cache(maxsize=4096)(_parse)


def parse_mpsz(text: str) -> tuple[tuple[int, ...], int]:
    """Read mpsz text ("123m406p789s1122z") into tile kinds in written order and the number of red fives.

    Digits belong to the suit letter after them; ``0`` is a red five and exists only in m, p, s. Runs and
    short texts (a winning tile, indicators, a meld) repeat across hands, so their readings are kept.
    """
    if type(text) is not str:
        raise MpszError(_what_is_wrong(text))
    return _parse_short(text) if len(text) <= 5 else _parse(text)


def _what_is_wrong(text: object) -> str:
    """Say where text that is not mpsz goes wrong (only called for bad input)."""
    if not isinstance(text, str):
        return f"expected an mpsz string, got {type(text).__name__}"
    pending = ""
    for pos, ch in enumerate(text, 1):
        if ch.isdigit():
            pending += ch
        elif ch in "mpsz":
            if not pending:
                return f"suit letter {ch!r} at character {pos} has no digits before it"
            bad = [d for d in pending if ch == "z" and not "1" <= d <= "7"]
            if bad:
                return f"honour {bad[0]}z at character {pos} does not exist (1z..7z = E S W N White Green Red)"
            pending = ""
        else:
            return f"unexpected character {ch!r} at character {pos} (use digits and m p s z)"
    return "digits at the end have no suit letter (m, p, s or z)"


#: mpsz name of each kind ("1m" .. "7z").
KIND_NAMES: tuple[str, ...] = tuple(f"{k % 9 + 1}{'mps'[k // 9]}" for k in range(27)) + tuple(
    f"{d}z" for d in range(1, 8))


def dora_after(indicator: int) -> int:
    """The kind an indicator makes dora: the next number in its suit (9 -> 1), the next wind, the next dragon."""
    if indicator < 27:
        return indicator - 8 if indicator % 9 == 8 else indicator + 1
    if indicator < WHITE:
        return EAST if indicator == NORTH else indicator + 1
    return WHITE if indicator == RED else indicator + 1


def american_code(kind: int) -> str:
    """The product's tile code for a kind (``4m`` -> ``4C``, ``1z`` -> ``E``, ``5z`` -> ``WD``)."""
    if kind >= 27:
        return HONOUR_CODES[kind - 27]
    suit = tuple(SUIT_LETTERS.values())[kind // 9]
    return f"{kind % 9 + 1}{suit.value}"
