"""vision.mirror_reading: a still photo read as it is and mirrored, each box scored by both readings, unless it is
a whole table whose tiles are small for the picture."""

from __future__ import annotations

import numpy as np

from vision.mirror_reading import photo_boxes

#: (box in the picture's own pixels, score as it is, score mirrored; None: that reading has no box there)
TILES = [((10.0, 10.0, 40.0, 50.0), 0.40, 0.60),   # weak as it is, sure mirrored: kept at 0.50
         ((60.0, 10.0, 90.0, 50.0), 0.80, None),   # one reading alone imagines it: 0.40, dropped
         ((110.0, 10.0, 140.0, 50.0), 0.90, 0.85),  # sure in both: kept once, at 0.875
         ((160.0, 10.0, 190.0, 50.0), 0.30, 0.30)]  # weak in both: dropped
#: A row of tiles sure in both readings, so that the photo's tiles can be measured (tile_sizes.MIN_SIZE_TILES).
ROW = [((10.0 + 45 * k, 70.0, 40.0 + 45 * k, 110.0), 0.95, 0.95) for k in range(8)]
WIDTH = 400


class ScriptedDetector:
    """Reads the picture as its tiles say, telling the mirrored picture by a marker pixel at its left edge; as a
    model of fixed input size, ``tile_sizes.frame_boxes`` takes its one reading as the answer. ``scale`` shrinks
    every tile's box about the picture's corner: small tiles, as in a whole table."""

    up_conf, conf = 0.45, 0.3
    closeup_conf = (0.6, 0.4)

    def __init__(self, scale: float = 1.0, row: bool = True) -> None:
        self.scale = scale
        self.tiles = TILES + (ROW if row else [])
        self.fixed = (128, WIDTH)
        self.asked: list[tuple[float, float]] = []

    def boxes(self, frame: np.ndarray, native: bool = False, conf: tuple[float, float] | None = None):
        self.asked.append(conf)
        mirrored = frame[0, 0, 0] == 0
        rows = []
        for (x1, y1, x2, y2), plain, flipped in self.tiles:
            x1, y1, x2, y2 = (v * self.scale for v in (x1, y1, x2, y2))
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
    image = np.full((128, WIDTH, 3), 128, np.uint8)
    image[:, -1] = 0     # mirrored, this column comes first: how ScriptedDetector tells the two readings apart
    return image


def scored(reading: tuple[np.ndarray, np.ndarray, np.ndarray], scale: float = 1.0
           ) -> list[tuple[tuple[int, ...], float]]:
    """The boxes of TILES (not of the ROW) with their scores, left to right."""
    boxes, _cls, scores = reading
    return sorted((tuple(round(float(v)) for v in b), round(float(s), 3))
                  for b, s in zip(boxes, scores, strict=True) if b[1] < 60 * scale)


def test_a_box_is_kept_by_the_mean_of_its_scores_in_both_readings_in_the_pictures_own_pixels():
    model = ScriptedDetector()
    boxes, cls, scores = photo_boxes(model, picture())
    assert scored((boxes, cls, scores)) == [((10, 10, 40, 50), 0.5), ((110, 10, 140, 50), 0.875)]
    assert len(boxes) == 2 + len(ROW) and not cls.any()
    assert len(model.asked) == 2 and all(c[0] <= 0.1 for c in model.asked)   # each reading kept its weak boxes


def test_lower_thresholds_asked_for_are_kept():
    """``conf`` below the whole-frame thresholds (an evaluation ranking every box) keeps the weaker boxes too."""
    reading = photo_boxes(ScriptedDetector(), picture(), conf=(0.25, 0.25))
    assert [s for _b, s in scored(reading)] == [0.5, 0.4, 0.875, 0.3]


def test_a_whole_table_of_small_tiles_is_read_once_as_it_is():
    """Tiles under tile_sizes.SMALL_TILE_PX at the detector's side: a whole table, read once, boxes as they are."""
    model = ScriptedDetector(scale=0.25)        # 30 x 40 px tiles become 7.5 x 10 in a 400 px picture
    reading = photo_boxes(model, picture())
    assert len(model.asked) == 1
    assert [s for _b, s in scored(reading, 0.25)] == [0.8, 0.9]   # the plain reading's own scores, cut at 0.45


def test_a_photo_of_too_few_tiles_to_measure_is_read_both_ways():
    """Too few sure tiles to tell their size (tile_sizes.MIN_SIZE_TILES), small or not: read mirrored too."""
    model = ScriptedDetector(scale=0.25, row=False)
    reading = photo_boxes(model, picture())
    assert len(model.asked) == 2
    assert [s for _b, s in scored(reading, 0.25)] == [0.5, 0.875]
