"""A still photo read twice, as it is and mirrored, each box scored by both readings: for a photo with time to
spare (``mahj detect`` on a photo, a rack photographed by its player), not for a camera frame, and not for a whole
table whose tiles have to be read again larger.

On tiles of a set it never learnt from, the detector's score for one tile moves a lot with small changes of the
picture: the same tile may score 0.34 as it is and 0.73 mirrored. Averaging the two readings' scores of a box (a
box the other reading does not have counts 0 there) keeps the tiles both readings see and drops what one of them
imagines. On the player's-eye rack photos of leomiura, a source no model here was trained on
(``bench/bench_hand.py``), boxes on no tile went from 139 to 105 with tiles read right 0.888 -> 0.895, and on
the Hong Kong racks from 20 to 15 with the same tiles right (docs/hand.md). Leaving one source out
(``bench/loso.py``), leomiura's precision went from 0.850 to 0.884 (models/README.md).

A whole table, whose tiles were measured small for the picture (``tile_sizes.small_tiles``), is read once:
mirrored too, the held-out whole tables lost found tiles (0.969 -> 0.965) at twice the time of the largest
readings. A photo whose tiles could not be measured (a few tiles) is read both ways: read once, leomiura's racks
lost 4 of their 580 tiles (0.922 -> 0.916).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import tile_sizes
from vision.boxes import iou_matrix
from vision.tile_detector import Reading, above, lowest, nms

#: Each reading keeps boxes down to this score, so that a box one reading scores just under the threshold still
#: lends its score to the other's (0.05, 0.1 and 0.2 read the same photos alike).
MIRROR_LOW = 0.1
#: Boxes of the two readings at this IoU or more are the same tile.
SAME_TILE_IOU = 0.5


def photo_boxes(model: tile_sizes.SizedDetector, image: np.ndarray,
                conf: tuple[float, float] | None = None) -> Reading:
    """The tiles' boxes in a still photo, read at the size that suits them (``tile_sizes.frame_boxes``) as it is
    and, unless it is a whole table read again larger, mirrored left to right too; a box's score is then the mean
    of its scores in both. Cut at ``conf`` (the thresholds for whole frames if None)."""
    low = lowest((MIRROR_LOW, MIRROR_LOW), conf)
    plain = tile_sizes.frame_boxes(model, image, low)
    if tile_sizes.small_tiles(plain, image.shape[:2]):
        return above(plain, conf or (model.up_conf, model.conf))
    boxes, cls, scores = tile_sizes.frame_boxes(model, cv2.flip(image, 1), low)
    boxes = boxes.copy()
    boxes[:, [0, 2]] = image.shape[1] - boxes[:, [2, 0]]
    mirrored = (boxes, cls, scores)
    both_scores = (_mean_scores(plain, mirrored), _mean_scores(mirrored, plain))
    all_boxes = np.concatenate([plain[0], mirrored[0]])
    all_scores = np.concatenate(both_scores).astype(np.float32)
    keep = nms(all_boxes, all_scores, SAME_TILE_IOU)
    merged = (all_boxes[keep], np.concatenate([plain[1], mirrored[1]])[keep], all_scores[keep])
    return above(merged, conf or (model.up_conf, model.conf))


def _mean_scores(one: Reading, other: Reading) -> np.ndarray:
    """Each box of ``one``: the mean of its score and that of its best match in ``other`` (0 where none)."""
    if not len(one[0]) or not len(other[0]):
        return one[2] / 2
    overlap = iou_matrix(one[0], other[0])
    best = overlap.argmax(axis=1)
    theirs = np.where(overlap[np.arange(len(best)), best] >= SAME_TILE_IOU, other[2][best], 0.0)
    return (one[2] + theirs) / 2
