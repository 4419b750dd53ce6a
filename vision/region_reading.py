"""Which tiles the tile model sees in each region of a frame: one model call over the window the regions
cover, its tiles sorted into the regions, backs on the floor and rack tops read again, twin boxes merged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import cv2
import numpy as np

from vision.calibration import table_to_seat
from vision.regions.state import Region, TableState
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


class Detector(Protocol):
    """What the reader needs from the tile model (vision.tile_model.TileModel fits)."""

    def detect(self, frame_bgr: np.ndarray) -> list[Any]: ...


class RegionReading:
    """Runs the tile model for the reader and says which tiles each region holds in a frame. ``stats`` counts
    the model calls and the regions read (the reader's figures for the bench)."""

    def __init__(self, table: TableState, model: Detector, stats: dict[str, int]) -> None:
        self.table = table
        self.model = model
        self.stats = stats

    def read(self, frame: np.ndarray, regions: Sequence[Region], idx: int, t: float) -> dict[str, list[TileSeen]]:
        """Run the tile model once over the part of the table these regions cover and sort its tiles into them.
        Change-driven work saves twice: a quiet table calls the model only to heal (every ``heal_every_s``),
        and a call looks only at the window around the regions that changed."""
        cal = self.table.cal
        bands = [cal.band(r.name).polygon(cal.layout.size_mm) for r in regions]
        dets, table = self.detect(frame, idx, np.vstack(bands))
        self.stats["regions_read"] += len(regions)
        out: dict[str, list[TileSeen]] = {r.name: [] for r in regions}
        if not dets:
            return out
        size = cal.layout.size_mm
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
                        top = self.table.regions[f"rack_top{seat}"]
                        if top.name not in reading and not top.needs_read and self._holds(top, "up", x, y, size):
                            top.needs_read, top.change_start_t = True, t
        if backs and hasattr(self.model, "classify"):
            self._read_backs(frame, backs, out)
        for r in regions:
            out[r.name] = self._one_each(r.seat, out[r.name])
        return out

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
            dets = self.model.detect_view(view, frame, view_to_frame)
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
