"""A synthetic table for the reader's tests: a straight-down camera, tiles drawn where a detector reports them."""

import cv2
import numpy as np

from vision.calibration import TableLayout, calibrate_from_points
from vision.reader import TableReader


def plain_calibration():
    """A camera looking straight down: 1 px per 1.5 mm, table at (50, 20)."""
    pts = {i: (50 + x / 1.5, 20 + y / 1.5) for i, (x, y) in TableLayout().marker_centers().items()}
    return calibrate_from_points(pts, (700, 640))


class Boxes:
    """A detector that reports a fixed list of (x, y, face, tile) table-mm tiles for every frame, each at score
    1 but those ``scores`` names by (x, y)."""

    reader_conf = (0.35, 0.35)

    def __init__(self, cal, tiles):
        self.cal, self.tiles, self.scores = cal, tiles, {}

    def detect(self, crop):
        raise AssertionError("use detect_at")

    def detect_at(self, _idx, rect):
        from vision.oracle import OracleDetection

        out = []
        for x, y, face, tile in self.tiles:
            (u, v), = self.cal.to_image(np.array([[x, y]]))
            if rect[0] <= u < rect[2] and rect[1] <= v < rect[3]:
                out.append(OracleDetection((u - 7 - rect[0], v - 10 - rect[1], u + 7 - rect[0], v + 10 - rect[1]),
                                           face, tile, self.scores.get((x, y), 1.0)))
        return out


def table_image(cal, tiles, arm=None, level=120):
    img = np.full((640, 700, 3), level, np.uint8)
    for x, y, face, _tile in tiles:
        (u, v), = cal.to_image(np.array([[x, y]]))
        cv2.rectangle(img, (int(u - 7), int(v - 10)), (int(u + 7), int(v + 10)),
                      (240, 240, 240) if face == "up" else (60, 60, 200), -1)
    if arm is not None:
        cv2.line(img, arm[0], arm[1], (90, 140, 200), 40)
    return img


class Table:
    """East's corner of a table, drawn frame by frame with noise, read by a model that sees every tile but the
    standing ones (a far rack whose standing tiles show the model a few pixels of edge)."""

    RACK = [(450 + k * 24 - 150, 880, "down", None) for k in range(14)]      # East's standing tiles
    WALL = [(450 + u, 773, "down", None) for u in range(-84, 85, 24)]          # East's wall
    ARM = ((350, 640), (360, 500))                                             # from East's edge over her rack

    def __init__(self, seed: int) -> None:
        self.cal = plain_calibration()
        self.cal.bands_fitted = True
        self.det = Boxes(self.cal, [])
        self.reader = TableReader(self.cal, self.det)
        self.rng = np.random.default_rng(seed)
        self.frame = 0
        self.events: list = []

    def show(self, tiles, frames, arm=None) -> None:
        self.det.tiles = [t for t in tiles if t not in self.RACK]
        for _ in range(frames):
            img = table_image(self.cal, tiles, arm=arm)
            noisy = np.clip(img + self.rng.normal(0, 1.0, img.shape), 0, 255).astype(np.uint8)
            self.events += self.reader.process(noisy, self.frame, self.frame / 30)
            self.frame += 1

    def moves(self) -> list[tuple[str, int]]:
        return [(e.type, e.seat) for e in self.events]


class ViewModel:
    """A tile model that keeps the top-down views the reader gives it and reports the ``tiles`` (x, y, face, tile
    in table mm, seen by the camera of ``cal``) that lie inside each view, but those in ``blind``: none unless
    told."""

    def __init__(self, cal=None, tiles=()):
        self.cal, self.tiles, self.blind, self.views = cal, list(tiles), set(), []

    reader_conf = (0.35, 0.35)

    def detect_view(self, view, frame, view_to_frame, conf=None):
        from vision.oracle import OracleDetection

        self.views.append((view, view_to_frame))
        to_view = np.linalg.inv(view_to_frame)
        out = []
        for x, y, face, tile in self.tiles:
            if (x, y) in self.blind:
                continue
            (u, v), = self.cal.to_image(np.array([[x, y]]))
            vx, vy = cv2.perspectiveTransform(np.float64([[[u, v]]]), to_view)[0, 0]
            if 0 <= vx < view.shape[1] and 0 <= vy < view.shape[0]:
                out.append(OracleDetection((u - 7, v - 10, u + 7, v + 10), face, tile))
        return out
