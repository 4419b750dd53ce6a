"""Japanese scoring speed: our scorer against the ``mahjong`` package on the same 1,000 generated hands.

Both are timed hand by hand in the same run. Ours is timed from the request dict (the input of
``mahj jp score``: parsing and checking included); the package from its own 136-tile arrays, with the
config and meld objects it needs built inside the timed call, as a caller would (its rule options, like our
presets, are made once). Each hand is timed in ``--passes`` passes and its fastest pass kept; in each pass
one scorer runs through all hands, then the other (``--interleave`` alternates them hand by hand instead,
which leaves both with colder CPU caches). The medians over hands and their ratio are printed, less the cost
of reading the clock. Times are this process's CPU time, so other jobs on a shared machine skew them less
than wall time would. A separate warm-up set (other seed) runs first so neither side pays first-call costs;
our per-suit split tables and mpsz run tables fill on first sight of a pattern, so the warm-up fills them
with other hands' patterns and the timed hands' new ones are computed in pass 1.

    python bench/bench_jp.py            # 1,000 hands
    python bench/bench_jp.py --interleave --json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from jp_hands import generate, mahjong_package_score  # noqa: E402

from engine.japanese import score_request  # noqa: E402


def _time_us(fn, arg) -> float:
    start = time.process_time_ns()
    fn(arg)
    return (time.process_time_ns() - start) / 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--interleave", action="store_true",
                    help="time both scorers hand by hand instead of each over all hands (colder caches for both)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)

    warm = random.Random(args.seed + 1)
    for _ in range(200):
        hand = generate(warm)
        score_request(hand.request)
        mahjong_package_score(hand)

    rng = random.Random(args.seed)
    hands = [generate(rng) for _ in range(args.hands)]
    ours = [float("inf")] * len(hands)
    theirs = [float("inf")] * len(hands)
    for _ in range(args.passes):
        if args.interleave:  # ours then theirs on each hand: each evicts the other from the CPU caches
            for i, hand in enumerate(hands):
                ours[i] = min(ours[i], _time_us(score_request, hand.request))
                theirs[i] = min(theirs[i], _time_us(mahjong_package_score, hand))
            continue
        for i, hand in enumerate(hands):  # each scorer runs through all hands, as on a stream of hands
            ours[i] = min(ours[i], _time_us(score_request, hand.request))
        for i, hand in enumerate(hands):
            theirs[i] = min(theirs[i], _time_us(mahjong_package_score, hand))
    agree = sum(
        (a["win"] and not b.error and a["han"] == b.han) or (not a["win"] and bool(b.error))
        for a, b in ((score_request(h.request), mahjong_package_score(h)) for h in hands)
    )
    # what the timer itself costs per reading (a CPU-time clock is a system call), taken off both sides
    overhead = statistics.median(_time_us(len, ()) for _ in range(2000))
    ours_med = statistics.median(ours) - overhead
    theirs_med = statistics.median(theirs) - overhead
    result = {
        "hands": len(hands),
        "interleaved": args.interleave,
        "ours_median_us": round(ours_med, 1),
        "mahjong_median_us": round(theirs_med, 1),
        "speedup": round(theirs_med / ours_med, 2),
        "timer_overhead_us": round(overhead, 2),
        "same_han": agree,
    }
    if args.json:
        print(json.dumps(result))
    else:
        order = "interleaved hand by hand" if args.interleave else "each scorer over all hands in turn"
        print(f"{len(hands)} generated winning hands (tenhou preset), {order}, fastest of {args.passes} passes "
              f"per hand, less {overhead:.2f} us timer overhead")
        print(f"  ours:    median {ours_med:7.1f} us/hand")
        print(f"  mahjong: median {theirs_med:7.1f} us/hand")
        print(f"  ratio:   ours is {theirs_med / ours_med:.2f}x faster (goal >= 2x); same han on {agree} hands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
