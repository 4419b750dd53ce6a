"""Enrolling a user's own tile set: detect the laid-out tiles, propose labels, take corrections, store prototypes.

Why prototypes: every American set draws its Jokers, Flowers and Soaps differently, and a user lays out each
kind once. Embeddings of those few crops (from the shipped classifier, under quarter turns and small rescales)
are stored as labelled prototypes; at reading time the nearest prototype names the tile. No training run, so
it takes seconds on a 2-core CPU, and a new set never disturbs the shipped model.

Steps (``mahj enroll`` drives them): ``propose`` reads each photo as ``TileModel.detect`` reads every image (square
pixels: a photo read squeezed stored squeezed crops and made the set read worse, issue 29) and writes
``labels.tsv`` + crops into the set folder; the user edits the ``code`` column (``-`` drops a row); ``apply``
checks the file and writes ``prototypes.npz`` and ``set.json``. ``TileModel.load(set_folder)`` then reads with
the set.
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from engine.tiles import TILES, TileError, parse_tiles

from .tile_model import CLASSIFIER_SIZE, SET_FILE, Prototypes, StaleSetError, TileModel, crop_square

LABELS_FILE = "labels.tsv"
CROPS_DIR = "crops"
COLUMNS = ("crop", "source", "x1", "y1", "x2", "y2", "proposed", "score", "code")
#: Below this cosine similarity to every prototype, the shipped classifier's reading is kept.
MIN_SIMILARITY = 0.5


class EnrolError(ValueError):
    """A problem in the user's labels file or photos; the message names file:line where it can."""


@dataclass
class Proposal:
    crop: str
    source: str
    box: tuple[float, float, float, float]
    proposed: str
    score: float


def propose(model: TileModel, images: list[tuple[str, np.ndarray]], folder: Path) -> list[Proposal]:
    """Detect face-up tiles in each (name, BGR image), save their crops, and write ``labels.tsv`` to edit."""
    crops_dir = folder / CROPS_DIR
    crops_dir.mkdir(parents=True, exist_ok=True)
    props: list[Proposal] = []
    for name, img in images:
        for d in model.detect(img):
            if d.face != "up":
                continue
            crop_name = f"{len(props):04d}.png"
            crop = crop_square(img, d.box, CLASSIFIER_SIZE * 2)
            cv2.imwrite(str(crops_dir / crop_name), crop)
            props.append(Proposal(crop_name, name, d.box, d.tile or "-", d.tile_score or 0.0))
    with (folder / LABELS_FILE).open("w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(COLUMNS)
        for p in props:
            w.writerow([p.crop, p.source, *(f"{v:.0f}" for v in p.box), p.proposed, f"{p.score:.2f}", p.proposed])
    return props


def read_labels(folder: Path) -> list[tuple[str, str]]:
    """(crop file, code) rows of the edited ``labels.tsv``; rows whose code is ``-`` or empty are skipped."""
    path = folder / LABELS_FILE
    try:
        text = path.read_text()
    except OSError as exc:
        raise EnrolError(f"{path}: {exc.strerror}") from exc
    rows = list(csv.reader(text.splitlines(), delimiter="\t"))
    if not rows or "crop" not in rows[0] or "code" not in rows[0]:
        raise EnrolError(f"{path}:1: header must name the columns crop and code")
    ci, ki = rows[0].index("crop"), rows[0].index("code")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) <= max(ci, ki):
            raise EnrolError(f"{path}:{n}: expected {len(rows[0])} tab-separated columns, got {len(row)}")
        code = row[ki].strip()
        if code in ("", "-"):
            continue
        try:
            (code,) = parse_tiles(code)
        except (TileError, ValueError) as exc:
            raise EnrolError(f"{path}:{n}:{ki + 1}: {row[ki]!r} is not one tile ({exc})") from exc
        if not (folder / CROPS_DIR / row[ci]).exists():
            raise EnrolError(f"{path}:{n}:{ci + 1}: crop {row[ci]!r} missing from {folder / CROPS_DIR}")
        out.append((row[ci], code))
    return out


def views(crop: np.ndarray) -> np.ndarray:
    """The crop under four quarter turns and three scales: the ways the same tile meets the camera."""
    out = []
    big = crop.shape[0]
    for scale in (1.0, 0.9, 1.1):
        side = big / scale
        m = np.array([[CLASSIFIER_SIZE / side, 0, CLASSIFIER_SIZE / 2 - big / 2 * CLASSIFIER_SIZE / side],
                      [0, CLASSIFIER_SIZE / side, CLASSIFIER_SIZE / 2 - big / 2 * CLASSIFIER_SIZE / side]],
                     np.float32)
        v = cv2.warpAffine(crop, m, (CLASSIFIER_SIZE, CLASSIFIER_SIZE), flags=cv2.INTER_AREA,
                           borderMode=cv2.BORDER_REPLICATE)
        out += [np.ascontiguousarray(np.rot90(v, k)) for k in range(4)]
    return np.stack(out)


def build_prototypes(model: TileModel, crops: list[np.ndarray], codes: list[str]) -> Prototypes:
    embs, labels = [], []
    for crop, code in zip(crops, codes, strict=True):
        e = model.embed(views(crop))
        embs.append(e)
        labels += [code] * len(e)
    return Prototypes(np.concatenate(embs), labels, MIN_SIMILARITY, model.classifier_id)


def apply(model: TileModel, folder: Path, name: str) -> dict:
    """Turn the edited labels into the set's prototypes; returns a summary (kinds covered, missing, seconds)."""
    t0 = time.perf_counter()
    rows = read_labels(folder)
    if not rows:
        raise EnrolError(f"{folder / LABELS_FILE}: no labelled tiles")
    crops = [cv2.imread(str(folder / CROPS_DIR / c)) for c, _ in rows]
    protos = build_prototypes(model, crops, [k for _, k in rows])
    kinds = sorted({k for _, k in rows}, key=TILES.index)
    missing = [t for t in TILES if t not in kinds]
    meta = {"name": name, "created": datetime.now(UTC).isoformat(timespec="seconds"), "method": "prototypes",
            "tiles": len(rows), "kinds": kinds, "missing": missing}
    protos.save(folder, meta)
    return meta | {"seconds": round(time.perf_counter() - t0, 2)}


def load_set(folder: Path) -> TileModel:
    """An enrolled set's model. A set whose prototypes an earlier classifier made is remade from its own crops
    and labels first (seconds), so an updated shipped model never leaves a user's set behind."""
    try:
        return TileModel.load(folder)
    except StaleSetError:
        meta = json.loads((folder / SET_FILE).read_text())
        apply(TileModel.load(), folder, meta.get("name", folder.name))
        return TileModel.load(folder)
