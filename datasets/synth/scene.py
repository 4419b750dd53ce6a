"""A table of American tiles seen by an overhead camera, rendered with exact labels.

Geometry lives on the table plane in millimetres (x right, y away from seat 0 = East, z up; the origin is the
table centre), so the same ``Scene`` can be re-rendered frame by frame with a moving camera, arm or tile (issue 7
drives it that way). ``Camera`` owns intrinsics, pose and lens distortion and gives the true table-plane ->
image mapping, so callers can use the geometry as ground truth.

Rendering is a small painter's-algorithm rasteriser in OpenCV: tiles are cuboids whose visible faces are
texture-mapped (face art, back, or side colour); an id buffer drawn alongside tells how much of each tile is
visible after other tiles, racks and arms cover it. Photographic effects (shadows, light gradient, glare, lens
distortion, blur, noise, a phone's sharpening, JPEG) come last, in that order, as a camera would add them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .faces import FACE_H, FACE_W, back_image, face_image, style_for

#: Tile footprint in mm (American tiles are about 23 x 31 mm; thickness comes from the style).
TILE_W, TILE_L = 23.0, 31.0
#: Labels below this visible fraction are not reported (a box mostly hidden under an arm or tile).
MIN_VISIBILITY = 0.5


@dataclass
class PlacedTile:
    """One tile on the table. ``code`` may be None for a face-down tile whose identity nobody knows.

    ``angle_deg`` turns the tile about the vertical axis counterclockwise; at 0 the top of the face points to +y.
    A ``standing`` tile (on a rack) stands on its long edge with its back towards +y (rotated by the angle).
    ``z`` is the height of its base (rack top, second tier of the wall).
    """

    code: str | None
    face: str = "up"
    x: float = 0.0
    y: float = 0.0
    angle_deg: float = 0.0
    standing: bool = False
    z: float = 0.0
    variant: int = 0  # which of the set's Flower designs


@dataclass
class Rack:
    """A player's rack: a box ``length`` x ``depth`` x ``height`` mm, centred at (x, y), turned by angle_deg."""

    x: float
    y: float
    angle_deg: float
    length: float = 560.0
    depth: float = 70.0
    height: float = 28.0
    colour: tuple[int, int, int] = (40, 40, 40)


@dataclass
class Occluder:
    """An arm reaching over the table: sleeve from ``start`` to ``end`` (table mm) at height ``z``, hand at end."""

    start: tuple[float, float]
    end: tuple[float, float]
    z: float = 80.0
    width_mm: float = 80.0
    sleeve_colour: tuple[int, int, int] = (120, 60, 40)
    skin_colour: tuple[int, int, int] = (140, 170, 220)


#: Tablecloth patterns a real table shows and plain felt does not: ``TableLook.pattern``.
PATTERNS = ("checks", "stripes", "print")


@dataclass
class TableLook:
    kind: str = "felt"  # "felt" | "wood"
    colour: tuple[int, int, int] = (60, 110, 40)
    size_mm: float = 900.0
    floor_colour: tuple[int, int, int] = (70, 80, 90)
    seed: int = 0
    pattern: str = "plain"  # "plain" or one of PATTERNS, drawn over the cloth in colours of its own


@dataclass
class Light:
    """Light and camera-side effects. Everything random about a frame is fixed here, except sensor noise."""

    azimuth_deg: float = 45.0
    elevation_deg: float = 60.0
    shadow: float = 0.35
    brightness: float = 1.0
    gradient: float = 0.2        # darkening across the frame
    gradient_angle_deg: float = 0.0
    warmth: float = 0.0          # -1 blue .. 1 orange
    glare: float = 0.0           # 0..1 strength of a specular spot
    glare_xy: tuple[float, float] = (0.5, 0.5)  # in image fractions
    glare_radius: float = 0.15
    blur_sigma: float = 0.0
    motion_px: float = 0.0
    motion_angle_deg: float = 0.0
    noise_sigma: float = 2.0
    sharpen: float = 0.0         # a phone's unsharp mask, after the noise (which it sharpens too)
    jpeg_quality: int = 90


