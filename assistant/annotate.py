"""The annotated video ``mahj demo`` writes: each frame with the tile boxes and codes the model read, the window
state as a coloured banner, the board's LEDs and the latest ruling, so a person can see why the assistant ruled
as it did.

Boxes are the table reader's committed tiles projected back into the image (``reader_tiles``), so the video shows
what the rulings rest on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from assistant.console import describe_ruling

WINDOW_BGR = {"open": (0, 200, 0), "claim": (0, 190, 255), "closed": (0, 0, 200), "none": (60, 60, 60),
              "over": (143, 61, 27)}
LED_BGR = {"green": (0, 220, 0), "red": (0, 0, 230), "amber": (0, 190, 255), "blue": (230, 0, 0), "off": (40, 40, 40)}


def reader_tiles(reader: Any, calibration: Any) -> list[tuple[np.ndarray, str, bool]]:
    """The tiles the table reader has committed, as image polygons with their codes: what the assistant
    *believes* is on the table (not one frame's raw detections), which is what its rulings rest on."""
    half = calibration.layout.tile_w_mm / 2
    out = []
    for name in reader.regions:
        for t in reader.tiles(name):
            square = np.array([[t.x - half, t.y - half], [t.x + half, t.y - half], [t.x + half, t.y + half],
                               [t.x - half, t.y + half]], dtype=np.float64)
            up = t.face == "up"
            out.append((calibration.to_image(square).astype(np.int32), (t.tile or "?") if up else "down", up))
    return out


class AnnotatedWriter:
    """Writes frames with overlays to an MP4 (OpenCV's mp4v codec: plays in browsers and VLC)."""

    def __init__(self, path: Path, fps: float, size: tuple[int, int]) -> None:
        self.path = path
        self.writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
        if not self.writer.isOpened():
            raise OSError(f"{path}: cannot write video")
        self.frames = 0

    def write(self, frame: np.ndarray, tiles: list[tuple[np.ndarray, str, bool]], window: str, board_state: Any,
              last_ruling: Any, name: Any, t: float) -> None:
        img = frame.copy()
        h, w = img.shape[:2]
        for poly, label, up in tiles:
            colour = (0, 255, 255) if up else (160, 160, 160)
            cv2.polylines(img, [poly], True, colour, 2 if up else 1)
            if not up:  # face-down tiles (walls, racks) only get a thin box: their labels would bury the rest
                continue
            x, y = int(poly[:, 0].min()), int(poly[:, 1].min())
            cv2.putText(img, label, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3)
            cv2.putText(img, label, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1)
        bar = max(28, h // 18)
        cv2.rectangle(img, (0, 0), (w, bar), WINDOW_BGR.get(window, (60, 60, 60)), -1)
        text = {"open": "WINDOW OPEN", "claim": "CLAIM PENDING", "closed": "WINDOW CLOSED", "none": "NO DISCARD",
                "over": "HAND OVER"}
        cv2.putText(img, f"{text.get(window, window)}   t={t:6.2f}s", (10, int(bar * 0.72)),
                    cv2.FONT_HERSHEY_SIMPLEX, bar / 40, (255, 255, 255), 2)
        if board_state is not None:
            cx = w - bar * 6
            cv2.circle(img, (cx, bar // 2), bar // 3, LED_BGR.get(board_state.window, (40, 40, 40)), -1)
            for i, mode in enumerate(board_state.seats):
                lit = mode != "0"
                cv2.circle(img, (cx + bar * (i + 1), bar // 2), bar // 4,
                           (0, 220, 255) if lit else (40, 40, 40), -1)
                cv2.putText(img, "ESWN"[i], (cx + bar * (i + 1) - 5, bar - 2), cv2.FONT_HERSHEY_SIMPLEX, 0.35,
                            (255, 255, 255), 1)
        if last_ruling is not None:
            line = describe_ruling(last_ruling, name)[:110]
            cv2.rectangle(img, (0, h - bar), (w, h), (0, 0, 0), -1)
            cv2.putText(img, line, (10, h - int(bar * 0.3)), cv2.FONT_HERSHEY_SIMPLEX, bar / 55, (255, 255, 255), 1)
        self.writer.write(img)
        self.frames += 1

    def close(self) -> None:
        self.writer.release()
