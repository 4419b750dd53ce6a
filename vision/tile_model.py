"""Find tiles in an image (a camera frame or a photo, one path for both) and read their faces, with onnxruntime
only.

Two models (see models/README.md): a detector that boxes every tile and says face up or face down, and a crop
classifier over the 36 tile kinds plus "not a tile" that reads each face-up box. The classifier also gives an
embedding; a user's own set (``mahj setup tiles``) stores prototypes of its own tiles in that space, and a model
loaded from the set's folder reads with them.

Sessions and input buffers are made once per ``TileModel``; ``detect`` runs the classifier once per frame over
all face-up crops.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

from engine.tiles import TILES
from models import MODELS_DIR
from vision.tracker import ALTS

DETECTOR_FILE = "tile_detector.onnx"
CLASSIFIER_FILE = "tile_classifier.onnx"
SECOND_LOOK = 0.9   # a crop read less surely than this is read again in its other quarter turns (_run_classifier)
SET_FILE = "set.json"
#: Thresholds chosen on the validation split at export time (see datasets/train.py tune_thresholds).
SETTINGS_FILE = "tile_model.json"
PROTOTYPES_FILE = "prototypes.npz"

#: Classifier input: square BGR crops of this size, cut at CROP_MARGIN x the box's long side.
CLASSIFIER_SIZE = 48
#: Long side of the detector's input: a 1280x720 frame is read at 512x288.
DETECTOR_SIDE = 512
CROP_MARGIN = 1.15
#: Scale of the top-down view the table reader warps its regions to before detection: a 23 x 31 mm tile is
#: then always about 23 x 31 px, whatever the camera. The detector is trained on crops at this scale
#: (datasets/synth/topdown.py) as well as on whole camera frames.
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
#: Class index of "not a tile" (after the 36 tile kinds, in engine.tiles.TILES order).
NOT_A_TILE = len(TILES)
CLASSES: tuple[str, ...] = TILES + ("none",)
FACES = ("up", "down")
#: A reading of a frame: boxes x1, y1, x2, y2 in frame px (N, 4), face class ids (N,), scores (N,).
Reading = tuple[np.ndarray, np.ndarray, np.ndarray]
_PAD_VALUE = 114  # the letterbox grey the detector was trained with
#: How a frame is scaled to the detector's input: bilinear, as ultralytics scaled the training images. Area
#: averaging cost 7 ms of a 1280x720 frame's two readings against 1 ms, for the same validation mAP.
DOWNSCALE = cv2.INTER_LINEAR


class TileModelError(RuntimeError):
    """A model folder or file that cannot be used; the message names the path."""


@dataclass(frozen=True)
class Detection:
    """One tile in a frame. ``tile`` is set for face-up tiles (their likeliest kind; ``tile_score`` says how sure,
    calibrated on held-out real photos), None for face-down ones."""

    box: tuple[float, float, float, float]
    face: str
    tile: str | None
    score: float
    tile_score: float | None = None
    alts: tuple[str, ...] = ()      # face up: the kinds the classifier found likeliest, ``tile`` first

    def to_json(self) -> dict:
        return {"box": [round(v, 1) for v in self.box], "face": self.face, "tile": self.tile,
                "score": round(self.score, 4),
                "tile_score": None if self.tile_score is None else round(self.tile_score, 4)}


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


def sets_dir() -> Path:
    """Where enrolled sets live: $XDG_DATA_HOME/mahj/sets (default ~/.local/share/mahj/sets)."""
    import os

    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "mahj" / "sets"


class StaleSetError(TileModelError):
    """An enrolled set whose prototypes another classifier made (the shipped one was updated since): its
    embeddings no longer compare. ``vision.enroll.load_set`` remakes them from the set's own crops."""


