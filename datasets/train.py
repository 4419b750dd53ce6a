"""Train the two tile models on this CPU and export them to ONNX (needs the ``train`` extra; ultralytics is AGPL).

One command per stage, each with progress, each resumable from its checkpoints::

    python -m datasets.synth.generate --out datasets/rendered/synth --n 1600 --seed 1 --workers 2
    python -m datasets.synth.generate --out datasets/rendered/topdown --n 800 --seed 2 --view topdown --workers 2
    python -m datasets.synth.generate --out datasets/rendered/player --n 600 --seed 3 --view player --workers 2 \
        --val 0.05 --test 0.05
    python -m datasets.synth.generate --out datasets/rendered/closeup --n 1000 --seed 4 --view closeup \
        --workers 2 --val 0.06 --test 0.06
    python -m datasets.real_photos --export datasets/rendered/real   # real photos (train, val) in YOLO form
    python -m datasets.train detector --hours 1.2             # ultralytics, best.pt under runs/detector
    python -m datasets.train classifier --minutes 45          # torch, best.pt under runs/classifier
    python -m datasets.train export                           # -> models/: detector, classifier, thresholds

Why two models: the detector only has to find tiles and tell face up from face down (two classes, which real
photos with "tile face" boxes can teach too), and a small crop classifier reads the face. The classifier's
embedding lets ``mahj enroll`` adapt to a user's own set without retraining the detector. Both learn from the
renders and the real photos together; real photos choose the classifier's epoch and ``detect``'s face-up threshold.
On a lent GPU machine, ``datasets/gpu_run.sh`` runs the detector and classifier stages side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "runs"
MODELS = ROOT / "models"
#: Detector width/depth: a quarter of yolo11n's channels keeps a 512x288 frame to a few ms on 2 CPU threads.
DET_WIDTH, DET_DEPTH = 0.125, 0.5
DET_EXPORT_HW = (288, 512)


def _ultralytics_env() -> None:
    """Offline, no auto-installs, and a project-local config dir with the fonts ultralytics insists on."""
    cfg = RUNS / "yolo_config"
    fonts = cfg / "Ultralytics"  # ultralytics looks for its fonts in YOLO_CONFIG_DIR/Ultralytics
    fonts.mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (fonts / name).exists():
            for src in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                        os.path.join(os.environ.get("MAHJ_FONT_DIR", "/usr/share/fonts/truetype/noto"),
                                     "NotoSans-Regular.ttf")):
                if Path(src).exists():
                    shutil.copy(src, fonts / name)
                    break
    os.environ.setdefault("YOLO_CONFIG_DIR", str(cfg))
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "False")


def _without_polars() -> None:
    """ultralytics reads its results CSV back with polars only to store it in each checkpoint; where polars is
    missing (a lent GPU machine, where every package travels as a wheel under a size limit) that is skipped."""
    try:
        import polars  # noqa: F401
    except ImportError:
        from ultralytics.engine.trainer import BaseTrainer

        BaseTrainer.read_results_csv = lambda self: {}


def detector_yaml() -> Path:
    """yolo11's detection architecture at our own (smaller) width, two classes: up, down."""
    import yaml
    from ultralytics.utils import ROOT as UL_ROOT

    d = yaml.safe_load((UL_ROOT / "cfg" / "models" / "11" / "yolo11.yaml").read_text())
    d.pop("scales", None)
    d.update(nc=2, depth_multiple=DET_DEPTH, width_multiple=DET_WIDTH)
    out = RUNS / "mahj-det.yaml"
    out.write_text(yaml.safe_dump(d, sort_keys=False))
    return out


