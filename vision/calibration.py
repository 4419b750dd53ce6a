"""Where the table is in the picture: ArUco corner markers -> a homography onto a top-down table plane.

Table coordinates are millimetres on the table top, origin at the corner of marker 2, x to the right and y
down as seen with East's side at the bottom. Seat 0 (East) sits along y = size, then counterclockwise (the turn
order) South along x = size, West along y = 0, North along x = 0. Marker ``i`` lies in the corner to the right
of seat ``i`` (as that player sees it), so once the four markers are found we also know which rack is which
seat: no separate question to the user.

Why markers at all: a homography from four known points is exact and cheap to re-check every second, which
is what makes "the camera was bumped" detectable and fixable on the fly. The manual fallback (four corner
clicks, same order) gives the same homography without the bump check from markers; a global image shift is
then caught by phase correlation instead (see ``vision.camera_health``).

Lens distortion is not modelled: the regions have margins of a few mm, enough for the mild barrel distortion
of a webcam at table distance (the renderer's distortion is within that).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ARUCO_DICT = cv2.aruco.DICT_4X4_50
SEATS = (0, 1, 2, 3)
SEAT_NAMES = ("East", "South", "West", "North")


class CalibrationError(ValueError):
    """Calibration cannot be made or read; the message says what is missing (markers, file:line)."""


@dataclass(frozen=True)
class TableLayout:
    """The physical proportions the regions are derived from. Defaults: a 900 mm card table, markers 70 mm
    wide with centres 50 mm in from each edge, racks 500 mm long, American tiles about 22 x 30 mm."""

    size_mm: float = 900.0
    marker_mm: float = 70.0
    marker_inset_mm: float = 50.0
    rack_len_mm: float = 500.0
    tile_w_mm: float = 22.0
    tile_h_mm: float = 30.0

    def marker_centers(self) -> dict[int, tuple[float, float]]:
        s, m = self.size_mm, self.marker_inset_mm
        return {0: (s - m, s - m), 1: (s - m, m), 2: (m, m), 3: (m, s - m)}


@dataclass
class Band:
    """A region as a rectangle in one seat's frame: ``u`` along that seat's edge (negative = the seat's left,
    0 = middle of the edge), ``v`` = distance in from the seat's table edge. Kinds: ``slope`` (standing tiles),
    ``rack_top`` (exposures), ``wall``; the discard ``floor`` has seat -1 and is in table coordinates."""

    seat: int
    kind: str
    u: tuple[float, float]
    v: tuple[float, float]

    def polygon(self, size_mm: float) -> np.ndarray:
        """The four corners in table mm (float32, shape 4x2)."""
        (u0, u1), (v0, v1) = self.u, self.v
        if self.seat < 0:
            return np.float32([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])
        return np.float32([seat_to_table(self.seat, u, v, size_mm) for u, v in ((u0, v0), (u1, v0), (u1, v1),
                                                                                  (u0, v1))])

    @property
    def name(self) -> str:
        return "floor" if self.seat < 0 else f"{self.kind}{self.seat}"


def seat_to_table(seat: int, u: float, v: float, size_mm: float) -> tuple[float, float]:
    """Seat-local (u along the edge to the seat's right, v inward) to table mm."""
    h = size_mm / 2
    if seat == 0:
        return h + u, size_mm - v
    if seat == 1:
        return size_mm - v, h - u
    if seat == 2:
        return h - u, v
    if seat == 3:
        return v, h + u
    raise ValueError(f"seat {seat} is not 0..3")


def table_to_seat(seat: int, x: float, y: float, size_mm: float) -> tuple[float, float]:
    """Inverse of :func:`seat_to_table`."""
    h = size_mm / 2
    if seat == 0:
        return x - h, size_mm - y
    if seat == 1:
        return h - y, size_mm - x
    if seat == 2:
        return h - x, y
    if seat == 3:
        return y - h, x
    raise ValueError(f"seat {seat} is not 0..3")


def default_bands(layout: TableLayout) -> list[Band]:
    """Regions from standard proportions: from the player's edge inward the rack slope with the standing tiles,
    the rack top with exposures, the wall pushed against the rack; the floor is the square inside the walls.
    A seat's three bands tile its strip without gaps: a raised tile (on the rack top, or the top of a standing
    tile) appears shifted by up to ~15 mm on the table plane depending on where the camera is, and must still
    land in a band."""
    half = layout.rack_len_mm / 2
    bands: list[Band] = []
    for seat in SEATS:
        bands += [
            Band(seat, "slope", (-half, half), (-15.0, 40.0)),
            Band(seat, "rack_top", (-half, half), (40.0, 100.0)),
            Band(seat, "wall", (-half + 20, half - 20), (100.0, 155.0)),
        ]
    lo, hi = 158.0, layout.size_mm - 158.0
    bands.append(Band(-1, "floor", (lo, hi), (lo, hi)))
    return bands


def fit_bands(bands: list[Band], tiles: list[tuple[float, float, str]], size_mm: float, reach: float = 25.0,
              min_tiles: int = 3) -> list[Band]:
    """Regions adjusted to where the tiles actually are: each tile is given to the seat band it lies in (or the
    nearest within ``reach`` mm), and each band is re-centred (depth kept) on the median inward distance of its
    tiles. ``tiles``: (x, y, face) in table mm
    from the first frames. Bands with too few tiles keep the standard position. Why re-centre and not re-size:
    a band that shrinks to today's tiles would miss tomorrow's tile placed a little further out."""
    mine: dict[str, list[float]] = {b.name: [] for b in bands}
    for x, y, _face in tiles:
        best, best_d = None, reach
        for b in bands:
            if b.seat < 0:
                continue
            u, v = table_to_seat(b.seat, x, y, size_mm)
            d = max(b.v[0] - v, v - b.v[1], 0.0)
            if b.u[0] <= u <= b.u[1] and (d < best_d or (d == best_d == 0.0 and best is None)):
                best, best_d, best_v = b, d, v
        if best is not None:
            mine[best.name].append(best_v)
    out = []
    for b in bands:
        vs = mine.get(b.name, [])
        if b.seat < 0 or len(vs) < min_tiles:
            out.append(b)
            continue
        mid, half = float(np.median(vs)), (b.v[1] - b.v[0]) / 2
        shift = float(np.clip(mid - (b.v[0] + b.v[1]) / 2, -reach, reach))
        out.append(Band(b.seat, b.kind, b.u, (b.v[0] + shift, b.v[0] + shift + 2 * half)))
    return _no_overlap(out)


def _no_overlap(bands: list[Band]) -> list[Band]:
    """Neighbouring bands of one seat (slope, rack top, wall) neither overlap nor leave a gap after fitting: they
    meet half way."""
    by_seat: dict[int, list[Band]] = {}
    for b in bands:
        by_seat.setdefault(b.seat, []).append(b)
    for seat, group in by_seat.items():
        if seat < 0:
            continue
        group.sort(key=lambda b: b.v[0])
        for a, b in zip(group, group[1:], strict=False):
            cut = (a.v[1] + b.v[0]) / 2
            a.v, b.v = (a.v[0], cut), (cut, b.v[1])
    return bands


def _band(b: Any, where: str) -> Band:
    """One band of a calibration file, checked: a seat of the table (or -1, the floor) and two finite ranges."""
    band = Band(int(b["seat"]), str(b["kind"]), tuple(map(float, b["u"])), tuple(map(float, b["v"])))
    if band.seat not in (-1, *SEATS) or len(band.u) != 2 or len(band.v) != 2 or not np.isfinite([*band.u,
                                                                                                   *band.v]).all():
        raise CalibrationError(f"{where}: band {band.kind!r} for seat {band.seat}: seats are 0-3 (-1 for the floor) "
                               "and u, v are two finite numbers each")
    return band


@dataclass
class Calibration:
    """Image <-> table mapping plus the regions. Saved as JSON; a person may edit ``bands`` by hand."""

    image_size: tuple[int, int]                       # width, height
    table_to_image: list[list[float]]                 # 3x3 homography, table mm -> image px
    source: str = "markers"                           # "markers" | "manual"
    marker_image: dict[int, tuple[float, float]] = field(default_factory=dict)
    layout: TableLayout = field(default_factory=TableLayout)
    bands: list[Band] = field(default_factory=list)
    bands_fitted: bool = False                        # True once regions were fitted to tiles (or set by hand)

    def __post_init__(self) -> None:
        if not self.bands:
            self.bands = default_bands(self.layout)

    @property
    def H(self) -> np.ndarray:  # noqa: N802 -- the usual name of a homography
        return np.asarray(self.table_to_image, dtype=np.float64)

    @property
    def H_inv(self) -> np.ndarray:  # noqa: N802
        return np.linalg.inv(self.H)

    def to_table(self, pts_img: np.ndarray) -> np.ndarray:
        """Image px (N x 2) -> table mm (N x 2)."""
        pts = np.asarray(pts_img, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.H_inv).reshape(-1, 2)

    def to_image(self, pts_table: np.ndarray) -> np.ndarray:
        """Table mm (N x 2) -> image px (N x 2)."""
        pts = np.asarray(pts_table, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.H).reshape(-1, 2)

    def band(self, name: str) -> Band:
        for b in self.bands:
            if b.name == name:
                return b
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "image_size": list(self.image_size),
            "table_to_image": [list(map(float, r)) for r in self.table_to_image],
            "source": self.source,
            "marker_image": {str(k): list(map(float, v)) for k, v in self.marker_image.items()},
            "layout": asdict(self.layout),
            "bands": [{"seat": b.seat, "kind": b.kind, "u": list(b.u), "v": list(b.v)} for b in self.bands],
            "bands_fitted": self.bands_fitted,
            "seats": {str(i): SEAT_NAMES[i] for i in SEATS},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any], where: str = "<calibration>") -> Calibration:
        """A calibration from its JSON; anything that would only fail later (a homography that is not finite or
        cannot be inverted, a band for a seat that does not exist) is a CalibrationError naming ``where`` now,
        not a game that then "is too dark to read"."""
        if not isinstance(d, dict):
            raise CalibrationError(f"{where}: a calibration is a JSON object, not {type(d).__name__} "
                                   "(run `mahj calibrate table` to make one)")
        try:
            layout = TableLayout(**d.get("layout", {}))
            H = np.asarray(d["table_to_image"], dtype=np.float64)  # noqa: N806
            if H.shape != (3, 3):
                raise CalibrationError(f"{where}: table_to_image must be 3x3, got {H.shape}")
            if not np.isfinite(H).all() or abs(np.linalg.det(H)) < 1e-12 or not np.isfinite(np.linalg.inv(H)).all():
                raise CalibrationError(f"{where}: table_to_image is not a usable homography (not finite, or "
                                       "singular); calibrate again with `mahj calibrate table`")
            bands = [_band(b, where) for b in d.get("bands", [])]
            return cls(
                image_size=tuple(d["image_size"]), table_to_image=H.tolist(), source=d.get("source", "markers"),
                marker_image={int(k): tuple(v) for k, v in d.get("marker_image", {}).items()}, layout=layout,
                bands=bands, bands_fitted=bool(d.get("bands_fitted", bool(bands))),
            )
        except (KeyError, TypeError, ValueError, AttributeError, np.linalg.LinAlgError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"{where}: bad calibration: {exc!r}") from None

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Calibration:
        p = Path(path)
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{p}:{exc.lineno}:{exc.colno}: {exc.msg}") from None
        except RecursionError:
            raise CalibrationError(f"{p}: JSON nested too deeply (not a calibration file)") from None
        return cls.from_json(d, str(p))


