"""At which size to read an image so that its tiles come out the size the detector reads best: a whole table
in one frame is read again larger, a close-up (or a picture where nothing was found) again zoomed out."""

from __future__ import annotations

from typing import Protocol

import cv2
import numpy as np

from vision.tile_detector import DETECTOR_SIDE, DOWNSCALE, Reading, above, lowest, median_side

#: Scale of the top-down crops the detector is trained on (datasets/synth/topdown.py) besides whole camera
#: frames, and of the set-up sheet's view: a 23 x 31 mm tile is about 23 x 31 px. The table reader reads real
#: tables larger (vision.region_reading.READER_PX_PER_MM).
TOPDOWN_PX_PER_MM = 1.0
#: The short side of a tile in the top-down view.
TYPICAL_TILE_PX = 23.0 * TOPDOWN_PX_PER_MM
#: Below SMALL_TILE_PX median short side (detector input px) a frame's tiles are read again larger, aiming at
#: SMALL_TILE_AIM_PX (never past the frame's own resolution): the detector finds and fits tiles better there.
#: Chosen among 16 pairs on the synthetic validation frames, where tiles are 16-28 px at 512: with (14, 23)
#: mAP50 / mAP50-95 averaged over both faces was 0.868 / 0.494, with (22, 26) 0.925 / 0.597. Aiming at 30 gained
#: 0.004 / 0.010 more but cost 12 ms on a 60-tile 720p frame (70 ms a frame, over the 60 ms budget).
SMALL_TILE_PX = 22.0
SMALL_TILE_AIM_PX = 26.0
#: Above this median short side (detector input px) the tiles may be larger than the detector reads best (a
#: close-up photo), where it may box pips and characters: the frame is then also read zoomed out to each of
#: LARGE_ZOOMS of that size and the reading with the larger sum of scores kept, with the close-up thresholds
#: (tuned on rendered close-ups). 1.25 and 0.6 were chosen on the rendered close-ups' validation split among
#: 3 x 3 pairs; 0.33, on real close-ups, reaches tiles that fill most of the picture (models/README.md).
LARGE_TILE_PX = 1.25 * TYPICAL_TILE_PX
LARGE_ZOOMS = (0.6, 0.33)
#: The tiles' size is judged from the boxes of a reading at SIZE_CONF or more (either face), and only from
#: MIN_SIZE_TILES of them or more: a whole table read at 512 px shows a few large near tiles among many it cannot
#: see yet, and the median of those few took a 74-tile table for a close-up (issue 41).
SIZE_CONF = 0.5
MIN_SIZE_TILES = 8
#: An image larger than this on its long side is first read at this size, not at DETECTOR_SIDE. Its tiles are
#: then read again at SMALL_TILE_AIM_PX even where this reading found most of them: taking it as the answer for
#: tiles of 14 px or more there was 3-4 x faster on 1080p frames (152 of the recording's 153 face-up tiles
#: found), but on the held-out whole-table mosaics it found 0.941 against 0.962 (haitaks 0.793 against 0.941).
FIRST_SIDE_PX = 1024
#: An image where too few tiles were found to judge their size is read again at its own resolution, up to
#: this long side, before it is taken for a close-up of one large tile.
UNKNOWN_SIDE_PX = 2048
#: An image read larger than this on its long side is read in overlapping slices (TileDetector.slice_boxes),
#: which keeps a 12 MP photo's memory to that of a few slices. Up to it, one whole reading: a 1080p frame read
#: at 26 px tiles (1790 x 1007) costs half the pixels of the six 768 px slices that cover it.
WHOLE_MAX_PX = 2048
SLICE_PX = 768
SLICE_OVERLAP_PX = 128
#: A large image's second, larger reading covers only the part of it where the first reading found anything,
#: down to this score (either face), with REGION_MARGIN_TILES tiles around it: an overhead camera sees the floor
#: around the table, where no tile lies, and on the recording's 1080p frames the tiles' part is under half the
#: frame. The first reading is made down to this score for that, and cut at the usual thresholds after.
REGION_CONF = 0.05
REGION_MARGIN_TILES = 2.0


