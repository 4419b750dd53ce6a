"""Render N synthetic table images with YOLO labels (face up / face down) and per-tile metadata.

    python -m datasets.synth.generate --out datasets/rendered/synth --n 1500 --seed 1
    python -m datasets.synth.generate --out datasets/rendered/topdown --n 700 --seed 2 --view topdown

Image ``i`` depends only on (seed, i), so any subset can be re-rendered and two machines make the same files.
Layout of ``--out`` (ultralytics-ready)::

    data.yaml                       names {0: up, 1: down}
    images/{train,val,test}/NNNNNN.jpg
    labels/{train,val,test}/NNNNNN.txt   class cx cy w h (normalised)
    meta/{train,val,test}/NNNNNN.json    style, camera, and every labelled tile with its code and visibility

``--view topdown`` writes instead two 512 px crops per scene of the table rectified to the reader's scale
(``NNNNNN_K.jpg``; see datasets/synth/topdown.py), for the detector only.

``--view player`` writes frames as a player photographs the game from their seat (``layout.player_camera``): low
and oblique, their own tiles standing face up towards the camera, other racks showing backs, portrait or
landscape. Same files as ``--view camera``; the meta also says ``"view": "player"``::

    python -m datasets.synth.generate --out datasets/rendered/player --n 800 --seed 3 --view player --workers 2

``--view closeup`` writes close-up photos of tiles lying flat in a few rows (``layout.closeup_scene``), a phone
held over them from any side, tilted up to 40 degrees, a tile 4-15 % of the frame's long side: how people
photograph a hand laid out or a set spread out to enrol it, and how most haitaks-table-photos are taken::

    python -m datasets.synth.generate --out datasets/rendered/closeup --n 1000 --seed 4 --view closeup --workers 2 \
        --val 0.06 --test 0.06
"""

from __future__ import annotations

import argparse
import json
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from .faces import HOLDOUT_STYLE
from .layout import closeup_camera, closeup_scene, player_camera, random_camera, random_scene
from .scene import Camera, Label, render
from .topdown import render_topdown

CLASSES = ("up", "down")
#: Styles used for training data (HOLDOUT_STYLE is never among them).
TRAIN_STYLES = tuple(s for s in range(1, 61) if s != HOLDOUT_STYLE)


def split_of(i: int, n: int, val: float, test: float) -> str:
    """Deterministic split by index: the last ``test`` fraction is test, the ``val`` fraction before it val."""
    n_test, n_val = round(n * test), round(n * val)
    if i >= n - n_test:
        return "test"
    if i >= n - n_test - n_val:
        return "val"
    return "train"


#: A player's-eye frame must show at least this many face-up tiles (its own rack, seen from the front).
MIN_PLAYER_UP = 5
#: A close-up must show at least this many tiles (a camera aimed past the rows is drawn again).
MIN_CLOSEUP_TILES = 3
#: Close-up photo sizes: phone landscape and portrait, and square.
CLOSEUP_SIZES = ((1024, 768), (768, 1024), (1024, 1024), (1280, 720))


def render_one(seed: int, i: int, styles: tuple[int, ...],
               view: str = "camera") -> tuple[np.ndarray, list[Label], dict]:
    """Render image ``i`` of a data set seeded by ``seed`` (``view`` "camera", "player" or "closeup"); returns
    (image, labels, metadata)."""
    rng = np.random.default_rng([seed, i])
    style = int(styles[int(rng.integers(len(styles)))])
    if view == "player":
        img, labels, cam = _render_player(rng, style)
    elif view == "closeup":
        img, labels, cam = _render_closeup(rng, style)
    else:
        scene = random_scene(rng, style)
        cam = random_camera(rng, scene)
        img, labels = render(scene, cam, rng)
    meta = {"seed": seed, "index": i, "style": style, "tilt_deg": round(cam.tilt_deg, 2),
            "tiles": [{"code": lb.code, "face": lb.face, "box": [round(v, 2) for v in lb.box],
                       "visibility": round(lb.visibility, 3), "variant": lb.variant} for lb in labels]}
    if view != "camera":
        meta["view"] = view
    return img, labels, meta


def _render_player(rng: np.random.Generator, style: int) -> tuple[np.ndarray, list[Label], Camera]:
    """A player's-eye frame: portrait a third of the time (phones), else a 16:9 or 4:3 landscape. A camera whose
    frame shows fewer than MIN_PLAYER_UP face-up tiles (the own row hidden by an arm, say) is drawn again."""
    seat = int(rng.integers(4))
    scene = random_scene(rng, style, player_seat=seat)
    width, height = (720, 1280) if rng.random() < 1 / 3 else ((1280, 720), (1024, 768))[int(rng.integers(2))]
    for _ in range(10):
        cam = player_camera(rng, scene, seat, width, height)
        img, labels = render(scene, cam, rng)
        if sum(lb.face == "up" for lb in labels) >= MIN_PLAYER_UP:
            return img, labels, cam
    raise RuntimeError(f"no player's-eye frame with {MIN_PLAYER_UP} face-up tiles for seat {seat}")


