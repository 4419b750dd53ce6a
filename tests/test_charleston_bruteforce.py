"""The Charleston advice against an exhaustive search written apart from the engine.

For every hand, every choice of tiles by their places on the rack (itertools.combinations over positions, Jokers
left out) is scored by the objective ``engine.card.advice`` states: per card line, the fewest tiles the kept
tiles still miss over the line's concrete hands that can still be completed; then (nearest distance d, lines at
d, lines at d + 1, best value at d). The concrete hands come from tests/card_bruteforce.py (its own expansion of
the card's groups), and each is scored with plain dense counts, not the engine's sparse per-kind corrections.
The advice must reach the optimum, and its pass plus its listed alternatives must be exactly the optimal passes.
"""

import itertools
import random

import numpy as np
import pytest
from card_bruteforce import concrete_hands

from engine.card import SAMPLE_CARD, load_card
from engine.card.advice import BLIND_PASSES, PASS_SIZE, PASSES, advise_pass
from engine.tiles import INDEX, JOKER, SET_COUNTS, TILES

CARD = load_card(SAMPLE_CARD)
BIG = 1 << 10  # a dead line's distance is at least this
HANDS = 210


def _dense_card(card):
    """Per distinct concrete hand: tiles in groups no joker may take, tiles in pung-or-larger groups, its line."""
    fixed, jokerable, line_of, seen = [], [], [], set()
    for i, line in enumerate(card.lines):
        for groups in concrete_hands(line):
            key = (i, tuple(sorted((tuple(t), ok) for t, ok in groups)))
            if key in seen:
                continue
            seen.add(key)
            f, j = np.zeros(len(TILES), int), np.zeros(len(TILES), int)
            for tiles, jokers_ok in groups:
                for t in tiles:
                    (j if jokers_ok else f)[INDEX[t]] += 1
            fixed.append(f)
            jokerable.append(j)
            line_of.append(i)
    return np.array(fixed, np.int8), np.array(jokerable, np.int8), np.array(line_of)


FIXED, JOKERABLE, LINE_OF = _dense_card(CARD)
SET = np.array([SET_COUNTS[t] for t in TILES])
VALUES = [ln.value for ln in CARD.lines]


