"""The tile detector at one size: where the tiles in an image are and which face they show, with the boxes
above given score thresholds. Which size to read an image at is vision.tile_sizes' question."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.onnx_session import open_session

#: Long side of the detector's input: a 1280x720 frame is read at 512x288.
DETECTOR_SIDE = 512
FACES = ("up", "down")
#: A reading of a frame: boxes x1, y1, x2, y2 in frame px (N, 4), face class ids (N,), scores (N,).
Reading = tuple[np.ndarray, np.ndarray, np.ndarray]
_PAD_VALUE = 114  # the letterbox grey the detector was trained with
#: The detector's input sides are multiples of its coarsest stride.
STRIDE = 32
#: How a frame is scaled to the detector's input: bilinear, as ultralytics scaled the training images. Area
#: averaging cost 7 ms of a 1280x720 frame's two readings against 1 ms, for the same validation mAP.
DOWNSCALE = cv2.INTER_LINEAR
#: At most this many boxes in one reading (or one slice). A table shows up to about 150 tiles, but a photo of
#: several tables, or a read at full resolution, more: with 300, nine fixture photos side by side (360 tiles)
#: read whole lost 60 of them.
MAX_BOXES = 1000
#: A box within this many px of a slice edge shared with a neighbouring slice is the neighbour's to report.
_EDGE_PX = 3


class TileDetector:
    """One ONNX detector, with one pair of input buffers that every input size reads through."""

    def __init__(self, path: Path, threads: int = 2, iou: float = 0.5) -> None:
        self.session = open_session(path, threads)
        inp = self.session.get_inputs()[0]
        self._name = inp.name
        # A fixed-shape detector gets every frame letterboxed into its shape; a dynamic one gets the frame's own
        # aspect (long side DETECTOR_SIDE, short side rounded up to 32), so 4:3 and square photos lose nothing.
        self.fixed = (int(inp.shape[2]), int(inp.shape[3])) if isinstance(inp.shape[2], int) else None
        self._letterbox, self._input = np.empty(0, np.uint8), np.empty(0, np.float32)
        self.iou = iou

    def input_shape(self, h: int, w: int, native: bool = False) -> tuple[int, int]:
        """Detector input (height, width) for an h x w frame: scaled to DETECTOR_SIDE on the long side, or at its
        own scale (``native``, for top-down views already at TOPDOWN_PX_PER_MM), rounded up to the stride."""
        if self.fixed:
            return self.fixed
        r = 1.0 if native else DETECTOR_SIDE / max(h, w)
        return (-(-round(h * r) // STRIDE) * STRIDE, -(-round(w * r) // STRIDE) * STRIDE)

    def _buffers_for(self, ih: int, iw: int) -> tuple[np.ndarray, np.ndarray]:
        """The letterbox (ih x iw x 3) and the flat buffer the detector's input is written into, both views of one
        pair of flat buffers grown to the largest size read so far. The table reader reads views of many sizes (20
        in the demo recording, 134 MB as a pair each) and a batch of photos any number: one pair allocates nothing
        per frame and holds the memory of one size."""
        n = ih * iw * 3
        if self._letterbox.size < n:
            self._letterbox, self._input = np.empty(n, np.uint8), np.empty(n, np.float32)
        return self._letterbox[:n].reshape(ih, iw, 3), self._input

    def _prepare(self, frame: np.ndarray, native: bool = False, window: tuple[int, int, int, int] | None = None
                 ) -> tuple[np.ndarray, float, float, float, int, int]:
        """The frame letterboxed into the detector's input, and of it only ``window`` (frame px) widened to the
        stride's grid, as the network's input; with the letterbox's scale and offset and the window's origin
        (input px)."""
        h, w = frame.shape[:2]
        ih, iw = self.input_shape(h, w, native)
        lb, flat = self._buffers_for(ih, iw)
        r = min(iw / w, ih / h)
        nw, nh = round(w * r), round(h * r)
        px, py = (iw - nw) / 2, (ih - nh) / 2
        lb[:] = _PAD_VALUE
        x0, y0 = int(round(px - 0.1)), int(round(py - 0.1))
        # A top-down view is only ever enlarged by a few % to fill the stride, as its thresholds were tuned.
        lb[y0:y0 + nh, x0:x0 + nw] = frame if (nw, nh) == (w, h) else cv2.resize(
            frame, (nw, nh), interpolation=DOWNSCALE if r < 1 else cv2.INTER_AREA)
        wx, wy, ex, ey = 0, 0, iw, ih
        if window is not None:
            wx, wy = (max(0, int((v * r + o) // STRIDE) * STRIDE) for v, o in ((window[0], x0), (window[1], y0)))
            ex, ey = (min(n, -(-int(v * r + o) // STRIDE) * STRIDE) for v, o, n in ((window[2], x0, iw),
                                                                                     (window[3], y0, ih)))
        buf = flat[:(ey - wy) * (ex - wx) * 3].reshape(1, 3, ey - wy, ex - wx)
        # HWC BGR uint8 -> NCHW RGB float 0..1 (ultralytics trains on RGB)
        np.multiply(lb[wy:ey, wx:ex, ::-1].transpose(2, 0, 1), 1 / 255.0, out=buf[0], casting="unsafe")
        return buf, r, x0, y0, wx, wy

    def boxes(self, frame: np.ndarray, conf: tuple[float, float], native: bool = False,
              window: tuple[int, int, int, int] | None = None) -> Reading:
        """(boxes xyxy in frame px, face class ids, scores) after NMS, down to ``conf`` (face up, face down).

        ``window`` (x0, y0, x1, y1, frame px): only that part of the frame goes through the network, cut from the
        whole frame's input on the stride's grid, so that it reads the same pixels in the same places as the whole
        reading does and finds there what that would (a window cut and scaled on its own reads differently: the
        detector's boxes move with the stride's phase, and a fold's figures by several points)."""
        buf, r, x0, y0, wx, wy = self._prepare(frame, native, window)
        out = self.session.run(None, {self._name: buf})[0][0]  # (4 + 2, N)
        b, cls, scores = self._decode(out, conf)
        b = b + np.array([wx, wy, wx, wy], b.dtype)
        h, w = frame.shape[:2]
        boxes = np.column_stack([(b[:, 0] - x0) / r, (b[:, 1] - y0) / r, (b[:, 2] - x0) / r, (b[:, 3] - y0) / r])
        return np.clip(boxes, 0, [w, h, w, h]).reshape(-1, 4), cls, scores

    def slice_boxes(self, image: np.ndarray, side: int, overlap: int, conf: tuple[float, float]) -> Reading:
        """The boxes of an image read at its own scale in overlapping ``side`` x ``side`` slices, all in one
        onnxruntime call: what a whole table photographed at full resolution needs, without the memory of
        reading it in one piece (a 12 MP photo's activations run to gigabytes).

        A box that touches an edge a slice shares with its neighbour is dropped there: the slices overlap by
        ``overlap`` (more than a tile), so the neighbour holds that tile whole; what both hold whole is merged by
        one NMS over all slices. So a tile cut by a slice edge is counted once, and never lost."""
        h, w = image.shape[:2]
        origins = [(x, y) for y in _starts(h, side, overlap) for x in _starts(w, side, overlap)]
        batch = np.full((len(origins), side, side, 3), _PAD_VALUE, np.uint8)
        for k, (x, y) in enumerate(origins):
            part = image[y:y + side, x:x + side]
            batch[k, :part.shape[0], :part.shape[1]] = part
        inp = np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2), np.float32) * (1 / 255.0)
        outs = self.session.run(None, {self._name: inp})[0]
        found = []
        for (x, y), out in zip(origins, outs, strict=True):
            b, cls, scores = self._decode(out, conf)
            inner = np.array([x > 0, y > 0, x + side < w, y + side < h])
            cut = ((b[:, 0] < _EDGE_PX) & inner[0]) | ((b[:, 1] < _EDGE_PX) & inner[1]) \
                | ((b[:, 2] > side - _EDGE_PX) & inner[2]) | ((b[:, 3] > side - _EDGE_PX) & inner[3])
            keep = ~cut
            found.append((b[keep] + np.array([x, y, x, y], np.float32), cls[keep], scores[keep]))
        boxes = np.concatenate([f[0] for f in found]).reshape(-1, 4)
        cls, scores = np.concatenate([f[1] for f in found]), np.concatenate([f[2] for f in found])
        if not len(scores):
            return boxes, cls, scores
        idx = nms(boxes, scores, self.iou)
        return np.clip(boxes[idx], 0, [w, h, w, h]), cls[idx], scores[idx]

    def _decode(self, out: np.ndarray, conf: tuple[float, float]) -> Reading:
        """One image's raw output (4 + 2, anchors) -> (boxes xyxy in input px, face class ids, scores) at or
        above ``conf`` (face up, face down), after NMS, at most MAX_BOXES."""
        up_conf, down_conf = conf
        scores_all = out[4:]
        cls = scores_all.argmax(axis=0)
        scores = scores_all[cls, np.arange(out.shape[1])]
        keep = scores >= min(up_conf, down_conf)
        cxcywh, cls, scores = out[:4, keep].T, cls[keep], scores[keep]
        keep = scores >= np.where(cls == 0, up_conf, down_conf)
        cxcywh, cls, scores = cxcywh[keep], cls[keep], scores[keep]
        if not len(scores):
            return np.zeros((0, 4), np.float32), cls, scores
        xy = cxcywh[:, :2] - cxcywh[:, 2:] / 2
        xyxy = np.hstack([xy, xy + cxcywh[:, 2:]])
        idx = nms(xyxy, scores, self.iou)[:MAX_BOXES]
        return xyxy[idx], cls[idx], scores[idx]


