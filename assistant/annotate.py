"""The annotated video ``mahj demo`` writes: each frame with the tile boxes and codes the model read, the window
state as a coloured banner, the board's LEDs and the latest ruling, so a person can see why the assistant ruled
as it did.

Boxes come from the tile model's own detections: ``RecordingDetector`` wraps the model the table reader uses and
keeps its latest answer (the reader runs the model only on frames where something changed, so a box stays drawn
until the next reading).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from assistant.console import describe_ruling

WINDOW_BGR = {"open": (0, 200, 0), "claim": (0, 190, 255), "closed": (0, 0, 200), "none": (60, 60, 60)}
LED_BGR = {"green": (0, 220, 0), "red": (0, 0, 230), "amber": (0, 190, 255), "blue": (230, 0, 0), "off": (40, 40, 40)}


class RecordingDetector:
    """Passes ``detect`` through to the real model and remembers the last detections for drawing."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.last: list[Any] = []
        self.calls = 0

    def detect(self, frame_bgr: np.ndarray) -> list[Any]:
        self.last = self.model.detect(frame_bgr)
        self.calls += 1
        return self.last

    def __getattr__(self, name: str) -> Any:  # classify() and anything else the reader may use
        return getattr(self.model, name)


class AnnotatedWriter:
    """Writes frames with overlays to an MP4 (OpenCV's mp4v codec: plays in browsers and VLC)."""

    def __init__(self, path: Path, fps: float, size: tuple[int, int]) -> None:
        self.path = path
        self.writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
        if not self.writer.isOpened():
            raise OSError(f"{path}: cannot write video")
        self.frames = 0

    def write(self, frame: np.ndarray, detections: list[Any], window: str, board_state: Any,
              last_ruling: Any, name: Any, t: float) -> None:
        img = frame.copy()
        h, w = img.shape[:2]
        for d in detections:
            x1, y1, x2, y2 = (int(v) for v in d.box)
            up = getattr(d, "face", "up") == "up"
            colour = (0, 255, 255) if up else (160, 160, 160)
            cv2.rectangle(img, (x1, y1), (x2, y2), colour, 2)
            label = d.tile if up and getattr(d, "tile", None) else ("down" if not up else "?")
            cv2.putText(img, label, (x1, max(12, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3)
            cv2.putText(img, label, (x1, max(12, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1)
        bar = max(28, h // 18)
        cv2.rectangle(img, (0, 0), (w, bar), WINDOW_BGR.get(window, (60, 60, 60)), -1)
        text = {"open": "WINDOW OPEN", "claim": "CLAIM PENDING", "closed": "WINDOW CLOSED", "none": "NO DISCARD"}
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