def train_detector(a: argparse.Namespace) -> None:
    _ultralytics_env()
    from ultralytics import YOLO

    synth = Path(a.synth).resolve()
    train, val = [str(synth / "images" / "train")], [str(synth / "images" / "val")]
    for extra in (a.topdown, a.player, a.closeup, a.scenes):   # more sets, in the same train/val layout
        if extra and Path(extra).exists():
            train.append(str(Path(extra).resolve() / "images" / "train"))
            val.append(str(Path(extra).resolve() / "images" / "val"))
    if a.real and Path(a.real).exists():
        # Real photos (datasets.real_photos --export): listing them more than once shows them that many times an
        # epoch; their validation photos join the rendered ones in choosing the epoch kept.
        train += [str(Path(a.real).resolve() / "train" / "images")] * a.real_repeat
        if (Path(a.real) / "val" / "images").exists():
            val.append(str(Path(a.real).resolve() / "val" / "images"))
    data = RUNS / "det-data.yaml"
    data.write_text("train:\n" + "".join(f"  - {t}\n" for t in train) + "val:\n" + "".join(f"  - {v}\n" for v in val)
                    + "names:\n  0: up\n  1: down\n")
    last = RUNS / a.name / "weights" / "last.pt"
    if a.resume and last.exists():
        YOLO(str(last)).train(resume=True)
        return
    # --init continues from earlier weights (a second budgeted run): no warm-up, a lower learning rate. A shipped
    # ONNX file is rebuilt as weights first (runs/ does not survive a checkout); its folded norms stay frozen.
    init, from_onnx = a.init, bool(a.init) and Path(a.init).suffix == ".onnx"
    if from_onnx:
        from datasets.detector_onnx import load_detector_onnx, save_for_training
        from datasets.folded_norms import freeze
        from vision.tile_model import FACES

        init = save_for_training(load_detector_onnx(Path(init), detector_yaml()), RUNS / a.name / "init.pt",
                                 dict(enumerate(FACES)))
    model = YOLO(str(init) if init else str(detector_yaml()))
    if from_onnx:
        # The trainer puts the whole model in training mode each epoch: the norms go back to eval every batch.
        model.add_callback("on_train_batch_start", lambda trainer: freeze(trainer.model))
    extra = {"warmup_epochs": 0, "optimizer": "AdamW", "lr0": a.lr0} if a.init else {}
    _without_polars()
    model.train(data=str(data), epochs=a.epochs, time=a.hours, imgsz=a.imgsz, batch=a.batch, device=a.device,
                workers=a.workers, project=str(RUNS), name=a.name, exist_ok=True, seed=a.seed,
                deterministic=False, cache="ram", plots=False, patience=1000, close_mosaic=2, degrees=0.0,
                flipud=0.5, fliplr=0.5, mosaic=1.0, scale=0.4, pretrained=False, amp=False, verbose=True,
                save_period=a.save_period, **extra)


def export(a: argparse.Namespace) -> None:
    from datasets import classifier_train

    _ultralytics_env()
    from ultralytics import YOLO

    from vision.tile_model import CLASSIFIER_FILE, DETECTOR_FILE

    dest = Path(a.out)
    dest.mkdir(parents=True, exist_ok=True)
    rendered = ROOT / "datasets" / "rendered"
    if a.thresholds_only:
        # The model files stay as they are; what they are judged on changed (e.g. the rendered labels).
        _write_thresholds(dest, rendered)
        return
    if a.classifier_only:
        # Nothing else reads the classifier's outputs: the detectors and the thresholds stay (a candidate's
        # folder gets the shipped thresholds; its detector is the shipped one unless the folder has its own).
        if not (dest / "tile_model.json").exists():
            shutil.copy(MODELS / "tile_model.json", dest / "tile_model.json")
        classifier_train.export_onnx(RUNS / a.cls_run / "best.pt", dest / CLASSIFIER_FILE)
        print(f"wrote {dest / CLASSIFIER_FILE}")
        return
    det = Path(a.weights) if a.weights else RUNS / a.det_run / "weights" / "best.pt"
    if a.detector_only:
        # A fine-tuned detector judged beside the shipped classifier: the classifier and the thresholds stay
        # (bench/loso.py chooses the face-up one again).
        for name in (CLASSIFIER_FILE, "tile_model.json"):
            if not (dest / name).exists():
                shutil.copy(MODELS / name, dest / name)
    if not det.exists() and not a.weights:
        det = RUNS / a.det_run / "weights" / "last.pt"
    # Dynamic height/width: the runtime feeds each frame at its own aspect (512 on the long side).
    out = YOLO(str(det)).export(format="onnx", imgsz=DET_EXPORT_HW, simplify=True, dynamic=True, opset=17)
    shutil.copy(out, dest / DETECTOR_FILE)
    print(f"wrote {dest / DETECTOR_FILE} from {det}")
    if a.detector_only:
        return
    classifier_train.export_onnx(RUNS / a.cls_run / "best.pt", dest / CLASSIFIER_FILE)
    print(f"wrote {dest / CLASSIFIER_FILE}")
    if not a.files_only:
        _write_thresholds(dest, rendered)