def line_distances(kept: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Kept hands (M x 36 counts) -> per hand and line, fewest tiles missing over completable concrete hands."""
    return np.concatenate([_line_distances(kept[i:i + 16].astype(np.int8), seen) for i in range(0, len(kept), 16)])


def _line_distances(kept: np.ndarray, seen: np.ndarray) -> np.ndarray:
    jokers = kept[:, INDEX[JOKER]][:, None]
    k = kept[:, None, :]
    natural_first = np.minimum(k, FIXED)              # naturals go to joker-free slots first
    natural_rest = np.minimum(k - natural_first, JOKERABLE)
    gaps_fixed = FIXED - natural_first
    gaps_jokerable = JOKERABLE - natural_rest
    missing = (14 - (natural_first + natural_rest).sum(axis=2, dtype=int)
               - np.minimum(jokers, gaps_jokerable.sum(axis=2, dtype=int)))
    unseen = np.maximum(SET - kept - seen, 0).astype(np.int8)[:, None, :]
    unseen_jokers = np.maximum(SET[INDEX[JOKER]] - kept[:, INDEX[JOKER]] - seen[INDEX[JOKER]], 0)[:, None]
    lacking = (gaps_fixed > unseen).any(axis=2)
    need_jokers = np.maximum(gaps_jokerable - np.maximum(unseen - gaps_fixed, 0), 0).sum(axis=2, dtype=int)
    dead = lacking | (need_jokers > jokers + unseen_jokers)
    score = missing + BIG * dead
    out = np.full((len(kept), len(CARD.lines)), 10 ** 9)
    for i in range(len(CARD.lines)):
        out[:, i] = score[:, LINE_OF == i].min(axis=1)
    return out


def objective(row: np.ndarray) -> tuple[int, int, int, int]:
    live = [x for x in row if x < BIG]
    if not live:
        return (BIG, 0, 0, 0)
    d = min(live)
    return (d, -sum(x == d for x in row), -sum(x == d + 1 for x in row),
            -max(v for v, x in zip(VALUES, row, strict=True) if x == d))


def optimal_by_size(hand: list[str], seen: list[str], sizes) -> dict[int, tuple[tuple, set[tuple]]]:
    """For each pass size: the best objective and every pass (sorted tile tuple) reaching it."""
    places = [i for i, t in enumerate(hand) if t != JOKER]
    choices = [c for n in sizes for c in itertools.combinations(places, n)]
    counts = np.zeros(len(TILES), int)
    for t in hand:
        counts[INDEX[t]] += 1
    kept = np.repeat(counts[None, :], len(choices), axis=0)
    for row, c in enumerate(choices):
        for i in c:
            kept[row, INDEX[hand[i]]] -= 1
    seen_counts = np.zeros(len(TILES), int)
    for t in seen:
        seen_counts[INDEX[t]] += 1
    distinct, back = np.unique(kept, axis=0, return_inverse=True)   # equal tiles in other places: scored once
    scored = [objective(r) for r in line_distances(distinct, seen_counts)]
    keys = [scored[i] for i in back.ravel()]
    out: dict[int, tuple[tuple, set[tuple]]] = {}
    for c, key in zip(choices, keys, strict=True):
        passed = tuple(sorted(hand[i] for i in c))
        best = out.get(len(c))
        if best is None or key < best[0]:
            out[len(c)] = (key, {passed})
        elif key == best[0]:
            best[1].add(passed)
    return out


def _hands():
    rng = random.Random(44)
    wall = [t for t in TILES for _ in range(SET_COUNTS[t])]
    for n in range(HANDS):
        rng.shuffle(wall)
        size = 14 if n % 5 == 0 else 13          # East holds 14 through the Charleston
        hand = wall[:size]
        seen = wall[size:size + rng.choice((0, 0, 12, 40))]   # tiles she knows are elsewhere
        yield hand, seen, PASSES[n % len(PASSES)]


@pytest.mark.parametrize("hand,seen,which", list(_hands()))
def test_pass_advice_is_optimal_against_every_choice(hand, seen, which):
    advice = advise_pass(CARD, hand, which, seen)
    assert JOKER not in advice.tiles
    flexible = which in BLIND_PASSES or which == "courtesy"
    naturals = sum(t != JOKER for t in hand)
    most = min(PASS_SIZE, naturals)
    best = optimal_by_size(hand, seen, range(most + 1) if flexible else (0, most))
    if flexible:  # as many as she can spare without moving further from her nearest line
        size = max(n for n, (key, _) in best.items() if key[0] == best[0][0][0])
    else:
        size = most
    key, passes = best[size]
    assert len(advice.tiles) == size
    assert advice.blind == (PASS_SIZE - size if which in BLIND_PASSES else 0)
    assert advice.key == key
    given = {tuple(sorted(advice.tiles))} | {tuple(sorted(a)) for a in advice.alternatives}
    assert given == passes
    assert len(given) == 1 + len(advice.alternatives)   # no pass listed twice
    assert advice.distance_now == (None if best[0][0][0] >= BIG else best[0][0][0])


def test_an_agreed_courtesy_count_is_the_best_pass_of_that_size():
    rng = random.Random(7)
    wall = [t for t in TILES for _ in range(SET_COUNTS[t])]
    for _ in range(12):
        rng.shuffle(wall)
        hand = wall[:13]
        agreed = rng.randrange(PASS_SIZE + 1)
        advice = advise_pass(CARD, hand, "courtesy", courtesy=agreed)
        key, passes = optimal_by_size(hand, [], (0, agreed))[agreed]
        assert len(advice.tiles) == agreed and advice.key == key
        assert tuple(sorted(advice.tiles)) in passes