@dataclass
class Scene:
    tiles: list[PlacedTile]
    racks: list[Rack] = field(default_factory=list)
    style_id: int = 1
    table: TableLook = field(default_factory=TableLook)
    occluders: list[Occluder] = field(default_factory=list)
    light: Light = field(default_factory=Light)


@dataclass
class Label:
    """One tile as the image shows it: box (x1, y1, x2, y2) in pixels of the final image."""

    tile_index: int
    code: str | None
    face: str
    box: tuple[float, float, float, float]
    visibility: float
    variant: int = 0


@dataclass
class Camera:
    """Pinhole camera looking from ``position`` (mm) at ``target`` on the table, plus radial lens distortion.

    Distortion model (chosen so rendering is a closed-form remap): the undistorted normalised point is the
    distorted one times ``1 + k1 r^2 + k2 r^4`` (r of the distorted point); k1 > 0 gives webcam-like barrel.
    """

    width: int = 1280
    height: int = 720
    fx: float = 900.0
    fy: float = 900.0
    cx: float = 640.0
    cy: float = 360.0
    position: tuple[float, float, float] = (0.0, -300.0, 1100.0)
    target: tuple[float, float] = (0.0, 0.0)
    roll_deg: float = 0.0
    k1: float = 0.0
    k2: float = 0.0

    def rotation(self) -> np.ndarray:
        """World -> camera rotation (rows: camera x right, y down, z forward)."""
        c = np.array(self.position, float)
        fwd = np.array([self.target[0], self.target[1], 0.0]) - c
        fwd /= np.linalg.norm(fwd)
        up_hint = np.array([0.0, 1.0, 0.0]) if abs(fwd[1]) < 0.99 else np.array([1.0, 0.0, 0.0])
        # With a near-vertical view, "up" in the image is the +y direction of the table (projected).
        right = np.cross(fwd, up_hint)
        if np.linalg.norm(right) < 1e-6:
            right = np.array([1.0, 0.0, 0.0])
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        r = np.stack([right, down, fwd])
        a = math.radians(self.roll_deg)
        roll = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
        return roll @ r

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down."""
        fwd = self.rotation()[2]
        return math.degrees(math.acos(min(1.0, -fwd[2])))

    def intrinsics(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1.0]])

    def homography(self) -> np.ndarray:
        """Table plane (x, y, z=0) mm -> undistorted image pixels."""
        r = self.rotation()
        t = -r @ np.array(self.position, float)
        return self.intrinsics() @ np.column_stack([r[:, 0], r[:, 1], t])

    def to_normalised(self, pts3d: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> undistorted normalised image coords (N, 2) and depth (N,)."""
        r = self.rotation()
        pc = (np.asarray(pts3d, float) - np.array(self.position, float)) @ r.T
        z = np.maximum(pc[:, 2], 1e-3)
        return pc[:, :2] / z[:, None], z

    def distort_normalised(self, xy: np.ndarray) -> np.ndarray:
        """Undistorted normalised -> distorted normalised (inverts the model by Newton steps)."""
        if self.k1 == 0 and self.k2 == 0:
            return xy
        ru = np.linalg.norm(xy, axis=1)
        rd = ru.copy()
        for _ in range(8):
            f = rd * (1 + self.k1 * rd**2 + self.k2 * rd**4) - ru
            df = 1 + 3 * self.k1 * rd**2 + 5 * self.k2 * rd**4
            rd = rd - f / df
        scale = np.where(ru > 1e-9, rd / np.maximum(ru, 1e-9), 1.0)
        return xy * scale[:, None]

    def project(self, pts3d: np.ndarray) -> np.ndarray:
        """World points (N, 3) in mm -> pixel coords (N, 2) in the final, distorted image."""
        xy, _ = self.to_normalised(pts3d)
        d = self.distort_normalised(xy)
        return np.column_stack([d[:, 0] * self.fx + self.cx, d[:, 1] * self.fy + self.cy])


# ---------------------------------------------------------------------------------------------------------- geometry


