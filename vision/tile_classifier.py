"""The crop classifier: which of the 36 tile kinds (or "not a tile", or a tile's back) a square crop around a box
shows, how surely, and its embedding (what an enrolled set compares its own tiles in). An unsure crop gets a second look
in its other quarter turns."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from engine.tiles import TILES
from vision.onnx_session import open_session

if TYPE_CHECKING:
    from vision.prototypes import Prototypes

#: Classifier input: square BGR crops of this size, cut at CROP_MARGIN x the box's long side.
CLASSIFIER_SIZE = 48
CROP_MARGIN = 1.15
SECOND_LOOK = 0.9   # a crop read less surely than this is read again in its other quarter turns (probabilities)
#: In a whole image (a photo, a camera frame read by ``detect``), a box's face is read from three squares around
#: it, at these multiples of CROP_MARGIN (1.0, 1.15 and 1.32 x the box's long side), and the readings averaged: a
#: box cut tight or loose on a tile misleads one crop, seldom all three. Leave one source out (bench/loso.py),
#: faces on the two sets no model trained on 0.860 -> 0.867 (leomiura) and 0.955 -> 0.960 (riichi-above), every
#: other fold within a tile; leomiura's racks read wrong 23 -> 13 tiles, 7 -> 3 of them not asked about
#: (bench/bench_hand.py; models/README.md). One zoom alone did not help. The top-down views of the table reader
#: and the set-up mat, where a tile is always about the same size, read one crop (three cost a Joker of a style
#: never trained on its place on the mat).
CROP_ZOOMS = (0.87, 1.0, 1.15)
#: The mean of the CROP_ZOOMS readings is less sure than each of them, so a kind's score is that mean raised to this
#: power and normalised (``sure_as_one_crop``): on the real validation crops its negative log-likelihood is then
#: one crop's (0.0085 against 0.0082; the plain mean 0.0214). On leomiura's racks the right tiles asked about fell
#: back from 117 to 71 of 544 (one crop: 73). Whether a box shows a face at all (``face_probability``, what vouches
#: for a tile) keeps the plain mean: leave one source out chose its thresholds with it.
ZOOM_SHARPEN = 1.25
#: How near an enrolled set's prototype must be to overrule a read of "back" or an unsure "not a tile". The set
#: enrols faces only, so it knows nothing of backs or of what is no tile: backs sit at a cosine similarity of
#: about 0.6 to a set's nearest prototype (90th percentile 0.69-0.73), the set's own faces at 0.90-0.95 (median),
#: measured with three sets by ``bench/setup_tiles.py --backs`` (models/README.md). A tile of the set that the
#: shipped model takes for a back (a plain Soap) or for nothing it knows (the set's own Joker) is still read as
#: the set's own; at the minimum similarity instead, a set learned from leomiura's racks put 40 boxes on book
#: spines and print where the shipped model alone put 26 (30 with this rule; docs/hand.md).
NO_FACE_OVERRULED_AT = 0.8
#: An enrolled set reads a crop again in its four quarter turns (embeddings averaged) when its nearest kind is
#: nearer than the nearest other kind by less than this (cosine similarity): a set's prototypes hold each tile in
#: four turns, and one turn of a tile may lie near another kind's turn (a framed Soap near a 3 Dot). On the sets
#: of bench/setup_tiles.py (captures not used for learning, random light and angle) faces after learning went
#: from 0.935-1.000 to 0.960-1.000, 11 to 12 of 15 physical sets at 0.98 or more, the held-out style 0.987-0.993
#: to 0.993-1.000 over three capture sets; no set read worse (docs/setup.md).
SET_SECOND_LOOK = 0.05
#: Class index of "not a tile" (after the 36 tile kinds, in engine.tiles.TILES order), then of a tile seen from
#: behind or lying face down ("back"). A classifier file from before the back class has 37 outputs: it never
#: reads "back", and its indices mean what they meant.
NOT_A_TILE = len(TILES)
BACK = NOT_A_TILE + 1
CLASSES: tuple[str, ...] = TILES + ("none", "back")
#: What the classifier can read that is not a tile's face: no tile kind, and never offered as a choice.
NO_FACE = frozenset(CLASSES[NOT_A_TILE:])


class TileClassifier:
    """One ONNX classifier, with its crop and input buffers made once (and grown for a larger batch)."""

    def __init__(self, path: Path, threads: int = 2) -> None:
        self.session = open_session(path, threads)
        self._name = self.session.get_inputs()[0].name
        self._crops = np.empty((64, CLASSIFIER_SIZE, CLASSIFIER_SIZE, 3), np.uint8)
        self._in = np.empty((64, 3, CLASSIFIER_SIZE, CLASSIFIER_SIZE), np.float32)

    def probabilities(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities and embeddings of NHWC crops. A crop read less surely than SECOND_LOOK is read again in
        its three other quarter turns and the four readings averaged: tiles lie at any angle and the views err
        apart (top-1 on the synthetic test crops with the shipped weights: 0.9893 from one view, 0.9924 adding
        the half turn alone, 0.9929 with all four; models/README.md), and doing it only for the unsure few keeps
        the cost of a frame near one pass."""
        probs, emb = self.one_pass(crops)
        unsure = np.nonzero(probs.max(axis=1) < SECOND_LOOK)[0]
        if len(unsure):
            turned = np.concatenate([np.rot90(crops[unsure], k, axes=(1, 2)) for k in (1, 2, 3)])
            p2, e2 = self.one_pass(np.ascontiguousarray(turned))
            n = len(unsure)
            probs[unsure] = (probs[unsure] + p2.reshape(3, n, -1).sum(axis=0)) / 4
            views = emb[unsure] + e2.reshape(3, n, -1).sum(axis=0)
            emb[unsure] = views / (np.linalg.norm(views, axis=1, keepdims=True) + 1e-6)
        return probs, emb

    def one_pass(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities and embeddings of NHWC crops as they are, one run of the model."""
        n = len(crops)
        if n > len(self._in):
            self._in = np.empty((n, 3, CLASSIFIER_SIZE, CLASSIFIER_SIZE), np.float32)
        x = self._in[:n]
        np.copyto(x, crops.transpose(0, 3, 1, 2))      # NHWC uint8 -> NCHW float, into the kept buffer
        probs, emb = self.session.run(None, {self._name: x})
        return probs, emb

    def codes(self, probs: np.ndarray, emb: np.ndarray, prototypes: Prototypes | None,
              crops: np.ndarray | None = None) -> list[tuple[str, float]]:
        """(code, "none" or "back", score) for each crop's probabilities and embedding, by an enrolled set's
        ``prototypes`` where it has them; given the ``crops`` they were read from, those the set is unsure of are
        read again in their four turns (SET_SECOND_LOOK)."""
        best = probs.argmax(axis=1)
        score = probs[np.arange(len(best)), best]
        codes = [CLASSES[i] for i in best]
        if prototypes is not None:
            if crops is not None:
                emb = self._set_second_look(crops, emb, prototypes)
            pc, sim = prototypes.match(emb)
            for i in range(len(codes)):
                # The enrolled set decides the kind (its own Jokers may look like nothing the base model knows);
                # the base model keeps a confident "not a tile", and a back or an unsure "not a tile" unless the
                # set has a tile very like it.
                needed = prototypes.min_similarity
                if codes[i] in NO_FACE:
                    needed = max(needed, NO_FACE_OVERRULED_AT)
                sure_no_face = codes[i] == "none" and score[i] >= 0.9
                if not sure_no_face and sim[i] >= needed:
                    codes[i], score[i] = str(pc[i]), float(sim[i])
        return list(zip(codes, (float(s) for s in score), strict=True))

    def _set_second_look(self, crops: np.ndarray, emb: np.ndarray, prototypes: Prototypes) -> np.ndarray:
        """The embeddings with those the set is unsure of (margin under SET_SECOND_LOOK) made again from their crop
        in its four quarter turns, averaged."""
        unsure = np.nonzero(prototypes.margins(emb) < SET_SECOND_LOOK)[0]
        if not len(unsure):
            return emb
        turned = np.concatenate([np.rot90(crops[unsure], k, axes=(1, 2)) for k in range(4)])
        _, e = self.one_pass(np.ascontiguousarray(turned))
        views = e.reshape(4, len(unsure), -1).sum(axis=0)
        emb = emb.copy()
        emb[unsure] = views / (np.linalg.norm(views, axis=1, keepdims=True) + 1e-6)
        return emb

    def batch(self, crops: list[np.ndarray]) -> np.ndarray:
        """Square BGR crops of any size as one CLASSIFIER_SIZE batch (resized where they differ)."""
        batch = self._crop_buffer(len(crops))
        for i, c in enumerate(crops):
            if c.shape[:2] == (CLASSIFIER_SIZE, CLASSIFIER_SIZE):
                batch[i] = c
            else:
                cv2.resize(c, (CLASSIFIER_SIZE, CLASSIFIER_SIZE), dst=batch[i], interpolation=cv2.INTER_AREA)
        return batch

    def read_boxes(self, frame: np.ndarray, boxes: np.ndarray, zooms: tuple[float, ...] = CROP_ZOOMS
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Probabilities and embeddings of what ``boxes`` in ``frame`` show, each the mean over the crops at
        ``zooms`` x CROP_MARGIN (read in one batch), and the crops at the usual margin (what a set's second look
        reads)."""
        n = len(boxes)
        batch = self._crop_buffer(n * len(zooms))
        for z, zoom in enumerate(zooms):
            for i, b in enumerate(boxes):
                crop_square(frame, tuple(b), extra=zoom, out=batch[z * n + i])
        probs, emb = self.probabilities(batch)
        k = zooms.index(1.0)
        usual = batch[k * n:(k + 1) * n].copy()
        if len(zooms) == 1:
            return probs, emb, usual
        probs = probs.reshape(len(zooms), n, -1).mean(axis=0)
        views = emb.reshape(len(zooms), n, -1).sum(axis=0)
        return probs, views / (np.linalg.norm(views, axis=1, keepdims=True) + 1e-6), usual

    def _crop_buffer(self, n: int) -> np.ndarray:
        if n > len(self._crops):
            self._crops = np.empty((n, CLASSIFIER_SIZE, CLASSIFIER_SIZE, 3), np.uint8)
        return self._crops[:n]


def sure_as_one_crop(probs: np.ndarray) -> np.ndarray:
    """Probabilities averaged over CROP_ZOOMS made as sure as one crop's (ZOOM_SHARPEN), each row summing to 1."""
    sharp = np.power(probs, ZOOM_SHARPEN)
    return sharp / sharp.sum(axis=1, keepdims=True)


def crop_square(img: np.ndarray, box: tuple[float, float, float, float], size: int = CLASSIFIER_SIZE,
                extra: float = 1.0, out: np.ndarray | None = None) -> np.ndarray:
    """The square around ``box`` (CROP_MARGIN x its long side, times ``extra``) resized to size x size.

    A square keeps rotated discards whole whatever their angle; edges outside the frame repeat the border.
    """
    cx, cy, side = square_around(box, CROP_MARGIN * extra)
    s = size / side
    m = np.array([[s, 0, size / 2 - cx * s], [0, s, size / 2 - cy * s]], np.float32)
    return cv2.warpAffine(img, m, (size, size), dst=out, flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def square_around(box: tuple[float, float, float, float], margin: float) -> tuple[float, float, float]:
    """Centre x, y and side of the square ``margin`` x the box's long side around the box's centre."""
    x1, y1, x2, y2 = box
    return (x1 + x2) / 2, (y1 + y2) / 2, max(x2 - x1, y2 - y1, 1.0) * margin
