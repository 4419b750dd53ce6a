"""Read a whole recording with a TableReader: what `mahj video read`, the tests and the bench share."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.calibration import Calibration, CalibrationError, calibrate_frame
from vision.events import Observation
from vision.reader import Detector, TableReader
from vision.recording import frames as video_frames


@dataclass
class ReadResult:
    events: list[Observation]
    calibration: Calibration
    frame_ms: list[float] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)


def read_frames(frames: Iterable[tuple[np.ndarray, int, float]], detector: Detector,
                calibration: Calibration | None = None, *, on_event: Callable[[Observation], None] | None = None,
                expect: Callable[[], Any] | None = None, **reader_kw: Any) -> ReadResult:
    """Run a reader over ``frames``; calibrates from the markers of the first frame when no calibration is given
    (retrying on the next frames while markers are missing)."""
    reader: TableReader | None = None
    events: list[Observation] = []
    cost: list[float] = []
    skipped = 0
    for frame, idx, t in frames:
        if reader is None:
            if calibration is None:
                try:
                    calibration = calibrate_frame(frame)
                except CalibrationError:
                    skipped += 1
                    if skipped > 90:
                        raise
                    continue
            reader = TableReader(calibration, detector, **reader_kw)
        t0 = time.perf_counter()
        out = reader.process(frame, idx, t, expect() if expect else None)
        cost.append(1000 * (time.perf_counter() - t0))
        for ev in out:
            events.append(ev)
            if on_event:
                on_event(ev)
    if reader is None:
        raise CalibrationError("no frames to read")
    return ReadResult(events, reader.cal, cost, dict(reader.stats))


def read_video(path: str | Path, detector: Detector, calibration: Calibration | None = None,
               **kw: Any) -> ReadResult:
    return read_frames(video_frames(path), detector, calibration, **kw)
