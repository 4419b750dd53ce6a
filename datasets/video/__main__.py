"""``python -m datasets.video OUT_DIR --games N``: render ground-truth table videos (see datasets/video/README.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from datasets.video.generate import generate_game


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m datasets.video", description=__doc__)
    p.add_argument("out", type=Path)
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--turns", type=int, default=6)
    p.add_argument("--size", default="640x360", help="WIDTHxHEIGHT")
    p.add_argument("--no-disturb", action="store_true", help="no occlusions, bump, light change, dropped frames")
    args = p.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    for g in range(args.games):
        seed = args.seed + g
        meta = generate_game(args.out / f"game{seed:04d}", seed, turns=args.turns, size=(w, h),
                             disturb=not args.no_disturb)
        print(f"game{seed:04d}: {len(meta['frames'])} frames")


if __name__ == "__main__":
    main()
