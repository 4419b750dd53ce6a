"""Crops of tiles printed as another maker would print them: a training augmentation for the crop classifier.

Torch-free, so that its test runs where training does not.
"""

from __future__ import annotations

import cv2
import numpy as np

#: How far (CIE Lab distance, 8-bit units) a pixel lies from the tile body's colour to count as ink.
INK_DISTANCE = 28


def restyle(im: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same tile as another maker would print it: its ink in other colours (one colour, or the hues turned),
    its strokes thinner or bolder, or no colour at all. Sets differ in exactly these ways (red or black numerals,
    blue or green sticks, thin or heavy brush), and the real training photos show only a few sets, so without
    this a set never seen reads its kinds by colour (issue 29: unseen sets' 3C read as 5C, 1D as S)."""
    lab = cv2.cvtColor(im, cv2.COLOR_BGR2LAB).astype(np.float32)
    s = im.shape[0]
    body = np.median(lab[s // 4:3 * s // 4, s // 4:3 * s // 4].reshape(-1, 3), axis=0)
    ink = (np.linalg.norm(lab - body, axis=2) > INK_DISTANCE)[..., None]
    choice = rng.random()
    if choice < 0.4:                                    # the ink's hues turned
        hsv = cv2.cvtColor(im, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0].astype(np.int32) + int(rng.integers(20, 160))) % 180
        im = np.where(ink, cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), im)
    elif choice < 0.65:                                 # all ink in one colour
        colour = rng.integers(0, 200, 3).astype(np.float32)
        dark = np.clip(1.0 - lab[..., :1] / 255.0, 0.3, 1.0)
        im = np.where(ink, (im * (1 - dark) + colour * dark).astype(np.uint8), im)
    elif choice < 0.85:                                 # thinner or bolder strokes
        kernel = np.ones((2, 2), np.uint8)
        im = cv2.erode(im, kernel) if rng.random() < 0.5 else cv2.dilate(im, kernel)
    else:                                               # no colour
        im = cv2.cvtColor(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return im


def warp_strokes(im: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same tile drawn by another hand: the crop bent by a smooth random field, a few pixels at most, so a
    stroke keeps its place and count but not its exact curve. Brushed numerals differ from set to set in just
    this way (a set never trained on writes its 三 with hooked strokes, and was read as 5 Crak: models/README.md)."""
    s = im.shape[0]
    sigma = rng.uniform(0.06, 0.12) * s
    reach = rng.uniform(0.02, 0.06) * s
    grid = np.mgrid[0:s, 0:s].astype(np.float32)
    maps = []
    for axis in (1, 0):                                   # x, then y
        field = cv2.GaussianBlur(rng.standard_normal((s, s)).astype(np.float32), (0, 0), sigma)
        field *= reach / max(float(np.abs(field).max()), 1e-6)
        maps.append(grid[axis] + field)
    return cv2.remap(im, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
