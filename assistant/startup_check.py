"""``mahj watch`` checks the camera over its first seconds, as ``mahj setup camera`` does, and warns (issue 32).

Why several frames: a hand over the mat, a player leaning in, or a camera still settling its exposure spoils one
frame, not the camera; each measure is the median over FRAMES frames spread over the first SECONDS of table time
(``vision.camera_check.combine``). Each sampled frame is measured as it comes, so the cost (a detection, about as
long as one frame's reading) is spread over the window and never stops the game; the verdict comes once, when
the window ends (or the source ends first). Frame rate and capture latency are left to ``mahj setup camera``:
here they would time the pipeline's own reading, not the camera.
"""

from __future__ import annotations

from typing import Any

from vision.camera_check import Check, Measures, combine, judge, measure_frame

SECONDS = 3.0
FRAMES = 5


class StartupCheck:
    """Feed it every frame (``offer``); ``verdict`` is None until the window has ended, then the checks."""

    def __init__(self, model: Any, seconds: float = SECONDS, frames: int = FRAMES, calibration: Any = None) -> None:
        self.model = model
        self.calibration = calibration      # the table's, when it has no markers: the tile size comes from it
        self.seconds = seconds
        self.every = seconds / max(frames - 1, 1)
        self.frames = frames
        self.measures: list[Measures] = []
        self.t0: float | None = None
        self.done = False

    def offer(self, image: Any, t: float) -> list[Check] | None:
        """Measure this frame if one is due (table time ``t``); the checks once the window closes, else None."""
        if self.done:
            return None
        self.t0 = t if self.t0 is None else self.t0
        if t - self.t0 >= len(self.measures) * self.every and len(self.measures) < self.frames:
            self.measures.append(measure_frame(self.model, image, self.calibration))
        if len(self.measures) >= self.frames or t - self.t0 >= self.seconds:
            return self.finish()
        return None

    def finish(self) -> list[Check] | None:
        """The checks on what was sampled (None if nothing was, or the verdict already went out)."""
        if self.done or not self.measures:
            return None
        self.done = True
        return judge(combine(self.measures))

    def warnings(self, checks: list[Check]) -> list[str]:
        """One line per failed check, with its fix."""
        n = len(self.measures)
        return [f"camera check ({n} frame{'s' if n > 1 else ''} over the first {self.seconds:g} s): {c.name} fails: "
                f"{c.fix} (`mahj setup camera` checks it all)" for c in checks if c.ok is False]
