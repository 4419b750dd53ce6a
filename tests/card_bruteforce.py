"""A plain, obviously-correct Mah Jongg matcher, written apart from engine.card to cross-check it.

It reads only the parsed groups of a line (symbols, tag, shift) and does everything else its own slow way:
expand each line into concrete hands by brute force, then try to lay the hand's tiles into the groups one by
one, backtracking over how many jokers each pung-or-larger group takes. No counts, no arrays, no shortcuts.
"""

from collections import Counter
from functools import cache
from itertools import permutations, product

from engine.tiles import SET_COUNTS

DRAGON = {"B": "GD", "C": "RD", "D": "WD"}
SUITLESS = {"0": "WD", "F": "F", "N": "N", "E": "E", "W": "W", "S": "S"}


@cache
def concrete_hands(line):
    """Every concrete hand of a line as a list of (tiles, jokers allowed) groups; duplicates included.

    Cached per line: a line's text fixes its groups, so equal lines expand alike."""
    hands = []
    for choice in product(*[slot.alternatives for slot in line.slots]):
        tags = sorted({g.tag or "" for g in choice if any(ch in "123456789D" for ch in g.symbols)})
        numbers = [int(ch) for g in choice for ch in g.symbols if ch in "123456789"]
        amounts = range(-8, 9) if line.shifted and line.shifts is None else line.shifts
        for suits in permutations("BCD", len(tags)):
            suit_of_tag = dict(zip(tags, suits, strict=True))
            for d in amounts:
                if any(not 1 <= n + d <= 9 for n in numbers):
                    continue
                groups = []
                for g in choice:
                    tiles = []
                    for ch in g.symbols:
                        if ch in "123456789":
                            tiles.append(f"{int(ch) + d}{suit_of_tag[g.tag or '']}")
                        elif ch == "D":
                            tiles.append(DRAGON[suit_of_tag[g.tag or ""]])
                        else:
                            tiles.append(SUITLESS[ch])
                    identical = len(set(g.symbols)) == 1
                    groups.append((tiles, len(tiles) >= 3 and identical))
                hands.append(groups)
    return hands


def _fill(groups, pool):
    """Can the tiles in ``pool`` (a Counter, jokers as "J") fill ``groups`` exactly?"""
    if not groups:
        return sum(pool.values()) == 0
    (tiles, jokers_ok), rest = groups[0], groups[1:]
    if not jokers_ok:
        want = Counter(tiles)
        if any(pool[t] < n for t, n in want.items()):
            return False
        return _fill(rest, pool - want)
    tile, size = tiles[0], len(tiles)
    for naturals in range(min(size, pool[tile]), -1, -1):
        if pool["J"] >= size - naturals:
            left = pool.copy()
            left[tile] -= naturals
            left["J"] -= size - naturals
            if _fill(rest, +left):
                return True
    return False


def _assign_exposures(groups, exposures, concealed):
    """Try every way of giving each exposure its own pung-or-larger group of the same tile and size."""
    if not exposures:
        return _fill(groups, Counter(concealed))
    first, others = exposures[0], exposures[1:]
    naturals = {t for t in first if t != "J"}
    if len(naturals) != 1:
        return False
    for i, (tiles, jokers_ok) in enumerate(groups):
        if jokers_ok and len(tiles) == len(first) and tiles[0] in naturals:
            if _assign_exposures(groups[:i] + groups[i + 1:], others, concealed):
                return True
    return False


def matching_lines(card, concealed, exposures=()):
    """(section, number) of every line the hand completes."""
    if len(concealed) + sum(len(e) for e in exposures) != 14:
        return set()
    every = Counter(concealed) + Counter(t for e in exposures for t in e)
    if any(n > SET_COUNTS[t] for t, n in every.items()):
        return set()  # no real set holds these tiles
    naturals = {t for t in concealed if t != "J"} | {t for e in exposures for t in e if t != "J"}
    found = set()
    for line in card.lines:
        if line.concealed and exposures:
            continue
        for groups in concrete_hands(line):
            wanted = {t for tiles, _ in groups for t in tiles}
            if not naturals <= wanted:
                continue  # a tile the hand holds appears nowhere in this concrete hand
            if _assign_exposures(groups, [list(e) for e in exposures], list(concealed)):
                found.add((line.section, line.number))
                break
    return found


def _kept(groups, pool):
    """How many of the pool's tiles one concrete hand can keep: naturals go to groups of their tile, the ones
    without jokers first (a pung-or-larger group can take a joker instead); then jokers fill what pungs left."""
    pool = pool.copy()
    kept, open_for_jokers = 0, 0
    for tiles, jokers_ok in sorted(groups, key=lambda g: g[1]):
        for t in tiles:
            if pool[t] > 0:
                pool[t] -= 1
                kept += 1
            elif jokers_ok:
                open_for_jokers += 1
    return kept + min(pool["J"], open_for_jokers)


def missing_per_line(card, concealed, exposures=()):
    """{(section, number): fewest tiles still missing, or None when the exposures rule the line out}."""
    result = {}
    for line in card.lines:
        best = None
        if not (line.concealed and exposures):
            for groups in concrete_hands(line):
                for rest in _rest_after_exposures(groups, [list(e) for e in exposures]):
                    size = sum(len(t) for t, _ in rest)
                    missing = size - _kept(rest, Counter(concealed))
                    best = missing if best is None else min(best, missing)
        result[(line.section, line.number)] = best
    return result


def _rest_after_exposures(groups, exposures):
    """Every way of removing one matching pung-or-larger group per exposure: the groups left to fill."""
    if not exposures:
        yield groups
        return
    first, others = exposures[0], exposures[1:]
    naturals = {t for t in first if t != "J"}
    if len(naturals) != 1:
        return
    for i, (tiles, jokers_ok) in enumerate(groups):
        if jokers_ok and len(tiles) == len(first) and tiles[0] in naturals:
            yield from _rest_after_exposures(groups[:i] + groups[i + 1:], others)
