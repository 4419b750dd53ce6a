"""Cheap per-region change detection on a small top-down view, so the detector only runs where needed.

Each frame is converted to gray, warped onto the table plane at a coarse scale (``MM_PER_PX``; a 900 mm table
becomes 300 x 300 px, well under a millisecond of work) and every region is compared two ways:

* against the previous frame (``motion``): something is moving there, typically a hand or an arm. A moving
  region is *busy* and nothing read from it counts (that is the occlusion freeze);
* against its reference (``change``), the view at the last committed reading: the region looks different
  from what we believe is there, so it must be read again once it is still.

A whole-table disturbance (most regions changing at once, or the mean brightness jumping) is a light change or
a camera bump, not a move at the table; ``global_change`` reports it so the reader can resynchronise instead
of inventing events.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import Band, Calibration

MM_PER_PX = 3.0
PIXEL_DELTA = 18          # gray levels: below this a pixel counts as unchanged (sensor noise, compression) ...
DELTA_OF_LEVEL = 0.2      # ... or a fifth of the table's median gray when that is less: a dim table has less
MIN_DELTA = 8             # contrast, and a sleeve over dark felt must still count as a change
_BRIDGE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (11, 11))
_REACH = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (41, 41))     # ~120 mm around a hand: its fingers and wrist
_SOLID = np.ones((5, 5), np.uint8)
_SPECK = np.ones((3, 3), np.uint8)        # single-pixel noise the arm test opens away
MOTION_MEMORY = 10        # frames a pixel counts as "recently moved"
ARM_REACH_MM = 70.0       # an edge blob reaching past the rack slope and trembling is an arm, ...
ARM_FAR_MM = 110.0        # ... one reaching past the rack top is an arm even when still, ...
ARM_TILES = 6             # ... if this many tile areas big
EDGE_PX = int(40 / MM_PER_PX)   # "at the edge": within 40 mm of it
_SKIN_LO = np.array((0, 138, 80), np.uint8)                           # Y, Cr, Cb
_SKIN_HI = np.array((255, 180, 130), np.uint8)


@dataclass
class RegionView:
    """One region's window in the top-down view, and its reference patch."""

    band: Band
    rect: tuple[int, int, int, int]      # x0, y0, x1, y1 in top-down px
    ref: np.ndarray | None = None
    motion: int = 0                      # pixels changed since the previous frame
    change: int = 0                      # pixels changed since the reference

    @property
    def area(self) -> int:
        x0, y0, x1, y1 = self.rect
        return max(1, (x1 - x0) * (y1 - y0))


