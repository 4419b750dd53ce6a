"""Card matcher speed: verify and suggest on the sample card and on a synthetic 100-line card.

Compiles each card once, then times single calls over 1,000 random hands and prints medians against the issue's
goals (verify <= 0.5 ms, full suggest ranking <= 2 ms), plus the plain brute-force matcher of the tests as a
baseline measured in the same run. Run: ``python bench/bench_card.py [--hands 1000] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from engine.card import SAMPLE_CARD, Card, load_card, parse_card
from engine.tiles import SET_COUNTS, TILES

VERIFY_GOAL_MS = 0.5
SUGGEST_GOAL_MS = 2.0
WALL = [t for t in TILES for _ in range(SET_COUNTS[t])]


def random_hand(rng: random.Random, size: int) -> list[str]:
    return rng.sample(WALL, size)


def random_exposed_hand(rng: random.Random) -> tuple[list[str], list[list[str]]]:
    """One or two pung/kong exposures (a joker now and then), the rest drawn from what is left of the wall."""
    wall = list(WALL)
    exposures = []
    for _ in range(rng.randint(1, 2)):
        tile = rng.choice([t for t in TILES if t != "J" and wall.count(t) >= 3])
        size = rng.choice((3, 4))
        group = [tile] * size
        if rng.random() < 0.3:
            group[-1] = "J"
        for t in group:
            wall.remove(t)
        exposures.append(group)
    concealed = rng.sample(wall, 14 - sum(len(g) for g in exposures))
    return concealed, exposures


def winning_hand(rng: random.Random, card: Card) -> list[str]:
    line = rng.choice(card.lines)
    tiles = [t for g in rng.choice(card.variations(line)).groups for t in g.tiles]
    rng.shuffle(tiles)
    return tiles


def median_ms(func, items) -> float:
    times = []
    for item in items:
        t0 = time.perf_counter_ns()
        func(item)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1e6


def synthetic_card(rng: random.Random, lines: int) -> str:
    """A card of ``lines`` random but valid lines: kongs/pungs/pairs in 1-3 tagged suits, often ``shift any``."""
    out = ["card: Synthetic benchmark card", "[Synthetic]"]
    while len(out) - 2 < lines:
        sizes = []
        while sum(sizes) < 14:
            sizes.append(rng.choice((2, 3, 4)))
        if sum(sizes) != 14:
            continue
        groups, numbers = [], rng.sample(range(1, 8), min(len(sizes), 7))
        for i, size in enumerate(sizes):
            kind = rng.random()
            if kind < 0.15:
                groups.append(rng.choice("FNEWS") * size)
            elif kind < 0.25:
                groups.append("D" * size + rng.choice("abc"))
            else:
                groups.append(str(numbers[i % len(numbers)]) * size + rng.choice("abc"))
        if not any(g[-1] in "abc" and g[0] != "D" for g in groups):
            continue
        shift = " shift any" if rng.random() < 0.7 else ""
        out.append(f"{' '.join(groups)} X{rng.choice((25, 30, 35))}{shift}")
    return "\n".join(out) + "\n"


def bench(card: Card, label: str, rng: random.Random, hands: int, baseline) -> None:
    plain = [random_hand(rng, 14) for _ in range(hands)]
    exposed = [random_exposed_hand(rng) for _ in range(hands)]
    wins = [winning_hand(rng, card) for _ in range(hands)]
    thirteen = [(random_hand(rng, 13), random_hand(rng, 20)) for _ in range(hands)]
    v_plain = median_ms(card.verify, plain)
    v_exposed = median_ms(lambda h: card.verify(h[0], h[1]), exposed)
    v_wins = median_ms(card.verify, wins)
    s_full = median_ms(lambda h: card.suggest(h[0], seen=h[1]), thirteen)
    print(f"{label}: {len(card.lines)} lines, {card.variation_count} concrete variations")
    print(f"  verify, random 14-tile hands, no exposures : median {v_plain:.3f} ms "
          f"({v_plain / VERIFY_GOAL_MS:.2f} x goal {VERIFY_GOAL_MS} ms)")
    print(f"  verify, random hands with 1-2 exposures    : median {v_exposed:.3f} ms "
          f"({v_exposed / VERIFY_GOAL_MS:.2f} x goal)")
    print(f"  verify, winning hands                      : median {v_wins:.3f} ms "
          f"({v_wins / VERIFY_GOAL_MS:.2f} x goal)")
    print(f"  suggest, full ranking, 13 tiles + 20 seen  : median {s_full:.3f} ms "
          f"({s_full / SUGGEST_GOAL_MS:.2f} x goal {SUGGEST_GOAL_MS} ms)")
    if baseline is not None:
        sample = plain[:50] + wins[:50]
        b = median_ms(lambda h: baseline(card, h), sample)
        ours = median_ms(card.verify, sample)
        print(f"  baseline: brute-force matcher (tests/card_bruteforce.py), 100 hands: median {b:.3f} ms; "
              f"compiled matcher {ours:.3f} ms ({b / ours:.0f}x faster)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lines", type=int, default=100, help="lines of the synthetic card")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tests = Path(__file__).resolve().parents[1] / "tests"
    sys.path.insert(0, str(tests))
    try:
        from card_bruteforce import matching_lines as baseline
    except ImportError:
        baseline = None

    t0 = time.perf_counter()
    card = load_card(SAMPLE_CARD)
    print(f"compile sample card: {(time.perf_counter() - t0) * 1e3:.1f} ms")
    bench(card, "sample card", rng, args.hands, baseline)

    text = synthetic_card(rng, args.lines)
    t0 = time.perf_counter()
    big = parse_card(text, "<synthetic>")
    print(f"compile synthetic card: {(time.perf_counter() - t0) * 1e3:.1f} ms")
    bench(big, f"synthetic {args.lines}-line card", rng, args.hands, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
