"""How `vision.photo` chooses the aspect ratio a photo is read at, compared with other rules, on data no reported
figure uses (models/README.md, "Photos out of shape").

    python bench/photo_aspect.py [--closeup datasets/rendered/closeup] [--json out.json]

Every photo is read once at each of ``photo_scales`` (as `read_photo` reads it); the rules then only choose among
those readings. The sets: the rendered close-up validation photos squeezed into 640 px squares (as a square
export does to a phone photo), strips cut from them along a row of tiles (2-14x longer than wide) stretched into
squares (as the haitaks screenshots were), and the haitaks *training* photos (their held-out photos are the
test, read by bench/eval_tile_model.py). Recall / precision at IoU 0.5, boxes of either face (haitaks: face up).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.eval_tile_model import recall_precision  # noqa: E402
from datasets import real  # noqa: E402
from datasets.real import haitaks_truth  # noqa: E402
from vision.photo import photo_scales, resized, surety  # noqa: E402
from vision.tile_model import TileModel  # noqa: E402

SQUARE = 640
#: (boxes in the photo's pixels, face-up mask, scores) of one reading
Reading = tuple[np.ndarray, np.ndarray, np.ndarray]


def _square(img: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The photo resized to a SQUARE x SQUARE square whatever its shape, and its boxes with it."""
    k = np.array([SQUARE / img.shape[1], SQUARE / img.shape[0]] * 2)
    return cv2.resize(img, (SQUARE, SQUARE), interpolation=cv2.INTER_AREA), boxes * k


def closeup_sets(root: Path) -> dict[str, list[tuple[np.ndarray, np.ndarray]]]:
    """(photo, true boxes of either face) of the squeezed close-ups and the stretched strips, seeded."""
    rng = np.random.default_rng(12)
    squares, strips = [], []
    for mp in sorted((root / "meta" / "val").glob("*.json")):
        meta = json.loads(mp.read_text())
        img = cv2.imread(str(root / "images" / "val" / (mp.stem + ".jpg")))
        h, w = img.shape[:2]
        tb = np.array([t["box"] for t in meta["tiles"]], float).reshape(-1, 4)
        squares.append(_square(img, tb))
        for _ in range(3):
            t = tb[rng.integers(len(tb))]
            side = float(max(t[2] - t[0], t[3] - t[1])) * rng.uniform(1.1, 1.6)
            a = float(np.exp(rng.uniform(np.log(2), np.log(14))))
            cw, ch = (side * a, side) if rng.random() < 0.5 else (side, side * a)
            cx, cy = (t[0] + t[2]) / 2, (t[1] + t[3]) / 2
            x1 = int(np.clip(cx - cw * rng.uniform(0.2, 0.8), 0, w - 2))
            y1 = int(np.clip(cy - ch * rng.uniform(0.2, 0.8), 0, h - 2))
            x2, y2 = int(min(w, x1 + cw)), int(min(h, y1 + ch))
            inter = (np.clip(np.minimum(tb[:, 2], x2) - np.maximum(tb[:, 0], x1), 0, None)
                     * np.clip(np.minimum(tb[:, 3], y2) - np.maximum(tb[:, 1], y1), 0, None))
            keep = inter >= 0.9 * (tb[:, 2] - tb[:, 0]) * (tb[:, 3] - tb[:, 1])   # tiles (nearly) whole in it
            if keep.sum() >= 2:
                strips.append(_square(img[y1:y2, x1:x2], tb[keep] - [x1, y1, x1, y1]))
    return {"close-up val squeezed into squares": squares, "strips stretched into squares": strips}


def haitaks_sets() -> dict[str, list[tuple[np.ndarray, np.ndarray]]]:
    """The haitaks training photos (every box a tile face), natural and stretched apart as
    bench/eval_tile_model.py splits the held-out ones."""
    out: dict[str, list] = {"haitaks train, natural": [], "haitaks train, stretched": []}
    for path, boxes in real.haitaks_items("train"):
        img, gt, _dropped, stretched = haitaks_truth(path, boxes)
        out["haitaks train, " + ("stretched" if stretched else "natural")].append((img, gt))
    return out


def readings(model: TileModel, img: np.ndarray) -> list[Reading]:
    """The photo read at each of ``photo_scales``, boxes mapped back to its pixels; as-is first."""
    h, w = img.shape[:2]
    out = []
    for sx, sy in photo_scales(w, h):
        im = resized(img, sx, sy)
        boxes, cls, scores = model.frame_boxes(im)     # what read_photo chooses on
        k = np.array([im.shape[1] / w, im.shape[0] / h] * 2)
        out.append((boxes / k, cls == 0, scores))
    return out


def _sum_if_few(r: list[Reading]) -> int:
    """Re-read only when the first reading finds under 4 face-up tiles; keep the larger sum of scores."""
    if r[0][1].sum() >= 4:
        return 0
    best = max(range(len(r)), key=lambda k: r[k][2].sum())
    return best if r[best][2].sum() > r[0][2].sum() else 0


def _highest(key: Callable[[Reading], float]) -> Callable[[list[Reading]], int]:
    return lambda r: max(range(len(r)), key=lambda k: (key(r[k]), -k))


RULES: dict[str, Callable[[list[Reading]], int]] = {
    "as it is": lambda r: 0,
    "first finds < 4 face up: larger sum of scores": _sum_if_few,
    "highest surety (shipped: mean of the 10 surest)": _highest(lambda x: surety(x[2])),
    "mean of the 5 surest": _highest(lambda x: surety(x[2], 5)),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--closeup", type=Path, default=Path("datasets/rendered/closeup"))
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    model = TileModel.load()
    sets = {}
    if (args.closeup / "meta" / "val").is_dir():
        sets |= closeup_sets(args.closeup)
    if real.HAITAKS.exists():
        sets |= haitaks_sets()
    if not sets:
        sys.exit(f"no data: render {args.closeup} (datasets/README.md) or provide {real.HAITAKS}")
    results: dict[str, dict] = {}
    for name, items in sets.items():
        up_only = name.startswith("haitaks")     # its labels are tile faces: a box called face down finds none
        gts = [it[1] for it in items]
        reads = [readings(model, it[0]) for it in tqdm(items, desc=name, unit="photo")]
        counted = [[b[up] if up_only else b for b, up, _ in r] for r in reads]   # per photo, per reading

        def figure(picks: list[int], counted=counted, gts=gts) -> list[float]:
            return [round(v, 3) for v in recall_precision([c[k] for c, k in zip(counted, picks, strict=True)], gts)]

        row = {rule: figure([pick(r) for r in reads]) for rule, pick in RULES.items()}
        row["best reading per photo (oracle)"] = figure([
            max(range(len(c)), key=lambda k, c=c, gt=gt: recall_precision([c[k]], [gt])[0])
            for c, gt in zip(counted, gts, strict=True)])
        results[name] = {"photos": len(items), "recall_precision": row}
    for name, res in results.items():
        print(f"{name} ({res['photos']} photos): recall / precision")
        for rule, (r, p) in res["recall_precision"].items():
            print(f"  {rule:50s} {r:.3f} / {p:.3f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