class SizedDetector(Protocol):
    """What the size choice needs of a tile model: one-size readings, slices, and its thresholds."""

    fixed: tuple[int, int] | None
    up_conf: float
    conf: float
    closeup_conf: tuple[float, float]

    def boxes(self, frame: np.ndarray, native: bool = False, conf: tuple[float, float] | None = None,
              window: tuple[int, int, int, int] | None = None) -> Reading: ...

    def slice_boxes(self, image: np.ndarray, conf: tuple[float, float]) -> Reading: ...

    def input_shape(self, h: int, w: int, native: bool = False) -> tuple[int, int]: ...


def tile_side(reading: Reading) -> float | None:
    """The median short side of a reading's tiles (px of the image it read) among its boxes at SIZE_CONF or
    more, or None where fewer than MIN_SIZE_TILES reach it: too few to say how large the tiles are."""
    boxes, _cls, scores = reading
    sure = boxes[scores >= SIZE_CONF]
    return median_side(sure) if len(sure) >= MIN_SIZE_TILES else None


def small_tiles(reading: Reading, shape: tuple[int, int]) -> bool:
    """Whether the tiles ``reading`` boxed in an h x w image (in its pixels) were measured (``tile_side``) and are
    under SMALL_TILE_PX at DETECTOR_SIDE: a whole table, which ``frame_boxes`` reads again larger."""
    side = tile_side(reading)
    return side is not None and side * DETECTOR_SIDE / max(shape) < SMALL_TILE_PX


def frame_boxes(model: SizedDetector, frame_bgr: np.ndarray, conf: tuple[float, float] | None = None) -> Reading:
    """The tiles' boxes in an image (a camera frame or a photo, square pixels), read at the size that suits
    them, down to ``conf`` (the thresholds for whole frames, or for close-ups, if None).

    A small pyramid, chosen by what the first reading finds (``tile_side``). The first reading is at
    DETECTOR_SIDE, or at FIRST_SIDE_PX for a larger image: at 512 px a whole table photographed at full
    resolution shows 5-12 px tiles, which the detector boxes in groups, surely, as if they were tiles of the
    usual size. Tiles smaller than SMALL_TILE_PX at 512 are read again larger, aiming at SMALL_TILE_AIM_PX,
    up to the image's own resolution
    (``_larger``); tiles larger than LARGE_TILE_PX (a close-up, where the detector may box pips) are also read
    zoomed out (``_closer``) and the surest reading kept. Where too few tiles were found to judge their size,
    a large image is read at its own resolution (up to UNKNOWN_SIDE_PX) before it is taken for a close-up of one
    tile filling the picture. Each reading is made once, down to the
    lower of ``conf`` and the thresholds that choose the size."""
    usual = (model.up_conf, model.conf)
    low = lowest(usual, conf)
    sizing = lowest(low, (SIZE_CONF, SIZE_CONF))
    h, w = frame_bgr.shape[:2]
    first_scale = min(1.0, FIRST_SIDE_PX / max(h, w))
    big = max(h, w) > FIRST_SIDE_PX and not model.fixed
    if big:
        first = _larger(model, frame_bgr, first_scale, lowest(sizing, (REGION_CONF, REGION_CONF)))
    else:
        first = model.boxes(frame_bgr, conf=sizing)
    if model.fixed:
        return above(first, conf or usual)
    r = DETECTOR_SIDE / max(h, w)
    side = tile_side(first)
    if side is not None and side * r > LARGE_TILE_PX:
        return _closer(model, frame_bgr, first, r, conf)
    if side is not None and (side * r >= SMALL_TILE_PX or r >= 1):
        return above(first, conf or usual)
    if side is None:
        scale = min(1.0, UNKNOWN_SIDE_PX / max(h, w))
        if not big or scale <= first_scale:
            return _closer(model, frame_bgr, first, r, conf)
        larger = _larger(model, frame_bgr, scale, sizing)
        if tile_side(larger) is None:
            return _closer(model, frame_bgr, first, r, conf)
        return above(larger, conf or usual)
    scale = min(1.0, SMALL_TILE_AIM_PX / max(side, 1.0))
    if big and scale <= first_scale:
        return above(first, conf or usual)
    region = tiles_region(first, side, h, w) if big else None
    return above(_larger(model, frame_bgr, scale, low, region), conf or usual)