# --- markers ---------------------------------------------------------------------------------------------


def marker_detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def detect_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """Centres (image px) of the corner markers 0..3 found in ``frame``; other ids are ignored."""
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = marker_detector()
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found = _find(gray, 1.0)
    if len(found) < 4 and max(gray.shape) < 1600:
        # A far marker at low resolution can be ~12 px wide, under what the detector resolves: look again at
        # twice the size (only when one is missing, so the usual check stays cheap).
        found = _find(cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC), 2.0) | found
    return found


def _find(gray: np.ndarray, scale: float) -> dict[int, np.ndarray]:
    corners, ids, _ = _DETECTOR.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, np.asarray(ids).ravel(), strict=True):
        if int(i) in SEATS:
            found[int(i)] = c.reshape(4, 2).mean(axis=0) / scale
    return found


def calibrate_from_points(image_pts: dict[int, np.ndarray | tuple[float, float]], image_size: tuple[int, int],
                          layout: TableLayout | None = None, source: str = "markers") -> Calibration:
    """Homography from the four marker centres (ids 0..3) in the image."""
    layout = layout or TableLayout()
    missing = [i for i in SEATS if i not in image_pts]
    if missing:
        raise CalibrationError(
            f"corner marker(s) {missing} not found ({', '.join(SEAT_NAMES[i] + ' right' for i in missing)}); "
            "check lighting and that all four are in view, or give --corners"
        )
    centers = layout.marker_centers()
    src = np.float64([centers[i] for i in SEATS])
    dst = np.float64([image_pts[i] for i in SEATS])
    H = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))  # noqa: N806
    if not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
        raise CalibrationError("the four corners are degenerate (three in a line?)")
    return Calibration(image_size=image_size, table_to_image=H.tolist(), source=source,
                       marker_image={i: tuple(map(float, image_pts[i])) for i in SEATS}, layout=layout)


