"""Photos of the set-up mat with tiles laid in its cells, for tests and for measuring `mahj setup tiles` without
a real American set (issue 32).

The sheet is painted by ``vision.mat_print`` (what a user prints), each tile is a face image (a rendered style's,
``faces.face_image``, or a real crop) on a tile body with a shadow, jittered in its cell as a hand lays it; the
sheet is then photographed: turned, tilted, lit unevenly, blurred a little, noisy, JPEG-compressed.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.mat import FRAME_MM, PAPERS, TILE_MM, cells
from vision.mat_print import sheet_image

#: The painted sheet's resolution before it is photographed.
PX_PER_MM = 6.0


@dataclass(frozen=True)
class Shot:
    """How the camera sees the sheet: tilt from straight above and turn in the image plane (degrees), the share of
    the picture's width the sheet spans (less if it would not fit), the light (brightness at the far and near
    edge, colour cast) and blur."""

    tilt: float = 0.0
    turn: float = 0.0
    fill: float = 0.85
    light: tuple[float, float] = (1.0, 1.0)
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    blur: float = 0.6
    size: tuple[int, int] = (1280, 960)


def random_shot(rng: np.random.Generator, size: tuple[int, int] = (1280, 960)) -> Shot:
    """Another capture of the same mat: a new angle, a new turn, new light."""
    lo = rng.uniform(0.55, 1.0)
    return Shot(tilt=float(rng.uniform(0, 35)), turn=float(rng.choice([0, 90, 180, 270]) + rng.uniform(-12, 12)),
                fill=float(rng.uniform(0.7, 0.9)), light=(lo, float(rng.uniform(lo, 1.1))),
                cast=tuple(float(c) for c in rng.uniform(0.85, 1.1, 3)), blur=float(rng.uniform(0.3, 1.0)),
                size=size)


def lay_tiles(sheet: int, faces: dict[int, np.ndarray], rng: np.random.Generator, paper: str = "letter",
              body: tuple[int, int, int] = (225, 235, 240), second: dict[int, np.ndarray] | None = None
              ) -> np.ndarray:
    """The sheet (BGR, PX_PER_MM) with ``faces[i]`` laid as a tile in cell ``i`` (cells not given stay empty),
    each shifted up to 1.5 mm and turned up to 4 degrees; ``second[i]``, a second tile laid half over the first
    (a player's slip)."""
    page = cv2.cvtColor(sheet_image(sheet, paper, round(PX_PER_MM * 25.4)), cv2.COLOR_GRAY2BGR)
    ox = (PAPERS[paper][0] - FRAME_MM[0]) / 2
    oy = (PAPERS[paper][1] - FRAME_MM[1]) / 2
    tw, th = TILE_MM[0] * PX_PER_MM, TILE_MM[1] * PX_PER_MM
    laid = [(c, faces[c.index], 0.0) for c in cells(sheet) if c.index in faces]
    laid += [(c, (second or {})[c.index], TILE_MM[0] * 0.8) for c in cells(sheet) if c.index in (second or {})]
    for cell, face, shift in laid:
        x0, y0, x1, y1 = cell.zone
        cx = ((x0 + x1) / 2 + ox + shift + rng.uniform(-1.5, 1.5)) * PX_PER_MM
        cy = ((y0 + y1) / 2 + oy + shift * 0.3 + rng.uniform(-1.5, 1.5)) * PX_PER_MM
        angle = rng.uniform(-4, 4)
        rect = ((cx, cy), (tw, th), angle)
        shadow = cv2.boxPoints(((cx + 0.8 * PX_PER_MM, cy + 1.0 * PX_PER_MM), (tw, th), angle)).astype(np.int32)
        cv2.fillConvexPoly(page, shadow, (150, 150, 150), cv2.LINE_AA)
        cv2.fillConvexPoly(page, cv2.boxPoints(rect).astype(np.int32), body, cv2.LINE_AA)
        inner = cv2.boxPoints(((cx, cy), (tw - 1.6 * PX_PER_MM, th - 1.6 * PX_PER_MM), angle)).astype(np.float32)
        fh, fw = face.shape[:2]
        src = np.float32([[0, fh], [0, 0], [fw, 0], [fw, fh]])       # boxPoints order: bottom left first
        m = cv2.getPerspectiveTransform(src, inner)
        warped = cv2.warpPerspective(face, m, page.shape[1::-1], flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), m, page.shape[1::-1])
        page[mask > 127] = warped[mask > 127]
    return page


def photograph(page: np.ndarray, shot: Shot, rng: np.random.Generator, table: tuple[int, int, int] = (40, 70, 30)
               ) -> np.ndarray:
    """The page as a camera sees it: a pinhole camera above the page's centre, tilted and turned, on a table."""
    h, w = page.shape[:2]
    W, H = shot.size  # noqa: N806
    f = 1.2 * W
    rx, rz = np.radians(shot.tilt), np.radians(shot.turn)
    rot = np.array([[np.cos(rz), -np.sin(rz), 0], [np.sin(rz), np.cos(rz), 0], [0, 0, 1]]) @ \
        np.array([[1, 0, 0], [0, np.cos(rx), -np.sin(rx)], [0, np.sin(rx), np.cos(rx)]])
    dist = f * w / (shot.fill * W)
    k = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1]])
    corners = np.float64([[x - w / 2, y - h / 2, 0] for x, y in ((0, 0), (w, 0), (w, h), (0, h))])
    while True:   # back away until the whole sheet is in the picture, as a person framing it would
        cam = (rot @ corners.T).T + [0, 0, dist]
        proj = (k @ cam.T).T
        dst = (proj[:, :2] / proj[:, 2:]).astype(np.float32)
        if (dst.min(axis=0) >= [0.03 * W, 0.03 * H]).all() and (dst.max(axis=0) <= [0.97 * W, 0.97 * H]).all():
            break
        dist *= 1.05
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst)
    img = cv2.warpPerspective(page, m, (W, H), flags=cv2.INTER_AREA, borderValue=table).astype(np.float32)
    ramp = np.linspace(shot.light[0], shot.light[1], H, dtype=np.float32)[:, None, None]
    img = img * ramp * np.float32(shot.cast)
    if shot.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), shot.blur)
    img += rng.normal(0, 3.0, img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 88])
    return cv2.imdecode(jpg, cv2.IMREAD_COLOR)
