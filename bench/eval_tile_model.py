"""Figures for the tile model, all measured on model files through ``vision.tile_model`` (issue 29: real first).

    python bench/eval_tile_model.py [--models DIR] [--baseline DIR] [--synth datasets/rendered/synth]
                                    [--json out.json] [--quick] [--only PART ..]

1. Real photos (``bench/eval_real.py``, needs ``../shared``): the held-out test photos of the sets seen in
   training and two whole sets never seen, each read as ``mahj detect`` reads an image, at 0.5, 1 and 2 x their
   size: recall, precision and face accuracy per source and tile-size band, worst confusions, ECE. These decide.
2. Real crops (held-out camerash split, and the justinchan crops of two more sets): top-1 over our classes.
3. Speed: median ms per 1280x720 frame with 60 tiles (``detect``, 2 threads), and with ``--baseline`` the
   ratio to another model folder measured alternately in the same run.
4. Enrolment on the held-out rendered style: accuracy before / after enrolling one photo of each tile (learning a
   set from the set-up mat, as `mahj setup tiles` does, is measured by ``bench/setup_tiles.py``).
5. Rendered test splits, a second line: whole camera frames (mAP50 and mAP50-95 of face-up / face-down boxes,
   classifier top-1 on the true face-up boxes), top-down crops at the table reader's scale, player's-eye frames,
   close-up photos.

Parts whose data is missing (no ``../shared``, no rendered test split) are reported as skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import eval_real  # noqa: E402
from datasets import real, real_photos  # noqa: E402
from datasets.synth.faces import HOLDOUT_STYLE  # noqa: E402
from datasets.synth.generate import read_yolo_boxes  # noqa: E402
from datasets.synth.layout import grid_scene, overhead_camera  # noqa: E402
from datasets.synth.scene import render  # noqa: E402
from engine.tiles import FLOWER, JOKER, TILES  # noqa: E402
from vision.boxes import iou_matrix  # noqa: E402
from vision.enroll import build_prototypes  # noqa: E402
from vision.photo import read_photo  # noqa: E402
from vision.tile_model import CLASSIFIER_SIZE, MODELS_DIR, TileModel, crop_square  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def average_precision(preds: list[tuple[np.ndarray, np.ndarray]], gts: list[np.ndarray], thr: float) -> float:
    """COCO-style AP (101-point) for one class: preds[i] = (boxes, scores) and gts[i] = boxes of image i."""
    scores, hits = [], []
    n_gt = sum(len(g) for g in gts)
    for (pb, ps), gb in zip(preds, gts, strict=True):
        order = np.argsort(-ps)
        iou = iou_matrix(pb[order], gb)
        used = np.zeros(len(gb), bool)
        for k, i in enumerate(order):
            scores.append(ps[i])
            j = -1
            if len(gb):
                cand = np.where(~used, iou[k], -1)
                j = int(cand.argmax())
                if cand[j] < thr:
                    j = -1
            if j >= 0:
                used[j] = True
            hits.append(j >= 0)
    if n_gt == 0:
        return float("nan")
    order = np.argsort(-np.array(scores, float))
    hit = np.array(hits, bool)[order]
    tp = np.cumsum(hit)
    fp = np.cumsum(~hit)
    rec = tp / n_gt
    prec = tp / np.maximum(tp + fp, 1)
    prec = np.maximum.accumulate(prec[::-1])[::-1] if len(prec) else prec
    ap = 0.0
    for r in np.linspace(0, 1, 101):
        k = np.searchsorted(rec, r, side="left")
        ap += prec[k] if k < len(prec) else 0.0
    return ap / 101


def recall_precision(pred: list[np.ndarray], gts: list[np.ndarray], thr: float = 0.5) -> tuple[float, float]:
    """Recall and precision with each true box matched at most once (greedy by IoU)."""
    tp = n_pred = n_gt = 0
    for pb, gb in zip(pred, gts, strict=True):
        n_pred += len(pb)
        n_gt += len(gb)
        iou = iou_matrix(pb, gb)
        while iou.size and iou.max() >= thr:
            k, j = np.unravel_index(iou.argmax(), iou.shape)
            tp += 1
            iou[k, :] = -1
            iou[:, j] = -1
    return tp / max(n_gt, 1), tp / max(n_pred, 1)


def eval_synth(model: TileModel, root: Path, limit: int | None, desc: str = "synthetic test", split: str = "test"
               ) -> dict:
    """Box mAP and classifier top-1 on a rendered split (``val`` when choosing between candidates)."""
    metas = sorted((root / "meta" / split).glob("*.json"))[:limit]
    if not metas:
        return {"skipped": f"no rendered {split} split in {root}"}
    preds = {0: [], 1: []}
    gts = {0: [], 1: []}
    correct: dict[str, list[int]] = {c: [0, 0] for c in TILES}
    for mp in tqdm(metas, desc=desc, unit="img"):
        meta = json.loads(mp.read_text())
        img = cv2.imread(str(root / "images" / split / (mp.stem + ".jpg")))
        boxes, cls, scores = model.frame_boxes(img, conf=(0.01, 0.01))  # at the size detect() reads it
        for c in (0, 1):
            preds[c].append((boxes[cls == c], scores[cls == c]))
            gts[c].append(np.array([t["box"] for t in meta["tiles"] if t["face"] == ("up", "down")[c]]).reshape(-1, 4))
        ups = [t for t in meta["tiles"] if t["face"] == "up" and t["visibility"] >= 0.6]
        if ups:
            reads = model.classify([crop_square(img, tuple(t["box"])) for t in ups])
            for t, (code, _) in zip(ups, reads, strict=True):
                correct[t["code"]][0] += code == t["code"]
                correct[t["code"]][1] += 1
    out = {"images": len(metas)}
    for c, name in ((0, "up"), (1, "down")):
        ap50 = average_precision(preds[c], gts[c], 0.5)
        ap = np.mean([average_precision(preds[c], gts[c], t) for t in np.arange(0.5, 0.96, 0.05)])
        out[f"mAP50_{name}"], out[f"mAP50_95_{name}"] = round(ap50, 4), round(float(ap), 4)
    out["mAP50"] = round((out["mAP50_up"] + out["mAP50_down"]) / 2, 4)
    out["mAP50_95"] = round((out["mAP50_95_up"] + out["mAP50_95_down"]) / 2, 4)
    n = sum(v[1] for v in correct.values())
    out["classifier_top1"] = round(sum(v[0] for v in correct.values()) / max(n, 1), 4)
    out["classifier_crops"] = n
    out["classifier_top1_per_class"] = {c: round(v[0] / v[1], 3) if v[1] else None for c, v in correct.items()}
    return out


def eval_topdown(model: TileModel, root: Path, limit: int | None) -> dict:
    """mAP of the boxes on the top-down test crops, detected at their own scale: what the table reader does."""
    images = sorted((root / "images" / "test").glob("*.jpg"))[:limit]
    if not images:
        return {"skipped": f"no rendered top-down test split in {root}"}
    preds: dict[int, list] = {0: [], 1: []}
    gts: dict[int, list] = {0: [], 1: []}
    for ip in tqdm(images, desc="top-down test", unit="img"):
        img = cv2.imread(str(ip))
        boxes, cls, scores = model.boxes(img, native=True, conf=(0.01, 0.01))
        truth = read_yolo_boxes(root / "labels" / "test" / (ip.stem + ".txt"), img.shape[1], img.shape[0])
        for c in (0, 1):
            preds[c].append((boxes[cls == c], scores[cls == c]))
            gts[c].append(truth[truth[:, 0] == c, 1:])
    out: dict = {"images": len(images)}
    for c, name in ((0, "up"), (1, "down")):
        out[f"mAP50_{name}"] = round(float(average_precision(preds[c], gts[c], 0.5)), 4)
        out[f"mAP50_95_{name}"] = round(float(np.mean([average_precision(preds[c], gts[c], t)
                                                       for t in np.arange(0.5, 0.96, 0.05)])), 4)
    return out


def eval_real_photos(model: TileModel, limit: int | None) -> dict:
    """The first table: held-out real photos (bench/eval_real.py), printed as it is and returned for the JSON."""
    if not real_photos.SPLIT_FILE.exists() or not real_photos.CHINESE.exists():
        return {"skipped": f"{real_photos.CHINESE} missing"}
    reports = eval_real.evaluate(model.detect, (0.5, 1.0, 2.0), limit, "real photos",
                                 stretched_reader=lambda img: read_photo(model, img).detections)
    eval_real.print_table("real photos", reports)
    return {split: rep.to_json() for split, rep in reports.items()}


def eval_camerash(model: TileModel) -> dict:
    if not real.CAMERASH.exists():
        return {"skipped": f"{real.CAMERASH} missing"}
    crops, codes = real.crop_images_from_camerash("test", CLASSIFIER_SIZE, seed=2)
    reads = model.classify(list(crops))
    ok = [r[0] == c for r, c in zip(reads, codes, strict=True)]
    imgs, jcodes = real_photos.justinchan_crops() if real_photos.JUSTINCHAN.exists() else ([], [])
    jreads = model.classify([real.camerash_crop(im) for im in imgs])
    jok = [r[0] == c for r, c in zip(jreads, jcodes, strict=True)]
    return {"crops": len(codes), "top1": round(float(np.mean(ok)), 4),
            "justinchan_crops": len(jcodes), "justinchan_top1": round(float(np.mean(jok)), 4) if jok else None}


def speed(model: TileModel, runs: int, baseline: TileModel | None = None) -> dict:
    """ms per 1280x720 frame with 60 tiles for ``detect`` (2 threads), and in the same run, frame for frame, for
    ``baseline`` (another model folder, e.g. the models that shipped before): the ratio holds on a machine whose
    speed drifts, where a time alone does not."""
    rng = np.random.default_rng(5)
    codes = [TILES[int(rng.integers(len(TILES)))] for _ in range(60)]
    scene = grid_scene(codes, 3, rng, cols=12)
    scene.tiles[5].face = scene.tiles[17].face = "down"
    img, labels = render(scene, overhead_camera(), rng)
    other = baseline or model
    model.detect(img)
    other.detect(img)
    times, cpu, base_times = [], [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        dets = model.detect(img)
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        t = time.perf_counter()
        base_dets = other.detect(img)
        base_times.append((time.perf_counter() - t) * 1000)
    out = {"frame": "1280x720", "tiles_in_frame": len(labels), "tiles_found": len(dets), "threads": 2,
           "load_average_1min": round(os.getloadavg()[0], 2),
           # CPU time of this process (both threads): with the machine to itself, wall time is about half of it.
           "cpu_ms_median": round(statistics.median(cpu), 1),
           "runs": runs, "median_ms": round(statistics.median(times), 1),
           "p90_ms": round(sorted(times)[int(0.9 * (len(times) - 1))], 1)}
    if baseline is not None:
        out |= {"baseline_median_ms": round(statistics.median(base_times), 1), "baseline_tiles_found": len(base_dets),
                "ratio_to_baseline": round(statistics.median(np.array(times) / np.array(base_times)), 3)}
    return out


def enrolment(model: TileModel, scenes: int) -> dict:
    """Hold-out style: read GT boxes of random tables before/after enrolling one photo of each tile."""
    from datasets.synth.layout import random_camera, random_scene

    rng = np.random.default_rng(11)
    kinds = list(TILES) + [FLOWER] * 3 + [JOKER]  # several Flower designs of the set
    photo, labels = render(grid_scene(kinds, HOLDOUT_STYLE, rng, cols=10), overhead_camera(view_mm=560), rng)
    crops = [crop_square(photo, lb.box, CLASSIFIER_SIZE * 2) for lb in labels]
    codes = [lb.code for lb in labels]
    t0 = time.perf_counter()
    protos = build_prototypes(model, crops, codes)
    seconds = time.perf_counter() - t0
    tests = []
    for i in range(scenes):
        r = np.random.default_rng([99, i])
        sc = random_scene(r, HOLDOUT_STYLE)
        img, lbs = render(sc, random_camera(r, sc), r)
        tests += [(crop_square(img, lb.box), lb.code) for lb in lbs if lb.face == "up" and lb.visibility >= 0.6]
    before = model.classify([c for c, _ in tests])
    model.prototypes = protos
    after = model.classify([c for c, _ in tests])
    acc = lambda rs: round(float(np.mean([r[0] == c for r, (_, c) in zip(rs, tests, strict=True)])), 4)  # noqa: E731
    by_threshold = {}
    for thr in (0.0, 0.3, 0.5, 0.7, 0.85):  # how far to trust the prototypes over the shipped classifier
        protos.min_similarity = thr
        by_threshold[str(thr)] = acc(model.classify([c for c, _ in tests]))
    model.prototypes = None
    per = {}
    for code in TILES:
        idx = [k for k, (_, c) in enumerate(tests) if c == code]
        if idx:
            per[code] = [round(np.mean([before[k][0] == code for k in idx]), 2),
                         round(np.mean([after[k][0] == code for k in idx]), 2)]
    return {"style": HOLDOUT_STYLE, "enrolled_tiles": len(codes), "enrol_seconds": round(seconds, 2),
            "test_crops": len(tests), "top1_before": acc(before), "top1_after": acc(after),
            "top1_after_by_min_similarity": by_threshold,
            "per_class_before_after": per}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--synth", type=Path, default=ROOT / "datasets" / "rendered" / "synth")
    ap.add_argument("--topdown", type=Path, default=ROOT / "datasets" / "rendered" / "topdown")
    ap.add_argument("--player", type=Path, default=ROOT / "datasets" / "rendered" / "player")
    ap.add_argument("--closeup", type=Path, default=ROOT / "datasets" / "rendered" / "closeup")
    ap.add_argument("--only", nargs="*", help="measure only these parts (e.g. real_photos closeup_test; the "
                    "validation splits, synthetic_val and closeup_val, only when named here)")
    ap.add_argument("--models", type=Path, default=MODELS_DIR)
    ap.add_argument("--baseline", type=Path, default=None,
                    help="model folder timed beside --models in the speed part (e.g. the models shipped before)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--quick", action="store_true", help="fewer images and runs (a smoke check)")
    a = ap.parse_args()
    model = TileModel.load(a.models, threads=2)
    res = {"models": str(a.models), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    n = 20 if a.quick else None
    baseline = TileModel.load(a.baseline, threads=2) if a.baseline else None
    parts = [("real_photos", lambda: eval_real_photos(model, 20 if a.quick else None)),
             ("speed", lambda: speed(model, 10 if a.quick else 50, baseline)),
             ("camerash_test", lambda: eval_camerash(model)),
             ("enrolment", lambda: enrolment(model, 5 if a.quick else 30)),
             ("synthetic_test", lambda: eval_synth(model, a.synth, n)),
             ("topdown_test", lambda: eval_topdown(model, a.topdown, n)),
             ("player_test", lambda: eval_synth(model, a.player, n, "player's-eye test")),
             ("closeup_test", lambda: eval_synth(model, a.closeup, n, "close-up test"))]
    # The validation splits choose between candidates; they are measured only when asked for by name.
    chosen = [("synthetic_val", lambda: eval_synth(model, a.synth, n, "synthetic val", "val")),
              ("closeup_val", lambda: eval_synth(model, a.closeup, n, "close-up val", "val"))]
    for key, part in parts + [p for p in chosen if a.only and p[0] in a.only]:
        if a.only and key not in a.only:
            continue
        res[key] = part()
        # Per-class tables go to the JSON file only.
        brief = {k: v for k, v in res[key].items() if k not in ("per_class_before_after", "classifier_top1_per_class")}
        print(json.dumps({key: brief}), flush=True)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    with real_photos.fixes_checked():
        main()
