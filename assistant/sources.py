"""Where frames come from: a camera, a video file, or a folder of still frames, all as one iterator.

Each frame comes with its index and table time ``t``. For a camera, ``t`` is wall-clock time since the start;
for a recording it is ``index / fps`` so that times in the journal match the recording (and its truth log).
``paced=True`` plays a recording at its real speed, which is what latency measurements need: a frame is then
"seen" at the moment it would have been seen live.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


class SourceError(OSError):
    """A source that cannot be opened or read; the message names it (and the frame, where it applies)."""


@dataclass
class Frame:
    index: int
    t: float
    image: np.ndarray
    shown_at: float  # time.monotonic() when the frame became available (paced: its due time)


class FrameSource:
    """Iterate ``Frame``s from a camera index, a video file, or a directory of images."""

    def __init__(self, spec: int | str | Path, fps: float | None = None, paced: bool = False,
                 width: int | None = None, height: int | None = None, start: int = 0) -> None:
        self.spec = spec
        self.paced = paced
        self.start = start
        self.live = isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit())
        self._files: list[Path] = []
        self._cap: cv2.VideoCapture | None = None
        self.t0 = 0.0  # time.monotonic() when iteration began: frame i (paced) is due at t0 + i / fps
        if self.live:
            self._cap = cv2.VideoCapture(int(spec))
            if width and height:
                self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
                self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            if not self._cap.isOpened():
                raise SourceError(f"camera {spec}: cannot open it (is it connected? try another --camera index)")
        else:
            path = Path(spec)
            if path.is_dir():
                self._files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
                if not self._files:
                    raise SourceError(f"{path}: no image frames ({', '.join(IMAGE_SUFFIXES)}) in this folder")
            elif path.is_file():
                self._cap = cv2.VideoCapture(str(path))
                if not self._cap.isOpened():
                    raise SourceError(f"{path}: cannot read this video file")
            else:
                raise SourceError(f"{path}: no such video file or frames folder")
        got = self._cap.get(cv2.CAP_PROP_FPS) if self._cap is not None else 0.0
        self.fps = float(fps or (got if got and got > 1 else 30.0))

    def __iter__(self) -> Iterator[Frame]:
        t0 = self.t0 = time.monotonic()
        index = 0
        if self._cap is not None and not self.live and self.start:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, self.start)
            index = self.start
        files = self._files[self.start:] if self._files else None
        while True:
            if files is not None:
                if index - self.start >= len(files):
                    return
                path = files[index - self.start]
                image = cv2.imread(str(path))
                if image is None:
                    raise SourceError(f"{path}: frame {index} is not a readable image")
            else:
                assert self._cap is not None
                ok, image = self._cap.read()
                if not ok:
                    if self.live:
                        raise SourceError(f"camera {self.spec}: stopped delivering frames at frame {index}")
                    return
            if self.live:
                now = time.monotonic()
                yield Frame(index, now - t0, image, now)
            else:
                t = index / self.fps
                due = t0 + (t - self.start / self.fps)
                if self.paced:
                    delay = due - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                yield Frame(index, t, image, due if self.paced else time.monotonic())
            index += 1

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