def _rot(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _box_corners(cx: float, cy: float, angle: float, sx: float, sy: float, z0: float, z1: float) -> np.ndarray:
    """8 corners of an oriented box: bottom 0-3 then top 4-7, each (-,-) (+,-) (+,+) (-,+) in local x/y."""
    local = np.array([[-sx / 2, -sy / 2], [sx / 2, -sy / 2], [sx / 2, sy / 2], [-sx / 2, sy / 2]])
    xy = local @ _rot(angle).T + [cx, cy]
    return np.vstack([np.column_stack([xy, np.full(4, z0)]), np.column_stack([xy, np.full(4, z1)])])


# Faces of a box as corner indices in texture order (image top-left, top-right, bottom-right, bottom-left).
_TOP = (7, 6, 5, 4)       # seen from above: image top is local +y
_BOTTOM = (0, 1, 2, 3)
_PLUS_Y = (7, 6, 2, 3)    # image top at z top; seen from +y (mirrors nothing we texture with text)
_MINUS_Y = (4, 5, 1, 0)
_PLUS_X = (5, 6, 2, 1)
_MINUS_X = (7, 4, 0, 3)
_BOX_FACES = (_TOP, _BOTTOM, _PLUS_Y, _MINUS_Y, _PLUS_X, _MINUS_X)


def tile_corners(t: PlacedTile, thickness: float) -> np.ndarray:
    """The 8 corners of tile ``t`` as drawn (bottom 0-3, top 4-7)."""
    if t.standing:
        return _box_corners(t.x, t.y, t.angle_deg, TILE_W, thickness, t.z, t.z + TILE_L)
    return _box_corners(t.x, t.y, t.angle_deg, TILE_W, TILE_L, t.z, t.z + thickness)


def rack_corners(r: Rack) -> np.ndarray:
    """The 8 corners of rack ``r`` (bottom 0-3, top 4-7)."""
    return _box_corners(r.x, r.y, r.angle_deg, r.length, r.depth, 0, r.height)


class _Canvas:
    """The undistorted render target, larger than the frame where barrel distortion pulls in outside pixels."""

    def __init__(self, cam: Camera) -> None:
        self.cam = cam
        corners = np.array([[0, 0], [cam.width, 0], [0, cam.height], [cam.width, cam.height],
                            [cam.width / 2, 0], [cam.width / 2, cam.height], [0, cam.height / 2],
                            [cam.width, cam.height / 2]], float)
        und = self._undistort_px(corners)
        self.ox = int(math.floor(min(0.0, und[:, 0].min()))) - 2
        self.oy = int(math.floor(min(0.0, und[:, 1].min()))) - 2
        self.w = int(math.ceil(max(cam.width, und[:, 0].max()))) - self.ox + 2
        self.h = int(math.ceil(max(cam.height, und[:, 1].max()))) - self.oy + 2
        self.rot = cam.rotation()
        self.pos = np.array(cam.position, float)

    def _undistort_px(self, px: np.ndarray) -> np.ndarray:
        c = self.cam
        d = (px - [c.cx, c.cy]) / [c.fx, c.fy]
        r2 = (d**2).sum(axis=1, keepdims=True)
        u = d * (1 + c.k1 * r2 + c.k2 * r2**2)
        return u * [c.fx, c.fy] + [c.cx, c.cy]

    def plane_homography(self) -> np.ndarray:
        """Table plane (x, y, z=0) mm -> canvas pixels; exact even for table points behind the camera."""
        shift = np.array([[1, 0, -self.ox], [0, 1, -self.oy], [0, 0, 1.0]])
        return shift @ self.cam.homography()

    def rays(self, px: np.ndarray) -> np.ndarray:
        """Canvas pixels (N, 2) -> world directions (N, 3) of the rays through them (not normalised)."""
        c = self.cam
        xy = (px + [self.ox, self.oy] - [c.cx, c.cy]) / [c.fx, c.fy]
        return np.column_stack([xy, np.ones(len(xy))]) @ self.rot

    def to_canvas(self, pts3d: np.ndarray) -> np.ndarray:
        """World points -> undistorted canvas pixels (float)."""
        c = self.cam
        pc = (pts3d - self.pos) @ self.rot.T
        z = np.maximum(pc[:, 2], 1e-3)
        return np.column_stack([pc[:, 0] / z * c.fx + c.cx - self.ox, pc[:, 1] / z * c.fy + c.cy - self.oy])

    def remap(self, img: np.ndarray, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
        """Canvas image -> final distorted frame."""
        c = self.cam
        xs, ys = np.meshgrid(np.arange(c.width, dtype=np.float32), np.arange(c.height, dtype=np.float32))
        pts = np.column_stack([xs.ravel(), ys.ravel()])
        und = self._undistort_px(pts).astype(np.float32) - [self.ox, self.oy]
        mx = und[:, 0].reshape(c.height, c.width).astype(np.float32)
        my = und[:, 1].reshape(c.height, c.width).astype(np.float32)
        return cv2.remap(img, mx, my, interpolation, borderMode=cv2.BORDER_REPLICATE)


# ---------------------------------------------------------------------------------------------------------- drawing


def _table_texture(look: TableLook) -> tuple[np.ndarray, float, float]:
    """A texture of the table and floor around it; returns (image, mm per px, half extent mm)."""
    rng = np.random.default_rng(look.seed)
    half = look.size_mm * 1.2
    mm_px = 3.0
    n = int(2 * half / mm_px)
    img = np.empty((n, n, 3), np.float32)
    img[:] = look.floor_colour
    tex = np.empty((n, n, 3), np.float32)
    tex[:] = look.colour
    low = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (n, n), interpolation=cv2.INTER_CUBIC)
    if look.kind == "wood":
        yy = np.arange(n, dtype=np.float32)[:, None] * mm_px
        grain = np.sin(yy / rng.uniform(4, 9) + 3 * low) * 0.08 + rng.normal(0, 0.03, (n, n)).astype(np.float32)
        tex *= (1 + grain)[..., None]
    else:
        tex *= (1 + 0.06 * low + rng.normal(0, 0.04, (n, n)).astype(np.float32))[..., None]
    if look.pattern != "plain":
        _draw_pattern(tex, look, mm_px)
    a = int((half - look.size_mm / 2) / mm_px)
    img[a:n - a, a:n - a] = tex[a:n - a, a:n - a]
    cv2.rectangle(img, (a, a), (n - a, n - a), tuple(c * 0.6 for c in look.colour), 2)
    return np.clip(img, 0, 255).astype(np.uint8), mm_px, half


def _draw_pattern(tex: np.ndarray, look: TableLook, mm_px: float) -> None:
    """A tablecloth's pattern over the texture, in place: checks, stripes at an angle, or a print of blobs, in a
    second colour and at a scale from the cloth's own generator (so the table's other draws stay as they were)."""
    g = np.random.default_rng([look.seed, 1])
    n = tex.shape[0]
    other = g.uniform(20, 235, 3).astype(np.float32)
    mask = np.zeros((n, n), np.float32)
    size_px = g.uniform(15, 60) / mm_px
    if look.pattern == "checks":
        yy, xx = np.mgrid[0:n, 0:n]
        mask[((xx // size_px).astype(int) + (yy // size_px).astype(int)) % 2 == 0] = 1
    elif look.pattern == "stripes":
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        ang = g.uniform(0, np.pi)
        mask[((xx * np.cos(ang) + yy * np.sin(ang)) // size_px).astype(int) % 2 == 0] = 1
    else:
        for _ in range(int(n * n / (size_px * size_px) / 6)):
            c = (int(g.integers(n)), int(g.integers(n)))
            axes = (max(1, int(g.uniform(0.2, 0.6) * size_px)), max(1, int(g.uniform(0.2, 0.6) * size_px)))
            cv2.ellipse(mask, c, axes, float(g.uniform(0, 180)), 0, 360, 1.0, -1)
    strength = g.uniform(0.4, 0.9)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.7)[..., None] * strength
    tex[:] = tex * (1 - mask) + other * mask


def _table_image(canvas: _Canvas, look: TableLook) -> np.ndarray:
    """The table and floor as the canvas sees them, and the room's wall where a low camera sees past the floor."""
    tex, _, half = _table_texture(look)
    n = tex.shape[0]
    to_mm = np.array([[2 * half / n, 0, -half], [0, -2 * half / n, half], [0, 0, 1]])
    img = cv2.warpPerspective(tex, canvas.plane_homography() @ to_mm, (canvas.w, canvas.h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    corners = np.array([[0, 0], [canvas.w, 0], [0, canvas.h], [canvas.w, canvas.h]], float)
    if canvas.rays(corners)[:, 2].max() < 0:
        return img  # the horizon is out of the frame (any overhead camera)
    ys, xs = np.mgrid[0:canvas.h, 0:canvas.w]
    d = canvas.rays(np.column_stack([xs.ravel(), ys.ravel()]).astype(float))
    # Where each ray meets the floor; rays at or above the horizon never do.
    t = canvas.pos[2] / np.maximum(-d[:, 2], 1e-9)
    hit = canvas.pos[:2] + t[:, None] * d[:, :2]
    wall = (d[:, 2] > -1e-6) | (np.abs(hit) > half).any(axis=1)
    colour = np.random.default_rng([look.seed, 1]).integers(60, 220, 3)
    img.reshape(-1, 3)[wall] = colour
    return img


def _shade(colour, normal: np.ndarray, light_dir: np.ndarray) -> tuple[float, float, float]:
    k = 0.55 + 0.45 * max(0.0, float(normal @ light_dir))
    return tuple(float(c) * k for c in colour)


def _fill_quad(img: np.ndarray, ids: np.ndarray, quad: np.ndarray, colour, ident: int) -> None:
    q = np.round(quad * 4).astype(np.int32)
    cv2.fillConvexPoly(img, q, colour, cv2.LINE_AA, shift=2)
    cv2.fillConvexPoly(ids, q, ident, cv2.LINE_8, shift=2)


def _texture_quad(img: np.ndarray, ids: np.ndarray, quad: np.ndarray, tex: np.ndarray, ident: int) -> None:
    """Warp ``tex`` onto the canvas quad (TL, TR, BR, BL)."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    th, tw = tex.shape[:2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    m = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(tex, m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA if th > 60 else cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    q = np.round((quad - [x0, y0]) * 4).astype(np.int32)
    cv2.fillConvexPoly(mask, q, 255, cv2.LINE_AA, shift=2)
    roi = img[y0:y1, x0:x1]
    a = mask[..., None].astype(np.float32) / 255.0
    roi[:] = (roi * (1 - a) + warped * a).astype(np.uint8)
    ids[y0:y1, x0:x1][mask > 127] = ident


def _face_normal(corners: np.ndarray, face: tuple[int, ...], centre: np.ndarray) -> np.ndarray:
    c = corners[list(face)]
    n = np.cross(c[1] - c[0], c[3] - c[0])
    n /= np.linalg.norm(n) + 1e-9
    if n @ (c.mean(axis=0) - centre) < 0:
        n = -n
    return n


def _draw_box(canvas: _Canvas, img: np.ndarray, ids: np.ndarray, corners: np.ndarray, ident: int, colour,
              light_dir: np.ndarray, textures: dict[tuple[int, ...], np.ndarray] | None = None) -> None:
    centre = corners.mean(axis=0)
    px = canvas.to_canvas(corners)
    for face in _BOX_FACES:
        n = _face_normal(corners, face, centre)
        fc = corners[list(face)].mean(axis=0)
        if n @ (canvas.pos - fc) <= 0:
            continue
        quad = px[list(face)]
        tex = textures.get(face) if textures else None
        if tex is not None:
            k = 0.75 + 0.25 * max(0.0, float(n @ light_dir))
            _texture_quad(img, ids, quad, tex if k > 0.99 else (tex * k).astype(np.uint8), ident)
        else:
            _fill_quad(img, ids, quad, _shade(colour, n, light_dir), ident)
        cv2.polylines(img, [np.round(quad * 4).astype(np.int32)], True, _shade(colour, n, light_dir * 0.3),
                      1, cv2.LINE_AA, shift=2)


def _clip_near(canvas: _Canvas, poly: np.ndarray, near: float = 5.0) -> np.ndarray:
    """The part of 3-D polygon ``poly`` at least ``near`` mm in front of the camera: projecting points behind it
    would fold them into the frame (an arm reaching from behind a player's-eye camera)."""
    depth = (poly - canvas.pos) @ canvas.rot[2]
    if (depth >= near).all():
        return poly
    out = []
    for k in range(len(poly)):
        j = (k + 1) % len(poly)
        if depth[k] >= near:
            out.append(poly[k])
        if (depth[k] >= near) != (depth[j] >= near):
            out.append(poly[k] + (poly[j] - poly[k]) * (near - depth[k]) / (depth[j] - depth[k]))
    return np.array(out).reshape(-1, 3)


def _draw_arm(canvas: _Canvas, img: np.ndarray, ids: np.ndarray, occ: Occluder, ident: int) -> None:
    s = np.array([*occ.start, occ.z])
    e = np.array([*occ.end, occ.z])
    d = (e - s) / (np.linalg.norm(e - s) + 1e-9)
    perp = np.array([-d[1], d[0], 0.0])
    wrist = e - d * occ.width_mm * 1.1
    hw = occ.width_mm / 2
    sleeve = np.array([s + perp * hw, wrist + perp * hw * 0.8, wrist - perp * hw * 0.8, s - perp * hw])
    hand = np.array([wrist + d * occ.width_mm * 0.5 + perp * hw * 0.7 * math.cos(a) + d * hw * 0.9 * math.sin(a)
                     for a in np.linspace(0, 2 * math.pi, 20)])
    fingers = [np.array([wrist + d * hw * 0.9 + perp * o * hw, e + perp * o * hw * 0.8 + d * 10 * (1 - abs(o))])
               for o in (-0.55, -0.18, 0.18, 0.55)]
    for poly, colour in ((sleeve, occ.sleeve_colour), (hand, occ.skin_colour)):
        poly = _clip_near(canvas, poly)
        if len(poly) < 3:
            continue
        q = np.round(canvas.to_canvas(poly) * 4).astype(np.int32)
        cv2.fillPoly(img, [q], colour, cv2.LINE_AA, shift=2)
        cv2.fillPoly(ids, [q], ident, cv2.LINE_8, shift=2)
    fw = max(2, int(occ.width_mm * 0.18 * canvas.cam.fx / max(1.0, canvas.pos[2] - occ.z)))
    for f in fingers:
        if len(_clip_near(canvas, f)) < len(f):
            continue
        p = np.round(canvas.to_canvas(f)).astype(np.int32)
        cv2.line(img, tuple(p[0]), tuple(p[1]), occ.skin_colour, fw, cv2.LINE_AA)
        cv2.line(ids, tuple(p[0]), tuple(p[1]), ident, fw)


def _shadow_mask(canvas: _Canvas, boxes: list[np.ndarray], light: Light) -> np.ndarray:
    az, el = math.radians(light.azimuth_deg), math.radians(light.elevation_deg)
    shift = -np.array([math.cos(az), math.sin(az)]) / math.tan(el)
    mask = np.zeros((canvas.h, canvas.w), np.uint8)
    for c in boxes:
        top = c[4:].copy()
        flat = top[:, :2] + shift * (top[:, 2:3])
        pts = np.vstack([c[:4, :2], flat])
        pts3 = np.column_stack([pts, np.full(len(pts), c[0, 2])])
        hull = cv2.convexHull(canvas.to_canvas(pts3).astype(np.float32))
        cv2.fillConvexPoly(mask, np.round(hull * 4).astype(np.int32), 255, cv2.LINE_AA, shift=2)
    return mask


def _light_field(cam: Camera, light: Light) -> np.ndarray:
    """Per-pixel multiplicative light (gradient + vignette + colour warmth), H x W x 3 float32."""
    h, w = cam.height, cam.width
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = math.radians(light.gradient_angle_deg)
    g = ((xs / w - 0.5) * math.cos(a) + (ys / h - 0.5) * math.sin(a))
    r2 = ((xs - w / 2) / w) ** 2 + ((ys - h / 2) / h) ** 2
    f = light.brightness * (1 - light.gradient * (g + 0.5)) * (1 - 0.35 * r2)
    warm = np.array([1 - 0.12 * light.warmth, 1.0, 1 + 0.12 * light.warmth], np.float32)
    return f[..., None] * warm


def render(scene: Scene, camera: Camera, rng: np.random.Generator | None = None) -> tuple[np.ndarray, list[Label]]:
    """Draw ``scene`` as ``camera`` sees it; returns (BGR uint8 image, labels of tiles at least half visible).

    ``rng`` only adds sensor noise (so a still scene gives a fresh noise pattern each frame); pass None for a
    noise-free, fully deterministic frame.
    """
    style = style_for(scene.style_id)
    thick = style.thickness_mm
    canvas = _Canvas(camera)
    light = scene.light
    az, el = math.radians(light.azimuth_deg), math.radians(light.elevation_deg)
    light_dir = np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])

    img = _table_image(canvas, scene.table)
    ids = np.full((canvas.h, canvas.w), -1, np.int32)

    rack_boxes = [rack_corners(r) for r in scene.racks]
    tile_boxes = [tile_corners(t, thick) for t in scene.tiles]
    shadow = _shadow_mask(canvas, rack_boxes + [b for b, t in zip(tile_boxes, scene.tiles, strict=True)
                                                if t.z == 0], light)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 3)
    img = (img * (1 - light.shadow * shadow[..., None] / 255.0)).astype(np.uint8)

    for r, b in zip(scene.racks, rack_boxes, strict=True):
        _draw_box(canvas, img, ids, b, -2, r.colour, light_dir)

    back = back_image(style)
    order = sorted(range(len(scene.tiles)),
                   key=lambda i: (scene.tiles[i].z, -np.linalg.norm(tile_boxes[i].mean(axis=0) - canvas.pos)))
    for i in order:
        t = scene.tiles[i]
        face = face_image(t.code, style, t.variant) if t.code and t.face == "up" else back
        if t.standing:
            textures = {_PLUS_Y: back, _MINUS_Y: face if t.face == "up" else back}
        else:
            textures = {_TOP: face if t.face == "up" else back, _BOTTOM: back}
        _draw_box(canvas, img, ids, tile_boxes[i], i, style.side_colour, light_dir, textures)

    for occ in scene.occluders:
        _draw_arm(canvas, img, ids, occ, -3)

    labels = _labels(scene, camera, canvas, ids, tile_boxes)
    out = canvas.remap(img)
    out = _photo_effects(out, camera, light, rng)
    return out, labels


def outline_points(t: PlacedTile, corners: np.ndarray) -> np.ndarray:
    """3-D points along the edges a label box must enclose (the top face of a flat tile, the whole of a
    standing one), dense enough that the box follows lens distortion or any later warp of the image."""
    hull = corners if t.standing else corners[4:]
    return np.vstack([hull + (np.roll(hull, -1, axis=0) - hull) * s for s in np.linspace(0, 1, 5)])


def _seen_face(t: PlacedTile, corners: np.ndarray, eye: np.ndarray) -> str:
    """The side of ``t`` the camera at ``eye`` sees: a standing face-up tile shows its face only to cameras on its
    -y side (its owner's); from anywhere else the camera sees a back, labelled like a face-down tile."""
    if not (t.standing and t.face == "up"):
        return t.face
    normal = _face_normal(corners, _MINUS_Y, corners.mean(axis=0))
    return "up" if normal @ (eye - corners[list(_MINUS_Y)].mean(axis=0)) > 0 else "down"


def seen_fraction(canvas: _Canvas, ids: np.ndarray, ident: int, pts: np.ndarray) -> float:
    """The fraction of the hull of 3-D points ``pts`` (the surface a label box stands for) that shows object
    ``ident``'s own pixels in the id image ``ids``. Only pixels inside that hull count: a flat tile's sides lie
    outside its top face, and counting them would label a tile whose face is hidden while a side shows (the lower
    tile of a wall's stack seen at a tilt, a tile on a rack under an arm)."""
    q = canvas.to_canvas(pts)
    hull = cv2.convexHull(q.astype(np.float32))
    area = cv2.contourArea(hull)
    if area <= 1:
        return 0.0
    h, w = ids.shape
    if np.abs(q).max() > 16 * max(w, h):  # a corner behind or far beside the camera: no tile the frame shows
        return 0.0
    x0, y0 = max(int(q[:, 0].min()), 0), max(int(q[:, 1].min()), 0)
    x1, y1 = min(int(q[:, 0].max()) + 2, w), min(int(q[:, 1].max()) + 2, h)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((hull[:, 0] - [x0, y0]) * 4).astype(np.int32), 1, cv2.LINE_8, shift=2)
    inside = mask.astype(bool)
    # The raster of a small hull is larger than its area (edge pixels count whole): divide by the larger.
    return float((ids[y0:y1, x0:x1][inside] == ident).sum() / max(area, inside.sum()))


def _labels(scene: Scene, cam: Camera, canvas: _Canvas, ids: np.ndarray, boxes: list[np.ndarray]) -> list[Label]:
    labels = []
    for i, (t, c) in enumerate(zip(scene.tiles, boxes, strict=True)):
        pts = c if t.standing else c[4:]  # flat tiles: the top surface; standing: the whole tile
        vis = seen_fraction(canvas, ids, i, pts)
        if vis < MIN_VISIBILITY:
            continue
        px = cam.project(outline_points(t, c))
        x1, y1 = px.min(axis=0)
        x2, y2 = px.max(axis=0)
        cx1, cy1, cx2, cy2 = max(x1, 0), max(y1, 0), min(x2, cam.width), min(y2, cam.height)
        if cx2 <= cx1 or cy2 <= cy1 or (cx2 - cx1) * (cy2 - cy1) < 0.6 * (x2 - x1) * (y2 - y1):
            continue
        labels.append(Label(i, t.code, _seen_face(t, c, canvas.pos), (float(cx1), float(cy1), float(cx2), float(cy2)),
                            min(1.0, vis), t.variant))
    return labels


def _photo_effects(img: np.ndarray, cam: Camera, light: Light, rng: np.random.Generator | None) -> np.ndarray:
    f = img.astype(np.float32) * _light_field(cam, light)
    if light.glare > 0:
        h, w = img.shape[:2]
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        gx, gy = light.glare_xy[0] * w, light.glare_xy[1] * h
        r = light.glare_radius * w
        f += 255 * light.glare * np.exp(-(((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * r * r)))[..., None]
    if light.blur_sigma > 0:
        f = cv2.GaussianBlur(f, (0, 0), light.blur_sigma)
    if light.motion_px >= 2:
        k = int(light.motion_px) | 1
        kern = np.zeros((k, k), np.float32)
        kern[k // 2] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), light.motion_angle_deg, 1.0)
        kern = cv2.warpAffine(kern, rot, (k, k))
        f = cv2.filter2D(f, -1, kern / max(kern.sum(), 1e-6))
    if rng is not None and light.noise_sigma > 0:
        f += rng.normal(0, light.noise_sigma, f.shape).astype(np.float32)
    if light.sharpen > 0:
        f += light.sharpen * (f - cv2.GaussianBlur(f, (0, 0), 1.0))
    out = np.clip(f, 0, 255).astype(np.uint8)
    if light.jpeg_quality < 100:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(light.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


__all__ = ["FACE_H", "FACE_W", "PATTERNS", "TILE_L", "TILE_W", "Camera", "Label", "Light", "Occluder", "PlacedTile",
           "Rack",
           "Scene", "TableLook", "render"]
