"""Every way the concealed tiles of a hand split into sets and one pair.

A standard winning hand is four sets and a pair. The concealed tiles of one suit can be split on their own
(a chow never crosses suits), so the work is a table lookup per suit: the nine counts of a suit map to every
split of them, computed once and kept (``_suit_splits``), and a hand's readings are the product of its suits'
splits. Honours cannot form chows, so they split one way or not at all.

Sets are ints, cheap to compare and hash: ``kind * 2`` is a chow starting at ``kind``, ``kind * 2 + 1`` a pung.
"""

from __future__ import annotations

from functools import cache

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


@cache
def _shifted(counts: tuple[int, ...], base: int) -> tuple[Split, ...]:
    """The splits of one suit with kinds moved to the suit's place (``base`` = 0, 9 or 18)."""
    want_pair = sum(counts) % 3 == 2
    shift = base * 2
    return tuple(
        (tuple(s + shift for s in sets), pair + base if pair >= 0 else -1)
        for sets, pair in _suit_splits(counts, want_pair)
    )


def standard_splits(counts: list[int]) -> list[Split]:
    """Every reading of 34 concealed counts as sets plus exactly one pair; [] when there is none.

    The caller has already checked the tile total (3 per missing set + 2); a suit whose size is 1 mod 3, or
    two suits that both need the pair, can never split, so those are rejected before any lookup.
    """
    groups: list[tuple[Split, ...]] = []
    pairs = 0
    for base in (0, 9, 18):
        part = tuple(counts[base:base + 9])
        n = sum(part)
        if not n:
            continue
        r = n % 3
        if r == 1:
            return []
        if r == 2:
            pairs += 1
        splits = _shifted(part, base)
        if not splits:
            return []
        groups.append(splits)
    honour_sets: list[int] = []
    honour_pair = -1
    for k in range(27, 34):
        c = counts[k]
        if c == 3:
            honour_sets.append(k * 2 + 1)
        elif c == 2:
            if honour_pair >= 0:
                return []
            honour_pair = k
            pairs += 1
        elif c:
            return []
    if pairs != 1:
        return []
    readings: list[Split] = [(tuple(honour_sets), honour_pair)]
    for splits in groups:
        if len(splits) == 1:
            sets, pair = splits[0]
            readings = [(have + sets, pair if pair >= 0 else p) for have, p in readings]
        else:
            readings = [(have + sets, pair if pair >= 0 else p) for have, p in readings for sets, pair in splits]
    return readings


def is_seven_pairs(counts: list[int]) -> bool:
    """Seven different pairs (the text forbids two identical pairs)."""
    return counts.count(2) == 7


def is_thirteen_orphans(counts: list[int], orphans: tuple[int, ...]) -> bool:
    """One of each terminal and honour plus a second of one of them."""
    return sum(counts) == 14 and all(counts[k] for k in orphans) and sum(counts[k] for k in orphans) == 14
