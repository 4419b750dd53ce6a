"""Render a World frame by frame with the scene renderer (datasets.synth.scene) and write a fixture video.

A recording is four files side by side, ``NAME.mp4`` plus:

* ``NAME.truth.jsonl``: the true events (vision's event-log shape),
* ``NAME.meta.json``: fps, size, seed, the true table->image homography (vision's table coordinates: mm, origin
  at the corner of marker 2, y towards East), the true frame number of every frame in the file (dropped frames
  leave gaps), and the disturbance windows,
* ``NAME.boxes.npz``: the renderer's labels per frame (box, face, code, visibility), for the oracle detector.

Corner markers (ArUco 0..3, as `mahj calibrate` prints them) are pasted onto the table plane after rendering:
the scene renderer has no decals, and markers sit in the table corners where arms do not reach.
Frames are drawn in two layers (the table at rest, cached until a tile moves; the arms and tiles in hand over
it), which makes a game several times cheaper to render than drawing every tile every frame.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.scene import Camera, Label, Light, Occluder, Rack, Scene, TableLook, render
from datasets.video.world import TABLE_MM, FrameState, World, seat_xy
from engine.tiles import INDEX, TILES

MARKER_MM, MARKER_INSET, MARKER_QUIET = 70.0, 50.0, 8.0
ARUCO = cv2.aruco.DICT_4X4_50
FACE_DOWN = len(TILES)
_SLEEVES = [(120, 60, 40), (40, 40, 40), (200, 200, 200), (60, 60, 150), (30, 110, 60), (150, 130, 200)]
_SKIN = [(140, 170, 220), (100, 140, 200), (70, 100, 150), (50, 70, 110), (170, 200, 235)]
_FELT = [(60, 110, 40), (110, 70, 30), (40, 40, 120), (50, 50, 50), (30, 80, 60)]


def to_vision_xy(x: float, y: float) -> tuple[float, float]:
    """Renderer table coordinates (centre origin, y away from East) -> vision's (corner origin, y to East)."""
    return x + TABLE_MM / 2, TABLE_MM / 2 - y


def marker_centres() -> dict[int, tuple[float, float]]:
    """Renderer coordinates of the markers: marker i in the corner to the right of seat i."""
    h = TABLE_MM / 2 - MARKER_INSET
    return {i: seat_xy(i, h, MARKER_INSET) for i in range(4)}


@dataclass
class Look:
    """Everything fixed for one recording: set style, table, light, camera, arm colours."""

    style_id: int
    table: TableLook
    light: Light
    camera: Camera
    sleeves: list[tuple[int, int, int]]
    skins: list[tuple[int, int, int]]

    @classmethod
    def random(cls, seed: int, width: int, height: int) -> Look:
        rng = random.Random(seed * 104729 + 3)
        table = TableLook(kind="felt", colour=rng.choice(_FELT), size_mm=TABLE_MM, seed=seed)
        light = Light(azimuth_deg=rng.uniform(0, 360), elevation_deg=rng.uniform(50, 80),
                      shadow=rng.uniform(0.15, 0.35), gradient=rng.uniform(0, 0.15), warmth=rng.uniform(-0.5, 0.5),
                      blur_sigma=0.7, noise_sigma=0.0, jpeg_quality=100)
        dist = rng.uniform(1150, 1300)
        tilt = math.radians(rng.uniform(0, 18))
        f = (height / 2) * dist / 520.0
        cam = Camera(width=width, height=height, fx=f, fy=f, cx=width / 2, cy=height / 2,
                     position=(rng.uniform(-30, 30), -dist * math.sin(tilt), dist * math.cos(tilt)),
                     target=(0.0, 0.0), roll_deg=rng.uniform(-3, 3), k1=rng.uniform(0, 0.05))
        return cls(rng.randint(1, 40), table, light, cam, [rng.choice(_SLEEVES) for _ in range(4)],
                   [rng.choice(_SKIN) for _ in range(4)])