def _render_closeup(rng: np.random.Generator, style: int) -> tuple[np.ndarray, list[Label], Camera]:
    """A close-up photo of tiles lying in rows; a camera framing fewer than MIN_CLOSEUP_TILES is drawn again."""
    scene = closeup_scene(rng, style)
    width, height = CLOSEUP_SIZES[int(rng.integers(len(CLOSEUP_SIZES)))]
    for _ in range(10):
        cam = closeup_camera(rng, scene, width, height)
        img, labels = render(scene, cam, rng)
        if len(labels) >= MIN_CLOSEUP_TILES:
            return img, labels, cam
    raise RuntimeError(f"no close-up framing {MIN_CLOSEUP_TILES} tiles")


def yolo_lines(boxes: list[tuple], width: int, height: int) -> list[str]:
    """YOLO label lines for (face, x1, y1, x2, y2) pixel boxes."""
    out = []
    for face, x1, y1, x2, y2 in boxes:
        out.append(f"{CLASSES.index(face)} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                   f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return out


def read_yolo_boxes(path: Path, width: int, height: int) -> np.ndarray:
    """The inverse of :func:`yolo_lines`: a label file (missing or empty = no tiles) as rows of class, x1, y1,
    x2, y2 in pixels."""
    rows = np.loadtxt(path, ndmin=2) if path.exists() and path.stat().st_size else np.zeros((0, 5))
    c, cx, cy, bw, bh = rows.T
    return np.column_stack([c, (cx - bw / 2) * width, (cy - bh / 2) * height, (cx + bw / 2) * width,
                            (cy + bh / 2) * height])


def _job(args: tuple[Path, int, int, int, float, float, tuple[int, ...], str]) -> int:
    out, seed, i, n, val, test, styles, view = args
    split = split_of(i, n, val, test)
    name = f"{i:06d}"
    if view == "topdown":
        pairs, meta = render_topdown(seed, i, styles)
        for k, (img, boxes) in enumerate(pairs):
            _write(out, split, f"{name}_{k}", img, boxes, meta)
        return sum(len(b) for _, b in pairs)
    img, labels, meta = render_one(seed, i, styles, view)
    _write(out, split, name, img, [(lb.face, *lb.box) for lb in labels], meta)
    return len(labels)


def _write(out: Path, split: str, name: str, img: np.ndarray, boxes: list[tuple], meta: dict) -> None:
    """One image, its YOLO label file ((face, x1, y1, x2, y2) boxes in pixels) and its metadata."""
    cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
    (out / "labels" / split / f"{name}.txt").write_text("\n".join(yolo_lines(boxes, img.shape[1], img.shape[0])))
    (out / "meta" / split / f"{name}.json").write_text(json.dumps(meta))


def generate(out: Path, n: int, seed: int, val: float = 0.1, test: float = 0.1,
             styles: tuple[int, ...] = TRAIN_STYLES, workers: int = 1, start: int = 0, stop: int | None = None,
             view: str = "camera") -> None:
    """Render images ``start``..``stop`` (default all ``n``) of the ``n``-image data set seeded by ``seed``."""
    for sub in ("images", "labels", "meta"):
        for split in ("train", "val", "test"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    (out / "data.yaml").write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\ntest: images/test\n"
        f"names:\n  0: up\n  1: down\n")
    jobs = [(out, seed, i, n, val, test, styles, view) for i in range(start, n if stop is None else min(stop, n))]
    with Pool(workers) if workers > 1 else _Serial() as pool:
        for _ in tqdm(pool.imap_unordered(_job, jobs, chunksize=4), total=len(jobs), desc="render", unit="img"):
            pass


class _Serial:
    """Same interface as a Pool, in this process (easier to debug, no fork)."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap_unordered(self, fn, jobs, chunksize: int = 1):  # noqa: ANN001, ANN201, ARG002
        return map(fn, jobs)


def main() -> None:
    ap = argparse.ArgumentParser(description="render synthetic American mahjong table images with YOLO labels")
    ap.add_argument("--out", type=Path, required=True, help="output folder (e.g. datasets/rendered/synth)")
    ap.add_argument("--n", type=int, default=1500, help="number of images")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--val", type=float, default=0.1, help="fraction for validation")
    ap.add_argument("--test", type=float, default=0.1, help="fraction for the test split")
    ap.add_argument("--styles", default=None,
                    help="comma-separated style ids (default: the training styles, without the held-out style)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--view", choices=("camera", "topdown", "player", "closeup"), default="camera",
                    help="camera: whole overhead camera frames; topdown: crops of the table rectified to the "
                         "reader's scale; player: low oblique frames from a player's seat; closeup: photos of "
                         "tiles lying in rows, taken from close by")
    ap.add_argument("--range", default=None, metavar="START:STOP",
                    help="render only these image indices (to finish or extend a data set in pieces)")
    a = ap.parse_args()
    styles = tuple(int(s) for s in a.styles.split(",")) if a.styles else TRAIN_STYLES
    start, stop = (int(v) if v else None for v in a.range.split(":")) if a.range else (0, None)
    generate(a.out, a.n, a.seed, a.val, a.test, styles, a.workers, start or 0, stop, a.view)


if __name__ == "__main__":
    main()