def tiles_region(first: Reading, side: float, h: int, w: int) -> tuple[int, int, int, int]:
    """The part (x0, y0, x1, y1) of an h x w image to read again larger: every box of the first reading at
    REGION_CONF or more, REGION_MARGIN_TILES tiles of ``side`` px around them; the whole image where it found
    none."""
    boxes = first[0][first[2] >= REGION_CONF]
    if not len(boxes):
        return 0, 0, w, h
    pad = REGION_MARGIN_TILES * side
    x0, y0 = np.floor(boxes[:, :2].min(axis=0) - pad)
    x1, y1 = np.ceil(boxes[:, 2:].max(axis=0) + pad)
    return max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1))


def _larger(model: SizedDetector, frame_bgr: np.ndarray, scale: float, conf: tuple[float, float],
            region: tuple[int, int, int, int] | None = None) -> Reading:
    """The image read at ``scale`` of its own size (<= 1), whole up to WHOLE_MAX_PX on the long side (only
    ``region`` of it, image px, where given), in slices beyond; boxes in the image's pixels."""
    h, w = frame_bgr.shape[:2]
    img = cv2.resize(frame_bgr, None, fx=scale, fy=scale, interpolation=DOWNSCALE) if scale != 1 else frame_bgr
    if max(img.shape[:2]) <= WHOLE_MAX_PX:
        f = img.shape[1] / w
        window = None if region is None else (round(region[0] * f), round(region[1] * f),
                                               round(region[2] * f), round(region[3] * f))
        boxes, cls, scores = model.boxes(img, native=True, conf=conf, window=window)
    else:
        boxes, cls, scores = model.slice_boxes(img, conf)
    return boxes * (w / img.shape[1]), cls, scores


def _closer(model: SizedDetector, frame_bgr: np.ndarray, first: Reading, r: float,
            conf: tuple[float, float] | None) -> Reading:
    """A close-up read again zoomed out (``_zoomed_out``) at each of LARGE_ZOOMS; the reading with the larger
    sum of scores above the close-up thresholds is kept, and cut at the image's usual thresholds: one face-up
    threshold for every picture, chosen with one source left out at a time (bench/loso.py). Each reading is made
    down to the lowest of those thresholds and ``conf``: a box scored between the usual threshold and the
    close-up one is kept (read only down to the close-up one, 0.625, the rack photos of a set never trained on
    lost 4 % of their tiles; docs/hand.md)."""
    usual = (model.up_conf, model.conf)
    low = lowest(lowest(model.closeup_conf, usual), conf)
    readings = [first if model.closeup_conf == usual else model.boxes(frame_bgr, conf=low)]
    fill = frame_bgr[::8, ::8].reshape(-1, 3).mean(axis=0)
    readings += [_zoomed_out(model, frame_bgr, r, zoom, low, fill) for zoom in LARGE_ZOOMS]
    surest = max(readings, key=lambda rd: float(above(rd, model.closeup_conf)[2].sum()))
    return above(surest, conf or usual)


def _zoomed_out(model: SizedDetector, frame_bgr: np.ndarray, r: float, zoom: float, conf: tuple[float, float],
                fill: np.ndarray) -> Reading:
    """The frame shrunk by ``zoom`` in the middle of a canvas of the first reading's size, filled with
    ``fill`` (the frame's mean colour), read there, and the boxes mapped back onto the frame. A tile that
    fills most of the frame is seen as a tile only with some table around it: read shrunk to a small image
    of its own, a tile filling half the side was found 15 % of the time on real close-ups, with the canvas
    around it 93 % (models/README.md, "A tile that fills the picture")."""
    h, w = frame_bgr.shape[:2]
    big_h, big_w = model.input_shape(h, w)
    small = cv2.resize(frame_bgr, (max(1, round(w * r * zoom)), max(1, round(h * r * zoom))),
                       interpolation=DOWNSCALE)
    canvas = np.empty((big_h, big_w, 3), np.uint8)
    canvas[:] = fill
    y0, x0 = (big_h - small.shape[0]) // 2, (big_w - small.shape[1]) // 2
    canvas[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    boxes, cls, scores = model.boxes(canvas, native=True, conf=conf)
    boxes = (boxes - np.array([x0, y0, x0, y0], boxes.dtype)) * (w / small.shape[1])
    inside = (boxes[:, 2] > 0) & (boxes[:, 3] > 0) & (boxes[:, 0] < w) & (boxes[:, 1] < h)
    return np.clip(boxes[inside], 0, [w, h, w, h]), cls[inside], scores[inside]
