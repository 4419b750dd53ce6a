"""TableReader: camera frames in, observations (vision.events) out.

The loop per frame, and why:

1. Camera health first (dark, frozen, dropped frames): a bad picture must never turn into moves.
2. A coarse top-down view and per-region motion/change (vision.change): a still, unchanged region costs
   nothing more. A region with motion, or under an arm or a hand (vision.change.ChangeWatcher.occluded), is
   *busy*: nothing read from it counts.
3. A region that changed is read by the tile model once it has been still for ``settle_frames``; the reading
   counts only when ``stable_reads`` consecutive readings agree (vision.tracker.same_reading). Then it is
   merged into that region's tracks and the difference becomes observations.
4. Whole-table disturbances (light change, camera bump: most regions change together) freeze everything; once
   the picture is still again the calibration is corrected (markers, or phase correlation without them) and
   every region is re-read. Tiles live in table millimetres, so with markers the re-read still reports moves
   made meanwhile; without markers it adopts what is there silently rather than risk inventing moves.
5. Every ``heal_every_s`` one region (round robin) is re-read even if it looks unchanged, to heal drift; what
   such a read finds is adopted silently: nothing was seen to happen there, so a difference is the model's
   flicker (a tile missed one read, found the next) far more often than a move.

Moves are attributed to the seat whose arm crossed its own rack while the region changed; racks and walls say
whose they are; the referee's expectation (``expect``: whose turn it is) or the reader's own turn model decides
when the arms do not.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np

from vision import events as ev
from vision.calibration import (
    Calibration,
    CalibrationError,
    calibrate_from_points,
    detect_markers,
    fit_bands,
    table_to_seat,
)
from vision.change import MM_PER_PX, ChangeWatcher
from vision.tile_model import TOPDOWN_PX_PER_MM, crop_square
from vision.tracker import ALTS, RegionTracks, TileSeen, Track, same_reading, vote

MOTION_BUSY = 0.15        # tile areas of a region's pixels moving frame to frame that mark it busy
CHANGE_DIRTY = 0.25       # tile areas differing from the reference that call for a re-read
BUMP_PX = 3.0             # marker displacement (image px) that counts as a bumped camera
DARK_LEVEL = 30.0         # mean gray below which the picture is too dark to read
MOVING_PX = 30            # changed pixels of the whole top-down view that mean something moves
STANDING_SHOWS = 0.4      # the share of a flat tile's area a standing tile shows from above
COUNT_PATIENCE_S = 3.0    # a standing-tile count must differ from the referee's this long to be reported
DISCARD_SURE = 0.75       # a discard read less surely is also asked about: a wrong tile means a wrong claim
SURE_CODE = 0.8           # a floor tile's code this sure that reading another there means a tile thrown onto it
SAME_TILE = 0.6           # tile widths (along a row; any way on the floor) under which two boxes are one tile
WINDOW_OVERHANG_MM = 60.0 # how far past the table edge a detection window may reach (racks, standing tiles)
REAPPEAR_S = 5.0          # standing tiles gone without a move and back within this long were only hidden
REAPPEAR_IDLE_S = 60.0    # the same at a seat not in turn, which racks nothing: the model may lose a tile for long
SEATS = ("East", "South", "West", "North")
#: Observations that are a seat's own move (what ``_last_move`` remembers).
SEAT_MOVES = tuple(o.type for o in (ev.DiscardDown, ev.Picked, ev.Racked, ev.ExposurePlaced, ev.JokerExchanged,
                                    ev.HandDisplayed))
#: The classifier's score that turns a "face-down" floor or rack-top tile face up: likelier that tile than anything
#: else together, "not a tile" (a back) included. Only face-up tiles lie there, so a real back is rare. With the
#: classifier shipped 2026-11-25 one of three blank Soaps in a shown hand read 0.67-0.79 from frame to frame: at a
#: cut of 0.7 that hand went unread (bench/bench_table.py, models/README.md).
BACK_READ_SURE = 0.5
LONGEST_EXPOSURE = 6      # a sextet: a longer run of face-up tiles on a rack top is a hand being shown
CHANGED_UNDER = 0.25      # share of a tile's footprint that must differ for a floor tile to be newly put there
ROW_CHANGED = 0.05        # ... for a row of standing tiles to have changed at all (dark backs on a dark rack
                          # differ from it little: 0.08 was the least a real rack changed over the 20 HD games)
RACK_PICTURED = 0.4       # share of a tile-sized square of a slope changed since its seat's pick: a tile racked
                          # (real racks 0.73-1.0 over the HD games, a hand hovering near the rack up to 0.2)
ONSET_S = 0.2             # a bump or a light change can pass for motion over regions this long before it is seen
TOUCH_MEMORY = 64         # frames of touch kept per region, well over ONSET_S at any camera rate
TAKEN_FROM_FLOOR_S = 10.0 # a tile taken off the floor this recently may be racked out of turn (Mah Jongg on it)


class Detector(Protocol):
    """What the reader needs from the tile model (vision.tile_model.TileModel fits)."""

    def detect(self, frame_bgr: np.ndarray) -> list[Any]: ...


@dataclass
class Expectation:
    """What the referee expects now: whose turn it is and how many concealed tiles each seat should hold."""

    turn: int | None = None
    rack_counts: dict[int, int] | None = None

    @classmethod
    def of(cls, expect: Expectation | dict[str, Any] | None) -> Expectation:
        if expect is None or isinstance(expect, Expectation):
            return expect or cls()
        counts = expect.get("rack_counts")
        return cls(expect.get("turn"), {int(k): int(v) for k, v in counts.items()} if counts else None)


@dataclass
class _Region:
    name: str
    seat: int
    kind: str
    tracks: RegionTracks
    needs_read: bool = True
    silent: bool = True                 # next commit is a resync: adopt without events
    healing: bool = False               # read on the heal timer, nothing seen to change: adopt without events
    last_motion: int = -(10**9)
    last_touch: int = -(10**9)          # last frame with motion or an arm seen over it (not a resync's blank)
    touches: deque[int] = field(default_factory=lambda: deque(maxlen=TOUCH_MEMORY))   # the last few such frames
    committed_at: int = -(10**9)        # frame of the last committed reading
    touched: bool = False               # motion or an arm over the region between the last two commits
    pictured: np.ndarray | None = None  # its top-down picture when its tiles last changed: what ``tracks`` show
    before: np.ndarray | None = None    # ``pictured`` as it was before the last commit
    change_start_t: float | None = None
    readings: list[list[TileSeen]] = field(default_factory=list)
    reads_without_agreement: int = 0


class TableReader:
    """Reads one table. ``process`` is called once per frame, in order; it returns the observations that
    frame confirmed (usually none)."""

    def __init__(self, calibration: Calibration, tile_model: Detector, *, fps: float = 30.0,
                 stable_reads: int = 2, settle_frames: int = 3, heal_every_s: float = 2.0,
                 marker_check_s: float = 1.0, matcher: str = "greedy", change_driven: bool = True) -> None:
        self.cal = calibration
        self.model = tile_model
        self.fps = fps
        self.stable_reads = stable_reads
        self.change_driven = change_driven      # False: read every still region every frame (for comparison)
        self.settle_frames = settle_frames
        self.heal_every = max(1, int(heal_every_s * fps))
        self.marker_every = max(1, int(marker_check_s * fps))
        self.watch = ChangeWatcher(calibration)
        tile = calibration.layout.tile_w_mm
        self.regions = {
            name: _Region(name, v.band.seat, v.band.kind, RegionTracks(0.6 * tile, matcher))
            for name, v in self.watch.views.items()
        }
        self.turn: int | None = None
        self.arm_seen: dict[int, float] = {}          # seat -> last time an arm reached in from that seat's edge
        self.last_index: int | None = None
        self.disturbed_since: int | None = None
        self._still_since = 0
        self._last_motion_any = 0
        self._under_arm: set[str] = set()
        self._retake_quiet = False
        self._shift_ref: np.ndarray | None = None
        self._hann: np.ndarray | None = None
        self._moved_checked: tuple[int, bool] = (-1, False)
        self.quiet_frames = max(settle_frames, int(0.5 * fps))
        self.stale_frames = int(2.0 * fps)
        self.dark = False
        self.frozen_since: int | None = None
        self.frozen_reported = False
        self._prev_top: np.ndarray | None = None      # the previous frame's top-down view, for _check_frozen
        self._heal_cursor = 0
        self._reported_counts: dict[int, bool] = {}   # seat -> the miscount reported was more tiles seen than expected
        self._count_since: dict[int, tuple[float, int, int]] = {}
        self._unexplained: dict[int, list[tuple[float, float, float, int]]] = {}  # seat -> (t, x, y, how many)
        self._last_move: dict[int, str] = {}     # seat -> type of the last move observed of it (SEAT_MOVES)
        self._slope_at_pick: dict[int, np.ndarray | None] = {}  # seat -> its slope's picture at its last pick
        self._last_discard: tuple[int, int] | None = None   # (floor track id, seat) of the latest discard
        self._floor_taken: tuple[float, set[int]] = (-1e9, set())  # when a tile last left the floor; who may have
        self.stats = {"frames": 0, "detector_calls": 0, "regions_read": 0}

    # --- public ----------------------------------------------------------------------------------------

    def process(self, frame: np.ndarray, frame_index: int, t: float,
                expect: Expectation | dict[str, Any] | None = None) -> list[ev.Observation]:
        exp = Expectation.of(expect)
        if exp.turn is not None:
            self.turn = exp.turn
        out: list[ev.Observation] = []
        self.stats["frames"] += 1
        self._frame_index, self._frame_t = frame_index, t
        self._check_dropped(frame_index, t, out)
        if not self.cal.bands_fitted:
            self.fit_regions(frame)
        if self._shift_ref is None and self.cal.source != "markers":
            self._shift_ref = self._small(frame)
            self._hann = cv2.createHanningWindow(self._shift_ref.shape[::-1], cv2.CV_32F)

        top = self.watch.topdown(frame)
        if self._check_dark(top, frame_index, t, out):
            return out
        self.watch.update(top)
        if self._check_frozen(frame_index, t, out):
            return out

        if self._disturbance(top, frame, frame_index, t, out):
            return out
        if frame_index % self.marker_every == 0 and self.cal.source == "markers":
            self._check_markers(frame, frame_index, t, out, settled=False)

        to_read = self._regions_to_read(top, frame, frame_index, t)
        if to_read:
            readings = self._read(frame, to_read)
            for r in to_read:
                out += self._take_reading(r, readings[r.name], top, frame, frame_index, t, exp)
        out += self._count_check(exp, frame_index, t)
        self._refresh_quiet_view(top, frame, frame_index)
        self.last_index = frame_index
        return out

    def _refresh_quiet_view(self, top: np.ndarray, frame: np.ndarray, idx: int) -> None:
        """The quiet-table view (what arms are told apart from) follows the table when it is still and read.
        Still for ``stale_frames`` with reads pending means the view itself is stale (it was taken with an arm
        in it) or an object lies still at the edge: take the view anyway, and let the regions that were
        "under an arm" adopt their next reading silently: missing a move beats inventing one."""
        still = idx - self._last_motion_any
        pending = any(r.needs_read for r in self.regions.values())
        if still >= self.quiet_frames and (not pending or self.watch.table_ref is None):
            if self.watch.table_ref is None or idx % self.quiet_frames == 0:    # the skin mask costs ~2 ms
                self.watch.set_quiet_view(top, frame)
            self._under_arm = set()
        elif still >= self.stale_frames and self.watch.table_ref is not None:
            self.watch.set_quiet_view(top, frame)
            for name in self._under_arm:
                self.regions[name].silent = True
            self._under_arm = set()

    def fit_regions(self, frame: np.ndarray) -> None:
        """Fit the regions to the tiles of this frame (vision.calibration.fit_bands) and rebuild the watcher:
        the first frame of a session, unless the calibration already holds fitted or hand-set regions."""
        dets, table = self._detect(frame)
        if dets:
            tiles = [(float(x), float(y), d.face) for (x, y), d in zip(table, dets, strict=True)]
            self.cal.bands = fit_bands(self.cal.bands, tiles, self.cal.layout.size_mm)
        self.cal.bands_fitted = True
        self.watch.set_calibration(self.cal)
        self._resync()

    def tiles(self, region: str) -> list[Track]:
        """The committed tiles of a region (``slope0``, ``rack_top2``, ``wall1``, ``floor`` ...)."""
        return list(self.regions[region].tracks.tracks)

    # --- camera health ---------------------------------------------------------------------------------

    def _check_dropped(self, idx: int, t: float, out: list) -> None:
        if self.last_index is not None and idx - self.last_index > 1:
            missing = idx - self.last_index - 1
            out.append(ev.CameraProblem(t, idx, 1.0, problem="frames_dropped", detail=f"{missing} frame(s) missing"))

    def _check_dark(self, top: np.ndarray, idx: int, t: float, out: list) -> bool:
        dark = float(top.mean()) < DARK_LEVEL
        if dark != self.dark:
            self.dark = dark
            out.append(ev.CameraProblem(t, idx, 1.0, problem="dark", resolved=not dark,
                                        detail="picture too dark to read" if dark else "light is back"))
            if not dark:
                self._resync()
        if dark:
            self.last_index = idx
        return dark

    def _check_frozen(self, idx: int, t: float, out: list) -> bool:
        """A real sensor always has some noise: bit-identical frames for a second mean a stuck camera/driver."""
        still = self.watch.prev is not None and self._prev_top is not None and \
            np.array_equal(self.watch.prev, self._prev_top)
        self._prev_top = self.watch.prev
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
        if self.disturbed_since is None:
            if not (self.watch.brightness_jump(top) or self.watch.global_change()):
                return False
            self._disturbed(idx)
        moving = self.watch.moving_px > MOVING_PX
        if moving:
            self._still_since = idx
            self.last_index = idx
            return True
        if idx - self._still_since < self.settle_frames:
            self.last_index = idx
            return True
        if self.cal.source == "markers":
            bumped = self._check_markers(frame, idx, t, out, settled=True)
        else:
            bumped = self._check_shift(frame, idx, t, out)
        if not bumped:
            out.append(ev.CameraProblem(t, idx, 0.8, problem="light_changed", resolved=True,
                                        detail="whole-table change without marker movement; re-reading"))
        self.watch.reset_brightness(top)
        self.watch.table_ref = None          # the quiet view is re-taken under the new light / camera pose,
        self._retake_quiet = True            # from the next frame: the picture is still by now
        self.disturbed_since = None
        # Tiles are tracked in table millimetres, so after a light change, or a bump the markers corrected, the
        # re-read compares with what was there before and moves made meanwhile are still reported. Without
        # markers, a rotation or tilt the phase correlation cannot see may remain: adopt silently rather than
        # invent moves.
        self._resync(silent=self.cal.source != "markers")
        self.last_index = idx
        return True

    def _disturbed(self, idx: int) -> None:
        """Freeze from ``idx`` on: a bump or a light change is under way. Its first frames, before it could be
        told from an arm, were counted as touches of the regions; they are forgotten, or a floor tile re-read
        as another kind after a bump would pass for a tile thrown onto it. The slopes' pictures from the last
        picks are retaken at their next reading: after a light change or a recalibration a slope differs from
        them a little everywhere, which must not pass for a rack."""
        self.disturbed_since = self._still_since = idx
        self._slope_at_pick = dict.fromkeys(self._slope_at_pick)
        onset = idx - round(ONSET_S * self.fps)
        for r in self.regions.values():
            if r.last_touch >= onset:
                r.last_touch = max((f for f in r.touches if f < onset), default=-(10**9))

    def _check_markers(self, frame: np.ndarray, idx: int, t: float, out: list, settled: bool) -> bool:
        """Markers moved -> warn; once settled recalibrate from them. Returns True if recalibrated. Three
        markers are enough: a bump can push one out of the picture, and the fourth follows the other three."""
        found = detect_markers(frame)
        if len(found) < 3:
            return False
        moved = max(float(np.hypot(*(found[i] - np.asarray(self.cal.marker_image[i])))) for i in found)
        if moved < BUMP_PX:
            return False
        if not settled:
            if self.disturbed_since is None:
                self._disturbed(idx)                      # freeze, then recalibrate when still
            return False
        if len(found) == 3:
            ids = sorted(found)
            affine = cv2.getAffineTransform(np.float32([self.cal.marker_image[i] for i in ids]),
                                            np.float32([found[i] for i in ids]))
            missing = next(i for i in range(4) if i not in found)
            old = np.asarray(self.cal.marker_image[missing], np.float64)
            found = dict(found) | {missing: affine[:, :2] @ old + affine[:, 2]}
        try:
            new = calibrate_from_points(found, self.cal.image_size, self.cal.layout)
        except CalibrationError:
            return False
        new.bands, new.bands_fitted = self.cal.bands, self.cal.bands_fitted
        self.cal = new
        self.watch.set_calibration(new)
        out.append(ev.CameraProblem(t, idx, 1.0, problem="bumped", resolved=True,
                                    detail=f"markers moved {moved:.1f} px; recalibrated"))
        return True

    def _camera_moved(self, frame: np.ndarray, idx: int) -> bool:
        """Checked before any reading that changes a region is committed (a few ms, a few times a minute): a
        camera nudged too gently to disturb the whole picture still moves every tile by millimetres, and
        committing that would report tiles gone and new ones come."""
        if self._moved_checked[0] == idx:
            return self._moved_checked[1]
        if self.cal.source == "markers":
            found = detect_markers(frame)
            moved = len(found) >= 3 and max(
                float(np.hypot(*(found[i] - np.asarray(self.cal.marker_image[i])))) for i in found) >= BUMP_PX
        else:
            (dx, dy), _resp = cv2.phaseCorrelate(self._shift_ref, self._small(frame), self._hann)
            moved = 4 * float(np.hypot(dx, dy)) >= BUMP_PX
        self._moved_checked = (idx, moved)
        return moved

    def _small(self, frame: np.ndarray) -> np.ndarray:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        return cv2.resize(gray, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA).astype(np.float32)

    def _check_shift(self, frame: np.ndarray, idx: int, t: float, out: list) -> bool:
        """Without markers (manual corners) a bump shows as the whole picture shifted: phase correlation against
        the picture at calibration time measures it, and the homography follows by that translation."""
        cur = self._small(frame)
        if self._shift_ref is None or self._shift_ref.shape != cur.shape:
            self._shift_ref = cur
            return False
        (dx, dy), response = cv2.phaseCorrelate(self._shift_ref, cur, self._hann)
        dx, dy = 4 * dx, 4 * dy
        if np.hypot(dx, dy) < BUMP_PX or response < 0.05:
            return False
        shift = np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])
        self.cal.table_to_image = (shift @ self.cal.H).tolist()
        self.watch.set_calibration(self.cal)
        self._shift_ref = cur
        out.append(ev.CameraProblem(t, idx, min(1.0, 2 * response), problem="bumped", resolved=True,
                                    detail=f"picture shifted {np.hypot(dx, dy):.1f} px; calibration moved with it"))
        return True

    def _resync(self, silent: bool = True) -> None:
        for r in self.regions.values():
            r.needs_read, r.readings = True, []
            r.silent = r.silent or silent
        for v in self.watch.views.values():
            v.ref = None
        self.watch.prev = None

    # --- reading ---------------------------------------------------------------------------------------

    def _regions_to_read(self, top: np.ndarray, frame: np.ndarray, idx: int, t: float) -> list[_Region]:
        views = self.watch.views
        layout = self.cal.layout
        if self.watch.moving_px > MOVING_PX:
            self._last_motion_any = idx
        if self.watch.table_ref is None and self._retake_quiet:
            self.watch.set_quiet_view(top, frame)
            self._retake_quiet = False
        if self.watch.table_ref is None:          # no quiet view of the table yet: cannot tell arms apart
            return []
        tile_px = layout.tile_w_mm * layout.tile_h_mm / MM_PER_PX**2
        skin = self.watch.skin(frame) if self.watch.moving_px or self._under_arm else None
        under_arm = self.watch.occluded(top, layout.tile_w_mm * layout.tile_h_mm, skin)
        self._under_arm |= under_arm
        for seat in self.watch.arm_seats:
            self.arm_seen[seat] = t
        for r in self.regions.values():
            v = views[r.name]
            if v.motion > MOTION_BUSY * tile_px or r.name in under_arm:
                r.last_motion = idx
                if not self.watch.no_previous:      # a resync's first frame has nothing to compare with
                    r.last_touch = idx
                    r.touches.append(idx)
                r.healing = False
            # A standing tile seen from above shows only its top edge, about 0.4 of a flat tile.
            seen_px = tile_px * (STANDING_SHOWS if r.kind == "slope" else 1.0)
            if v.change > CHANGE_DIRTY * seen_px:
                r.healing = False
                if not r.needs_read:
                    r.needs_read = True
                    r.change_start_t = t
        if not self.change_driven:
            for r in self.regions.values():
                r.needs_read = True
        elif idx % self.heal_every == 0:
            names = sorted(self.regions)
            r = self.regions[names[self._heal_cursor % len(names)]]
            self._heal_cursor += 1
            if not r.needs_read:
                r.needs_read = r.healing = True
        return [r for r in self.regions.values() if r.needs_read and idx - r.last_motion >= self.settle_frames]

    def _read(self, frame: np.ndarray, regions: Sequence[_Region]) -> dict[str, list[TileSeen]]:
        """Run the tile model once over the part of the table these regions cover and sort its tiles into them.
        Change-driven work saves twice: a quiet table calls the model only to heal (every ``heal_every_s``),
        and a call looks only at the window around the regions that changed."""
        bands = [self.cal.band(r.name).polygon(self.cal.layout.size_mm) for r in regions]
        dets, table = self._detect(frame, np.vstack(bands))
        self.stats["regions_read"] += len(regions)
        out: dict[str, list[TileSeen]] = {r.name: [] for r in regions}
        if not dets:
            return out
        size = self.cal.layout.size_mm
        reading = {r.name for r in regions}
        backs: list[tuple[str, int, Any]] = []      # face-down tiles where only face-up ones lie
        for d, (x, y) in zip(dets, table, strict=True):
            for r in regions:
                if self._holds(r, d.face, x, y, size):
                    if d.face == "down" and r.kind in ("floor", "rack_top"):
                        backs.append((r.name, len(out[r.name]), d.box))
                    up = d.face == "up"
                    out[r.name].append(TileSeen(float(x), float(y), d.face, d.tile if up else None,
                                                float(d.score), d.tile_score, alts=d.alts if up else ()))
                    break
            else:
                if d.face == "up":       # a rack top not being read whose tiles show over a slope: read it too
                    for seat in range(4):
                        top = self.regions[f"rack_top{seat}"]
                        if top.name not in reading and not top.needs_read and self._holds(top, "up", x, y, size):
                            top.needs_read, top.change_start_t = True, self._frame_t
        if backs and hasattr(self.model, "classify"):
            self._read_backs(frame, backs, out)
        for r in regions:
            out[r.name] = self._one_each(r.seat, out[r.name])
        return out

    def _read_backs(self, frame: np.ndarray, backs: list[tuple[str, int, Any]], out: dict[str, list[TileSeen]]
                    ) -> None:
        """Discards and exposures lie face up, yet the detector can take a plain white face for a tile's back (a
        blank Soap: zero in every year hand). So a "face-down" tile on the floor or a rack top is read by the
        classifier, whose training saw tile backs as "not a tile"; one it reads as a tile at BACK_READ_SURE or more
        is face up."""
        reads = self.model.classify([crop_square(frame, box) for _name, _i, box in backs])
        for (name, i, _box), (code, score) in zip(backs, reads, strict=True):
            if code != "none" and score >= BACK_READ_SURE:
                seen = out[name][i]
                out[name][i] = TileSeen(seen.x, seen.y, "up", code, seen.score, score)

    def _one_each(self, seat: int, seen: list[TileSeen]) -> list[TileSeen]:
        """Two boxes closer than SAME_TILE x a tile's width are one tile seen twice (the detector can box a tile,
        or a run of touching tiles, in more than one way): keep the surer one. A wall, a rack slope and a rack
        top each hold one row of tiles side by side (a two-high stack shows one tile from above), so there the
        distance is along the row. On the floor (``seat`` < 0) it is the plain distance: two tiles lying flat
        cannot have their centres closer than a tile's width unless one lies on the other, which from above
        is one tile. A twin box left in would be tracked as a second tile, and its coming and going on later
        readings taken for discards."""
        size, w = self.cal.layout.size_mm, self.cal.layout.tile_w_mm
        kept: list[tuple[float, float, TileSeen]] = []
        for ts in sorted(seen, key=lambda ts: -ts.score):
            u, v = (ts.x, ts.y) if seat < 0 else (table_to_seat(seat, ts.x, ts.y, size)[0], 0.0)
            if all(np.hypot(u - ku, v - kv) >= SAME_TILE * w for ku, kv, _ in kept):
                kept.append((u, v, ts))
        return [ts for _, _, ts in kept]

    def _detect(self, frame: np.ndarray, area_mm: np.ndarray | None = None) -> tuple[list[Any], np.ndarray]:
        """One tile-model call over the table window around ``area_mm`` (points in table mm; None: the whole
        table): its detections and their box centres in table mm.

        The model sees the window warped top-down at TOPDOWN_PX_PER_MM, where a tile is always ~23 x 31 px: a
        whole-table frame shrunk to the detector's input would make tiles a few pixels wide."""
        h, w = frame.shape[:2]
        if hasattr(self.model, "detect_at"):     # the oracle (vision.oracle): true boxes of this frame
            dets = self.model.detect_at(self._frame_index, (0, 0, w, h))
        elif hasattr(self.model, "detect_view"):
            view, view_to_frame = self._topdown_window(frame, area_mm)
            dets = self.model.detect_view(view, frame, view_to_frame)
        else:
            dets = self.model.detect(frame)
        self.stats["detector_calls"] += 1
        if not dets:
            return dets, np.zeros((0, 2))
        centers = np.array([[(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2] for d in dets])
        return dets, self.cal.to_table(centers)

    def _topdown_window(self, frame: np.ndarray, area_mm: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The frame warped onto the table plane over ``area_mm``'s bounding box (plus 1.5 tile lengths, within
        the table and its rack overhang), and the matrix from that view back to the frame."""
        size, margin = self.cal.layout.size_mm, 1.5 * self.cal.layout.tile_h_mm
        lo, hi = -WINDOW_OVERHANG_MM, size + WINDOW_OVERHANG_MM
        if area_mm is None:
            x0, y0, x1, y1 = lo, lo, hi, hi
        else:
            (x0, y0), (x1, y1) = area_mm.min(axis=0) - margin, area_mm.max(axis=0) + margin
            x0, y0, x1, y1 = max(x0, lo), max(y0, lo), min(x1, hi), min(y1, hi)
        s = TOPDOWN_PX_PER_MM
        view_to_table = np.array([[1 / s, 0, x0], [0, 1 / s, y0], [0, 0, 1.0]])
        view_to_frame = self.cal.H @ view_to_table
        size_px = (int(round((x1 - x0) * s)), int(round((y1 - y0) * s)))
        view = cv2.warpPerspective(frame, view_to_frame, size_px, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
        return view, view_to_frame

    def _holds(self, r: _Region, face: str, x: float, y: float, size: float) -> bool:
        """Whether a tile seen at table (x, y) belongs to region ``r``. Standing tiles are never face up, so a
        face-up tile over a seat's slope is on its rack top, shown further out by parallax (the rack top is
        ~28 mm up; seen from the far side of the table its tiles appear over the slope)."""
        b = self.cal.band(r.name)
        if b.seat < 0:
            return b.u[0] <= x <= b.u[1] and b.v[0] <= y <= b.v[1]
        u, v = table_to_seat(b.seat, x, y, size)
        if not b.u[0] <= u <= b.u[1]:
            return False
        if r.kind == "slope" and face == "up":
            return False
        if r.kind == "rack_top" and face == "up":
            return self.cal.band(f"slope{b.seat}").v[0] <= v <= b.v[1]
        return b.v[0] <= v <= b.v[1]

    def _take_reading(self, r: _Region, reading: list[TileSeen], top: np.ndarray, frame: np.ndarray, idx: int,
                      t: float, exp: Expectation) -> list[ev.Observation]:
        tol = 0.5 * self.cal.layout.tile_w_mm
        if r.readings and not same_reading(r.readings[-1], reading, tol, codes=False):
            r.readings = []
            r.reads_without_agreement += 1
        r.readings.append(reading)
        if len(r.readings) < self.stable_reads:
            if r.reads_without_agreement > 3 * self.fps:
                r.reads_without_agreement = 0
                r.needs_read = False
                self.watch.set_reference(r.name, top)
                return [ev.AskHuman(t, idx, 0.0, question=f"I cannot get a steady view of {_where(r)}: "
                                    "is something lying on it?", seat=r.seat)]
            return []
        reading = vote(r.readings, tol)
        if not r.silent and not same_reading(r.tracks.tracks, reading, tol) and self._camera_moved(frame, idx):
            r.readings = []             # the tiles did not move, the camera did: freeze and recalibrate
            if self.disturbed_since is None:
                self._disturbed(idx)
            return []
        r.readings, r.reads_without_agreement = [], 0
        r.needs_read = False
        self.watch.set_reference(r.name, top)
        # The picture to tell a tile put down from one the model missed so far is the one from when the tiles
        # last changed, not from the last reading: a reading that missed a new tile leaves the tracks as they
        # were, and its picture already shows the tile. It is in table coordinates, so it still lines up after
        # a bump the markers corrected, and it outlives the resync after a light change.
        r.before = r.pictured
        if r.pictured is None or not same_reading(r.tracks.tracks, reading, tol):
            r.pictured = self.watch.views[r.name].ref
        diff = r.tracks.commit(reading)
        r.touched, r.committed_at = r.last_touch > r.committed_at, idx
        t_action = r.change_start_t if r.change_start_t is not None else t
        r.change_start_t = None
        if r.silent or r.healing:
            r.silent = r.healing = False
            return []
        if not diff and r.kind != "slope":      # (a slope may have changed where the model sees no tile)
            return []
        return self._observe(r, diff, idx, t, t_action, exp)

    # --- from changes to observations ------------------------------------------------------------------

    def _observe(self, r: _Region, diff, idx: int, t: float, t_action: float, exp: Expectation
                 ) -> list[ev.Observation]:
        out: list[ev.Observation] = []
        kw = {"t_action": t_action}
        if r.kind == "floor":
            if any(tr.face == "up" for tr in diff.removed):
                # Whose arms were out then: the taker is among them (a caller and the next player reach at once).
                self._floor_taken = (t, set(self._arms(t_action, t)) or {self._actor(t_action, t)})
                for seat in self._floor_taken[1]:        # a tile taken off the floor is a move of its taker
                    self._last_move.pop(seat, None)
            out += self._recoded_on_floor(r, diff, idx, t)
            # (A tile seen as a back before and read face up now is the same tile read better: no throw.)
            thrown_onto = [tr for old, tr in diff.recoded
                           if old and tr.was_confidence >= SURE_CODE and r.touched and tr.face == "up" and tr.tile]
            # A discard lands where there was felt: the floor's picture changed under it since its tiles last
            # changed. A tile the model sees only now (a blank Soap it took for a back, one it kept missing or
            # lost for a reading) was there all along. The changed pixels are worked out once for all of them.
            new = [tr for tr in diff.added + thrown_onto if tr.face == "up" and tr.tile]
            changed = self._changed_pixels(r, r.before) if new else None
            for tr in new:
                if self._share_under(r, tr, changed) < CHANGED_UNDER:
                    continue
                seat = self._actor(t_action, t)
                self._last_discard = (tr.id, seat)
                out.append(ev.DiscardDown(t, idx, round(tr.confidence, 3), seat=seat, tile=tr.tile, **kw))
                self._explain_removal(seat)
                if tr.confidence < DISCARD_SURE:
                    out.append(ev.AskHuman(t, idx, tr.confidence, question="Which tile was just discarded?",
                                           seat=seat, choices=tr.alts or (tr.tile,)))
                if seat >= 0:
                    self.turn = (seat + 1) % 4
        elif r.kind == "wall":
            # A player picks one tile at a time. Several gone in one reading were hidden (a sleeve the colour of
            # the felt lying still over the wall while its hand works at a far rack) or lost by the model: no picks.
            size = self.cal.layout.size_mm
            rest = [table_to_seat(r.seat, tr.x, tr.y, size)[0] for tr in r.tracks.tracks]
            picked = diff.removed if len(diff.removed) == 1 else []
            for tr in picked:
                u = table_to_seat(r.seat, tr.x, tr.y, size)[0]
                end = _wall_end(u, rest, self.cal.layout.tile_w_mm)
                seat = self._actor(t_action, t)
                out.append(ev.Picked(t, idx, 0.9, seat=seat, wall_seat=r.seat, end=end, **kw))
                if seat >= 0:
                    self.turn = seat
                    self._slope_at_pick[seat] = self.watch.views[f"slope{seat}"].ref
        elif r.kind == "slope":
            # Tiles found and lost in one reading are the same tiles boxed elsewhere (or a tile moved within
            # the row), not a rack: a rack leaves the row one tile longer.
            # Nor is a second one before the seat moves again (a pick, a discard, a call, a joker exchange, a
            # tile taken off the floor): one pick, one rack. It is the model finding a standing tile it lost
            # while reading the first (under the hand that racked it, or an arm resting near).
            # Nor is a row found longer whose picture did not change: the tile was standing there all along.
            grown = len(diff.added) - self._reappeared(r, diff, t) - len(diff.removed)
            again = self._last_move.get(r.seat) == ev.Racked.type
            if grown > 0 and not again and self._may_rack(r.seat, t) and self._row_changed(r):
                out.append(ev.Racked(t, idx, 0.9, seat=r.seat, count=grown, **kw))
                self.turn = r.seat
            elif self._racked_unseen(r):
                out.append(ev.Racked(t, idx, 0.6, seat=r.seat, count=1, **kw))
                r.pictured = self.watch.views[r.name].ref
        elif r.kind == "rack_top":
            out += self._rack_top(r, diff, idx, t, kw)
        for o in out:
            if o.type in SEAT_MOVES and o.seat >= 0:
                self._last_move[o.seat] = o.type
        return out

    def _recoded_on_floor(self, r: _Region, diff, idx: int, t: float) -> list[ev.Observation]:
        """Floor tiles re-read as another kind where they lay. A sure code replaced is a tile thrown onto (or
        pushed over) the old one if someone reached over the floor meanwhile (``_observe`` reports it as a
        discard); without that (a re-read after a bump or a light change) the picture changed, not the tile. A
        shaky code corrected is asked about only for the latest discard, the one a claim can be made on: older
        floor tiles decide no ruling, and a question per flicker of the classifier would drown the real ones."""
        out: list[ev.Observation] = []
        last_id, last_seat = self._last_discard or (None, -1)
        for old, tr in diff.recoded:
            if tr.face == "up" and tr.tile and tr.was_confidence < SURE_CODE and tr.id == last_id:
                out.append(ev.AskHuman(t, idx, tr.confidence, question="Which tile was discarded here?",
                                       seat=last_seat,
                                       choices=tuple(dict.fromkeys(c for c in (tr.tile, old, *tr.alts) if c))[:ALTS]))
        return out

    def _racked_unseen(self, r: _Region) -> bool:
        """Whether the seat in turn, having picked and racked nothing yet, has put a tile on its rack that the
        tile model does not see. Standing tiles show a few pixels of edge from above, and on a far or side rack of
        a tilted camera the model can miss most of a row (dark backs on a dark rack the worst). The pixels still
        tell: somewhere on the slope a tile-sized patch differs from the slope's picture when the pick was seen.
        Between a pick and a rack nothing else changes a slope for good (an arm passing leaves it as it was; a
        picked tile discarded at once never touches it), and the seat's next move ends the wait."""
        seat = r.seat
        if self._last_move.get(seat) != ev.Picked.type or seat != self.turn or seat not in self._slope_at_pick:
            return False
        old = self._slope_at_pick[seat]
        if old is None:                 # a disturbance since the pick: compare with the slope as read after it
            self._slope_at_pick[seat] = self.watch.views[r.name].ref
            return False
        changed = self._changed_pixels(r, old)
        if changed is None:
            return False
        side = max(1, round(self.cal.layout.tile_w_mm / MM_PER_PX))
        share = cv2.blur(changed.astype(np.float32), (side, side), borderType=cv2.BORDER_CONSTANT)
        return float(share.max()) >= RACK_PICTURED

    def _row_changed(self, r: _Region) -> bool:
        """Whether the picture changed under any tile of a row of standing tiles since the row last changed. A
        rack puts a tile where there was none (at the row's end, or in a gap the player opens by pushing the
        others along), so somewhere under the new row the picture differs; a standing tile the model missed
        and now finds leaves the picture as it was. The check is over the whole row rather than the track the
        tracker calls new, because a tile pushed in mid-row can leave the tracker matching old tiles to new
        places. A standing tile shows little of itself from above, and a dark back on a dark rack differs from
        it by little, hence the low share (``ROW_CHANGED``): a row the model merely read better shows none."""
        changed = self._changed_pixels(r, r.before)
        return any(self._share_under(r, tr, changed) >= ROW_CHANGED for tr in r.tracks.tracks)

    def _changed_pixels(self, r: _Region, old: np.ndarray | None) -> np.ndarray | None:
        """Which pixels of the region differ now from an ``old`` picture of it (that from when its tiles last
        changed, or from a pick), or None without one. The old picture is brought to the new light by the median
        ratio of new to old pixel over the region (most of it did not change, so that is the light's own ratio,
        even where tiles cover most of the region): a tile lost before a light change and found after it shows
        no change."""
        v = self.watch.views[r.name]
        if old is None or v.ref is None or old.shape != v.ref.shape:
            return None
        old, new = old.astype(np.float32), v.ref.astype(np.float32)
        gain = float(np.median(new / np.maximum(old, 1.0)))
        relit = np.minimum(gain * old, 255.0)       # a white tile under a brighter light saturates, as the camera does
        return np.abs(relit - new) > self.watch.delta

    def _share_under(self, r: _Region, tr: Track, changed: np.ndarray | None) -> float:
        """The share of the tile-sized square around ``tr`` among the ``changed`` pixels (all of it without a
        picture to compare with)."""
        if changed is None:
            return 1.0
        x0r, y0r = self.watch.views[r.name].rect[:2]
        half = 0.5 * self.cal.layout.tile_w_mm / MM_PER_PX
        cx, cy = tr.x / MM_PER_PX - x0r, tr.y / MM_PER_PX - y0r
        x0, x1 = int(max(cx - half, 0)), int(min(cx + half + 1, changed.shape[1]))
        y0, y1 = int(max(cy - half, 0)), int(min(cy + half + 1, changed.shape[0]))
        square = changed[y0:y1, x0:x1]
        return float(np.count_nonzero(square)) / square.size if square.size else 1.0

    def _may_rack(self, seat: int, t: float) -> bool:
        """Only the player in turn racks, or one who just took a tile off the floor (Mah Jongg on a discard; a
        tile called for an exposure goes onto the rack top instead). Elsewhere a row grown longer is the tile
        model finding a standing tile it had missed (seen edge-on from above they are the hardest to see),
        typically on the re-read after a bump or a light change: adopted silently, since a rack out of turn
        would be taken for a call."""
        taken_t, takers = self._floor_taken
        if self.turn is None or seat == self.turn:
            return True
        return t - taken_t <= TAKEN_FROM_FLOOR_S and bool({seat, -1} & takers)

    def _reappeared(self, r: _Region, diff, t: float) -> int:
        """How many of the standing tiles just added are tiles that went missing moments ago for no reason: a
        hand resting at the table's edge over a rack can hide standing tiles without the arm reaching far
        enough to be seen as one, and the model can miss a standing tile in one reading and see it in the next;
        their coming back is no rack. A removal is explained by a move of that seat (discard, exposure, joker
        exchange, hand shown) and forgotten after ``REAPPEAR_S``."""
        in_turn = r.seat == self.turn
        memory = REAPPEAR_S if in_turn else REAPPEAR_IDLE_S
        gone = [g for g in self._unexplained.get(r.seat, []) if t - g[0] <= memory]
        gone += [(t, tr.x, tr.y, len(diff.removed)) for tr in diff.removed]
        back = 0
        tol = 0.5 * self.cal.layout.tile_w_mm
        for tr in diff.added:
            # A tile lost by an earlier reading and found again where it stood. Several at once: a hand over the
            # row. One, at a seat not in turn: the tile model missed it for a reading (standing tiles are the
            # hardest to see from above); only the player in turn racks (a rack seen elsewhere while a discard
            # is live would be taken for a Mah Jongg call). The player in turn may really take one tile and
            # rack another where it stood (a joker exchange closes up the row), so there it takes several.
            hit = next((g for g in gone if (g[3] >= 2 or not in_turn) and g[0] < t
                        and abs(g[1] - tr.x) + abs(g[2] - tr.y) <= 2 * tol), None)
            if hit is not None:
                gone.remove(hit)
                back += 1
        self._unexplained[r.seat] = gone
        return back

    def _winning_tile_unseen(self, seat: int, diff, t: float) -> bool:
        """Whether the winning tile (a pick, or the discard called for Mah Jongg) joined the hand just laid face
        up without its rack being seen. A winner typically racks it and lays the hand down without the arm ever
        leaving the rack, so the slope is never still between the two, and the rack can fall in dropped frames
        too; on a far rack the model may not see the standing tiles at all. So: the seat got a tile (its last
        move a pick, or a tile taken off the floor with no move since) and racked none since, or, failing that
        knowledge, the hand holds exactly one tile more than the rack was seen holding standing (the slope's
        committed tiles plus those it lost moments ago without a move: it may commit the hand going down before
        the rack top does). Only exactly one: no other tile joins a hand on the way to Mah Jongg, and any other
        difference is a miscount that must not turn into a move."""
        last = self._last_move.get(seat)
        taken_t, takers = self._floor_taken
        if last == ev.Racked.type:
            return False
        if last == ev.Picked.type or (last is None and seat in takers and t - taken_t <= TAKEN_FROM_FLOOR_S):
            return True
        standing = self.regions[f"slope{seat}"].tracks.count()
        standing += sum(1 for g in self._unexplained.get(seat, []) if t - g[0] <= REAPPEAR_S)
        laid = sum(1 for tr in diff.added if tr.face == "up" and tr.tile)
        return laid - standing == 1

    def _explain_removal(self, seat: int, n: int = 1) -> None:
        """A move of ``seat`` that took ``n`` standing tiles: those removals were no occlusion."""
        gone = self._unexplained.get(seat, [])
        del gone[max(0, len(gone) - n):]

    def _rack_top(self, r: _Region, diff, idx: int, t: float, kw: dict) -> list[ev.Observation]:
        out: list[ev.Observation] = []
        size = self.cal.layout.size_mm
        order = sorted(r.tracks.tracks, key=lambda tr: table_to_seat(r.seat, tr.x, tr.y, size)[0])
        face_up = [tr for tr in order if tr.face == "up" and tr.tile]
        if diff.added and len(face_up) >= 14:
            conf = min(tr.confidence for tr in face_up)
            if self._winning_tile_unseen(r.seat, diff, t):
                # Inferred, not seen: less sure than a rack read off the slope (0.9).
                out.append(ev.Racked(t, idx, 0.7, seat=r.seat, count=1, **kw))
            out.append(ev.HandDisplayed(t, idx, round(conf, 3), seat=r.seat, tiles=tuple(tr.tile for tr in face_up),
                                        **kw))
            self._explain_removal(r.seat, 14)
            return out
        groups = _groups(order, r.seat, size, self.cal.layout.tile_w_mm)
        added = {tr.id for tr in diff.added if tr.face == "up" and tr.tile}
        for g in groups:
            if not added & {tr.id for tr in g}:
                continue
            if len(g) > LONGEST_EXPOSURE:
                # No exposure is that long: a hand laid face up, some of its tiles not read. Ask, never guess.
                out.append(ev.AskHuman(t, idx, 0.5, seat=r.seat, choices=(),
                                       question=f"Is {SEATS[r.seat]} showing a Mah Jongg hand? "
                                                f"I can read {len(face_up)} of its tiles."))
            else:
                conf = min(tr.confidence for tr in g)
                out.append(ev.ExposurePlaced(t, idx, round(conf, 3), seat=r.seat,
                                             tiles=tuple(tr.tile for tr in g if tr.tile), **kw))
                self._explain_removal(r.seat, len(g))
                self.turn = r.seat
                if {r.seat, -1} & self._floor_taken[1]:
                    self._floor_taken = (-1e9, set())   # the tile taken off the floor went into this exposure
        for old, tr in diff.recoded:
            if old == "J" and tr.tile and tr.tile != "J":
                gi = next(i for i, g in enumerate(groups) if tr in g)     # groups count left to right
                seat = self._actor(kw["t_action"], t)
                out.append(ev.JokerExchanged(t, idx, round(tr.confidence, 3), seat=seat, exposure_seat=r.seat,
                                             exposure_index=gi, tile=tr.tile, **kw))
                self._explain_removal(seat)
        return out

    def _actor(self, since: float, now: float) -> int:
        """Who did it: the seat whose arm reached in while this region was changing; among several the
        referee's turn (or ours), else the most recent; with no arm seen, the turn holder."""
        seen = self._arms(since, now)
        if len(seen) == 1:
            return next(iter(seen))
        if self.turn is not None and (not seen or self.turn in seen):
            return self.turn
        return max(seen, key=seen.get) if seen else -1

    def _arms(self, since: float, now: float) -> dict[int, float]:
        """The seats whose arms reached in from ``since`` (less half a second) to ``now``, and when last."""
        return {s: at for s, at in self.arm_seen.items() if since - 0.5 <= at <= now}

    def _count_check(self, exp: Expectation, idx: int, t: float) -> list[ev.Observation]:
        """Standing tiles vs the referee's concealed counts. Reported only after a difference has lasted
        ``COUNT_PATIENCE_S`` (the camera and the referee see a move at slightly different moments: a rack read
        before the pick is ruled), and once until the counts agree again, unless it turns from fewer tiles seen
        than expected to more or back: a rack whose standing tiles the model keeps losing and finding (a far rack,
        dark backs) would otherwise be reported at every new count, while the person told once already knows."""
        out: list[ev.Observation] = []
        for seat, want in (exp.rack_counts or {}).items():
            r = self.regions.get(f"slope{seat}")
            if r is None or r.needs_read or r.silent:
                self._count_since.pop(seat, None)
                continue
            seen = r.tracks.count()
            if seen == want:
                self._count_since.pop(seat, None)
                self._reported_counts.pop(seat, None)
                continue
            since = self._count_since.setdefault(seat, (t, seen, want))
            if since[1:] != (seen, want):
                self._count_since[seat] = (t, seen, want)
            elif t - since[0] >= COUNT_PATIENCE_S and self._reported_counts.get(seat) != (seen > want):
                self._reported_counts[seat] = seen > want
                out.append(ev.TileCountMismatch(t, idx, 0.7, seat=seat, where="rack", seen=seen, expected=want))
        return out


