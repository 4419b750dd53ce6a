"""The set-up mat: two printed sheets with one labelled cell per tile, and finding them in a picture.

Why a mat: with four ArUco markers on each sheet, a photo of the sheet says which cell holds which tile, so a
player teaches mahj a set by laying one tile in each cell, with nothing to type (issue 32).

Geometry is in millimetres on the *mat frame*, a 265 x 196 mm rectangle that fits a Letter and an A4 sheet in
landscape with at least 7 mm to spare; the paper size only moves the frame on the page, and a sheet printed
"fit to page" still reads, since cells are found relative to the markers. A cell's tile zone (26 x 34 mm) holds
a standard American tile (7/8 x 1 3/16 in, 22.2 x 30.2 mm) upright with about 2 mm to spare each side; its label
sits above it in large print. Nine cells fit across a sheet and three rows down: sheet 1 holds the three suits
(27 cells, one suit a row), sheet 2 the winds and dragons, eight Flowers and eight Jokers (23 cells).

Sheet ``s`` carries markers ``MARKER_BASE + 4 s + k`` (k: top left, top right, bottom right, bottom left), from the
dictionary of the table's corner markers (``vision.calibration``) but never their ids 0..3.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.tiles import FLOWER, JOKER, TILES

from .calibration import marker_detector
from .tile_model import TOPDOWN_PX_PER_MM

FRAME_MM = (265.0, 196.0)
MARKER_MM = 20.0
MARKER_BASE = 10
#: A standard American tile, short x long side (7/8 x 1 3/16 in).
TILE_MM = (22.2, 30.2)
ZONE_MM = (26.0, 34.0)
LABEL_MM = 11.0
PITCH_MM = (29.0, 48.0)
GRID_TOP_MM = 24.0
#: Paper sizes in landscape, mm.
PAPERS = {"letter": (279.4, 215.9), "a4": (297.0, 210.0)}
#: A sheet seen more obliquely than this (degrees from straight above) is refused: cells far from the camera get
#: too few pixels, and tiles standing on their edge hide their neighbours.
MAX_TILT_DEG = 45.0

_SUIT_WORDS = {"B": "Bam", "C": "Crak", "D": "Dot"}
_LABELS = {"N": "North", "E": "East", "W": "West", "S": "South", "RD": "Red", "GD": "Green", "WD": "Soap",
           FLOWER: "Flower", JOKER: "Joker"}


class MatError(ValueError):
    """A picture in which the mat cannot be used; the message says what to do."""


def label(code: str) -> str:
    """The large-print label of a cell: "3 Bam", "North", "Soap", "Joker"."""
    return _LABELS.get(code) or f"{code[0]} {_SUIT_WORDS[code[1]]}"


@dataclass(frozen=True)
class Cell:
    """One tile's place on a sheet: its kind and its tile zone (x0, y0, x1, y1) in mat-frame mm."""

    sheet: int
    index: int
    code: str
    zone: tuple[float, float, float, float]

    @property
    def name(self) -> str:
        """How a person finds it: "sheet 2, Joker 3" (Flowers and Jokers are counted), "sheet 1, 3 Bam"."""
        same = [c for c in SHEETS[self.sheet] if c == self.code]
        n = f" {SHEETS[self.sheet][:self.index + 1].count(self.code)}" if len(same) > 1 else ""
        return f"sheet {self.sheet + 1}, {label(self.code)}{n}"


#: The codes on each sheet, row by row (nine to a row), in card order.
SHEETS: tuple[tuple[str, ...], ...] = (TILES[:27], TILES[27:34] + (FLOWER,) * 8 + (JOKER,) * 8)
_ROWS = ((TILES[0:9], TILES[9:18], TILES[18:27]), (TILES[27:34], (FLOWER,) * 8, (JOKER,) * 8))


def cells(sheet: int) -> list[Cell]:
    """The cells of one sheet in card order, each row centred on the frame."""
    out = []
    for r, row in enumerate(_ROWS[sheet]):
        x0 = (FRAME_MM[0] - PITCH_MM[0] * len(row)) / 2 + (PITCH_MM[0] - ZONE_MM[0]) / 2
        y0 = GRID_TOP_MM + r * PITCH_MM[1] + LABEL_MM
        for c, code in enumerate(row):
            x = x0 + c * PITCH_MM[0]
            out.append(Cell(sheet, len(out), code, (x, y0, x + ZONE_MM[0], y0 + ZONE_MM[1])))
    return out


def label_box(cell: Cell) -> tuple[float, float, float, float]:
    """Where a cell's label is printed: the band above its tile zone."""
    x0, y0, x1, _ = cell.zone
    return x0, y0 - LABEL_MM, x1, y0


