"""Expanding card lines into concrete hands and packing them into arrays the matcher scans at once.

A line like ``FF 2026a 2222b 2222c X25`` stands for several concrete hands (one per assignment of tags to
suits, per shift, per choice among alternatives). Compiling once into count vectors over the 35 natural tile
kinds turns every question (is this Mah Jongg, how far is this hand, is this line dead) into a few numpy
operations over all variations of the card, instead of a search per hand.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from engine.card.model import NUMBERS, CardLine, Diagnostic, Group
from engine.tiles import DRAGON_OF_SUIT, INDEX, JOKER, SET_COUNTS, SUITS, TILES, Suit, suit_tile

#: Natural tile kinds (everything but the joker), the columns of the count arrays.
KINDS = TILES[:INDEX[JOKER]]
NK = len(KINDS)
JOKERS_IN_SET = SET_COUNTS[JOKER]
#: How many of each natural kind a set holds, as a count vector over KINDS.
SET_KIND_COUNTS = np.array([SET_COUNTS[k] for k in KINDS], dtype=np.int16)
_SYMBOL_TILE = {"0": "WD", "F": "F", "N": "N", "E": "E", "W": "W", "S": "S"}


@dataclass(frozen=True)
class ConcreteGroup:
    """One group of a concrete hand: its tiles (codes) and whether jokers may stand in it."""

    tiles: tuple[str, ...]
    joker_ok: bool

    def __str__(self) -> str:
        return " ".join(self.tiles)


@dataclass(frozen=True)
class Variation:
    """One concrete hand a card line allows: 14 tiles in groups, suits and shifts resolved."""

    line: CardLine
    groups: tuple[ConcreteGroup, ...]

    def tiles(self) -> list[str]:
        return [t for g in self.groups for t in g.tiles]


@functools.lru_cache(maxsize=1 << 16)
def _resolve(group: Group, suit: Suit | None, shift: int) -> ConcreteGroup:
    """One group with its suit and shift applied (cached: a line's variations reuse the same few groups)."""
    tiles = []
    for ch in group.symbols:
        if ch in NUMBERS:
            tiles.append(suit_tile(int(ch) + shift, suit))
        elif ch == "D":
            tiles.append(DRAGON_OF_SUIT[suit])
        else:
            tiles.append(_SYMBOL_TILE[ch])
    return ConcreteGroup(tuple(tiles), group.joker_ok)


def _amounts(line: CardLine, choice: tuple[Group, ...]) -> tuple[int, ...]:
    if line.shifts is not None:
        return line.shifts
    numbers = [int(ch) for g in choice for ch in g.symbols if ch in NUMBERS]
    return tuple(range(1 - min(numbers), 9 - max(numbers) + 1))


def expand(line: CardLine) -> list[Variation]:
    """Every distinct concrete hand of a line (tag assignments x alternatives x shifts), in a stable order."""
    seen: set[tuple] = set()
    out: list[Variation] = []
    for choice in itertools.product(*(s.alternatives for s in line.slots)):
        tags = sorted({g.tag for g in choice if g.suited})  # [None] for a one-suit (untagged) line
        for suits in itertools.permutations(SUITS, len(tags)):
            mapping = dict(zip(tags, suits, strict=True))
            for shift in _amounts(line, choice):
                groups = tuple(_resolve(g, mapping.get(g.tag), shift) for g in choice)
                key = tuple(sorted((g.tiles, g.joker_ok) for g in groups))
                if key not in seen:
                    seen.add(key)
                    out.append(Variation(line, groups))
    return out


def _counts(variations: list[Variation]) -> tuple[np.ndarray, np.ndarray]:
    """(need, elig): per variation, how many of each kind it uses, and how many of those sit in joker groups."""
    rows = [[(INDEX[t], g.joker_ok) for g in v.groups for t in g.tiles] for v in variations]
    tiles = np.array(rows, dtype=np.int64).reshape(len(variations), -1, 2)
    which = np.repeat(np.arange(len(variations)), tiles.shape[1])
    need = np.zeros((len(variations), NK), dtype=np.int16)
    elig = np.zeros((len(variations), NK), dtype=np.int16)
    np.add.at(need, (which, tiles[:, :, 0].ravel()), 1)
    np.add.at(elig, (which, tiles[:, :, 0].ravel()), tiles[:, :, 1].ravel().astype(np.int16))
    return need, elig


def _possible(need: np.ndarray, elig: np.ndarray) -> np.ndarray:
    """Per row, whether ``impossible`` finds nothing wrong (the same rules, on all of a line's variations at once)."""
    naturals_fit = ((need - elig) <= SET_KIND_COUNTS).all(axis=1)
    jokers = np.maximum(need - SET_KIND_COUNTS, 0).sum(axis=1)
    return naturals_fit & (jokers <= JOKERS_IN_SET)


def impossible(need: np.ndarray, elig: np.ndarray) -> str | None:
    """Why a concrete hand can never be built from one set, or None: naturals beyond the set, or > 8 jokers."""
    natural_min = need - elig
    over = np.flatnonzero(natural_min > SET_KIND_COUNTS)
    if over.size:
        k = int(over[0])
        return (f"needs {int(need[k])} x {KINDS[k]} but the set holds {int(SET_KIND_COUNTS[k])} and jokers may stand "
                f"for only {int(elig[k])} of them here")
    jokers = int(np.maximum(need - SET_KIND_COUNTS, 0).sum())
    if jokers > JOKERS_IN_SET:
        return f"needs at least {jokers} jokers but the set holds {JOKERS_IN_SET}"
    return None


class CompiledCard:
    """All variations of all lines as arrays: ``need``/``elig`` (V x 35), eligible group counts by size.

    Variations are stored grouped by line (``starts[i]`` is where line ``i`` begins), so per-line answers are
    one ``np.minimum.reduceat``. ``support`` is a bitmask of the kinds each variation uses: a hand whose
    natural kinds are not a subset of it cannot match, which discards almost every variation in one operation.
    """

    def __init__(self, lines: list[CardLine], filename: str) -> None:
        self.lines = lines
        self.errors: list[Diagnostic] = []
        self.variations: list[Variation] = []
        needs, eligs, line_of, counts = [], [], [], []
        for i, line in enumerate(lines):
            variations = expand(line)
            need, elig = _counts(variations)
            ok = _possible(need, elig)
            kept = int(ok.sum())
            if not kept:
                col = line.slots[0].alternatives[0].col if line.slots else 1
                self.errors.append(Diagnostic(filename, line.source_line, col,
                                              f"impossible hand: {impossible(need[0], elig[0])}"))
            self.variations += itertools.compress(variations, ok)
            needs.append(need[ok])
            eligs.append(elig[ok])
            line_of += [i] * kept
            counts.append(kept)
        self.line_variation_counts = counts
        n = len(self.variations)
        self.need = np.concatenate(needs) if needs else np.zeros((0, NK), dtype=np.int16)
        self.elig = np.concatenate(eligs) if eligs else np.zeros((0, NK), dtype=np.int16)
        self.line_of = np.array(line_of, dtype=np.int32)
        self.concealed = np.array([lines[i].concealed for i in line_of], dtype=bool)
        self.starts = np.array([0, *itertools.accumulate(counts)][:-1], dtype=np.int64)
        self.nonempty = np.array(counts) > 0
        bits = (np.uint64(1) << np.arange(NK, dtype=np.uint64))
        self.support = ((self.need > 0).astype(np.uint64) * bits).sum(axis=1, dtype=np.uint64) if n else \
            np.zeros(0, dtype=np.uint64)
        self.bits = bits
        # The same counts as sparse entries (one per variation and kind it uses, kinds ascending): distance and
        # deadness only need the kinds a variation wants, about 5 of the 35, so they run over these instead.
        var, kind = np.nonzero(self.need)
        self.entry_kind = kind.astype(np.intp)
        self.entry_need = self.need[var, kind]
        self.entry_elig = self.elig[var, kind]
        self.entry_start = np.searchsorted(var, np.arange(n)).astype(np.intp)
        self.entry_count = np.diff(np.append(self.entry_start, len(var)))
        self.targets = [tuple(g.tiles for g in v.groups) for v in self.variations]
        # (An array per size, filled from index lists: allocating it per group made compiling quadratic.)
        where: dict[int, tuple[list[int], list[int]]] = {}
        for vi, v in enumerate(self.variations):
            for g in v.groups:
                if g.joker_ok:
                    rows, kinds = where.setdefault(len(g.tiles), ([], []))
                    rows.append(vi)
                    kinds.append(INDEX[g.tiles[0]])
        self.groups_by_size: dict[int, np.ndarray] = {}
        for size, (rows, kinds) in where.items():
            arr = self.groups_by_size[size] = np.zeros((n, NK), dtype=np.int8)
            np.add.at(arr, (rows, kinds), 1)
