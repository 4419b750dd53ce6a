"""Frames from a video file or a folder of images, with the frame numbers and times the reader needs.

A generated recording carries ``NAME.meta.json`` with the true frame number of every frame in the file, so
dropped frames show up as gaps exactly as they would from a live camera's timestamps; a plain video numbers
its frames 0, 1, 2, ... at its own frame rate.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np


class RecordingError(OSError):
    """The source cannot be opened or read; the message names the file (and frame)."""


def meta_for(video: Path) -> dict | None:
    path = video.with_suffix(".meta.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def frames(source: str | Path, fps: float | None = None) -> Iterator[tuple[np.ndarray, int, float]]:
    """Yield ``(frame_bgr, frame_index, t)`` from a video file or a folder of images (sorted by name)."""
    src = Path(source)
    if src.is_dir():
        files = sorted(p for p in src.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp"))
        rate = fps or 30.0
        for i, p in enumerate(files):
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise RecordingError(f"{p}: not an image")
            yield img, i, i / rate
        return
    if not src.exists():
        raise RecordingError(f"{src}: no such file")
    meta = meta_for(src)
    cap = cv2.VideoCapture(str(src))
    if not cap.isOpened():
        raise RecordingError(f"{src}: cannot open video")
    rate = fps or (meta or {}).get("fps") or cap.get(cv2.CAP_PROP_FPS) or 30.0
    indices = (meta or {}).get("frames")
    pos = 0
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            idx = indices[pos] if indices and pos < len(indices) else pos
            yield frame, int(idx), idx / rate
            pos += 1
    finally:
        cap.release()
    if indices and pos != len(indices):
        raise RecordingError(f"{src}: frame {pos}: video ended early ({len(indices)} frames in meta)")
