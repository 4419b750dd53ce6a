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

from assistant.camera import open_camera

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
    """Iterate ``Frame``s from a camera index, a video file, or a directory of images.

    Recordings are read by ``vision.recording.frames``, which honours a generated recording's ``.meta.json``
    (true frame numbers, so dropped frames leave gaps just as a live camera's timestamps would).
    """

    def __init__(self, spec: int | str | Path, fps: float | None = None, paced: bool = False,
                 width: int | None = None, height: int | None = None) -> None:
        self.spec = spec
        self.paced = paced
        self.live = isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit())
        self._cap: cv2.VideoCapture | None = None
        self.t0 = 0.0  # time.monotonic() when iteration began: a paced frame at time t is due at t0 + t
        self.fps = float(fps or 30.0)
        if self.live:
            self._cap = open_camera(int(spec), width, height)
            if self._cap is None:
                raise SourceError(f"camera {spec}: cannot open it (is it connected? try another --camera index)")
            return
        path = Path(spec)
        if path.is_dir():
            if not any(p.suffix.lower() in IMAGE_SUFFIXES for p in path.iterdir()):
                raise SourceError(f"{path}: no image frames ({', '.join(IMAGE_SUFFIXES)}) in this folder")
        elif path.is_file():
            from vision.recording import meta_for

            cap = cv2.VideoCapture(str(path))
            if not cap.isOpened():
                raise SourceError(f"{path}: cannot read this video file")
            got = cap.get(cv2.CAP_PROP_FPS)
            cap.release()
            self.fps = float(fps or (meta_for(path) or {}).get("fps") or (got if got and got > 1 else 30.0))
        else:
            raise SourceError(f"{path}: no such video file or frames folder")

    def __iter__(self) -> Iterator[Frame]:
        self.t0 = time.monotonic()
        if self.live:
            yield from self._camera()
            return
        from vision.recording import RecordingError, frames

        try:
            for n, (image, index, t) in enumerate(frames(self.spec, self.fps)):
                if n == 1 and self.paced:
                    # The watch sets itself up on the first frame (calibration, the tile model): a camera would
                    # be delivering frames only from then on, so the recording's clock starts here, not before.
                    self.t0 = time.monotonic() - t
                due = self.t0 + t
                if self.paced and (delay := due - time.monotonic()) > 0:
                    time.sleep(delay)
                yield Frame(index, t, image, due if self.paced else time.monotonic())
        except RecordingError as exc:
            raise SourceError(str(exc)) from None

    def _camera(self) -> Iterator[Frame]:
        assert self._cap is not None
        index = 0
        while True:
            ok, image = self._cap.read()
            if not ok:
                raise SourceError(f"camera {self.spec}: stopped delivering frames at frame {index}")
            now = time.monotonic()
            yield Frame(index, now - self.t0, image, now)
            index += 1

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