def table_corners(layout: TableLayout) -> dict[int, tuple[float, float]]:
    """The table's own corners in table mm, keyed like the markers: the corner to the right of each seat."""
    s = layout.size_mm
    return {0: (s, s), 1: (s, 0.0), 2: (0.0, 0.0), 3: (0.0, s)}


def calibrate_from_corners(corners: dict[int, tuple[float, float]], image_size: tuple[int, int],
                           layout: TableLayout | None = None) -> Calibration:
    """Homography from the table's own four corners in the image (what a person clicks: the corner to the right
    of East, South, West, North), without markers. ``marker_image`` then holds where markers would be."""
    layout = layout or TableLayout()
    inset = layout.marker_inset_mm
    inside = {i: (x + (inset if x == 0 else -inset), y + (inset if y == 0 else -inset))
              for i, (x, y) in table_corners(layout).items()}
    src = np.float32([table_corners(layout)[i] for i in SEATS])
    h = cv2.getPerspectiveTransform(src, np.float32([corners[i] for i in SEATS]))
    if not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        raise CalibrationError("the four corners are degenerate (three in a line?)")
    at = cv2.perspectiveTransform(np.float64([inside[i] for i in SEATS]).reshape(-1, 1, 2), h).reshape(-1, 2)
    return calibrate_from_points({i: at[i] for i in SEATS}, image_size, layout, source="manual")