def _write_thresholds(models: Path, rendered: Path) -> None:
    """Tune every score threshold of the model files in ``models`` (``tune_thresholds``) into its tile_model.json."""
    th = tune_thresholds(rendered / "synth", rendered / "topdown", models, rendered / "closeup")
    path = models / "tile_model.json"
    kept = json.loads(path.read_text()).get("reader") if path.exists() else None
    if kept:        # chosen on real tables (bench/reader_real.py), which no rendered split can judge
        th["reader"] = kept
    path.write_text(json.dumps(th, indent=1) + "\n")
    print(f"thresholds (best F1 at IoU 0.5 on the validation splits): {th}")


def tune_thresholds(synth: Path, topdown: Path, models: Path, closeup: Path | None = None) -> dict:
    """Per-face score thresholds that maximise F1 at IoU 0.5 on the validation splits: whole camera frames
    (synthetic) for ``detect``, under ``topdown`` the top-down crops for the table reader's views, and under
    ``closeup`` rendered close-up photos, read as ``detect`` reads them (scores run differently at that size)."""
    import cv2

    from datasets.synth.generate import read_yolo_boxes
    from vision.tile_model import TileModel

    model = TileModel.load(models)

    def views() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for ip in sorted((topdown / "images" / "val").glob("*.jpg")):
            img = cv2.imread(str(ip))
            yield img, read_yolo_boxes(topdown / "labels" / "val" / (ip.stem + ".txt"), img.shape[1], img.shape[0])

    low = (0.02, 0.02)
    out: dict = {"iou": 0.5, **_best_f1(lambda img: model.boxes(img, conf=low), _val_frames(synth), "tune frames")}
    # Real photos decide the face-up threshold of ``detect`` where there are any (issue 29); they label no backs,
    # so the face-down one stays the rendered frames'.
    real = _best_f1(lambda img: model.frame_boxes(img, low), _real_val_frames(), "tune real photos")
    if real["f1_up_val"]:
        out |= {"conf_up": real["conf_up"], "f1_up_val": real["f1_up_val"], "up_from": "real validation photos"}
    if (topdown / "images" / "val").exists():
        out["topdown"] = _best_f1(lambda img: model.boxes(img, native=True, conf=low), views(), "tune top-down")
    if closeup is not None and (closeup / "meta" / "val").exists():
        out["closeup"] = _best_f1(lambda img: model.frame_boxes(img, low), _val_frames(closeup), "tune close-ups")
    return out


def _val_frames(root: Path) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(image, truth rows of face, x1, y1, x2, y2) of a rendered validation split (none if it is missing)."""
    import cv2
    import numpy as np

    for mp in sorted((root / "meta" / "val").glob("*.json")):
        meta = json.loads(mp.read_text())
        gt = [[("up", "down").index(t["face"]), *t["box"]] for t in meta["tiles"]]
        yield cv2.imread(str(root / "images" / "val" / (mp.stem + ".jpg"))), np.array(gt).reshape(-1, 5)


def _real_val_frames() -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(image, truth rows of face, x1, y1, x2, y2) of the real validation photos (datasets/real_photos.py), every
    labelled tile face up; none where ``../shared`` is missing."""
    import numpy as np

    from datasets import real_photos

    if not real_photos.SPLIT_FILE.exists() or not real_photos.CHINESE.exists():
        return
    for ph in real_photos.photos(("val",)):
        yield ph.load(), np.column_stack([np.zeros(len(ph.boxes)), ph.boxes])


