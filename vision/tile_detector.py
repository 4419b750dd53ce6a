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
#: How a frame is scaled to the detector's input: bilinear, as ultralytics scaled the training images. Area
#: averaging cost 7 ms of a 1280x720 frame's two readings against 1 ms, for the same validation mAP.
DOWNSCALE = cv2.INTER_LINEAR


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
        return (-(-round(h * r) // 32) * 32, -(-round(w * r) // 32) * 32)

    def _buffers_for(self, ih: int, iw: int) -> tuple[np.ndarray, np.ndarray]:
        """The letterbox (ih x iw x 3) and the detector input (1 x 3 x ih x iw), as views of one pair of flat
        buffers grown to the largest size read so far. The table reader reads views of many sizes (20 in the demo
        recording, 134 MB as a pair each) and a batch of photos any number: one pair allocates nothing per frame
        and holds the memory of one size."""
        n = ih * iw * 3
        if self._letterbox.size < n:
            self._letterbox, self._input = np.empty(n, np.uint8), np.empty(n, np.float32)
        return self._letterbox[:n].reshape(ih, iw, 3), self._input[:n].reshape(1, 3, ih, iw)

    def _prepare(self, frame: np.ndarray, native: bool = False) -> tuple[np.ndarray, float, float, float]:
        h, w = frame.shape[:2]
        ih, iw = self.input_shape(h, w, native)
        lb, buf = self._buffers_for(ih, iw)
        r = min(iw / w, ih / h)
        nw, nh = round(w * r), round(h * r)
        px, py = (iw - nw) / 2, (ih - nh) / 2
        lb[:] = _PAD_VALUE
        x0, y0 = int(round(px - 0.1)), int(round(py - 0.1))
        # A top-down view is only ever enlarged by a few % to fill the stride, as its thresholds were tuned.
        lb[y0:y0 + nh, x0:x0 + nw] = frame if (nw, nh) == (w, h) else cv2.resize(
            frame, (nw, nh), interpolation=DOWNSCALE if r < 1 else cv2.INTER_AREA)
        # HWC BGR uint8 -> NCHW RGB float 0..1 (ultralytics trains on RGB)
        np.multiply(lb[..., ::-1].transpose(2, 0, 1), 1 / 255.0, out=buf[0], casting="unsafe")
        return buf, r, x0, y0

    def boxes(self, frame: np.ndarray, conf: tuple[float, float], native: bool = False) -> Reading:
        """(boxes xyxy in frame px, face class ids, scores) after NMS, down to ``conf`` (face up, face down)."""
        up_conf, down_conf = conf
        buf, r, x0, y0 = self._prepare(frame, native)
        out = self.session.run(None, {self._name: buf})[0][0]  # (4 + 2, N)
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
        xyxy = np.hstack([xy, xy + cxcywh[:, 2:]])                                  # input px
        idx = nms(xyxy, scores, self.iou)[:300]
        b = xyxy[idx]
        h, w = frame.shape[:2]
        boxes = np.column_stack([(b[:, 0] - x0) / r, (b[:, 1] - y0) / r, (b[:, 2] - x0) / r, (b[:, 3] - y0) / r])
        boxes = np.clip(boxes, 0, [w, h, w, h])
        return boxes, cls[idx], scores[idx]


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