def calibrate_frame(frame: np.ndarray, layout: TableLayout | None = None) -> Calibration:
    """Find the four markers in ``frame`` and calibrate; ``CalibrationError`` says which are missing."""
    h, w = frame.shape[:2]
    return calibrate_from_points(detect_markers(frame), (w, h), layout)


def parse_corners(text: str) -> dict[int, tuple[float, float]]:
    """``"x0,y0 x1,y1 x2,y2 x3,y3"`` (or 8 comma separated numbers): the image positions of the corners to the
    right of East, South, West, North, in that order."""
    nums = text.replace(";", " ").replace(",", " ").split()
    if len(nums) != 8:
        raise CalibrationError(f"--corners needs 8 numbers (4 points x,y), got {len(nums)}")
    try:
        vals = [float(n) for n in nums]
    except ValueError as exc:
        raise CalibrationError(f"--corners: {exc}") from None
    return {i: (vals[2 * i], vals[2 * i + 1]) for i in SEATS}


# --- the printable marker page ---------------------------------------------------------------------------


def marker_page(layout: TableLayout | None = None, dpi: int = 200, page_mm: tuple[float, float] = (215.9, 279.4)
                ) -> np.ndarray:
    """A Letter page (grayscale) with the four corner markers at true size and a label under each saying
    where it goes. Printed at 100 % the markers are ``layout.marker_mm`` wide."""
    layout = layout or TableLayout()
    px = dpi / 25.4
    w, h = round(page_mm[0] * px), round(page_mm[1] * px)
    page = np.full((h, w), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    side = round(layout.marker_mm * px)
    for i in SEATS:
        cx = round(w * (0.28 if i in (2, 3) else 0.72))
        cy = round(h * (0.27 if i in (1, 2) else 0.65))
        x0, y0 = cx - side // 2, cy - side // 2
        page[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(dictionary, i, side)
        quiet = round(6 * px)   # cut line with a white quiet zone around the marker
        cv2.rectangle(page, (x0 - quiet, y0 - quiet), (x0 + side + quiet, y0 + side + quiet), 160, 1)
        label = f"{i}: corner right of {SEAT_NAMES[i]}"
        cv2.putText(page, label, (x0 - quiet, y0 + side + quiet + round(7 * px)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.12 * px, 0, max(1, round(0.25 * px)), cv2.LINE_AA)
    cv2.putText(page, f"mahj table markers - print at 100%: each square {layout.marker_mm:.0f} mm",
                (round(15 * px), round(15 * px)), cv2.FONT_HERSHEY_SIMPLEX, 0.12 * px, 0, max(1, round(0.25 * px)),
                cv2.LINE_AA)
    return page


def write_pdf(gray: np.ndarray, path: str | os.PathLike[str], dpi: int) -> None:
    """A one-page PDF holding ``gray`` at ``dpi`` (so the markers print at true size). A minimal writer of our
    own (one Flate-compressed image XObject, ~30 lines with zlib) instead of a PDF library: the page is a single
    bitmap and this keeps the runtime dependency list as it is."""
    import zlib

    h, w = gray.shape
    wpt, hpt = w * 72.0 / dpi, h * 72.0 / dpi
    img = zlib.compress(np.ascontiguousarray(gray, np.uint8).tobytes(), 9)
    content = f"q {wpt:.2f} 0 0 {hpt:.2f} 0 0 cm /Im0 Do Q".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {wpt:.2f} {hpt:.2f}] "
         "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
         f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(img)} >>\nstream\n").encode() + img
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    Path(path).write_bytes(bytes(out))
