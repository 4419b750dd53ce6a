"""The tile model on held-out real photos: the figures that decide what ships (issue 29).

    python bench/eval_real.py [--models DIR] [--reader detect|photo] [--scales 1 0.5 2] [--json out.json]
                              [--steps] [--limit N]

Photos: the test and unseen splits of ``datasets/real_photos.py`` (fixed, committed; needs ``../shared``), each
read at every ``--scales`` factor (a 640 px photo shrunk to 0.5 shows 15-30 px tiles, enlarged 2x 60-120 px: the
size bands fill from the same photos). Per source and per tile-size band (the true box's short side in the image
as read: < 20, 20-40, 40-100, > 100 px):

* recall: true tiles with a box of any face at IoU >= 0.5 (matched one to one, surest box first);
* precision: face-up boxes that match a true tile, of all face-up boxes (the photos label face-up tiles only, so
  a box called face down cannot be judged and is left out of precision);
* face accuracy: true tiles whose matched box is face up and read as their kind (missed tiles count as wrong);
* per kind, the ten worst confusions, and the expected calibration error (ECE, 10 bins) of the face scores.

``--steps`` measures ``detect`` with each of its steps turned off in turn, one row per step, on the same photos.
``--closeups`` cuts squares around one tile of every fourth seen-set test photo, so that the tile fills 15 %, 30 %,
50 % or 70 % of the picture's side (as a phone held close over one or two tiles), and reports recall and faces.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from datasets import real_photos  # noqa: E402
from engine.tiles import TILES  # noqa: E402
from vision.boxes import iou_matrix  # noqa: E402
from vision.photo import read_photo  # noqa: E402
from vision.tile_model import Detection, TileModel  # noqa: E402

BANDS = ((0, 20, "<20"), (20, 40, "20-40"), (40, 100, "40-100"), (100, 1e9, ">100"))
Reader = Callable[[np.ndarray], list[Detection]]


def band_of(short_side: float) -> str:
    return next(name for lo, hi, name in BANDS if lo <= short_side < hi)


def match(pred: np.ndarray, scores: np.ndarray, truth: np.ndarray, thr: float = 0.5) -> np.ndarray:
    """For each true box, the index of the predicted box matched to it (-1: none); surest prediction first."""
    out = np.full(len(truth), -1)
    if not len(pred) or not len(truth):
        return out
    iou = iou_matrix(pred, truth)
    for k in np.argsort(-scores):
        j = int(np.argmax(np.where(out < 0, iou[k], -1)))
        if iou[k, j] >= thr and out[j] < 0:
            out[j] = k
    return out


class Tally:
    """Counts for one group of photos (a source, a size band, or everything)."""

    def __init__(self) -> None:
        self.truth = self.found = self.up_boxes = self.up_hits = self.faces = self.faces_right = 0

    def row(self) -> dict:
        return {"tiles": self.truth, "recall": self.found / max(self.truth, 1),
                "precision": self.up_hits / max(self.up_boxes, 1),
                "face_acc": self.faces_right / max(self.faces, 1) if self.faces else None, "faces": self.faces}


class Report:
    """Everything measured over the photos of one reader."""

    def __init__(self) -> None:
        self.groups: dict[str, Tally] = {}
        self.kinds: dict[str, list[int]] = {c: [0, 0] for c in TILES}
        self.confusions: Counter[tuple[str, str]] = Counter()
        self.calib: list[tuple[float, bool]] = []
        self.seconds: list[float] = []

    def _tallies(self, *keys: str) -> list[Tally]:
        return [self.groups.setdefault(k, Tally()) for k in keys]

    def add(self, source: str, dets: list[Detection], truth: np.ndarray, codes: tuple[str | None, ...]) -> None:
        pred = np.array([d.box for d in dets], np.float32).reshape(-1, 4)
        scores = np.array([d.score for d in dets], np.float32)
        matched = match(pred, scores, truth)
        short = np.minimum(truth[:, 2] - truth[:, 0], truth[:, 3] - truth[:, 1])
        for j, k in enumerate(matched):
            tallies = self._tallies("all", source, f"{source} {band_of(short[j])}", f"band {band_of(short[j])}")
            d = dets[k] if k >= 0 else None
            for t in tallies:
                t.truth += 1
                t.found += d is not None
            code = codes[j]
            if code is None:
                continue
            read = d.tile if d is not None and d.face == "up" else None
            right = read == code
            for t in tallies:
                t.faces += 1
                t.faces_right += right
            self.kinds[code][0] += 1
            self.kinds[code][1] += right
            if not right:
                self.confusions[(code, read or ("missed" if d is None else f"{d.face}/none"))] += 1
            if read is not None and d.tile_score is not None:
                self.calib.append((d.tile_score, right))
        hit = set(matched[matched >= 0].tolist())
        for k, d in enumerate(dets):
            if d.face != "up":
                continue
            s = min(d.box[2] - d.box[0], d.box[3] - d.box[1])
            for t in self._tallies("all", source, f"{source} {band_of(s)}", f"band {band_of(s)}"):
                t.up_boxes += 1
                t.up_hits += k in hit

    def ece(self, bins: int = 10) -> float | None:
        if not self.calib:
            return None
        conf = np.array([c for c, _ in self.calib])
        ok = np.array([r for _, r in self.calib], float)
        idx = np.minimum((conf * bins).astype(int), bins - 1)
        return float(sum(abs(conf[idx == b].mean() - ok[idx == b].mean()) * (idx == b).sum()
                         for b in range(bins) if (idx == b).any()) / len(conf))

    def to_json(self) -> dict:
        return {"groups": {k: v.row() for k, v in sorted(self.groups.items())},
                "kinds": {c: {"n": n, "acc": r / n} for c, (n, r) in self.kinds.items() if n},
                "confusions": [[t, p, n] for (t, p), n in self.confusions.most_common(10)],
                "ece": self.ece(), "median_ms": 1000 * float(np.median(self.seconds)) if self.seconds else None}


def scaled(img: np.ndarray, boxes: np.ndarray, s: float) -> tuple[np.ndarray, np.ndarray]:
    if s == 1:
        return img, boxes
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    return cv2.resize(img, None, fx=s, fy=s, interpolation=interp), boxes * s


def evaluate(reader: Reader, scales: tuple[float, ...], limit: int | None, desc: str,
             splits: tuple[str, ...] = ("test", "unseen"), stretched_reader: Reader | None = None
             ) -> dict[str, Report]:
    """One report per split ("test": sets seen in training, "unseen": sets never seen). Photos a square export
    stretched out of shape (``RealPhoto.stretched``) are reported apart, read by ``stretched_reader`` if given
    (``mahj detect --stretched``), else as the others."""
    reports = {s: Report() for s in splits}
    items = [p for p in real_photos.photos(splits) if len(p.boxes)]
    if limit:
        items = items[::max(1, len(items) // limit)]
    for ph in tqdm(items, desc=desc, unit="photo"):
        base = ph.load()
        for s in scales:
            img, truth = scaled(base, ph.boxes, s)
            t0 = time.perf_counter()
            dets = (stretched_reader or reader)(img) if ph.stretched else reader(img)
            reports[ph.split].seconds.append(time.perf_counter() - t0)
            source = f"{ph.source}-stretched" if ph.stretched else ph.source
            reports[ph.split].add(source, dets, truth, ph.codes)
    return reports


def print_table(title: str, reports: dict[str, Report]) -> None:
    print(f"\n## {title}")
    print(f"{'split':7s} {'group':22s} {'tiles':>6s} {'recall':>7s} {'prec':>6s} {'face':>6s}")
    for split, rep in reports.items():
        for name, t in sorted(rep.groups.items(), key=lambda kv: (kv[0] != "all", kv[0])):
            r = t.row()
            face = "" if r["face_acc"] is None else f"{r['face_acc']:.3f}"
            print(f"{split:7s} {name:22s} {r['tiles']:6d} {r['recall']:7.3f} {r['precision']:6.3f} {face:>6s}")
        j = rep.to_json()
        ece = "-" if j["ece"] is None else f"{j['ece']:.3f}"
        print(f"{split}: ECE of face scores {ece}; median {j['median_ms']:.0f} ms a photo; worst confusions: "
              + ", ".join(f"{t}->{p} x{n}" for t, p, n in j["confusions"]))
        weak = sorted(j["kinds"].items(), key=lambda kv: kv[1]["acc"])[:8]
        print(f"{split}: weakest kinds: " + ", ".join(f"{c} {v['acc']:.2f} (n={v['n']})" for c, v in weak))


def closeups(reader: Reader, fractions: tuple[float, ...] = (0.15, 0.3, 0.5, 0.7), side_px: int = 800
             ) -> dict[str, dict]:
    """Recall and face accuracy of the tiles wholly inside squares cut around one tile so that it fills
    ``fraction`` of the square's side, each square scaled to ``side_px``: the pyramid's large end."""
    out = {}
    for frac in fractions:
        rng = np.random.default_rng(0)
        total = found = right = 0
        for k, ph in enumerate(real_photos.photos(("test",), ("chinese",))):
            if k % 4 or not len(ph.boxes):
                continue
            img, b = ph.load(), ph.boxes
            x1, y1, x2, y2 = b[int(rng.integers(len(b)))]
            half = max(x2 - x1, y2 - y1) / frac / 2
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            X1, Y1 = int(max(0, cx - half)), int(max(0, cy - half))
            X2, Y2 = int(min(img.shape[1], cx + half)), int(min(img.shape[0], cy + half))
            s = side_px / (X2 - X1)
            crop = cv2.resize(img[Y1:Y2, X1:X2], None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC)
            inside = [i for i, t in enumerate(b) if t[0] >= X1 and t[1] >= Y1 and t[2] <= X2 and t[3] <= Y2]
            truth = (b[inside] - np.array([X1, Y1, X1, Y1], np.float32)) * s
            dets = reader(crop)
            matched = match(np.array([d.box for d in dets], np.float32).reshape(-1, 4),
                            np.array([d.score for d in dets], np.float32), truth)
            total += len(inside)
            found += int((matched >= 0).sum())
            right += sum(q >= 0 and dets[q].tile == ph.codes[i] for q, i in zip(matched, inside, strict=True))
        out[f"{frac:.2f}"] = {"tiles": total, "recall": found / max(total, 1), "face_acc": right / max(total, 1)}
    return out


@contextlib.contextmanager
def patched(obj: object, name: str, value: object) -> Iterator[None]:
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", type=Path, default=None, help="model folder (default: the shipped models)")
    ap.add_argument("--reader", choices=("detect", "photo"), default="detect",
                    help="detect: TileModel.detect, as mahj detect reads an image; photo: every photo read with "
                         "the aspect search of --stretched (vision.photo.read_photo)")
    ap.add_argument("--scales", type=float, nargs="+", default=[1.0])
    ap.add_argument("--limit", type=int, default=None, help="about this many photos per run (quick checks)")
    ap.add_argument("--steps", action="store_true", help="detect with each step off in turn")
    ap.add_argument("--closeups", action="store_true", help="also squares cut so one tile fills 15-70 %% of them")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    real_photos.require_photos()
    model = TileModel.load(a.models)
    runs: dict[str, Callable[[], contextlib.AbstractContextManager]] = {
        "shipped path": lambda: _reader(model, a.reader)}
    if a.steps:
        runs |= step_variants(model)
    out = {}
    for name, make in runs.items():
        with make() as reader:
            reports = evaluate(reader, tuple(a.scales), a.limit, name,
                               stretched_reader=lambda img: read_photo(model, img).detections)
        print_table(f"{name} ({a.models or 'shipped models'}; scales {a.scales})", reports)
        out[name] = {s: r.to_json() for s, r in reports.items()}
        if a.closeups:
            with make() as reader:
                out[name]["closeups"] = close = closeups(reader)
            print("close-ups (a tile fills this share of the side: tiles, recall, faces): " + ", ".join(
                f"{f}: {c['tiles']} {c['recall']:.3f} {c['face_acc']:.3f}" for f, c in close.items()))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(out, indent=1) + "\n")


@contextlib.contextmanager
def _reader(model: TileModel, kind: str) -> Iterator[Reader]:
    if kind == "photo":
        yield lambda img: read_photo(model, img).detections
    else:
        yield lambda img: model.detect(img, photo=True)


def step_variants(model: TileModel) -> dict[str, Callable[[], contextlib.AbstractContextManager]]:
    """``detect`` with one step off each, to be judged on real photos (a step that does not help there goes)."""
    from vision import tile_classifier, tile_sizes

    @contextlib.contextmanager
    def off(*patches: tuple[object, str, object]) -> Iterator[Reader]:
        with contextlib.ExitStack() as stack:
            for obj, name, value in patches:
                stack.enter_context(patched(obj, name, value))
            yield lambda img: model.detect(img, photo=True)

    return {
        "no second size (one reading at 512)": lambda: off((tile_sizes, "SMALL_TILE_PX", 0.0),
                                                           (tile_sizes, "LARGE_TILE_PX", float("inf"))),
        "no second look at unsure faces": lambda: off((tile_classifier, "SECOND_LOOK", 0.0)),
    }


if __name__ == "__main__":
    with real_photos.fixes_checked():
        main()