class ChangeWatcher:
    """Keeps the previous top-down frame and each region's reference; ``update`` measures one frame."""

    def __init__(self, calibration: Calibration) -> None:
        self.views: dict[str, RegionView] = {}
        self.prev: np.ndarray | None = None
        self.ref_mean: float | None = None
        self.table_ref: np.ndarray | None = None
        self.skin_ref: np.ndarray | None = None
        self._prev_skin: np.ndarray | None = None
        self.moving_px = 0                   # pixels of the whole view that changed since the previous frame
        self.arm_seats: set[int] = set()     # seats an arm is reaching in from (set by ``occluded``)
        self.set_calibration(calibration)

    def set_calibration(self, calibration: Calibration) -> None:
        """(Re)build the warp after calibration or recalibration; references are dropped (re-read all)."""
        size = calibration.layout.size_mm
        self.side = int(round(size / MM_PER_PX))
        scale = np.diag([MM_PER_PX, MM_PER_PX, 1.0])          # top-down px -> table mm
        # top-down px -> image px of the half-size frame that topdown() and skin() warp from
        self._half_warp = np.diag([0.5, 0.5, 1.0]) @ calibration.H @ scale
        self.views = {}
        for band in calibration.bands:
            poly = band.polygon(size) / MM_PER_PX
            x0, y0 = np.floor(poly.min(axis=0)).astype(int)
            x1, y1 = np.ceil(poly.max(axis=0)).astype(int)
            x0, y0 = max(x0, 0), max(y0, 0)
            x1, y1 = min(x1, self.side), min(y1, self.side)
            self.views[band.name] = RegionView(band, (int(x0), int(y0), int(x1), int(y1)))
        self.prev = None
        self.no_previous = True
        self.ref_mean = None
        self.table_ref = None
        self.motion_hist = np.zeros((self.side, self.side), np.uint8)   # frames since a pixel last moved, down
        self.moving_now = np.zeros((self.side, self.side), bool)         # changed since the previous frame
        self.skin_ref: np.ndarray | None = None     # skin-coloured pixels of the quiet view (red felt, red tiles)
        self._prev_skin: np.ndarray | None = None

    def topdown(self, frame_bgr: np.ndarray) -> np.ndarray:
        """The coarse top-down gray view of the table (uint8, side x side)."""
        gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
        small = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        return cv2.warpPerspective(small, self._half_warp, (self.side, self.side),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0)

    def update(self, top: np.ndarray) -> None:
        """Measure motion and change of every region for this top-down frame."""
        delta = self.delta
        self.no_previous = self.prev is None     # every region counts as moving in this frame
        for v in self.views.values():
            x0, y0, x1, y1 = v.rect
            patch = top[y0:y1, x0:x1]
            v.motion = v.area if self.prev is None else _changed(patch, self.prev[y0:y1, x0:x1], delta)
            v.change = v.area if v.ref is None else _changed(patch, v.ref, delta)
        if self.prev is None:
            self.moving_px = top.size
        else:       # one whole-view difference gives both the count and the mask
            self.moving_now = cv2.absdiff(top, self.prev) > delta
            self.moving_px = int(np.count_nonzero(self.moving_now))
            np.subtract(self.motion_hist, 1, out=self.motion_hist, where=self.motion_hist > 0)
            self.motion_hist[self.moving_now] = MOTION_MEMORY
        self.prev = top

    def set_reference(self, name: str, top: np.ndarray) -> None:
        x0, y0, x1, y1 = self.views[name].rect
        self.views[name].ref = top[y0:y1, x0:x1].copy()
        self.views[name].change = 0

    def set_quiet_view(self, top: np.ndarray, frame_bgr: np.ndarray) -> None:
        """Take this frame as the quiet-table view that arms and hands are told apart from."""
        self.table_ref = top
        self.skin_ref = self.skin(frame_bgr)

    def skin(self, frame_bgr: np.ndarray) -> np.ndarray:
        """Skin-coloured pixels (YCrCb box, the classic skin-tone range) in the top-down view, uint8 0/1."""
        small = cv2.resize(frame_bgr, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        mask = cv2.inRange(cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb), _SKIN_LO, _SKIN_HI)
        return cv2.warpPerspective(mask, self._half_warp, (self.side, self.side),
                                   flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP, borderValue=0) // 255

    def occluded(self, top: np.ndarray, tile_mm2: float, skin: np.ndarray | None = None) -> set[str]:
        """Regions an arm lies over. Two signs, each enough: (1) an arm reaches in from outside the table, so it
        shows as a large blob of change (against the quiet-table view ``table_ref``) touching the table's edge;
        tiles that came or went never touch the edge in a blob that big; (2) a hand: skin-coloured pixels among
        the changed ones (a dark sleeve over a dark rack can hide the arm itself, never the hand), taken with a
        hand's reach around them. Motion is not needed, so an arm held still, or one sliding along its own
        length (frame-to-frame difference near zero), still freezes the regions."""
        self.arm_seats: set[int] = set()
        if self.table_ref is None:
            return set()
        diff = (cv2.absdiff(top, self.table_ref) > self.delta).astype(np.uint8)
        diff = cv2.morphologyEx(diff, cv2.MORPH_OPEN, _SPECK)
        hand = None
        if skin is not None:
            if self._prev_skin is not None:          # a hand moving over felt of its own brightness
                self.motion_hist[skin != self._prev_skin] = MOTION_MEMORY
            self._prev_skin = skin
            hand = self._hand(diff, skin, tile_mm2)
        else:
            self._prev_skin = None                   # compare skin with the previous frame's only
        # Bridge the stretches where a sleeve happens to match what it covers (grey sleeve over grey tiles):
        # up to ~30 mm, so one arm stays one blob.
        diff = cv2.morphologyEx(diff, cv2.MORPH_CLOSE, _BRIDGE)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(diff, connectivity=8)
        e = EDGE_PX        # near the edge, not on it: a dark sleeve over the dark table border shows no change
        edge = np.unique(np.concatenate([labels[:e].ravel(), labels[-e:].ravel(), labels[:, :e].ravel(),
                                         labels[:, -e:].ravel()]))
        tile_px = tile_mm2 / MM_PER_PX**2
        # Tiles laid on a rack next to the edge (an exposure, a hand shown) make an edge blob too, but one that
        # ends at the rack top and lies still; an arm reaching past the rack is an arm, moving or not, and one
        # ending on the rack is an arm while it moves (a tile's area of it changed since the last frame: sensor
        # noise on a dim table flickers a few pixels, never that many in one frame).
        counts = np.bincount(labels[self.motion_hist > 0], minlength=n)
        now = np.bincount(labels[self.moving_now], minlength=n)
        arms = []
        for k in edge:
            if not k or stats[k, cv2.CC_STAT_AREA] < ARM_TILES * tile_px:
                continue
            reach = self._reach(stats[k])
            if reach >= ARM_FAR_MM or (reach >= ARM_REACH_MM and now[k] >= tile_px):
                arms.append(k)
        self.arm_seats = set().union(*(self._sides(stats[k]) for k in arms)) if arms else set()
        if not arms and hand is None:
            return set()
        mask = np.isin(labels, arms) if arms else np.zeros(diff.shape, bool)
        if hand is not None:
            mask |= cv2.dilate(hand, _REACH) > 0
            mask |= self._sleeve(hand, labels, stats, edge, counts, tile_px)
        hit = set()
        for name, v in self.views.items():
            x0, y0, x1, y1 = v.rect
            if mask[y0:y1, x0:x1].any():
                hit.add(name)
        return hit

    def _hand(self, diff: np.ndarray, skin: np.ndarray, tile_mm2: float) -> np.ndarray | None:
        """Changed pixels forming a hand: one solid skin-coloured blob of at least 1.5 tile areas, half a tile of
        which moved within the last ``MOTION_MEMORY`` frames. Red tile art (craks, red dragons) is skin-coloured
        too but comes as thin strokes between ivory, which an opening of 15 mm removes; the sides of a red set's
        tiles are solid but never tremble the way a resting hand does."""
        fresh = skin if self.skin_ref is None else skin & (1 - self.skin_ref)
        # Skin that changed in gray, or skin where the quiet view had none: on a dim table a hand can have the
        # felt's brightness and show only in colour.
        solid = cv2.morphologyEx((diff | fresh) & skin, cv2.MORPH_OPEN, _SOLID)
        k, lab, st, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
        moved = np.bincount(lab[self.motion_hist > 0], minlength=k)
        big = [j for j in range(1, k) if st[j, cv2.CC_STAT_AREA] * MM_PER_PX**2 >= 1.5 * tile_mm2
               and moved[j] * MM_PER_PX**2 >= tile_mm2 / 2]
        return np.isin(lab, big).astype(np.uint8) if big else None

    def _sleeve(self, hand: np.ndarray, labels: np.ndarray, stats: np.ndarray, edge: np.ndarray,
                counts: np.ndarray, tile_px: float) -> np.ndarray:
        """The arm behind a hand, as a 90 mm band from the hand to where the arm crosses the table edge. The
        sleeve may match what it covers (dark on a dark rack) and show only in pieces, so the band is drawn,
        not found: towards the far end of the changed blob the hand belongs to (the visible part of the
        sleeve), else to the edge blob that moved most, else to the nearest edge."""
        ys, xs = np.nonzero(hand)
        cy, cx = ys.mean(), xs.mean()
        own = np.unique(labels[hand > 0])
        py, px = np.nonzero(np.isin(labels, own[own > 0]))
        far = int(np.argmax((py - cy) ** 2 + (px - cx) ** 2)) if len(py) else None
        if far is not None and np.hypot(py[far] - cy, px[far] - cx) * MM_PER_PX > 80:
            ty, tx = float(py[far]), float(px[far])
            reach = 2 * self.side                 # carry on past the visible sleeve to the table edge
            norm = np.hypot(ty - cy, tx - cx)
            end = (int(cx + (tx - cx) / norm * reach), int(cy + (ty - cy) / norm * reach))
        else:
            entries = [k for k in edge if k and stats[k, cv2.CC_STAT_AREA] >= tile_px / 2]
            if entries:
                k = max(entries, key=lambda j: (counts[j], stats[j, cv2.CC_STAT_AREA]))
                ey, ex = np.nonzero(labels == k)
                end = (int(ex.mean()), int(ey.mean()))
            else:
                n = self.side - 1
                ends = {(int(cx), 0): cy, (int(cx), n): n - cy, (0, int(cy)): cx, (n, int(cy)): n - cx}
                end = min(ends, key=ends.get)
        band = np.zeros(hand.shape, np.uint8)
        cv2.line(band, (int(cx), int(cy)), end, 1, int(90 / MM_PER_PX))
        ey, ex = np.clip(end[1], 0, self.side - 1), np.clip(end[0], 0, self.side - 1)
        self.arm_seats |= self._sides(np.array([ex, ey, 1, 1]))
        return band > 0

    def _sides(self, st: np.ndarray) -> set[int]:
        """The seats whose table edge a blob touches (East y = max, South x = max, West y = 0, North x = 0):
        where an arm comes in from is whose arm it is."""
        x, y, w, h = (int(v) for v in st[:4])
        n = self.side
        touched = {0: y + h > n - EDGE_PX, 1: x + w > n - EDGE_PX, 2: y < EDGE_PX, 3: x < EDGE_PX}
        return {seat for seat, hit in touched.items() if hit}

    def _reach(self, st: np.ndarray) -> float:
        """How far (mm) a blob touching the table edge reaches in from it. A row of standing tiles taken off a
        rack (a hand laid down for Mah Jongg) touches the edge too, but stays within the rack's ~50 mm."""
        x, y, w, h = (int(v) for v in st[:4])
        n = self.side
        reach = 0
        if y < EDGE_PX:
            reach = max(reach, y + h)
        if y + h > n - EDGE_PX:
            reach = max(reach, n - y)
        if x < EDGE_PX:
            reach = max(reach, x + w)
        if x + w > n - EDGE_PX:
            reach = max(reach, n - x)
        return reach * MM_PER_PX

    def brightness_jump(self, top: np.ndarray, tol: float = 0.10) -> bool:
        """True when the table's brightness moved by more than ``tol`` from the reference (light change). The
        median, not the mean: an arm or a sleeve covering a tenth of the table must not look like a lamp."""
        mean = float(np.median(top[::4, ::4]))
        if self.ref_mean is None:
            self.ref_mean = mean
            return False
        return abs(mean - self.ref_mean) > tol * max(self.ref_mean, 1.0)

    def reset_brightness(self, top: np.ndarray) -> None:
        self.ref_mean = float(np.median(top[::4, ::4]))

    @property
    def delta(self) -> float:
        """The gray-level difference that counts as a change, for the current light."""
        if self.ref_mean is None:
            return PIXEL_DELTA
        return float(np.clip(DELTA_OF_LEVEL * self.ref_mean, MIN_DELTA, PIXEL_DELTA))

    def global_change(self, frac_regions: float = 0.6, level: float = 0.1) -> bool:
        """Most regions changed at once: a light change or a bump rather than a move. Only regions with a
        reference take part (right after a resync none has one, and nothing is compared)."""
        known = [v for v in self.views.values() if v.ref is not None]
        changed = sum(1 for v in known if v.change > level * v.area)
        return len(known) >= 4 and changed >= frac_regions * len(known)


def _changed(a: np.ndarray, b: np.ndarray, delta: float) -> int:
    return int(np.count_nonzero(cv2.absdiff(a, b) > delta)) if a.size else 0