def _starts(length: int, side: int, overlap: int) -> list[int]:
    """Where slices of ``side`` start along ``length`` so that neighbours overlap by at least ``overlap`` and the
    last one ends at the edge (one slice, padded, if the length fits)."""
    if length <= side:
        return [0]
    n = -(-(length - overlap) // (side - overlap))
    return [round(k * (length - side) / (n - 1)) for k in range(n)]


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of the boxes (x1, y1, x2, y2) that no surer box overlaps by more than ``iou``, surest first."""
    xywh = np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]])
    return np.array(cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), 0.0, iou), int).reshape(-1)


def lowest(a: tuple[float, float], b: tuple[float, float] | None) -> tuple[float, float]:
    """The lower of two (face up, face down) threshold pairs, face by face (``a`` if ``b`` is None)."""
    return a if b is None else (min(a[0], b[0]), min(a[1], b[1]))


def above(reading: Reading, conf: tuple[float, float]) -> Reading:
    """The (boxes, face class ids, scores) of a reading at or above ``conf`` (face up, face down)."""
    boxes, cls, scores = reading
    keep = scores >= np.where(cls == 0, conf[0], conf[1])
    return boxes[keep], cls[keep], scores[keep]


def median_side(boxes: np.ndarray) -> float:
    """The median short side of boxes (x1, y1, x2, y2): how large the tiles of a reading are."""
    return float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
