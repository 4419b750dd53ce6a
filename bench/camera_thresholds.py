"""Where reading fails on real photos: the thresholds `mahj setup camera` checks a camera against (issue 32).

    python bench/camera_thresholds.py [--limit N] [--json out.json]

Photos: the real validation split of ``datasets/real_photos.py`` (needs ``../shared``), each shrunk so its tiles
fall in every size band from 8 px up, and, at the size it was taken at, blurred (Gaussian sigma 1 to 3 px) and
darkened or brightened (x 0.1 to x 3, clipped at white). For every true tile it records the short side of its box
in the image as read, the focus and light measures `mahj setup camera` uses (``vision.camera_check``: variance of
the Laplacian of the tile's square crop at the classifier's 48 px; the mean grey of its face and the share of it
clipped white), and whether the tile was found and read as its kind ("read": found face up and named right; tiles the
photos do not name count as read when found). Prints reading per band of each measure; where fewer than 95 % of
the tiles are read is what `mahj setup camera` fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.eval_real import match  # noqa: E402
from datasets import real_photos  # noqa: E402
from vision.camera_check import tile_focus, tile_light  # noqa: E402
from vision.tile_model import TileModel  # noqa: E402

GAINS = (0.1, 0.2, 0.35, 0.5, 1.6, 2.2, 3.0)                # brightness x this, clipped at white
SIZES = (8, 10, 12, 14, 16, 18, 20, 22, 24, 28, 32, 40)   # target median tile short side, px
BLURS = (1.0, 1.5, 2.0, 3.0)                                # Gaussian sigma, px at the photo's own size


def records(model: TileModel, limit: int | None) -> list[tuple]:
    """(tile short side px, focus, read, kind of run, brightness, share of white-clipped pixels) for every true
    tile over every size, blur and exposure."""
    items = [p for p in real_photos.photos(("val",)) if len(p.boxes) and not p.stretched]
    if limit:
        items = items[::max(1, len(items) // limit)]
    out = []
    for ph in tqdm(items, desc="val photos", unit="photo"):
        base = ph.load()
        short = float(np.median(np.minimum(*(ph.boxes[:, 2:] - ph.boxes[:, :2]).T)))
        runs = [("size", s / short, 0.0) for s in SIZES if s < short] + [("size", 1.0, 0.0)]
        runs += [("blur", 1.0, b) for b in BLURS] + [("light", 1.0, g) for g in GAINS]
        for kind, scale, blur in runs:
            img = base
            if kind == "blur":
                img = cv2.GaussianBlur(base, (0, 0), blur)
            elif kind == "light":
                img = cv2.convertScaleAbs(base, alpha=blur)
            if scale != 1:
                img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            truth = ph.boxes * scale
            dets = model.detect(img)
            pred = np.array([d.box for d in dets], np.float32).reshape(-1, 4)
            matched = match(pred, np.array([d.score for d in dets], np.float32), truth)
            for j, k in enumerate(matched):
                d = dets[k] if k >= 0 else None
                code = ph.codes[j]
                read = d is not None and (code is None or (d.face == "up" and d.tile == code))
                side = float(min(truth[j, 2] - truth[j, 0], truth[j, 3] - truth[j, 1]))
                box = tuple(truth[j])
                out.append((side, tile_focus(img, box), read, kind, *tile_light(img, box)))
    return out


def table(rows: list[tuple], key: int, edges: list[float]) -> list[dict]:
    out = []
    for lo, hi in zip(edges, edges[1:], strict=False):
        sel = [r[2] for r in rows if lo <= r[key] < hi]
        if sel:
            out.append({"from": lo, "to": hi, "tiles": len(sel), "read": round(float(np.mean(sel)), 4)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="about this many photos (quick checks)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = records(TileModel.load(), args.limit)
    size = table([r for r in rows if r[3] == "size"], 0, [0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 28, 32, 40, 60, 1e9])
    focus = table([r for r in rows if r[0] >= 24 and r[3] != "light"], 1,
                  [0, 25, 50, 100, 150, 200, 300, 400, 600, 800, 1200, 1e9])
    lit = [r for r in rows if r[0] >= 24 and r[3] != "blur"]
    light = table(lit, 4, [0, 20, 40, 60, 80, 100, 140, 180, 220, 240, 256])
    glare = table(lit, 5, [0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.01])
    print("tile short side px: tiles, read")
    for r in size:
        print(f"  {r['from']:>5.0f}-{r['to']:<5.0f} {r['tiles']:6d} {r['read']:.3f}")
    print("focus (Laplacian variance at 48 px), tiles of 24 px and more: tiles, read")
    for r in focus:
        print(f"  {r['from']:>5.0f}-{r['to']:<5.0f} {r['tiles']:6d} {r['read']:.3f}")
    for name, rows_ in (("brightness (mean grey of the tile's face)", light),
                        ("share of the face clipped white (glare, over-exposure)", glare)):
        print(f"{name}, tiles of 24 px and more: tiles, read")
        for r in rows_:
            print(f"  {r['from']:>5.2f}-{r['to']:<5.2f} {r['tiles']:6d} {r['read']:.3f}")
    if args.json:
        args.json.write_text(json.dumps({"size": size, "focus": focus, "brightness": light, "glare": glare},
                                        indent=1) + "\n")


if __name__ == "__main__":
    with real_photos.fixes_checked():
        main()
