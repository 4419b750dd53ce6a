"""Read a still photo at the aspect ratio that suits it.

A camera frame has square pixels, but a photo that went through a data set's export or an app may not: a
square export stretches a phone photo 1.3-1.8x one way, and a screenshot of a row of tiles 7-14x (the held-out
haitaks photos have both). The detector knows tiles only at their own shape, so on a stretched photo it boxes
pips and characters, or nothing. ``read_photo`` reads the photo as it is and squeezed back by each of
PHOTO_STRETCHES along either side, and keeps the reading whose surest tiles are surest (``surety``).

Chosen on data no reported figure uses (models/README.md, "Photos out of shape"): the rendered close-up
validation photos, as they are, squeezed into squares and cut into strips stretched 2-14x into squares, and the
158 haitaks training photos. Judging a reading by the sum of its scores, as ``frame_boxes`` judges its two
sizes, fails here: a stretched photo read as it is gives many unsure boxes, which add up.

Only ``mahj detect --stretched`` reads this way: every other image (camera frames, phone photos, enrolment) has
square pixels and goes through ``TileModel.detect`` once. Searching the aspect of ordinary photos misread 12 of 17
of them (issue 29), and this reads a photo up to 17 times.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.tile_model import Detection, TileModel, check_image

#: How much one side of a photo may have been stretched: 2 ** (k / 2) for k = 1..8 (1.41 .. 16).
PHOTO_STRETCHES: tuple[float, ...] = tuple(2 ** (k / 2) for k in range(1, 9))
#: A reading is judged by the mean score of its surest SURETY_TILES tiles (fewer if it found fewer).
SURETY_TILES = 10
#: A squeezed side shorter than this is not read: nothing tile-sized is left in it.
MIN_SIDE_PX = 24


@dataclass(frozen=True)
class PhotoReading:
    """A photo as ``read_photo`` read it: ``detections`` in the photo's own pixels; ``scale`` (x, y) is how the
    photo was resized to be read ((1, 1): as it is), and ``image`` the photo so resized, whose tiles have their
    own shape (crops of a tile are cut from it)."""

    image: np.ndarray
    detections: list[Detection]
    scale: tuple[float, float]

    def in_image(self, det: Detection) -> tuple[float, float, float, float]:
        """``det``'s box in ``image``'s pixels."""
        sx, sy = self.scale
        x1, y1, x2, y2 = det.box
        return x1 * sx, y1 * sy, x2 * sx, y2 * sy


def surety(scores: np.ndarray, tiles: int = SURETY_TILES) -> float:
    """Mean score of a reading's ``tiles`` surest boxes; 0 for fewer than two (one sure box is no photo)."""
    if len(scores) < 2:
        return 0.0
    return float(np.sort(scores)[::-1][:tiles].mean())


def photo_scales(width: int, height: int) -> list[tuple[float, float]]:
    """(x, y) resize factors a photo is read at: as it is first, then each side squeezed by each stretch."""
    out = [(1.0, 1.0)]
    for f in PHOTO_STRETCHES:
        if width / f >= MIN_SIDE_PX:
            out.append((1 / f, 1.0))
        if height / f >= MIN_SIDE_PX:
            out.append((1.0, 1 / f))
    return out


def resized(photo_bgr: np.ndarray, sx: float, sy: float) -> np.ndarray:
    """The photo resized by (sx, sy), at least a pixel each way; the photo itself at (1, 1)."""
    if (sx, sy) == (1.0, 1.0):
        return photo_bgr
    h, w = photo_bgr.shape[:2]
    return cv2.resize(photo_bgr, (max(1, round(w * sx)), max(1, round(h * sy))), interpolation=cv2.INTER_AREA)


def read_photo(model: TileModel, photo_bgr: np.ndarray) -> PhotoReading:
    """Every tile in a still photo, read at the aspect ratio whose reading is surest (the photo's own on a tie).

    Each aspect is read as ``TileModel.detect`` reads any image (``frame_boxes``); only the kept reading's
    face-up tiles go to the classifier, cut from the photo resized to that aspect."""
    check_image(photo_bgr)
    h, w = photo_bgr.shape[:2]
    best = None
    for sx, sy in photo_scales(w, h):
        img = resized(photo_bgr, sx, sy)
        boxes, cls, scores = model.frame_boxes(img)
        s = surety(scores)
        if best is None or s > best[0]:
            best = s, img, boxes, cls, scores, (img.shape[1] / w, img.shape[0] / h)
    _, img, boxes, cls, scores, (sx, sy) = best
    dets = [replace(d, box=(d.box[0] / sx, d.box[1] / sy, d.box[2] / sx, d.box[3] / sy))
            for d in model.read_faces(img, boxes, cls, scores, up_conf=model.up_conf)]
    return PhotoReading(img, dets, (sx, sy))
