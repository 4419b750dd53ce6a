"""The camera as the set-up steps use it (``mahj setup tiles --camera``, ``mahj setup camera --camera``): opened
by index, device path or video file through OpenCV, read, and timed.

One path for all three: a video file given as ``--camera clip.mp4`` goes through the same ``cv2.VideoCapture``
reads as a webcam, which is how the capture flow is tested without a camera (tests/test_setup_flow.py).
"""

from __future__ import annotations

import time
from typing import Protocol

import cv2
import numpy as np

#: Frames read and dropped before a capture: the camera's exposure settles and stale buffered frames go.
SETTLE_FRAMES = 5


class Reader(Protocol):
    def read(self) -> tuple[bool, np.ndarray | None]: ...


def open_camera(spec: str | int, width: int | None = None, height: int | None = None) -> cv2.VideoCapture | None:
    """The camera (an index such as ``0``, a device path, or a video file), asked for ``width`` x ``height``;
    None if it cannot be opened."""
    cam = cv2.VideoCapture(int(spec) if str(spec).isdigit() else str(spec))
    if not cam.isOpened():
        return None
    if width and height:
        cam.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        cam.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
    return cam


def grab(cam: Reader) -> np.ndarray | None:
    """One fresh picture: the last of SETTLE_FRAMES reads (None if none came)."""
    frame = None
    for _ in range(SETTLE_FRAMES):
        ok, got = cam.read()
        frame = got if ok else frame
    return frame


def time_camera(cam: Reader, n: int, keep: int = 5) -> tuple[list[np.ndarray], float, float]:
    """Read ``n`` frames: ``keep`` of them spread over the run (for the frame checks), the frame rate over the
    run, and the median time a read waited for its frame (ms), the capture latency the pipeline sees."""
    first = grab(cam)
    kept = [] if first is None else [first]
    waits = []
    every = max(1, n // max(keep - 1, 1))
    t0 = time.perf_counter()
    for i in range(n):
        t = time.perf_counter()
        ok, got = cam.read()
        waits.append((time.perf_counter() - t) * 1000)
        if ok and got is not None and (i + 1) % every == 0 and len(kept) < keep:
            kept.append(got)
    return kept, n / max(time.perf_counter() - t0, 1e-6), float(np.median(waits))