def classifier_id(path: Path) -> str:
    """A short fingerprint of a classifier file: prototypes are only comparable with the one that made them."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class Prototypes:
    """An enrolled set: L2-normalised embeddings of the user's own tiles, each with its code."""

    def __init__(self, embeddings: np.ndarray, codes: list[str], min_similarity: float = 0.5,
                 classifier: str | None = None) -> None:
        self.embeddings = embeddings.astype(np.float32)
        self.codes = np.array(codes)
        self.min_similarity = min_similarity
        self.classifier = classifier        # classifier_id of the classifier that made the embeddings

    @classmethod
    def load(cls, folder: Path) -> Prototypes:
        path = folder / PROTOTYPES_FILE
        try:
            z = np.load(path)
            meta = json.loads((folder / SET_FILE).read_text())
        except (OSError, ValueError, KeyError) as exc:
            raise TileModelError(f"{folder}: not a usable enrolled set ({exc})") from exc
        return cls(z["embeddings"], [str(c) for c in z["codes"]], float(meta.get("min_similarity", 0.5)),
                   meta.get("classifier"))

    def save(self, folder: Path, meta: dict) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(folder / PROTOTYPES_FILE, embeddings=self.embeddings, codes=self.codes)
        meta = meta | {"min_similarity": self.min_similarity, "classifier": self.classifier}
        (folder / SET_FILE).write_text(json.dumps(meta, indent=2) + "\n")

    def match(self, emb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest prototype for each embedding: (codes, cosine similarities)."""
        sim = emb @ self.embeddings.T
        best = sim.argmax(axis=1)
        return self.codes[best], sim[np.arange(len(emb)), best]


class TileModel:
    """The detector + classifier pair (and optionally an enrolled set), ready to run on frames."""

    def __init__(self, detector: Path, classifier: Path, prototypes: Prototypes | None = None, threads: int = 2,
                 conf: float = 0.35, iou: float = 0.5, up_conf: float = 0.35,
                 view_conf: tuple[float, float] | None = None,
                 closeup_conf: tuple[float, float] | None = None) -> None:
        self._opts = ort.SessionOptions()
        self._opts.intra_op_num_threads = threads
        self._opts.inter_op_num_threads = 1
        self._opts.log_severity_level = 3
        # The sessions run one after the other, each with its own thread pool: left spinning after a run, one
        # pool's threads hold the cores the other needs (a 1280x720 frame with 60 tiles: 88 ms a frame spinning,
        # 60 ms not, bench/eval_tile_model.py's speed part).
        self._opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._det = self._session(detector)
        self._cls = self._session(classifier)
        inp = self._det.get_inputs()[0]
        self._det_name = inp.name
        # A fixed-shape detector gets every frame letterboxed into its shape; a dynamic one gets the frame's own
        # aspect (long side DETECTOR_SIDE, short side rounded up to 32), so 4:3 and square photos lose nothing.
        self._fixed = (int(inp.shape[2]), int(inp.shape[3])) if isinstance(inp.shape[2], int) else None
        self._buffers: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._cls_name = self._cls.get_inputs()[0].name
        self._crops = np.empty((64, CLASSIFIER_SIZE, CLASSIFIER_SIZE, 3), np.uint8)
        self._cls_in = np.empty((64, 3, CLASSIFIER_SIZE, CLASSIFIER_SIZE), np.float32)
        self.prototypes = prototypes
        self.classifier_id = classifier_id(classifier)
        self.conf, self.iou, self.up_conf = conf, iou, up_conf
        #: (face up, face down) score thresholds for top-down views, tuned on those apart from whole frames
        self.view_conf = view_conf
        #: and for close-up photos (``frame_boxes``), tuned on rendered close-ups; the whole-frame ones if absent
        self.closeup_conf = closeup_conf or (up_conf, conf)

    def _session(self, path: Path) -> ort.InferenceSession:
        try:
            return ort.InferenceSession(str(path), self._opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises several unrelated types for a bad file
            raise TileModelError(f"cannot load tile model {path}: {exc}") from exc

    @classmethod
    def load(cls, path: str | Path | None = None, threads: int = 2) -> TileModel:
        """The shipped models (``None``), a folder holding both ONNX files, or an enrolled set's folder.

        An enrolled set's folder holds ``set.json`` + ``prototypes.npz``; its ONNX files are the shipped ones
        unless the folder has its own.
        """
        folder = MODELS_DIR if path is None else Path(path).expanduser()
        if not folder.is_dir():
            raise TileModelError(f"{folder}: no such model folder")
        protos = Prototypes.load(folder) if (folder / SET_FILE).exists() else None
        det = folder / DETECTOR_FILE if (folder / DETECTOR_FILE).exists() else MODELS_DIR / DETECTOR_FILE
        clf = folder / CLASSIFIER_FILE if (folder / CLASSIFIER_FILE).exists() else MODELS_DIR / CLASSIFIER_FILE
        for p in (det, clf):
            if not p.exists():
                raise TileModelError(f"{p}: model file missing (train and export it: see datasets/train.py)")
        settings = det.with_name(SETTINGS_FILE)
        try:
            th = json.loads(settings.read_text()) if settings.exists() else {}
        except ValueError as exc:
            raise TileModelError(f"{settings}: {exc}") from exc

        def pair(key: str) -> tuple[float, float] | None:
            sub = th.get(key)
            return (float(sub["conf_up"]), float(sub["conf_down"])) if sub else None

        # A close-up detector belongs to the main detector beside it: a folder with a detector of its own (a
        # training candidate) never borrows the shipped one.
        model = cls(det, clf, protos, threads=threads, conf=float(th.get("conf_down", 0.35)),
                    up_conf=float(th.get("conf_up", 0.35)), iou=float(th.get("iou", 0.5)),
                    view_conf=pair("topdown"), closeup_conf=pair("closeup"))
        if protos is not None and protos.classifier != model.classifier_id:
            raise StaleSetError(f"{folder}: learned with another classifier than {clf} (the model was updated "
                                "since); `mahj watch` and `mahj detect --set` remake it from its own tiles")
        return model

    # ------------------------------------------------------------------------------------------------ detector
    def input_shape(self, h: int, w: int, native: bool = False) -> tuple[int, int]:
        """Detector input (height, width) for an h x w frame: scaled to DETECTOR_SIDE on the long side, or at its
        own scale (``native``, for top-down views already at TOPDOWN_PX_PER_MM), rounded up to the stride."""
        if self._fixed:
            return self._fixed
        r = 1.0 if native else DETECTOR_SIDE / max(h, w)
        return (-(-round(h * r) // 32) * 32, -(-round(w * r) // 32) * 32)

    def _prepare(self, frame: np.ndarray, native: bool = False) -> tuple[np.ndarray, float, float, float]:
        h, w = frame.shape[:2]
        ih, iw = self.input_shape(h, w, native)
        if (ih, iw) not in self._buffers:
            self._buffers[(ih, iw)] = (np.empty((ih, iw, 3), np.uint8), np.empty((1, 3, ih, iw), np.float32))
        lb, buf = self._buffers[(ih, iw)]
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

    def _boxes(self, frame: np.ndarray, native: bool = False, conf: tuple[float, float] | None = None
               ) -> Reading:
        """(boxes xyxy in frame px, face class ids, scores) after NMS; ``conf``: (face up, face down) score
        thresholds instead of the whole-frame ones."""
        up_conf, down_conf = conf or (self.up_conf, self.conf)
        buf, r, x0, y0 = self._prepare(frame, native)
        out = self._det.run(None, {self._det_name: buf})[0][0]  # (4 + 2, N)
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
        idx = _nms(xyxy, scores, self.iou)[:300]
        b = xyxy[idx]
        h, w = frame.shape[:2]
        boxes = np.column_stack([(b[:, 0] - x0) / r, (b[:, 1] - y0) / r, (b[:, 2] - x0) / r, (b[:, 3] - y0) / r])
        boxes = np.clip(boxes, 0, [w, h, w, h])
        return boxes, cls[idx], scores[idx]

    def _run_classifier(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities and embeddings of NHWC crops. A crop read less surely than SECOND_LOOK is read again in
        its three other quarter turns and the four readings averaged: tiles lie at any angle and the views err
        apart (top-1 on the synthetic test crops with the shipped weights: 0.9893 from one view, 0.9924 adding
        the half turn alone, 0.9929 with all four; models/README.md), and doing it only for the unsure few keeps
        the cost of a frame near one pass."""
        probs, emb = self._classifier_pass(crops)
        unsure = np.nonzero(probs.max(axis=1) < SECOND_LOOK)[0]
        if len(unsure):
            turned = np.concatenate([np.rot90(crops[unsure], k, axes=(1, 2)) for k in (1, 2, 3)])
            p2, e2 = self._classifier_pass(np.ascontiguousarray(turned))
            n = len(unsure)
            probs[unsure] = (probs[unsure] + p2.reshape(3, n, -1).sum(axis=0)) / 4
            views = emb[unsure] + e2.reshape(3, n, -1).sum(axis=0)
            emb[unsure] = views / (np.linalg.norm(views, axis=1, keepdims=True) + 1e-6)
        return probs, emb

    def _classifier_pass(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = len(crops)
        if n > len(self._cls_in):
            self._cls_in = np.empty((n, 3, CLASSIFIER_SIZE, CLASSIFIER_SIZE), np.float32)
        x = self._cls_in[:n]
        np.copyto(x, crops.transpose(0, 3, 1, 2))      # NHWC uint8 -> NCHW float, into the kept buffer
        probs, emb = self._cls.run(None, {self._cls_name: x})
        return probs, emb

    def _read(self, probs: np.ndarray, emb: np.ndarray) -> list[tuple[str, float]]:
        best = probs.argmax(axis=1)
        score = probs[np.arange(len(best)), best]
        codes = [CLASSES[i] for i in best]
        if self.prototypes is not None:
            pc, sim = self.prototypes.match(emb)
            for i in range(len(codes)):
                # The enrolled set decides the kind (its own Jokers may look like nothing the base model knows);
                # the base model keeps only a confident "not a tile".
                sure_none = codes[i] == "none" and score[i] >= 0.9
                if not sure_none and sim[i] >= self.prototypes.min_similarity:
                    codes[i], score[i] = str(pc[i]), float(sim[i])
        return list(zip(codes, (float(s) for s in score), strict=True))

    def classify(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """Read square BGR crops (any size; resized to the classifier's input) in one batch.

        Returns (code or "none", score) for each crop.
        """
        if not crops:
            return []
        batch = self._crop_buffer(len(crops))
        for i, c in enumerate(crops):
            if c.shape[:2] == (CLASSIFIER_SIZE, CLASSIFIER_SIZE):
                batch[i] = c
            else:
                cv2.resize(c, (CLASSIFIER_SIZE, CLASSIFIER_SIZE), dst=batch[i], interpolation=cv2.INTER_AREA)
        return self._read(*self._run_classifier(batch))

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """L2-normalised embeddings of CLASSIFIER_SIZE square crops (N, S, S, 3): what enrolment stores."""
        return self._run_classifier(crops)[1]

    def _crop_buffer(self, n: int) -> np.ndarray:
        if n > len(self._crops):
            self._crops = np.empty((n, CLASSIFIER_SIZE, CLASSIFIER_SIZE, 3), np.uint8)
        return self._crops[:n]

    def crops_for(self, frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        batch = self._crop_buffer(len(boxes))
        for i, b in enumerate(boxes):
            crop_square(frame, tuple(b), out=batch[i])
        return batch

    # ---------------------------------------------------------------------------------------------------- both
    def detect(self, frame_bgr: np.ndarray) -> list[Detection]:
        """Every tile in a BGR frame: box, face, and for face-up tiles the code the classifier reads."""
        check_image(frame_bgr)
        return self.read_faces(frame_bgr, *self.frame_boxes(frame_bgr))

    def frame_boxes(self, frame_bgr: np.ndarray, conf: tuple[float, float] | None = None) -> Reading:
        """The tiles' boxes in an image (a camera frame or a photo, square pixels), read at the size that suits
        them, down to ``conf`` (the thresholds for whole frames, or for close-ups, if None).

        A small pyramid, chosen by what the first reading finds: at DETECTOR_SIDE the tiles are measured;
        smaller than SMALL_TILE_PX (a whole table in one frame) the image is read again larger, up to its own
        resolution, and that reading is the answer; larger than LARGE_TILE_PX (a close-up, where the detector
        may box pips) or where nothing was found (one tile may fill the picture), it is also read zoomed out
        (``_closer``) and the surest reading kept. Each reading is made once, down to the lower of ``conf`` and
        the thresholds that choose the size."""
        usual = (self.up_conf, self.conf)
        first = self._boxes(frame_bgr, conf=_lowest(usual, conf))
        if self._fixed:
            return _above(first, conf or usual)
        h, w = frame_bgr.shape[:2]
        r = DETECTOR_SIDE / max(h, w)
        sure = _above(first, usual)[0]
        # Nothing found may be one tile too large to be seen at all: it is looked for zoomed out.
        side = _median_side(sure) * r if len(sure) else np.inf
        if side > LARGE_TILE_PX:
            return self._closer(frame_bgr, first, r, conf)
        if side >= SMALL_TILE_PX or r >= 1:
            return _above(first, conf or usual)
        zoom = min(1 / r, SMALL_TILE_AIM_PX / max(side, 1.0))
        larger = cv2.resize(frame_bgr, None, fx=zoom * r, fy=zoom * r, interpolation=DOWNSCALE) \
            if zoom * r != 1 else frame_bgr
        boxes, cls, scores = self._boxes(larger, native=True, conf=conf)
        return boxes * (w / larger.shape[1]), cls, scores

    def _closer(self, frame_bgr: np.ndarray, first: Reading, r: float, conf: tuple[float, float] | None
                ) -> Reading:
        """A close-up read again zoomed out (``_zoomed_out``) at each of LARGE_ZOOMS, with the close-up
        thresholds; the reading with the larger sum of scores is kept."""
        usual = (self.up_conf, self.conf)
        low = _lowest(self.closeup_conf, conf)
        readings = [first if self.closeup_conf == usual else self._boxes(frame_bgr, conf=low)]
        fill = frame_bgr[::8, ::8].reshape(-1, 3).mean(axis=0)
        readings += [self._zoomed_out(frame_bgr, r, zoom, low, fill) for zoom in LARGE_ZOOMS]
        surest = max(readings, key=lambda rd: float(_above(rd, self.closeup_conf)[2].sum()))
        return _above(surest, conf or self.closeup_conf)

    def _zoomed_out(self, frame_bgr: np.ndarray, r: float, zoom: float, conf: tuple[float, float],
                    fill: np.ndarray) -> Reading:
        """The frame shrunk by ``zoom`` in the middle of a canvas of the first reading's size, filled with
        ``fill`` (the frame's mean colour), read there, and the boxes mapped back onto the frame. A tile that
        fills most of the frame is seen as a tile only with some table around it: read shrunk to a small image
        of its own, a tile filling half the side was found 15 % of the time on real close-ups, with the canvas
        around it 93 % (models/README.md, "A tile that fills the picture")."""
        h, w = frame_bgr.shape[:2]
        big_h, big_w = self.input_shape(h, w)
        small = cv2.resize(frame_bgr, (max(1, round(w * r * zoom)), max(1, round(h * r * zoom))),
                           interpolation=DOWNSCALE)
        canvas = np.empty((big_h, big_w, 3), np.uint8)
        canvas[:] = fill
        y0, x0 = (big_h - small.shape[0]) // 2, (big_w - small.shape[1]) // 2
        canvas[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
        boxes, cls, scores = self._boxes(canvas, native=True, conf=conf)
        boxes = (boxes - np.array([x0, y0, x0, y0], boxes.dtype)) * (w / small.shape[1])
        inside = (boxes[:, 2] > 0) & (boxes[:, 3] > 0) & (boxes[:, 0] < w) & (boxes[:, 1] < h)
        return np.clip(boxes[inside], 0, [w, h, w, h]), cls[inside], scores[inside]

    def detect_view(self, view: np.ndarray, frame: np.ndarray, view_to_frame: np.ndarray) -> list[Detection]:
        """Tiles found in a top-down ``view`` of the table at TOPDOWN_PX_PER_MM (detected at that scale, not
        rescaled), with boxes mapped back into ``frame`` by the 3x3 ``view_to_frame`` and faces read from the
        frame, whose pixels are the camera's own (the view is resampled)."""
        check_image(view)
        vb, cls, scores = self._boxes(view, native=True, conf=self.view_conf)
        if len(vb):
            corners = vb[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 1, 2).astype(np.float64)
            fc = cv2.perspectiveTransform(corners, view_to_frame).reshape(-1, 4, 2)
            h, w = frame.shape[:2]
            vb = np.clip(np.column_stack([fc.min(axis=1), fc.max(axis=1)]), 0, [w, h, w, h])
        return self.read_faces(frame, vb, cls, scores)

    def read_faces(self, frame: np.ndarray, boxes: np.ndarray, cls: np.ndarray, scores: np.ndarray
                    ) -> list[Detection]:
        """Detections for these boxes, the face-up ones read by the classifier in one batch.

        A face-up box the classifier reads as "not a tile" is dropped: on real photos the detector boxes book
        spines, LED digits and fingers that the classifier, which learnt "not a tile" from real backgrounds,
        knows are none (held-out real photos, bench/eval_real.py: unseen sets' precision 0.833 -> 0.876,
        recall 0.932 -> 0.930; seen sets' precision 0.985 -> 0.988)."""
        up = np.nonzero(cls == 0)[0]
        reads: dict[int, tuple[str, float, tuple[str, ...]]] = {}
        if len(up):
            probs, emb = self._run_classifier(self.crops_for(frame, boxes[up]))
            likeliest = np.argsort(-probs, axis=1)[:, :ALTS + 1]       # one more: "none" may be among them
            for k, (i, (code, s)) in enumerate(zip(up.tolist(), self._read(probs, emb), strict=True)):
                ranked = [code] + [CLASSES[c] for c in likeliest[k]]
                reads[i] = code, s, tuple(dict.fromkeys(c for c in ranked if c != "none"))[:ALTS]
        out = []
        for i in range(len(boxes)):
            box = tuple(float(v) for v in boxes[i])
            if cls[i] == 0:
                code, s, alts = reads[i]
                if code != "none":
                    out.append(Detection(box, "up", code, float(scores[i]), s, alts))
            else:
                out.append(Detection(box, "down", None, float(scores[i]), None))
        return out


def _nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of the boxes (x1, y1, x2, y2) that no surer box overlaps by more than ``iou``, surest first."""
    xywh = np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]])
    return np.array(cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), 0.0, iou), int).reshape(-1)


def _lowest(a: tuple[float, float], b: tuple[float, float] | None) -> tuple[float, float]:
    """The lower of two (face up, face down) threshold pairs, face by face (``a`` if ``b`` is None)."""
    return a if b is None else (min(a[0], b[0]), min(a[1], b[1]))


def _above(reading: Reading, conf: tuple[float, float]) -> Reading:
    """The (boxes, face class ids, scores) of a reading at or above ``conf`` (face up, face down)."""
    boxes, cls, scores = reading
    keep = scores >= np.where(cls == 0, conf[0], conf[1])
    return boxes[keep], cls[keep], scores[keep]


def _median_side(boxes: np.ndarray) -> float:
    """The median short side of boxes (x1, y1, x2, y2): how large the tiles of a reading are."""
    return float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))


def check_image(img: np.ndarray) -> None:
    """Refuse anything but a colour image before it reaches a model, whose own error would not say what."""
    if img is None or img.ndim != 3 or img.shape[2] != 3:
        raise ValueError("the tile model needs an H x W x 3 BGR image")


def draw_overlay(frame: np.ndarray, detections: list[Detection]) -> np.ndarray:
    """A copy of the frame with each box and its code drawn large enough to check at a glance."""
    img = frame.copy()
    for d in detections:
        x1, y1, x2, y2 = (int(round(v)) for v in d.box)
        colour = (0, 200, 0) if d.face == "up" and d.tile else (0, 140, 255) if d.face == "up" else (200, 0, 200)
        cv2.rectangle(img, (x1, y1), (x2, y2), colour, 2)
        label = d.tile if d.face == "up" else "down"
        if label:
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
            cv2.rectangle(img, (x1, y1 - th - 4), (x1 + tw + 2, y1), colour, -1)
            cv2.putText(img, label, (x1 + 1, y1 - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    return img
