"""vision.mirror_reading: a still photo read as it is and mirrored, each box scored by both readings."""

from __future__ import annotations

import numpy as np

from vision.mirror_reading import mirrored_boxes

#: (box in the picture's own pixels, score as it is, score mirrored; None: that reading has no box there)
TILES = [((10.0, 10.0, 40.0, 50.0), 0.40, 0.60),   # weak as it is, sure mirrored: kept at 0.50
         ((60.0, 10.0, 90.0, 50.0), 0.80, None),   # one reading alone imagines it: 0.40, dropped
         ((110.0, 10.0, 140.0, 50.0), 0.90, 0.85),  # sure in both: kept once, at 0.875
         ((160.0, 10.0, 190.0, 50.0), 0.30, 0.30)]  # weak in both: dropped
WIDTH = 200


class ScriptedDetector:
    """Reads the picture as TILES say, telling the mirrored picture by a marker pixel at its left edge; as a
    model of fixed input size, ``tile_sizes.frame_boxes`` takes its one reading as the answer."""

    fixed = (64, WIDTH)
    up_conf, conf = 0.45, 0.3
    closeup_conf = (0.6, 0.4)

    def __init__(self) -> None:
        self.asked: list[tuple[float, float]] = []

    def boxes(self, frame: np.ndarray, native: bool = False, conf: tuple[float, float] | None = None):
        self.asked.append(conf)
        mirrored = frame[0, 0, 0] == 0
        rows = []
        for (x1, y1, x2, y2), plain, flipped in TILES:
            score = flipped if mirrored else plain
            if score is not None:
                rows.append(((WIDTH - x2, y1, WIDTH - x1, y2) if mirrored else (x1, y1, x2, y2), score))
        boxes = np.array([b for b, _ in rows], np.float32)
        scores = np.array([s for _, s in rows], np.float32)
        keep = scores >= conf[0]
        return boxes[keep], np.zeros(int(keep.sum()), int), scores[keep]

    def slice_boxes(self, image, conf):  # noqa: ANN001, ANN201 - never called for a fixed-size model
        raise AssertionError("a fixed-size model is not read in slices")

    def input_shape(self, h: int, w: int, native: bool = False) -> tuple[int, int]:
        return h, w


def picture() -> np.ndarray:
    image = np.full((64, WIDTH, 3), 128, np.uint8)
    image[:, -1] = 0     # mirrored, this column comes first: how ScriptedDetector tells the two readings apart
    return image


def test_a_box_is_kept_by_the_mean_of_its_scores_in_both_readings_in_the_pictures_own_pixels():
    model = ScriptedDetector()
    boxes, cls, scores = mirrored_boxes(model, picture())
    got = sorted((tuple(round(float(v)) for v in b), round(float(s), 3)) for b, s in zip(boxes, scores, strict=True))
    assert got == [((10, 10, 40, 50), 0.5), ((110, 10, 140, 50), 0.875)]
    assert list(cls) == [0, 0]
    assert len(model.asked) == 2 and all(c[0] <= 0.1 for c in model.asked)   # each reading kept its weak boxes


def test_lower_thresholds_asked_for_are_kept():
    """``conf`` below the whole-frame thresholds (an evaluation ranking every box) keeps the weaker boxes too."""
    boxes, _cls, scores = mirrored_boxes(ScriptedDetector(), picture(), conf=(0.25, 0.25))
    assert sorted(round(float(s), 3) for s in scores) == [0.3, 0.4, 0.5, 0.875]
    assert len(boxes) == 4
