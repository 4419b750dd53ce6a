"""Can this camera read tiles? Measures `mahj setup camera` checks a camera against, and their thresholds.

Why these measures: a tile is read when it is large enough in the picture, sharp, and neither lost in the dark
nor washed out by a lamp's reflection, and when frames come often enough to follow the hands. Each threshold
comes from reading real validation photos made smaller and blurrier (``bench/camera_thresholds.py``); the figures
are quoted where each constant is defined.
"""

from __future__ import annotations

import cv2
import numpy as np

from .tile_model import CLASSIFIER_SIZE, crop_square

# Thresholds: `python bench/camera_thresholds.py` on the 39 real validation photos (seen sets), each tile counted
# as read when found and named right. Figures in docs/setup.md.
#: Tiles narrower than this (short side, px) are read less than 95 % of the time (8-10 px: 0.931, 10-12: 0.978).
MIN_TILE_PX = 10.0
#: Tile crops less sharp than this (variance of the Laplacian at 48 px) are read less than 95 % of the time
#: (25-50: 0.939, 50-100: 0.958; the photos blurred by Gaussian sigma 1 to 3 px).
FOCUS_MIN = 50.0


def tile_focus(img: np.ndarray, box: tuple[float, float, float, float]) -> float:
    """Sharpness of one tile: variance of the Laplacian of its square crop at the classifier's 48 px, the size
    it is read at, so that a large blurred tile and a small sharp one compare as the classifier sees them."""
    crop = cv2.cvtColor(crop_square(img, box, CLASSIFIER_SIZE), cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(crop, cv2.CV_64F).var())


def tile_light(img: np.ndarray, box: tuple[float, float, float, float]) -> tuple[float, float]:
    """Exposure of one tile: the mean grey of its square crop (0-255), and the share of its pixels clipped white
    (250 and over), which a lamp's reflection or an over-exposed camera leaves where the face should be."""
    crop = cv2.cvtColor(crop_square(img, box, CLASSIFIER_SIZE), cv2.COLOR_BGR2GRAY)
    return float(crop.mean()), float((crop >= 250).mean())
