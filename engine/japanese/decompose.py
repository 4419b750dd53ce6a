"""Every way the concealed tiles of a hand split into sets and one pair.

A standard winning hand is four sets and a pair. The concealed tiles of one suit can be split on their own
(a chow never crosses suits), so the work is a table lookup per suit: the nine counts of a suit map to every
split of them, computed on first sight and kept (``_SUIT_TABLES``; a suit has at most 21,743 patterns that
split at all, so the tables stay bounded), and a hand's readings are the product of its suits' splits.
Honours cannot form chows, so they split one way or not at all.

Sets are ints, cheap to compare and hash: ``kind * 2`` is a chow starting at ``kind``, ``kind * 2 + 1`` a pung.
"""

from __future__ import annotations

from functools import cache
from itertools import chain

Split = tuple[tuple[int, ...], int]  # (sets, pair kind or -1)


@cache
def _suit_splits(counts: tuple[int, ...], want_pair: bool) -> tuple[tuple[tuple[int, ...], int], ...]:
    """All splits of one suit's nine counts into chows/pungs (plus one pair if ``want_pair``), ranks 0..8.

    Splits are built from the lowest rank up, so each set list is sorted and each split appears once.
    """
    first = next((i for i, c in enumerate(counts) if c), -1)
    if first < 0:
        return (((), -1),) if not want_pair else ()
    out: list[tuple[tuple[int, ...], int]] = []
    c = list(counts)
    if want_pair and c[first] >= 2:
        c[first] -= 2
        out += [(sets, first) for sets, _ in _suit_splits(tuple(c), False)]
        c[first] += 2
    if c[first] >= 3:
        c[first] -= 3
        out += [((first * 2 + 1,) + sets, pair) for sets, pair in _suit_splits(tuple(c), want_pair)]
        c[first] += 3
    if first <= 6 and c[first + 1] and c[first + 2]:
        c[first] -= 1
        c[first + 1] -= 1
        c[first + 2] -= 1
        out += [((first * 2,) + sets, pair) for sets, pair in _suit_splits(tuple(c), want_pair)]
    return tuple(out)


_SUIT_TABLES: tuple[dict, dict, dict] = ({}, {}, {})
_HONOUR_TABLE: dict[tuple[int, ...], tuple[tuple[int, ...], int] | None] = {}


def _suit_entry(counts: tuple[int, ...], base: int) -> tuple[tuple[Split, ...], bool]:
    """The splits of one suit with kinds moved to the suit's place (``base`` = 0, 9 or 18), and whether the
    suit holds the pair (it does when its size is 2 mod 3; size 1 mod 3 has no split; an empty suit has none
    to add)."""
    n = sum(counts)
    want_pair = n % 3 == 2
    splits = () if n % 3 == 1 or not n else _suit_splits(counts, want_pair)
    shift = base * 2
    return tuple((tuple(s + shift for s in sets), pair + base if pair >= 0 else -1) for sets, pair in splits), \
        want_pair


def _honour_entry(counts: tuple[int, ...]) -> tuple[tuple[int, ...], int] | None:
    """Honours split one way (pungs and at most one pair) or not at all."""
    sets = tuple((27 + i) * 2 + 1 for i, c in enumerate(counts) if c == 3)
    pairs = [27 + i for i, c in enumerate(counts) if c == 2]
    if len(pairs) > 1 or any(c in (1, 4) for c in counts):
        return None
    return sets, pairs[0] if pairs else -1


def standard_splits(counts: tuple[int, ...]) -> list[Split]:
    """Every reading of 34 concealed counts (a tuple) as sets plus exactly one pair; [] when there is none.

    The caller has already checked the tile total (3 per missing set + 2). Each suit's (and the honours')
    counts are looked up in tables filled on first sight, so a hand costs four dict lookups and the product.
    """
    pairs = 0
    part = counts[27:]
    honours = _HONOUR_TABLE.get(part, False)
    if honours is False:
        honours = _HONOUR_TABLE[part] = _honour_entry(part)
    if honours is None:
        return []
    if honours[1] >= 0:
        pairs = 1
    fixed = [honours[0]]  # the sets of every group that splits one way only
    pair = honours[1]
    several: list[tuple[Split, ...]] = []
    for table, base in zip(_SUIT_TABLES, (0, 9, 18), strict=True):
        part = counts[base:base + 9]
        entry = table.get(part)
        if entry is None:
            entry = table[part] = _suit_entry(part, base)
        splits, has_pair = entry
        if not splits:
            if any(part):
                return []
            continue
        pairs += has_pair
        if len(splits) == 1:
            fixed.append(splits[0][0])
            if has_pair:
                pair = splits[0][1]
        else:
            several.append(splits)
    if pairs != 1:
        return []
    readings: list[Split] = [(tuple(chain.from_iterable(fixed)), pair)]
    for splits in several:
        readings = [(have + sets, p if p >= 0 else have_pair) for have, have_pair in readings for sets, p in splits]
    return readings


def is_seven_pairs(counts: tuple[int, ...]) -> bool:
    """Seven different pairs (the text forbids two identical pairs)."""
    return counts.count(2) == 7


def is_thirteen_orphans(counts: tuple[int, ...], orphans: tuple[int, ...]) -> bool:
    """One of each terminal and honour plus a second of one of them."""
    return sum(counts) == 14 and all(counts[k] for k in orphans) and sum(counts[k] for k in orphans) == 14
