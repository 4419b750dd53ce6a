"""What the tile model's tests (vision.tile_model, tile_sizes, tile_classifier) read: the committed fixture photo
and its true tiles, the first frame of the bundled 1080p recording with its true boxes, and box overlap."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.tile_model import (
    Detection,
)

FIXTURE = Path(__file__).parent / "fixtures" / "tile_model"


def fixture_truth() -> dict:
    """The fixture photo's true tiles: boxes, faces and codes."""
    return json.loads((FIXTURE / "table.json").read_text())


def fixture_photo() -> np.ndarray:
    """The fixture photo: an overhead 1280x720 picture of 40 tiles laid out."""
    return cv2.imread(str(FIXTURE / "table.jpg"))


def iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    i = ix * iy
    return i / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i)


def match(dets: list[Detection], truth: dict) -> list[tuple[dict, Detection | None]]:
    out = []
    for t in truth["tiles"]:
        best = max(dets, key=lambda d: iou(d.box, t["box"]), default=None)
        out.append((t, best if best is not None and iou(best.box, t["box"]) >= 0.5 else None))
    return out


def whole_table_frame() -> tuple:
    """The first frame of the bundled 1080p recording (a whole table), its frame number and its true tiles."""
    from vision.oracle import OracleDetector
    from vision.recording import frames, meta_for

    video = Path(__file__).resolve().parents[1] / "datasets" / "video" / "fixtures" / "demo.mp4"
    frame, idx, _t = next(iter(frames(video)))
    truth = OracleDetector.load(video.with_suffix(".boxes.npz"), meta_for(video)["frames"]).detect_at(
        idx, (0, 0, frame.shape[1], frame.shape[0]))
    return frame, idx, truth

