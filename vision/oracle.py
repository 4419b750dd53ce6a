"""The ORACLE detector: the scene renderer's own labels served as if a tile model had found them.

Used by tests and bench/bench_table.py only, never by the product: it separates tracking/event errors (what the
reader does with perfect detections) from model errors (what the real ONNX model adds). It reads the
``NAME.boxes.npz`` written beside every generated recording (datasets/video/render.py: rows of
x1, y1, x2, y2, kind per frame, kind = tile class index for a face-up tile or ``len(TILES)`` for a face-down one).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.tiles import TILES


@dataclass(frozen=True)
class OracleDetection:
    """Same fields as vision.tile_model.Detection."""

    box: tuple[float, float, float, float]
    face: str
    tile: str | None
    score: float = 1.0
    tile_score: float | None = None
    alts: tuple[str, ...] = ()


class OracleDetector:
    """Serves the true boxes of the frame numbered ``frame_index`` (``frame_indices``: the true frame number of
    each frame in the file, from the recording's meta; default 0, 1, 2, ...)."""

    def __init__(self, rows: np.ndarray, spans: np.ndarray, frame_indices: Sequence[int] | None = None) -> None:
        self.rows, self.spans = np.asarray(rows), np.asarray(spans)
        indices = range(len(self.spans)) if frame_indices is None else frame_indices
        self.position = {int(f): i for i, f in enumerate(indices)}

    @classmethod
    def load(cls, path: str | os.PathLike[str], frame_indices: Sequence[int] | None = None) -> OracleDetector:
        with np.load(path) as z:
            return cls(z["rows"], z["spans"], frame_indices)

    def __len__(self) -> int:
        return len(self.spans)

    def detect_at(self, frame_index: int, rect: tuple[int, int, int, int]) -> list[OracleDetection]:
        """Tiles whose box centre lies in ``rect`` (x0, y0, x1, y1), boxes relative to the rect like a crop."""
        if frame_index not in self.position:
            raise IndexError(f"oracle has no frame number {frame_index}")
        a, b = self.spans[self.position[frame_index]]
        rows = self.rows[a:b]
        x0, y0, x1, y1 = rect
        out = []
        for bx0, by0, bx1, by1, kind in rows.tolist():
            cx, cy = (bx0 + bx1) / 2, (by0 + by1) / 2
            if x0 <= cx < x1 and y0 <= cy < y1:
                up = kind < len(TILES)
                out.append(OracleDetection((bx0 - x0, by0 - y0, bx1 - x0, by1 - y0), "up" if up else "down",
                                           TILES[kind] if up else None, 1.0, 1.0 if up else None))
        return out
