"""Hand advice speed (issue 44: answers within 300 ms once the tiles are known).

Times ``engine.card.advice.advise`` over random hands: 13 tiles in the Charleston (each with one of the seven
passes, in turn), 14 tiles (East's hand in the Charleston, or after a pick: with the verdict), and hands with 1-2
exposures and 20-60 tiles seen on the table; then what ``mahj hand`` shows when no pass is named (the advice and
three passes). The baseline, timed in the same run on the same hands, is ``Card.suggest`` alone, the ranking
the advice starts from. On the sample card and on bench_card's synthetic 100-line card. Wall time and CPU time
per call, and the load average before and after: on a shared machine the two differ by the waiting.

    python bench/bench_advice.py [--hands 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_card import WALL, random_exposed_hand, synthetic_card  # noqa: E402

from assistant.commands.hand import DEFAULT_PASSES  # noqa: E402
from engine.card import SAMPLE_CARD, Card, load_card, parse_card  # noqa: E402
from engine.card.advice import PASSES, advise, advise_passes  # noqa: E402

GOAL_MS = 300.0


def hands(rng: random.Random, n: int) -> list[tuple[list[str], list[list[str]], list[str], str | None]]:
    """(concealed, exposures, seen, pass) for n Charleston hands of 13, n/3 of 14, and n/3 with exposures."""
    out = []
    for i in range(n):
        tiles = rng.sample(WALL, 13)
        out.append((tiles, [], [], PASSES[i % len(PASSES)]))
    for _ in range(n // 3):
        out.append((rng.sample(WALL, 14), [], [], "first-right"))
    for _ in range(n // 3):
        concealed, exposures = random_exposed_hand(rng)
        concealed = concealed[:-1]          # 13 in all, before her next pick
        left = list(WALL)
        for t in concealed + [t for g in exposures for t in g]:
            left.remove(t)
        out.append((concealed, exposures, rng.sample(left, rng.randint(20, 60)), None))
    return out


def timed_ms(func, items) -> tuple[np.ndarray, np.ndarray]:
    """Per call: wall time (what the player waits) and the process's CPU time (the work itself: on a machine
    shared with other jobs, wall time also counts the time the call waited for a core)."""
    wall, cpu = [], []
    for item in items:
        t0, c0 = time.perf_counter_ns(), time.process_time_ns()
        func(*item)
        cpu.append((time.process_time_ns() - c0) / 1e6)
        wall.append((time.perf_counter_ns() - t0) / 1e6)
    return np.array(wall), np.array(cpu)


def row(label: str, times: tuple[np.ndarray, np.ndarray]) -> str:
    wall, cpu = times
    p50, p95 = np.percentile(wall, [50, 95])
    c50, c95 = np.percentile(cpu, [50, 95])
    return (f"  {label:44} wall p50 {p50:6.1f} p95 {p95:6.1f} max {wall.max():6.1f} ms "
            f"(p95 {p95 / GOAL_MS:.2f} x goal {GOAL_MS:.0f} ms); CPU p50 {c50:6.1f} p95 {c95:6.1f} ms")


def bench(card: Card, label: str, items) -> None:
    print(f"{label}: {len(card.lines)} lines, {card.variation_count} concrete variations, {len(items)} hands")
    charleston = [h for h in items if h[3] is not None]
    played = [h for h in items if h[3] is None]
    base = timed_ms(lambda t, e, s, p: card.suggest(t, e, s), items)
    print(row("baseline: Card.suggest alone, all hands", base))
    full = timed_ms(lambda t, e, s, p: advise(card, t, e, s, charleston=p), items)
    print(row("advise, all hands", full))
    print(row("advise with a pass, Charleston hands", timed_ms(
        lambda t, e, s, p: advise(card, t, e, s, charleston=p), charleston)))
    print(row("advise, hands with exposures and seen tiles", timed_ms(
        lambda t, e, s, p: advise(card, t, e, s), played)))
    shown = timed_ms(lambda t, e, s, p: (advise(card, t, e, s), advise_passes(card, t, DEFAULT_PASSES, s)),
                     charleston)
    print(row("what `mahj hand` shows (advice + 3 passes)", shown))
    print(f"  advise / suggest, CPU medians: {np.median(full[1]) / np.median(base[1]):.1f}x")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300, help="Charleston hands of 13 (plus a third more of 14 and "
                                                           "a third with exposures)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    items = hands(rng, args.hands)
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    bench(load_card(SAMPLE_CARD), "sample card", items)
    bench(parse_card(synthetic_card(rng, 100), "<synthetic>"), "synthetic 100-line card", items)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