def _best_f1(read, items, desc: str) -> dict:  # noqa: ANN001 -- image -> (boxes, faces, scores); (image, truth) pairs
    import numpy as np
    from tqdm import tqdm

    found: dict[int, list[tuple[float, bool]]] = {0: [], 1: []}
    n_true = {0: 0, 1: 0}
    for img, truth in tqdm(items, desc=desc, unit="img"):
        boxes, cls, scores = read(img)
        for c in (0, 1):
            gt = truth[truth[:, 0] == c, 1:]
            n_true[c] += len(gt)
            used = np.zeros(len(gt), bool)
            for k in np.argsort(-scores[cls == c]):
                b = boxes[cls == c][k]
                iw = np.clip(np.minimum(b[2], gt[:, 2]) - np.maximum(b[0], gt[:, 0]), 0, None)
                ih = np.clip(np.minimum(b[3], gt[:, 3]) - np.maximum(b[1], gt[:, 1]), 0, None)
                inter = iw * ih
                iou = inter / ((b[2] - b[0]) * (b[3] - b[1]) + (gt[:, 2] - gt[:, 0]) * (gt[:, 3] - gt[:, 1]) - inter)
                iou[used] = 0
                j = int(iou.argmax()) if len(gt) else -1
                hit = j >= 0 and iou[j] >= 0.5
                if hit:
                    used[j] = True
                found[c].append((float(scores[cls == c][k]), hit))
    out = {}
    for c, face in ((0, "up"), (1, "down")):
        best = (0.0, 0.35)
        for t in np.arange(0.05, 0.9, 0.025):
            tp = sum(h for s, h in found[c] if s >= t)
            n = sum(1 for s, _ in found[c] if s >= t)
            f1 = 2 * tp / max(n + n_true[c], 1)
            best = max(best, (f1, round(float(t), 3)))
        out[f"conf_{face}"], out[f"f1_{face}_val"] = best[1], round(float(best[0]), 4)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="stage", required=True)
    d = sub.add_parser("detector", help="train the face-up/face-down detector (ultralytics)")
    d.add_argument("--synth", default=str(ROOT / "datasets" / "rendered" / "synth"))
    d.add_argument("--topdown", default=str(ROOT / "datasets" / "rendered" / "topdown"),
                   help="top-down crops at the reader's scale (generate --view topdown); skipped if missing")
    d.add_argument("--player", default=None,
                   help="player's-eye frames (generate --view player), e.g. datasets/rendered/player; opt-in, so "
                        "the recipe's earlier runs train on what they did")
    d.add_argument("--closeup", default=None,
                   help="close-up photos of tiles lying in rows (generate --view closeup), e.g. "
                        "datasets/rendered/closeup; opt-in like --player")
    d.add_argument("--scenes", default=None,
                   help="scenes composed from real tile crops (python -m datasets.scenes --out DIR)")
    d.add_argument("--real", default=str(ROOT / "datasets" / "rendered" / "real"),
                   help="real photos in YOLO form (python -m datasets.real_photos --export DIR); skipped if missing")
    d.add_argument("--real-repeat", type=int, default=3, help="times the real photos are shown an epoch")
    d.add_argument("--device", default="cpu", help="cpu, or 0 for the first GPU of a lent machine")
    d.add_argument("--hours", type=float, default=1.2, help="wall-clock budget (overrides --epochs)")
    d.add_argument("--epochs", type=int, default=30)
    d.add_argument("--imgsz", type=int, default=512)
    d.add_argument("--batch", type=int, default=16)
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--resume", action="store_true")
    d.add_argument("--init", default=None, help="start from these weights (e.g. runs/detector/weights/last.pt, "
                   "or a shipped models/tile_detector.onnx)")
    d.add_argument("--lr0", type=float, default=0.0008, help="learning rate of a run continued with --init")
    d.add_argument("--save-period", type=int, default=-1,
                   help="also keep every Nth epoch's weights (weights/epochN.pt), to pick the one that ships by "
                        "the table benchmark rather than by validation mAP")
    d.add_argument("--name", default="detector", help="run folder under runs/")
    d.set_defaults(func=train_detector)
    c = sub.add_parser("classifier", help="train the crop classifier (36 tiles + not-a-tile + back, torch)")
    c.add_argument("--synth", default=str(ROOT / "datasets" / "rendered" / "synth"))
    c.add_argument("--minutes", type=float, default=45.0, help="wall-clock budget for the optimisation")
    c.add_argument("--threads", type=int, default=1)
    c.add_argument("--device", default="cpu", help="torch device (cuda on a lent GPU machine)")
    c.add_argument("--real", default=None, help="real training photos (datasets.real_photos --export DIR/train)")
    c.add_argument("--real-val", default=None, help="real validation photos: they choose the epoch kept")
    c.add_argument("--real-repeat", type=int, default=2, help="times the real crops are shown an epoch")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--restyle", type=float, default=0.0,
                   help="share of training crops printed as another maker's set would be (classifier_train.restyle)")
    c.add_argument("--any-angle", type=float, default=0.0,
                   help="share of training crops turned by any angle, as discards lie (classifier_train.augment)")
    c.add_argument("--warp", type=float, default=0.0,
                   help="share of training crops bent as another hand would draw them (restyle.warp_strokes)")
    c.add_argument("--print-negatives", type=int, default=0,
                   help="crops of rendered print (book spines, cards) boxed like tiles, taught as not a tile")
    c.add_argument("--limit", type=int, default=None, help="use only this many images per split (smoke runs)")
    c.add_argument("--out", default=str(RUNS / "classifier"))
    c.add_argument("--init", default=None, help="start from this checkpoint (e.g. runs/classifier/best.pt), or "
                   "from a shipped file (models/tile_classifier.onnx; its folded norms then stay frozen)")
    c.add_argument("--lr", type=float, default=None, help="peak learning rate (default 3e-3, 1e-3 with --init)")
    c.set_defaults(func=lambda a: __import__("datasets.classifier_train", fromlist=["x"]).train(a))
    e = sub.add_parser("export", help="export both best checkpoints to ONNX in models/")
    e.add_argument("--det-run", default="detector", help="run folder of the detector to export")
    e.add_argument("--cls-run", default="classifier", help="run folder of the classifier to export")
    e.add_argument("--classifier-only", action="store_true",
                   help="export the classifier alone, leaving the detectors and the thresholds")
    e.add_argument("--detector-only", action="store_true",
                   help="export the detector alone; the shipped classifier and thresholds are copied beside it")
    e.add_argument("--files-only", action="store_true",
                   help="write the model files only; tune their thresholds later with --thresholds-only (a lent "
                        "GPU machine's minutes are for training)")
    e.add_argument("--thresholds-only", action="store_true",
                   help="export nothing: tune every score threshold of the model files in --out again on the "
                        "rendered validation splits (after their labels changed)")
    e.add_argument("--weights", default=None, help="detector weights to export instead of the run's best.pt "
                                                   "(e.g. runs/detector10/weights/epoch3.pt)")
    e.add_argument("--out", default=str(MODELS), help="folder to write the model files to (a candidate's "
                                                      "folder, to evaluate before it replaces models/)")
    e.set_defaults(func=export)
    a = ap.parse_args(argv)
    a.func(a)


if __name__ == "__main__":
    from datasets import real_photos

    with real_photos.fixes_checked():
        sys.exit(main())