def marker_boxes(sheet: int) -> dict[int, tuple[float, float]]:
    """Top-left corner (mat-frame mm) of each of the sheet's four markers, by marker id."""
    w, h = FRAME_MM[0] - MARKER_MM, FRAME_MM[1] - MARKER_MM
    return {MARKER_BASE + 4 * sheet + k: xy for k, xy in enumerate(((0.0, 0.0), (w, 0.0), (w, h), (0.0, h)))}


@dataclass
class SheetView:
    """One sheet found in a picture: the homography from mat-frame mm to image px, and how it is seen."""

    sheet: int
    mm_to_px: np.ndarray
    markers: int            # how many of its four markers were found
    tilt_deg: float         # how far from straight above (0 = straight down on the sheet)
    px_per_mm: float        # in the sheet's least-resolved direction, at its centre

    def to_image(self, pts_mm: np.ndarray) -> np.ndarray:
        p = np.asarray(pts_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.mm_to_px).reshape(-1, 2)

    def to_mat(self, pts_px: np.ndarray) -> np.ndarray:
        p = np.asarray(pts_px, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, np.linalg.inv(self.mm_to_px)).reshape(-1, 2)

    @property
    def tile_px(self) -> float:
        """A tile's short side in the picture, in pixels."""
        return TILE_MM[0] * self.px_per_mm


def _marker_corners(gray: np.ndarray) -> dict[int, np.ndarray]:
    corners, ids, _ = marker_detector().detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, np.asarray(ids).ravel(), strict=True)}


def find_sheets(img: np.ndarray) -> list[SheetView]:
    """Every mat sheet with at least three of its markers in ``img`` (a hand may cover one), by sheet number.
    A small picture is searched again at twice its size when a marker is missing, as the table's markers are."""
    gray = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    found = _marker_corners(gray)
    wanted = {MARKER_BASE + k for k in range(4 * len(SHEETS))}
    if len(found.keys() & wanted) % 4 and max(gray.shape) < 2000:
        big = _marker_corners(cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC))
        found = {i: c / 2 for i, c in big.items()} | found
    views = []
    for sheet in range(len(SHEETS)):
        boxes = marker_boxes(sheet)
        have = [i for i in boxes if i in found]
        if len(have) < 3:
            continue
        src = np.float64([[x + dx, y + dy] for i in have for x, y in [boxes[i]]
                          for dx, dy in ((0, 0), (MARKER_MM, 0), (MARKER_MM, MARKER_MM), (0, MARKER_MM))])
        dst = np.float64([p for i in have for p in found[i]])
        h, _ = cv2.findHomography(src, dst, 0)
        if h is None or not np.isfinite(h).all():
            continue
        views.append(_view(sheet, h, len(have)))
    return views


def _view(sheet: int, h: np.ndarray, markers: int) -> SheetView:
    """How the sheet is seen, from the homography's derivative at the frame's centre: its singular values are
    the pixels per mm along the best- and worst-resolved directions, and their ratio is the cosine of the tilt
    (exact for a distant camera, close enough at a table)."""
    cx, cy = FRAME_MM[0] / 2, FRAME_MM[1] / 2
    p = np.float64([[cx, cy], [cx + 1, cy], [cx, cy + 1]]).reshape(-1, 1, 2)
    q = cv2.perspectiveTransform(p, h).reshape(-1, 2)
    jac = np.column_stack([q[1] - q[0], q[2] - q[0]])
    s = np.linalg.svd(jac, compute_uv=False)
    tilt = float(np.degrees(np.arccos(np.clip(s[1] / max(s[0], 1e-9), 0, 1))))
    return SheetView(sheet, h, markers, tilt, float(s[1]))


def check_view(view: SheetView, where: str) -> None:
    """Refuse a sheet seen too steeply (``MatError`` saying how to take the picture again)."""
    if view.tilt_deg > MAX_TILT_DEG:
        raise MatError(f"{where}: sheet {view.sheet + 1} is seen at {view.tilt_deg:.0f} degrees from straight above "
                       f"(at most {MAX_TILT_DEG:.0f}): hold the camera over the mat, looking down on it")


def top_down(img: np.ndarray, view: SheetView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sheet seen from straight above at the table reader's scale (``TOPDOWN_PX_PER_MM``), the picture, and
    the view-to-picture homography: what ``TileModel.detect_view`` reads. Why not ``detect`` on the picture: a
    flat sheet is the table plane, and tiles lying on white paper, seen from above, are found there (on rendered
    mat photos ``detect`` found 5 of 27 tiles, ``detect_view`` 27); faces are still read from the picture's own
    pixels."""
    to_view = np.diag([1 / TOPDOWN_PX_PER_MM, 1 / TOPDOWN_PX_PER_MM, 1.0])
    view_to_img = view.mm_to_px @ to_view
    size = (round(FRAME_MM[0] * TOPDOWN_PX_PER_MM), round(FRAME_MM[1] * TOPDOWN_PX_PER_MM))
    top = cv2.warpPerspective(img, view_to_img, size, flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP)
    return top, img, view_to_img
