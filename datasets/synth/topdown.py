"""Detector training crops of the table seen top-down at a fixed scale, as the table reader feeds the detector.

Why: a camera that frames the whole table shows a tile at 15-25 px; the whole frame letterboxed to the
detector's input shrinks that to 6-10 px, too small for a stride-8 detector to find, let alone separate from
its neighbours. The reader (vision.reader) therefore warps the part of the table it reads onto the table plane
and detects there, where a tile always has one known size (it reads at 1.5 px/mm, READER_PX_PER_MM; these crops
are drawn at ``TOPDOWN_PX_PER_MM``, the 1 px/mm the shipped detector learnt). These crops teach that view: a
random scene from a random whole-table camera (any side, tilt up to 30 degrees, 720p to 1080p, lens distortion
the reader does not correct), rectified with the camera's table homography, cut into square crops.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.tile_model import TOPDOWN_PX_PER_MM

from .faces import style_for
from .layout import random_scene
from .scene import Camera, Label, Scene, outline_points, render, tile_corners

#: Side of a training crop in px (the detector's training size, so ultralytics does not rescale it).
CROP = 512
#: Margin around the table edge kept in the top-down view (racks and arms reach past the edge).
MARGIN_MM = 60.0


def table_camera(rng: np.random.Generator, size_mm: float) -> Camera:
    """A camera that frames the whole table, as the reader is set up: from any side, tilted 0-30 degrees."""
    height = int(rng.choice([720, 900, 1080]))
    width = height * 16 // 9
    view = rng.uniform(size_mm + 60, size_mm + 260)          # table mm across the frame's height
    tilt = math.radians(rng.uniform(0, 30))
    yaw = rng.uniform(0, 2 * math.pi)
    dist = rng.uniform(1000, 1500)
    f = (height / 2) * dist / (view / 2)
    pos = (-dist * math.sin(tilt) * math.cos(yaw), -dist * math.sin(tilt) * math.sin(yaw), dist * math.cos(tilt))
    return Camera(width=width, height=height, fx=f, fy=f * rng.uniform(0.99, 1.01), cx=width / 2, cy=height / 2,
                  position=pos, target=(float(rng.normal(0, 20)), float(rng.normal(0, 20))),
                  roll_deg=float(rng.uniform(-180, 180)), k1=float(rng.uniform(0, 0.08)))


def rectify(img: np.ndarray, cam: Camera, half_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """The table plane from -half_mm..half_mm on both axes at TOPDOWN_PX_PER_MM (seat 0 at the bottom), and the
    matrix taking camera pixels to that view. Distortion is ignored, as the reader ignores it."""
    s = TOPDOWN_PX_PER_MM
    side = int(round(2 * half_mm * s))
    view_to_table = np.array([[1 / s, 0, -half_mm], [0, -1 / s, half_mm], [0, 0, 1.0]])
    view_to_img = cam.homography() @ view_to_table
    out = cv2.warpPerspective(img, view_to_img, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
    return out, np.linalg.inv(view_to_img)


def view_boxes(scene: Scene, cam: Camera, labels: list[Label], img_to_view: np.ndarray) -> list[tuple]:
    """Each label's box in the top-down view: its outline projected by the camera, then warped like the image."""
    thick = style_for(scene.style_id).thickness_mm
    out = []
    for lb in labels:
        t = scene.tiles[lb.tile_index]
        px = cam.project(outline_points(t, tile_corners(t, thick)))
        v = cv2.perspectiveTransform(px.reshape(-1, 1, 2), img_to_view).reshape(-1, 2)
        out.append((lb.face, *v.min(axis=0), *v.max(axis=0)))
    return out


def crops(view: np.ndarray, boxes: list[tuple], rng: np.random.Generator, n: int) -> list[tuple[np.ndarray, list]]:
    """``n`` CROP x CROP windows, mostly centred near a tile; boxes clipped, dropped when under 60 % inside."""
    side = view.shape[0]
    out = []
    for _ in range(n):
        if boxes and rng.random() < 0.8:
            b = boxes[int(rng.integers(len(boxes)))]
            cx, cy = (b[1] + b[3]) / 2 + rng.normal(0, CROP / 4), (b[2] + b[4]) / 2 + rng.normal(0, CROP / 4)
        else:
            cx, cy = rng.uniform(0, side, 2)
        x0 = int(np.clip(cx - CROP / 2, 0, max(0, side - CROP)))
        y0 = int(np.clip(cy - CROP / 2, 0, max(0, side - CROP)))
        img = view[y0:y0 + CROP, x0:x0 + CROP]
        kept = []
        for face, x1, y1, x2, y2 in boxes:
            a = (x2 - x1) * (y2 - y1)
            c = (max(x1 - x0, 0), max(y1 - y0, 0), min(x2 - x0, CROP), min(y2 - y0, CROP))
            if c[2] > c[0] and c[3] > c[1] and (c[2] - c[0]) * (c[3] - c[1]) >= 0.6 * a:
                kept.append((face, *c))
        out.append((img, kept))
    return out


def render_topdown(seed: int, i: int, styles: tuple[int, ...], n_crops: int = 2
                   ) -> tuple[list[tuple[np.ndarray, list]], dict]:
    """Crops number ``i`` of a top-down set seeded by ``seed``: (image, [(face, x1, y1, x2, y2)]) pairs + meta."""
    rng = np.random.default_rng([seed, i, 7])
    style = int(styles[int(rng.integers(len(styles)))])
    scene = random_scene(rng, style)
    cam = table_camera(rng, scene.table.size_mm)
    img, labels = render(scene, cam, rng)
    view, img_to_view = rectify(img, cam, scene.table.size_mm / 2 + MARGIN_MM)
    boxes = view_boxes(scene, cam, labels, img_to_view)
    meta = {"seed": seed, "index": i, "style": style, "tilt_deg": round(cam.tilt_deg, 2),
            "camera": [cam.width, cam.height], "px_per_mm": TOPDOWN_PX_PER_MM}
    return crops(view, boxes, rng, n_crops), meta
