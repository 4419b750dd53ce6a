"""Which tiles the tile model sees in each region of a frame: one model call over the window the regions
cover (of the floor, only the part that changed), its tiles sorted into the regions, backs on the floor and rack
tops read again, twin boxes merged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import cv2
import numpy as np

from vision.calibration import table_to_seat
from vision.change import MM_PER_PX
from vision.regions.state import CHANGED_UNDER, Region, TableState
from vision.tile_classifier import NO_FACE, crop_square
from vision.tracker import TileSeen

SAME_TILE = 0.6           # tile widths (along a row; any way on the floor) under which two boxes are one tile
                          # (this on the floor, with a floor tile first read after a resync compared with the
                          # picture from before it: 8 HD bench games' picks 96.3 -> 100 %, invented discards 3 -> 1)
WINDOW_OVERHANG_MM = 60.0 # how far past the table edge a detection window may reach (racks, standing tiles)
#: Scale (px per mm) of the top-down windows the reader detects in: a tile about 33 x 46 px. Real tables decide
#: (bench/reader_real.py: 13 real photos from above made into whole-table videos, a 1080p-like camera, joined):
#: at 1 px/mm, the scale the detector's top-down crops were drawn at (TOPDOWN_PX_PER_MM), it found 0.742 of the
#: tiles; at 1.5, with the reader's face-up threshold lowered to what real tables ask (`reader` in tile_model.json),
#: 0.996, and 0.975 / 0.998 with the table typed 15 % small / large. 1.75 found 1.000 but missed racks and
#: discards on the rendered games of bench/bench_table.py, which read every event at 100 % at 1.5. A read costs
#: about the square of the scale (docs/vision.md).
READER_PX_PER_MM = 1.5
#: The classifier's score that turns a "face-down" floor or rack-top tile face up: likelier that tile than anything
#: else together, "back" and "not a tile" included. Only face-up tiles lie there, so a real back is rare. With the
#: classifier shipped 2026-11-25 one of three blank Soaps in a shown hand read 0.67-0.79 from frame to frame: at a
#: cut of 0.7 that hand went unread (bench/bench_table.py, models/README.md).
BACK_READ_SURE = 0.5
#: A floor read after a change looks at the part of the floor whose picture changed since its tiles were last
#: committed, this many tile lengths around it, and keeps the committed tiles elsewhere: the whole floor at 1.5
#: px/mm cost 220-300 ms a read, most of a change-driven frame's time (docs/vision.md). A read to resync or heal
#: reads it all, so what a partial read could miss is caught on the heal timer.
AROUND_CHANGE_TILES = 1.0
#: A change over more than this share of the floor (tiles pushed about, a sleeve dragged across) reads it all.
PARTIAL_MAX_SHARE = 0.5
#: A wall's tile, once committed, stays while the detector still boxes its back at this score or more, under the
#: reader's face-down threshold, if no hand moved over it since (``RegionReading._keeps``); a new back needs the
#: full threshold. On dark backs the detector scores a wall's backs 0.4-0.6, and the end tile of a run dipped to
#: 0.20-0.35 for a reading or two, which the wall took for a pick (rendered HD game 919; docs/vision.md).
WALL_BACK_KEEP = 0.15
_SPECK = np.ones((3, 3), np.uint8)


class Detector(Protocol):
    """What the reader needs from the tile model (vision.tile_model.TileModel fits): the tiles in a top-down
    view of the table down to ``conf`` (face up, face down), and the thresholds it reads the table at. (A model
    with ``detect`` alone is read on the whole frame.)"""

    reader_conf: tuple[float, float]

    def detect(self, frame_bgr: np.ndarray) -> list[Any]: ...

    def detect_view(self, view: np.ndarray, frame: np.ndarray, view_to_frame: np.ndarray,
                    conf: tuple[float, float] | None = None) -> list[Any]: ...


class RegionReading:
    """Runs the tile model for the reader and says which tiles each region holds in a frame. ``stats`` counts
    the model calls and the regions read (the reader's figures for the bench)."""

    def __init__(self, table: TableState, model: Detector, stats: dict[str, int]) -> None:
        self.table = table
        self.model = model
        self.stats = stats

    def read(self, frame: np.ndarray, regions: Sequence[Region], idx: int, t: float,
             top: np.ndarray | None = None) -> dict[str, list[TileSeen]]:
        """Run the tile model once over the part of the table these regions cover and sort its tiles into them.
        Change-driven work saves twice: a quiet table calls the model only to heal (every ``heal_every_s``),
        and a call looks only at the window around the regions that changed; of the floor, given the coarse
        top-down view ``top`` (vision.change), only at the part that changed (``changed_window``)."""
        cal = self.table.cal
        size = cal.layout.size_mm
        windows = {r.name: self.changed_window(r, top) for r in regions}
        areas = [cal.band(r.name).polygon(size) if windows[r.name] is None else _corners(windows[r.name])
                 for r in regions if windows[r.name] != ()]
        dets, table = self.detect(frame, idx, np.vstack(areas)) if areas else ([], np.zeros((0, 2)))
        sure_down = getattr(self.model, "reader_conf", (0.0, 0.0))[1]
        self.stats["regions_read"] += len(regions)
        out: dict[str, list[TileSeen]] = {r.name: [] for r in regions}
        reading = {r.name for r in regions}
        backs: list[tuple[str, int, Any]] = []      # face-down tiles where only face-up ones lie
        for d, (x, y) in zip(dets, table, strict=True):
            for r in regions:
                if self._holds(r, d.face, x, y, size):
                    if not _inside(windows[r.name], x, y):
                        break       # the floor outside the part that changed: its committed tiles stand
                    if d.face == "down" and d.score < sure_down and not self._keeps(r, x, y):
                        break       # a weak back: it only keeps a wall tile already committed there
                    if d.face == "down" and r.kind in ("floor", "rack_top"):
                        backs.append((r.name, len(out[r.name]), d.box))
                    up = d.face == "up"
                    out[r.name].append(TileSeen(float(x), float(y), d.face, d.tile if up else None,
                                                float(d.score), d.tile_score, alts=d.alts if up else ()))
                    break
            else:
                if d.face == "up":       # a rack top not being read whose tiles show over a slope: read it too
                    for seat in range(4):
                        top_r = self.table.regions[f"rack_top{seat}"]
                        if top_r.name not in reading and not top_r.needs_read and self._holds(top_r, "up", x, y, size):
                            top_r.needs_read, top_r.change_start_t = True, t
        if backs and hasattr(self.model, "classify"):
            self._read_backs(frame, backs, out)
        for r in regions:
            if windows[r.name] is not None:
                out[r.name] += [TileSeen(tr.x, tr.y, tr.face, tr.tile, tr.confidence, tr.confidence, alts=tr.alts)
                                for tr in r.tracks.tracks if not _inside(windows[r.name], tr.x, tr.y)]
            out[r.name] = self._one_each(r.seat, out[r.name])
        return out

    def changed_window(self, r: Region, top: np.ndarray | None) -> tuple[float, ...] | None:
        """The part of the floor to read (x0, y0, x1, y1 table mm): where the coarse view ``top`` differs from
        its picture at the last commit, AROUND_CHANGE_TILES tile lengths around; () where nothing differs (an
        arm passed over and left the floor as it was: its committed tiles stand); None to read the whole region
        (not the floor, a resync or a heal, no picture yet, or a change over PARTIAL_MAX_SHARE)."""
        v = self.table.watch.views.get(r.name)
        if r.kind != "floor" or r.silent or r.healing or top is None or v is None or v.ref is None:
            return None
        x0, y0, x1, y1 = v.rect
        changed = cv2.morphologyEx((cv2.absdiff(top[y0:y1, x0:x1], v.ref) > self.table.watch.delta)
                                   .astype(np.uint8), cv2.MORPH_OPEN, _SPECK)
        ys, xs = np.nonzero(changed)
        if not len(xs):
            return ()
        margin = AROUND_CHANGE_TILES * self.table.cal.layout.tile_h_mm
        wx0, wy0 = (x0 + xs.min()) * MM_PER_PX - margin, (y0 + ys.min()) * MM_PER_PX - margin
        wx1, wy1 = (x0 + xs.max() + 1) * MM_PER_PX + margin, (y0 + ys.max() + 1) * MM_PER_PX + margin
        if (wx1 - wx0) * (wy1 - wy0) > PARTIAL_MAX_SHARE * v.area * MM_PER_PX**2:
            return None
        return wx0, wy0, wx1, wy1

    def _read_backs(self, frame: np.ndarray, backs: list[tuple[str, int, Any]], out: dict[str, list[TileSeen]]
                    ) -> None:
        """Discards and exposures lie face up, yet the detector can take a plain white face for a tile's back (a
        blank Soap: zero in every year hand). So a "face-down" tile on the floor or a rack top is read by the
        classifier, which knows tile backs (and "not a tile"); one it reads as a tile kind at BACK_READ_SURE or more
        is face up."""
        reads = self.model.classify([crop_square(frame, box) for _name, _i, box in backs])
        for (name, i, _box), (code, score) in zip(backs, reads, strict=True):
            if code not in NO_FACE and score >= BACK_READ_SURE:
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
        size, w = self.table.cal.layout.size_mm, self.table.cal.layout.tile_w_mm
        kept: list[tuple[float, float, TileSeen]] = []
        for ts in sorted(seen, key=lambda ts: -ts.score):
            u, v = (ts.x, ts.y) if seat < 0 else (table_to_seat(seat, ts.x, ts.y, size)[0], 0.0)
            if all(np.hypot(u - ku, v - kv) >= SAME_TILE * w for ku, kv, _ in kept):
                kept.append((u, v, ts))
        return [ts for _, _, ts in kept]

    def _keeps(self, r: Region, x: float, y: float) -> bool:
        """Whether a back seen at table (x, y) keeps a back committed there in wall ``r``: one no hand moved over
        since (a tile nothing came near cannot have been taken). Where the backs are the felt's colour the
        detector also boxes the felt a picked tile left at 0.2-0.3, as weakly as it boxes a dark back standing."""
        near = SAME_TILE * self.table.cal.layout.tile_w_mm
        return r.kind == "wall" and any(
            t.face == "down" and np.hypot(t.x - x, t.y - y) < near
            and (r.moved is None or self.table.share_under(r, t, r.moved) < CHANGED_UNDER) for t in r.tracks.tracks)

    def detect(self, frame: np.ndarray, idx: int, area_mm: np.ndarray | None = None
               ) -> tuple[list[Any], np.ndarray]:
        """One tile-model call over the table window around ``area_mm`` (points in table mm; None: the whole
        table) of frame ``idx``: its detections and their box centres in table mm.

        The model sees the window warped top-down at READER_PX_PER_MM, where a tile is always ~33 x 46 px: a
        whole-table frame shrunk to the detector's input would make tiles a few pixels wide."""
        h, w = frame.shape[:2]
        if hasattr(self.model, "detect_at"):     # the oracle (vision.oracle): true boxes of this frame
            dets = self.model.detect_at(idx, (0, 0, w, h))
        elif hasattr(self.model, "detect_view"):
            view, view_to_frame = self._topdown_window(frame, area_mm)
            up, down = self.model.reader_conf
            dets = self.model.detect_view(view, frame, view_to_frame, conf=(up, min(down, WALL_BACK_KEEP)))
        else:
            dets = self.model.detect(frame)
        self.stats["detector_calls"] += 1
        if not dets:
            return dets, np.zeros((0, 2))
        centers = np.array([[(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2] for d in dets])
        return dets, self.table.cal.to_table(centers)

    def _topdown_window(self, frame: np.ndarray, area_mm: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The frame warped onto the table plane over ``area_mm``'s bounding box (plus 1.5 tile lengths, within
        the table and its rack overhang), and the matrix from that view back to the frame."""
        cal = self.table.cal
        size, margin = cal.layout.size_mm, 1.5 * cal.layout.tile_h_mm
        lo, hi = -WINDOW_OVERHANG_MM, size + WINDOW_OVERHANG_MM
        if area_mm is None:
            x0, y0, x1, y1 = lo, lo, hi, hi
        else:
            (x0, y0), (x1, y1) = area_mm.min(axis=0) - margin, area_mm.max(axis=0) + margin
            x0, y0, x1, y1 = max(x0, lo), max(y0, lo), min(x1, hi), min(y1, hi)
        s = READER_PX_PER_MM
        view_to_table = np.array([[1 / s, 0, x0], [0, 1 / s, y0], [0, 0, 1.0]])
        view_to_frame = cal.H @ view_to_table
        size_px = (int(round((x1 - x0) * s)), int(round((y1 - y0) * s)))
        view = cv2.warpPerspective(frame, view_to_frame, size_px, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
        return view, view_to_frame

    def _holds(self, r: Region, face: str, x: float, y: float, size: float) -> bool:
        """Whether a tile seen at table (x, y) belongs to region ``r``. Standing tiles are never face up, so a
        face-up tile over a seat's slope is on its rack top, shown further out by parallax (the rack top is
        ~28 mm up; seen from the far side of the table its tiles appear over the slope)."""
        cal = self.table.cal
        b = cal.band(r.name)
        if b.seat < 0:
            return b.u[0] <= x <= b.u[1] and b.v[0] <= y <= b.v[1]
        u, v = table_to_seat(b.seat, x, y, size)
        if not b.u[0] <= u <= b.u[1]:
            return False
        if r.kind == "slope" and face == "up":
            return False
        if r.kind == "rack_top" and face == "up":
            return cal.band(f"slope{b.seat}").v[0] <= v <= b.v[1]
        return b.v[0] <= v <= b.v[1]


def _inside(window: tuple[float, ...] | None, x: float, y: float) -> bool:
    """Whether table point (x, y) lies in ``window`` (None: everywhere; (): nowhere)."""
    return window is None or (bool(window) and window[0] <= x <= window[2] and window[1] <= y <= window[3])


def _corners(window: tuple[float, ...]) -> np.ndarray:
    """A window's four corners (table mm), as a band's polygon gives them."""
    x0, y0, x1, y1 = window
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