class Renderer:
    """Turns FrameStates into images (+ labels) for one recording."""

    def __init__(self, world: World, look: Look, noise: float = 0.8) -> None:
        self.world, self.look, self.noise = world, look, noise
        self.rng = np.random.default_rng(world.seed)
        self.racks = [Rack(*seat_xy(s, world.layout.shift_u[s], world.layout.top_w[s]), 90.0 * s, length=520.0,
                           depth=70.0, height=world.rack_height, colour=(40, 40, 40)) for s in range(4)]
        d = cv2.aruco.getPredefinedDictionary(ARUCO)
        px = 4.0                             # marker texture px per mm
        q = round(MARKER_QUIET * px)
        self._markers = {i: cv2.copyMakeBorder(cv2.aruco.generateImageMarker(d, i, round(MARKER_MM * px)),
                                               q, q, q, q, cv2.BORDER_CONSTANT, value=255) for i in range(4)}
        self._still_key: tuple | None = None
        self._still: tuple[np.ndarray, list[Label]] = (np.zeros(0), [])
        self._empty_key: tuple | None = None
        self._empty = np.zeros(0)
        self._arm: tuple[np.ndarray, list[Label], np.ndarray] | None = None
        self._arm_key: tuple | None = None

    def camera(self, fs: FrameState) -> Camera:
        dx, dy, roll = fs.camera_shift
        c = self.look.camera
        return replace(c, position=(c.position[0] + dx, c.position[1] + dy, c.position[2]),
                       target=(c.target[0] + dx, c.target[1] + dy), roll_deg=c.roll_deg + roll)

    def _scene(self, tiles: list, racks: list, arms: list, light: float) -> Scene:
        occ = [Occluder(seat_xy(a.seat, 0.0, -300.0), (a.x, a.y), z=a.z + 20, width_mm=80.0,
                        sleeve_colour=self.look.sleeves[a.seat], skin_colour=self.look.skins[a.seat]) for a in arms]
        return Scene(tiles, racks, self.look.style_id, self.look.table, occ,
                     replace(self.look.light, brightness=self.look.light.brightness * light))

    def frame(self, fs: FrameState) -> tuple[np.ndarray, list[Label]]:
        """The frame for ``fs``. Drawn in two layers so a moving arm does not re-draw 150 still tiles: the table
        at rest (tiles lying or standing, cached until a tile moves) and, over it, the arms with the tiles in
        hand, rendered over an empty table and cut out where they differ from it. Tiles more than half under
        an arm lose their label, as the renderer's own visibility rule would do. The arm layer is redrawn every
        other frame (arms move at 15 fps, tiles change at 30): it halves the cost and the reader sees motion
        either way."""
        view = (fs.light, fs.camera_shift)
        cam = self.camera(fs)
        lying = [t for t in fs.tiles if t.z <= self.world.rack_height + 1]
        held = [t for t in fs.tiles if t.z > self.world.rack_height + 1]
        still_key = (tuple((t.code, t.face, round(t.x, 1), round(t.y, 1), round(t.angle_deg, 1), t.standing, t.z)
                           for t in lying), view)
        if still_key != self._still_key:
            img, labels = render(self._scene(lying, self.racks, [], fs.light), cam, None)
            self._paste_markers(img, cam, fs.light)
            self._still_key, self._still = still_key, (img, labels)
        img, labels = self._still
        if fs.arms or held:
            if view != self._empty_key:
                self._empty_key, self._empty = view, render(self._scene([], [], [], fs.light), cam, None)[0]
            if fs.index % 2 == 0 or self._arm_key != view or self._arm is None:
                top, top_labels = render(self._scene(held, [], fs.arms, fs.light), cam, None)
                mask = (cv2.absdiff(top, self._empty).max(axis=2) > 10).astype(np.uint8)
                self._arm, self._arm_key = (top, top_labels, mask), view
            top, top_labels, mask = self._arm    # odd frames reuse the arm layer: arms move at 15 fps
            img = np.where(mask[..., None] > 0, top, img)
            covered = cv2.integral(mask)
            labels = [lb for lb in labels if _covered(covered, lb.box) < 0.5] + top_labels
        else:
            self._arm = None
        if self.noise > 0:
            noisy = img.astype(np.float32) + self.rng.normal(0, self.noise, img.shape).astype(np.float32)
            img = np.clip(noisy, 0, 255).astype(np.uint8)
        return img, labels

    def _paste_markers(self, img: np.ndarray, cam: Camera, light: float) -> None:
        half = MARKER_MM / 2 + MARKER_QUIET
        for i, (cx, cy) in marker_centres().items():
            tex = self._markers[i]
            world = np.array([[cx - half, cy + half, 0], [cx + half, cy + half, 0], [cx + half, cy - half, 0],
                              [cx - half, cy - half, 0]], float)
            quad = cam.project(world).astype(np.float32)
            n = tex.shape[0]
            m = cv2.getPerspectiveTransform(np.float32([[0, 0], [n, 0], [n, n], [0, n]]), quad)
            h, w = img.shape[:2]
            warped = cv2.warpPerspective(tex, m, (w, h), flags=cv2.INTER_AREA, borderValue=0)
            mask = cv2.warpPerspective(np.full_like(tex, 255), m, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
            level = 0.9 * self.look.light.brightness * light
            a = mask.astype(np.float32)[..., None] / 255.0
            shade = np.clip(warped.astype(np.float32) * level, 0, 255)[..., None]
            img[:] = (img * (1 - a) + shade * a).astype(np.uint8)


def _covered(integral: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """Fraction of ``box`` whose pixels are set in the mask of the integral image ``integral``."""
    h, w = integral.shape[0] - 1, integral.shape[1] - 1
    x0, y0 = min(max(int(box[0]), 0), w), min(max(int(box[1]), 0), h)
    x1, y1 = min(max(int(np.ceil(box[2])), 0), w), min(max(int(np.ceil(box[3])), 0), h)
    area = (x1 - x0) * (y1 - y0)
    if area <= 0:
        return 0.0
    return float(integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]) / area


def true_homography(cam: Camera) -> np.ndarray:
    """Vision table mm -> image px (undistorted pinhole part) for ``cam``."""
    to_scene = np.array([[1.0, 0, -TABLE_MM / 2], [0, -1.0, TABLE_MM / 2], [0, 0, 1]])
    h = cam.homography() @ to_scene
    return h / h[2, 2]


def frames(world: World, renderer: Renderer) -> Iterator[tuple[FrameState, np.ndarray, list[Label]]]:
    """The frames that reach the reader (dropped ones are skipped), rendered."""
    for fs in world.play():
        if fs.dropped:
            continue
        img, labels = renderer.frame(fs)
        yield fs, img, labels


def write_recording(world: World, look: Look, out: Path, progress: bool = True) -> dict:
    """Render ``world`` to ``out``.mp4 with its truth, meta and boxes files; returns the meta dict."""
    out.parent.mkdir(parents=True, exist_ok=True)
    renderer = Renderer(world, look)
    cam = look.camera
    writer = cv2.VideoWriter(str(out.with_suffix(".mp4")), cv2.VideoWriter_fourcc(*"mp4v"), world.fps,
                             (cam.width, cam.height))
    if not writer.isOpened():
        raise OSError(f"{out.with_suffix('.mp4')}: cannot open an mp4v video writer")
    indices: list[int] = []
    boxes = BoxWriter()
    homographies: dict[int, list] = {}
    last_shift = None
    it = frames(world, renderer)
    if progress:
        from tqdm import tqdm

        it = tqdm(it, desc=out.name, unit="frame")
    for fs, img, labels in it:
        writer.write(img)
        indices.append(fs.index)
        boxes.add(labels)
        if fs.camera_shift != last_shift:
            homographies[fs.index] = true_homography(renderer.camera(fs)).tolist()
            last_shift = fs.camera_shift
    writer.release()
    meta = {
        "seed": world.seed, "fps": world.fps, "width": cam.width, "height": cam.height, "style": look.style_id,
        "table_mm": TABLE_MM, "marker_mm": MARKER_MM, "marker_inset_mm": MARKER_INSET,
        "homography": true_homography(cam).tolist(), "homography_from_frame": homographies,
        "frames": indices, "disturbances": world.disturbances, "moves": world.deal.moves,
        "source": world.deal.source,
    }
    out.with_suffix(".meta.json").write_text(json.dumps(meta) + "\n", encoding="utf-8")
    with out.with_suffix(".truth.jsonl").open("w", encoding="utf-8") as f:
        for ev in world.truth:
            f.write(json.dumps(ev, separators=(",", ":")) + "\n")
    boxes.save(out.with_suffix(".boxes.npz"))
    return meta


class BoxWriter:
    """The renderer's labels per frame, compactly: rows (x1, y1, x2, y2, kind) as int16 with kind = tile class
    index for a face-up tile and 36 for a face-down one, and per frame a [start, end) slice into the rows.
    A frame whose labels equal the previous frame's points at the same slice (most frames of a still table)."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, ...]] = []
        self.spans: list[tuple[int, int]] = []
        self._last: list[tuple[int, ...]] | None = None

    def add(self, labels: list[Label]) -> None:
        rows = [(round(lb.box[0]), round(lb.box[1]), round(lb.box[2]), round(lb.box[3]),
                 INDEX[lb.code] if lb.face == "up" and lb.code in INDEX else FACE_DOWN) for lb in labels]
        if rows != self._last:
            self.spans.append((len(self.rows), len(self.rows) + len(rows)))
            self.rows += rows
            self._last = rows
        else:
            self.spans.append(self.spans[-1])

    def save(self, path: Path) -> None:
        np.savez_compressed(path, rows=np.array(self.rows, np.int16).reshape(-1, 5),
                            spans=np.array(self.spans, np.int32).reshape(-1, 2))


__all__ = ["BoxWriter", "Look", "Renderer", "frames", "marker_centres", "to_vision_xy", "true_homography",
           "write_recording"]