def _groups(order: list[Track], seat: int, size: float, tile_w: float) -> list[list[Track]]:
    """Split a rack top's tiles (sorted along the rack) into exposures at gaps wider than half a tile."""
    groups: list[list[Track]] = []
    last_u = None
    for tr in order:
        u = table_to_seat(seat, tr.x, tr.y, size)[0]
        if last_u is None or u - last_u > 1.5 * tile_w:
            groups.append([])
        groups[-1].append(tr)
        last_u = u
    return groups


def _wall_end(u: float, rest: list[float], tile_w: float) -> str:
    """Which end of its run of wall a tile taken at ``u`` (mm along the wall, as its owner sees it) came from:
    "left", "right", or "middle" when tiles still stand right beside it on both sides. A broken wall is two runs,
    each with its own ends, so the neighbours decide, not the wall's middle."""
    near = 1.5 * tile_w
    left = any(u - near <= v < u for v in rest)
    right = any(u < v <= u + near for v in rest)
    if left and right:
        return "middle"
    if left or right:
        return "right" if left else "left"
    return "left" if not rest or u <= float(np.mean(rest)) else "right"   # a run's last tile


def _where(r: _Region) -> str:
    return "the discard floor" if r.seat < 0 else f"{SEATS[r.seat]}'s {r.kind.replace('_', ' ')}"
