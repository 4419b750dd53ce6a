"""Can the reader trust this frame, and if not, why: frames dropped, a picture too dark or frozen, a bump or a
light change under way (everything freezes until the picture is still, then the calibration is corrected from
the markers, or by phase correlation without them, and every region is re-read), and a camera nudged too
gently to disturb the whole picture."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision import events as ev
from vision.calibration import CalibrationError, calibrate_from_points, detect_markers
from vision.regions.state import TableState

BUMP_PX = 3.0             # marker displacement (image px) that counts as a bumped camera
DARK_LEVEL = 30.0         # mean gray below which the picture is too dark to read
MOVING_PX = 30            # changed pixels of the whole top-down view that mean something moves
ONSET_S = 0.2             # a bump or a light change can pass for motion over regions this long before it is seen
                          # (forgetting those touches, and keeping the floor's picture across the recalibration:
                          # 8 HD bench games' discards 93.9 / 96.9 % -> 100 / 100 %, 2 invented -> 0)


class CameraHealth:
    """Watches the camera for the reader. ``unreadable`` says whether a frame must not be read, and reports
    (into ``out``) what is wrong or has healed; ``camera_moved`` is asked before a reading that changes a
    region is committed. What a disturbance means for the reading is the reader's: ``resync(silent)`` drops
    every region's reference so that all are read again (``silent``: adopt what is there without events), and
    ``on_disturbed(onset)`` is told the first frame of a bump or light change, whose frames till then passed
    for motion over the regions."""

    def __init__(self, table: TableState, *, fps: float, settle_frames: int, marker_check_s: float,
                 resync: Callable[[bool], None], on_disturbed: Callable[[int], None]) -> None:
        self.table = table
        self.fps = fps
        self.settle_frames = settle_frames
        self.marker_every = max(1, int(marker_check_s * fps))
        self._resync = resync
        self._on_disturbed = on_disturbed
        self.last_index: int | None = None            # the last frame seen (read or not), for dropped frames
        self.disturbed_since: int | None = None
        self._still_since = 0
        self.retake_quiet = False     # after a disturbance: the quiet-table view is to be retaken, from next frame
        self._shift_ref: np.ndarray | None = None
        self._hann: np.ndarray | None = None
        self._moved_checked: tuple[int, bool] = (-1, False)
        self.dark = False
        self.frozen_since: int | None = None
        self.frozen_reported = False
        self._prev_top: np.ndarray | None = None      # the previous frame's top-down view, for _check_frozen

    def check_dropped(self, idx: int, t: float, out: list[ev.Observation]) -> None:
        """Report frames missing since the last one seen."""
        if self.last_index is not None and idx - self.last_index > 1:
            missing = idx - self.last_index - 1
            out.append(ev.CameraProblem(t, idx, 1.0, problem="frames_dropped", detail=f"{missing} frame(s) missing"))

    def unreadable(self, frame: np.ndarray, top: np.ndarray, idx: int, t: float, out: list[ev.Observation]
                   ) -> bool:
        """Whether this frame must not be read (too dark, frozen, or a bump or light change under way). Also
        feeds the change watcher this frame's top-down view ``top``, and checks the markers every
        ``marker_check_s``."""
        cal, watch = self.table.cal, self.table.watch
        if self._shift_ref is None and cal.source != "markers":
            self._set_shift_ref(self._small(frame))
        if self._check_dark(top, idx, t, out):
            return True
        watch.update(top)
        if self._check_frozen(idx, t, out):
            return True
        if self._disturbance(top, frame, idx, t, out):
            return True
        if idx % self.marker_every == 0 and self.table.cal.source == "markers":
            self._check_markers(frame, idx, t, out, settled=False)
        return False

    def _check_dark(self, top: np.ndarray, idx: int, t: float, out: list) -> bool:
        dark = float(top.mean()) < DARK_LEVEL
        if dark != self.dark:
            self.dark = dark
            out.append(ev.CameraProblem(t, idx, 1.0, problem="dark", resolved=not dark,
                                        detail="picture too dark to read" if dark else "light is back"))
            if not dark:
                self._resync(True)
        if dark:
            self.last_index = idx
        return dark

    def _check_frozen(self, idx: int, t: float, out: list) -> bool:
        """A real sensor always has some noise: bit-identical frames for a second mean a stuck camera/driver."""
        watch = self.table.watch
        still = watch.prev is not None and self._prev_top is not None and np.array_equal(watch.prev, self._prev_top)
        self._prev_top = watch.prev
        if still:
            self.frozen_since = idx if self.frozen_since is None else self.frozen_since
            if not self.frozen_reported and idx - self.frozen_since >= self.fps:
                self.frozen_reported = True
                out.append(ev.CameraProblem(t, idx, 0.9, problem="frozen", detail="picture has not changed at all"))
        else:
            if self.frozen_reported:
                out.append(ev.CameraProblem(t, idx, 1.0, problem="frozen", resolved=True, detail="picture moves"))
            self.frozen_since, self.frozen_reported = None, False
        self.last_index = idx if still else self.last_index
        return still and self.frozen_reported

    def _disturbance(self, top: np.ndarray, frame: np.ndarray, idx: int, t: float, out: list) -> bool:
        """Freeze while a light change or bump is under way; resync when the picture is still again."""
        watch = self.table.watch
        if self.disturbed_since is None:
            if not (watch.brightness_jump(top) or watch.global_change()):
                return False
            self.freeze(idx)
        moving = watch.moving_px > MOVING_PX
        if moving:
            self._still_since = idx
            self.last_index = idx
            return True
        if idx - self._still_since < self.settle_frames:
            self.last_index = idx
            return True
        if self.table.cal.source == "markers":
            bumped = self._check_markers(frame, idx, t, out, settled=True)
        else:
            bumped = self.check_shift(frame, idx, t, out)
        if not bumped:
            out.append(ev.CameraProblem(t, idx, 0.8, problem="light_changed", resolved=True,
                                        detail="whole-table change without marker movement; re-reading"))
        watch.reset_brightness(top)
        watch.table_ref = None               # the quiet view is re-taken under the new light / camera pose,
        self.retake_quiet = True             # from the next frame: the picture is still by now
        self.disturbed_since = None
        # Tiles are tracked in table millimetres, so after a light change, or a bump the markers corrected, the
        # re-read compares with what was there before and moves made meanwhile are still reported. Without
        # markers, a rotation or tilt the phase correlation cannot see may remain: adopt silently rather than
        # invent moves.
        self._resync(self.table.cal.source != "markers")
        self.last_index = idx
        return True

    def freeze(self, idx: int) -> None:
        """Freeze from ``idx`` on: a bump or a light change is under way. Its first frames, before it could be
        told from an arm, passed for motion over the regions: the reader is told from which frame
        (``ONSET_S`` earlier) to forget them."""
        self.disturbed_since = self._still_since = idx
        self._on_disturbed(idx - round(ONSET_S * self.fps))

    def _check_markers(self, frame: np.ndarray, idx: int, t: float, out: list, settled: bool) -> bool:
        """Markers moved -> warn; once settled recalibrate from them. Returns True if recalibrated. Three
        markers are enough: a bump can push one out of the picture, and the fourth follows the other three."""
        cal = self.table.cal
        found = detect_markers(frame)
        if len(found) < 3:
            return False
        moved = max(float(np.hypot(*(found[i] - np.asarray(cal.marker_image[i])))) for i in found)
        if moved < BUMP_PX:
            return False
        if not settled:
            if self.disturbed_since is None:
                self.freeze(idx)                          # freeze, then recalibrate when still
            return False
        if len(found) == 3:
            ids = sorted(found)
            affine = cv2.getAffineTransform(np.float32([cal.marker_image[i] for i in ids]),
                                            np.float32([found[i] for i in ids]))
            missing = next(i for i in range(4) if i not in found)
            old = np.asarray(cal.marker_image[missing], np.float64)
            found = dict(found) | {missing: affine[:, :2] @ old + affine[:, 2]}
        try:
            new = calibrate_from_points(found, cal.image_size, cal.layout)
        except CalibrationError:
            return False
        new.bands, new.bands_fitted = cal.bands, cal.bands_fitted
        self.table.cal = new
        self.table.watch.set_calibration(new)
        out.append(ev.CameraProblem(t, idx, 1.0, problem="bumped", resolved=True,
                                    detail=f"markers moved {moved:.1f} px; recalibrated"))
        return True

    def camera_moved(self, frame: np.ndarray, idx: int) -> bool:
        """Checked before any reading that changes a region is committed (a few ms, a few times a minute): a
        camera nudged too gently to disturb the whole picture still moves every tile by millimetres, and
        committing that would report tiles gone and new ones come."""
        if self._moved_checked[0] == idx:
            return self._moved_checked[1]
        cal = self.table.cal
        if cal.source == "markers":
            found = detect_markers(frame)
            moved = len(found) >= 3 and max(
                float(np.hypot(*(found[i] - np.asarray(cal.marker_image[i])))) for i in found) >= BUMP_PX
        else:
            (dx, dy), _resp = cv2.phaseCorrelate(self._shift_ref, self._small(frame), self._hann)
            moved = 4 * float(np.hypot(dx, dy)) >= BUMP_PX
        self._moved_checked = (idx, moved)
        return moved

    def _set_shift_ref(self, small: np.ndarray) -> None:
        """The picture shifts are measured from, with the Hanning window of its size (phaseCorrelate needs both
        the same shape, so they change together)."""
        self._shift_ref = small
        self._hann = cv2.createHanningWindow(small.shape[::-1], cv2.CV_32F)

    def _small(self, frame: np.ndarray) -> np.ndarray:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        return cv2.resize(gray, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA).astype(np.float32)

    def check_shift(self, frame: np.ndarray, idx: int, t: float, out: list) -> bool:
        """Without markers (manual corners) a bump shows as the whole picture shifted: phase correlation against
        the picture at calibration time measures it, and the homography follows by that translation. Returns
        True if the calibration moved."""
        cur = self._small(frame)
        if self._shift_ref is None or self._shift_ref.shape != cur.shape:
            self._set_shift_ref(cur)
            return False
        (dx, dy), response = cv2.phaseCorrelate(self._shift_ref, cur, self._hann)
        dx, dy = 4 * dx, 4 * dy
        if np.hypot(dx, dy) < BUMP_PX or response < 0.05:
            return False
        cal = self.table.cal
        shift = np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])
        cal.table_to_image = (shift @ cal.H).tolist()
        self.table.watch.set_calibration(cal)
        self._shift_ref = cur           # same shape: the window still fits
        out.append(ev.CameraProblem(t, idx, min(1.0, 2 * response), problem="bumped", resolved=True,
                                    detail=f"picture shifted {np.hypot(dx, dy):.1f} px; calibration moved with it"))
        return True
