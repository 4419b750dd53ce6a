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

from dataclasses import dataclass
from typing import Any

import numpy as np

from vision import events as ev
from vision.calibration import Calibration, fit_bands
from vision.camera_health import MOVING_PX, CameraHealth
from vision.change import MM_PER_PX, ChangeWatcher
from vision.region_reading import Detector, RegionReading
from vision.regions.floor import FloorRules
from vision.regions.rack_top import RackTopRules
from vision.regions.slope import RackCounts, SlopeRules
from vision.regions.state import Region, TableState
from vision.regions.turns import Turns
from vision.regions.wall import WallRules
from vision.tracker import Diff, RegionTracks, TileSeen, Track, same_reading, vote

__all__ = ["Detector", "Expectation", "TableReader"]

MOTION_BUSY = 0.15        # tile areas of a region's pixels moving frame to frame that mark it busy
CHANGE_DIRTY = 0.25       # tile areas differing from the reference that call for a re-read
STANDING_SHOWS = 0.4      # the share of a flat tile's area a standing tile shows from above


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


class TableReader:
    """Reads one table. ``process`` is called once per frame, in order; it returns the observations that
    frame confirmed (usually none). The reader decides which regions to read and when a reading counts; what
    the camera's state allows is ``health``'s (vision.camera_health), what the model sees ``reading``'s
    (vision.region_reading), and what a region's change means the rules of its kind (vision.regions)."""

    def __init__(self, calibration: Calibration, tile_model: Detector, *, fps: float = 30.0,
                 stable_reads: int = 2, settle_frames: int = 3, heal_every_s: float = 2.0,
                 marker_check_s: float = 1.0, matcher: str = "greedy", change_driven: bool = True) -> None:
        self.fps = fps
        self.stable_reads = stable_reads
        self.change_driven = change_driven      # False: read every still region every frame (for comparison)
        self.settle_frames = settle_frames
        self.heal_every = max(1, int(heal_every_s * fps))
        self.watch = ChangeWatcher(calibration)
        tile = calibration.layout.tile_w_mm
        self.regions = {
            name: Region(name, v.band.seat, v.band.kind, RegionTracks(0.6 * tile, matcher))
            for name, v in self.watch.views.items()
        }
        self.turns = Turns()
        self.table = TableState(calibration, self.watch, self.regions, self.turns)
        self.stats = {"frames": 0, "detector_calls": 0, "regions_read": 0}
        self.health = CameraHealth(self.table, fps=fps, settle_frames=settle_frames, marker_check_s=marker_check_s,
                                   resync=lambda silent: self.resync(silent), on_disturbed=self._forget_onset)
        self.reading = RegionReading(self.table, tile_model, self.stats)
        self.rules = {"floor": FloorRules(self.table), "wall": WallRules(self.table), "slope": SlopeRules(self.table),
                      "rack_top": RackTopRules(self.table)}
        self.rack_counts = RackCounts(self.table)
        self._last_motion_any = 0
        self._under_arm: set[str] = set()
        self.quiet_frames = max(settle_frames, int(0.5 * fps))
        self.stale_frames = int(2.0 * fps)
        self._heal_cursor = 0

    @property
    def cal(self) -> Calibration:
        """The calibration now (camera_health replaces it when it corrects a bump)."""
        return self.table.cal

    # --- public ----------------------------------------------------------------------------------------

    def process(self, frame: np.ndarray, frame_index: int, t: float,
                expect: Expectation | dict[str, Any] | None = None) -> list[ev.Observation]:
        exp = Expectation.of(expect)
        if exp.turn is not None:
            self.turns.turn = exp.turn
        out: list[ev.Observation] = []
        self.stats["frames"] += 1
        self.health.check_dropped(frame_index, t, out)
        if not self.cal.bands_fitted:
            self.fit_regions(frame, frame_index)
        top = self.watch.topdown(frame)
        if self.health.unreadable(frame, top, frame_index, t, out):
            return out

        to_read = self._regions_to_read(top, frame, frame_index, t)
        if to_read:
            readings = self.reading.read(frame, to_read, frame_index, t, top)
            for r in to_read:
                out += self._take_reading(r, readings[r.name], top, frame, frame_index, t)
        out += self.rack_counts.check(exp.rack_counts, frame_index, t)
        self._refresh_quiet_view(top, frame, frame_index)
        self.health.last_index = frame_index
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

    def fit_regions(self, frame: np.ndarray, frame_index: int) -> None:
        """Fit the regions to the tiles of this frame (vision.calibration.fit_bands) and rebuild the watcher:
        the first frame of a session, unless the calibration already holds fitted or hand-set regions."""
        dets, table = self.reading.detect(frame, frame_index)
        if dets:
            tiles = [(float(x), float(y), d.face) for (x, y), d in zip(table, dets, strict=True)]
            self.cal.bands = fit_bands(self.cal.bands, tiles, self.cal.layout.size_mm)
        self.cal.bands_fitted = True
        self.watch.set_calibration(self.cal)
        self.resync()

    def tiles(self, region: str) -> list[Track]:
        """The committed tiles of a region (``slope0``, ``rack_top2``, ``wall1``, ``floor`` ...)."""
        return list(self.regions[region].tracks.tracks)

    def resync(self, silent: bool = True) -> None:
        """Read every region again from scratch (after a dark spell, a bump, a light change, fitted regions);
        ``silent``: adopt what is there without events."""
        for r in self.regions.values():
            r.needs_read, r.readings = True, []
            r.silent = r.silent or silent
        for v in self.watch.views.values():
            v.ref = None
        self.watch.prev = None

    def _forget_onset(self, onset: int) -> None:
        """A bump or a light change began; its frames from ``onset`` on were counted as touches of the regions:
        they are forgotten, or a floor tile re-read as another kind after a bump would pass for a tile thrown
        onto it. The slopes' pictures from the last picks are retaken at their next reading: after a light
        change or a recalibration a slope differs from them a little everywhere, which must not pass for a
        rack."""
        self.turns.slope_at_pick = dict.fromkeys(self.turns.slope_at_pick)
        for r in self.regions.values():
            if r.last_touch >= onset:
                r.last_touch = max((f for f in r.touches if f < onset), default=-(10**9))

    # --- reading ---------------------------------------------------------------------------------------

    def _regions_to_read(self, top: np.ndarray, frame: np.ndarray, idx: int, t: float) -> list[Region]:
        views = self.watch.views
        layout = self.cal.layout
        if self.watch.moving_px > MOVING_PX:
            self._last_motion_any = idx
        if self.watch.table_ref is None and self.health.retake_quiet:
            self.watch.set_quiet_view(top, frame)
            self.health.retake_quiet = False
        if self.watch.table_ref is None:          # no quiet view of the table yet: cannot tell arms apart
            return []
        tile_px = layout.tile_w_mm * layout.tile_h_mm / MM_PER_PX**2
        skin = self.watch.skin(frame) if self.watch.moving_px or self._under_arm else None
        under_arm = self.watch.occluded(top, layout.tile_w_mm * layout.tile_h_mm, skin)
        self._under_arm |= under_arm
        for seat in self.watch.arm_seats:
            self.turns.arm_seen[seat] = t
        for r in self.regions.values():
            v = views[r.name]
            if r.kind == "wall" and v.motion and not self.watch.no_previous:
                x0, y0, x1, y1 = v.rect
                now = self.watch.moving_now[y0:y1, x0:x1]
                if r.moved is None or r.moved.shape != now.shape:
                    r.moved = now.copy()
                else:
                    np.logical_or(r.moved, now, out=r.moved)      # per frame: no new array
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

    def _take_reading(self, r: Region, reading: list[TileSeen], top: np.ndarray, frame: np.ndarray, idx: int,
                      t: float) -> list[ev.Observation]:
        """Count a region's reading once ``stable_reads`` agree, commit it, and turn the difference into
        moves (unless the region is being resynced or healed, or the camera, not the tiles, moved)."""
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
                return [ev.AskHuman(t, idx, 0.0, question=f"I cannot get a steady view of {r.where()}: "
                                    "is something lying on it?", seat=r.seat)]
            return []
        reading = vote(r.readings, tol)
        changed = not same_reading(r.tracks.tracks, reading, tol)
        if not r.silent and changed and self.health.camera_moved(frame, idx):
            r.readings = []             # the tiles did not move, the camera did: freeze and recalibrate
            if self.health.disturbed_since is None:
                self.health.freeze(idx)
            return []
        r.readings, r.reads_without_agreement = [], 0
        r.needs_read = False
        self.watch.set_reference(r.name, top)
        # The picture to tell a tile put down from one the model missed so far is the one from when the tiles
        # last changed, not from the last reading: a reading that missed a new tile leaves the tracks as they
        # were, and its picture already shows the tile. It is in table coordinates, so it still lines up after
        # a bump the markers corrected, and it outlives the resync after a light change.
        r.before = r.pictured
        if r.pictured is None or changed:
            r.pictured = self.watch.views[r.name].ref
        diff = r.tracks.commit(reading)
        r.touched, r.committed_at, r.moved = r.last_touch > r.committed_at, idx, None
        t_action = r.change_start_t if r.change_start_t is not None else t
        r.change_start_t = None
        if r.silent or r.healing:
            r.silent = r.healing = False
            return []
        if not diff and r.kind != "slope":      # (a slope may have changed where the model sees no tile)
            return []
        return self._observe(r, diff, idx, t, t_action)

    def _observe(self, r: Region, diff: Diff, idx: int, t: float, t_action: float) -> list[ev.Observation]:
        """The moves a region's committed change means, by the rules of its kind."""
        rules = self.rules.get(r.kind)        # (a hand-edited calibration may name a kind no rules read)
        out = rules.observe(r, diff, idx, t, t_action) if rules else []
        self.turns.remember(out)
        return out
