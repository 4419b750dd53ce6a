"""What the region rules share: each region's own reading state (``Region``) and the table they lie on
(``TableState``: calibration, change watcher, regions, whose turn), with the pixel comparisons several rules
use to tell a tile put down from one the model merely read better."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from vision.calibration import SEAT_NAMES, Calibration
from vision.change import MM_PER_PX, ChangeWatcher
from vision.regions.turns import Turns
from vision.tracker import RegionTracks, TileSeen, Track

CHANGED_UNDER = 0.25      # share of a tile's footprint that must differ for a tile to have been put or taken there
TOUCH_MEMORY = 64         # frames of touch kept per region, well over camera_health.ONSET_S at any camera rate


@dataclass
class Region:
    """One region of the table (``floor``, ``wall0``, ``slope1``, ``rack_top2`` ...) and how far its reading
    has got: the committed tiles, whether it must be read again, and the pictures of it that rules compare."""

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
    moved: np.ndarray | None = None     # a wall's pixels that moved since its last commit (None: none did)
    change_start_t: float | None = None
    readings: list[list[TileSeen]] = field(default_factory=list)
    reads_without_agreement: int = 0

    def where(self) -> str:
        """The region in words, for a question to a person."""
        return "the discard floor" if self.seat < 0 else f"{SEAT_NAMES[self.seat]}'s {self.kind.replace('_', ' ')}"


@dataclass
class TableState:
    """The table as the reader knows it now. ``cal`` is replaced when a bump is corrected (camera_health), so
    every part reads it from here rather than keeping its own."""

    cal: Calibration
    watch: ChangeWatcher
    regions: dict[str, Region]
    turns: Turns

    def changed_pixels(self, r: Region, old: np.ndarray | None) -> np.ndarray | None:
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

    def share_under(self, r: Region, tr: Track, changed: np.ndarray | None) -> float:
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
