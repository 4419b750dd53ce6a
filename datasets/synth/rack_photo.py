"""A photo of one player's hand laid out in a row, as a phone over the table takes it (issue 44's "my hand").

Renders the tiles named, left to right, face up and lying flat in one row, seen from the player's side by a
camera straight above and a little in front, the row level across the frame. Used for the committed test
photo of the private seat page (tests/fixtures/my_hand) and by bench/bench_my_hand.py, which needs a photo whose
tiles it knows.

    python -m datasets.synth.rack_photo --tiles "WD 3B 3B ..." --out rack.jpg [--size 1600x1200] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np

from engine.tiles import parse_tile

from .scene import TILE_W, Camera, Light, PlacedTile, Scene, TableLook, render


def rack_photo(tiles: list[str], width: int = 1600, height: int = 1200, seed: int = 1,
               style_id: int = 1) -> np.ndarray:
    """The BGR photo of ``tiles`` in a row, left to right, filling about 80 % of the frame's width."""
    gap = 1.0
    span = len(tiles) * (TILE_W + gap)
    x0 = -span / 2
    placed = [PlacedTile(parse_tile(code), "up", x0 + (k + 0.5) * (TILE_W + gap), 0.0, 0.0)
              for k, code in enumerate(tiles)]
    fx = width / 2 / math.tan(math.radians(60) / 2)
    dist = fx * span / (0.8 * width)
    tilt = math.radians(12)
    camera = Camera(width=width, height=height, fx=fx, fy=fx, cx=width / 2, cy=height / 2,
                    position=(0.0, -dist * math.sin(tilt), dist * math.cos(tilt)), target=(0.0, 0.0))
    scene = Scene(tiles=placed, style_id=style_id, table=TableLook(seed=seed),
                  light=Light(noise_sigma=2.0, jpeg_quality=90))
    img, _ = render(scene, camera, np.random.default_rng(seed))
    return img


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tiles", required=True, help='tile codes left to right, e.g. "WD 3B 3B 4C J J"')
    ap.add_argument("--out", type=Path, required=True, help="the JPEG to write")
    ap.add_argument("--size", default="1600x1200", help="WIDTHxHEIGHT in pixels (default 1600x1200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--style", type=int, default=1, help="tile style id (datasets/synth/faces.py)")
    ap.add_argument("--quality", type=int, default=85, help="JPEG quality")
    args = ap.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    img = rack_photo(args.tiles.split(), width, height, args.seed, args.style)
    cv2.imwrite(str(args.out), img, [cv2.IMWRITE_JPEG_QUALITY, args.quality])
    print(f"{args.out}: {width}x{height}, {len(args.tiles.split())} tiles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
