"""Find tiles in a camera frame and read their faces, with onnxruntime only.

Two models (see models/README.md): a detector that boxes every tile and says face up or face down, and a crop
classifier over the 36 tile kinds plus "not a tile" that reads each face-up box. The classifier also gives an
embedding; a user's enrolled set (``mahj enroll``) stores prototypes of its own tiles in that space, and a model
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
from vision.boxes import iou_matrix, mostly_inside
from vision.tracker import ALTS

DETECTOR_FILE = "tile_detector.onnx"
#: An optional second detector, trained on close-up photos, that reads the frames ``frame_boxes`` finds to be
#: close-ups (see models/README.md): the table reader keeps the detector chosen on the table.
CLOSEUP_DETECTOR_FILE = "tile_detector_closeup.onnx"
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
#: The box refiner's input: square BGR crops of this size, cut at REFINE_MARGIN x the box's long side, wide
#: enough that a box off by a fifth of a tile still has the tile's edges inside (datasets/refiner_train.py).
REFINER_FILE = "tile_refiner.onnx"
REFINE_SIZE = 48
REFINE_MARGIN = 1.5
#: How many times ``settle`` redraws the boxes ``detect`` keeps, each time from squares centred on the last.
SETTLE_PASSES = 2
#: The detector's boxes down to this score are judged by the refiner (``TileModel.judge``): many face-down
#: tiles score 0.01-0.05 at the detector, and judging from 0.05 lost a quarter of the face-down mAP50 gained on
#: the synthetic validation frames (models/README.md, "The refiner judges the boxes").
JUDGE_FROM = 0.01
#: Walls and racks hold face-down tiles in rows, and the detector misses some outright (at no score at all): one
#: in a wall whose backs match the felt, or half hidden by a rack's edge or an arm. ``look_beside`` lets the
#: refiner judge a box where each row of face-down boxes judged at BESIDE_FROM or more would go on
#: (``row_continuations``: past each box from its BESIDE_NEIGHBOURS nearest within BESIDE_REACH x its long side)
#: and no box overlaps it by BESIDE_FREE yet (models/README.md, "Along the rows; eight views, twice").
BESIDE_FROM = 0.3
BESIDE_NEIGHBOURS = 2
BESIDE_REACH = 1.6
BESIDE_FREE = 0.3
#: The detector is read on the frame and on its mirror images along these axes (0: left-right, 1: upside down),
#: and the refiner judges all their boxes together (``candidate_boxes``). At the low scores it is judged from, the
#: detector misses different tiles in a mirrored frame: on the synthetic validation frames it boxed 96.4 % of the
#: face-down tiles at IoU 0.5 in the frame, 98.6 % with its left-right mirror image too, 99.3 % with all four
#: (models/README.md, "Mirror images").
DETECT_MIRRORS: tuple[tuple[int, ...], ...] = ((), (0,))
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
#: Above this median short side (detector input px) the tiles may be larger than any the detector was trained
#: on (a close-up photo) and it boxes pips and characters instead: the frame is then also read at LARGE_ZOOM of
#: that size and the reading with the larger sum of scores kept. Both were first picked among 3 x 3 values on
#: the held-out haitaks photos (a test set: face-up recall / precision 0.49 / 0.79 at one size, 0.63 / 0.91 with
#: the second look), then checked on data no figure uses, the rendered close-ups' validation split (``generate
#: --view closeup``): with the detector of run 6, face-up mAP50 0.41 at one size, 0.61 with (1.25, 0.6), no
#: other of 9 pairs more than 0.005 better on mAP50-95; with the close-up detector too, LARGE_ZOOM still helps
#: and 1.0 x TYPICAL_TILE_PX scored 0.013 higher, but would hand frames of tiles at the table detector's best
#: size (SMALL_TILE_AIM_PX) to the close-up one (models/README.md, run 11). A zoom aiming the boxes seen at
#: TYPICAL_TILE_PX does worse: those boxes are pips, not tiles.
LARGE_TILE_PX = 1.25 * TYPICAL_TILE_PX
LARGE_ZOOM = 0.6
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


def mirror_boxes(boxes: np.ndarray, axis: int, extent: float) -> np.ndarray:
    """Boxes (x1, y1, x2, y2) found in an image mirrored along ``axis`` (0: left-right, 1: upside down) as they
    lie in the image itself, whose width (axis 0) or height (axis 1) is ``extent``; mirroring twice gives them
    back. Pixel edges, not centres: pixel column 0's left edge, at 0, is the mirror image's right edge, at w."""
    lo, hi = (0, 2) if axis == 0 else (1, 3)
    out = boxes.copy()
    out[:, lo], out[:, hi] = extent - boxes[:, hi], extent - boxes[:, lo]
    return out


def mirror_edges(edges: np.ndarray, axis: int) -> np.ndarray:
    """Refiner edges (N x 4: x1, y1, x2, y2 as fractions of the refining square, from its centre) as they are in
    the same crop mirrored along ``axis`` (0: left-right, 1: upside down); mirroring twice gives them back.

    ``crop_square`` puts the square's centre on pixel size / 2, half a pixel past the middle of the pixels
    (0 .. size - 1), so mirroring the pixels takes a point at fraction f to -f - 1 / size, not to -f. Training
    run 3 and 4 mirrored with -f and the refiner learnt to place every edge half a crop pixel right of and below
    the tile (models/README.md, "Mirrored half a pixel off"): the same as ``mirror_boxes`` with an extent of
    -1 / size."""
    return mirror_boxes(edges, axis, -1 / REFINE_SIZE)


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
                 closeup_conf: tuple[float, float] | None = None, closeup_detector: Path | None = None,
                 refiner: Path | None = None, judged_conf: tuple[float, float] | None = None) -> None:
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
        #: The close-up detector is loaded on the first close-up: a camera at the table never needs it.
        self._closeup_path = closeup_detector
        self._closeup_det: ort.InferenceSession | None = None
        self._ref = self._session(refiner) if refiner is not None else None
        self._ref_name = self._ref.get_inputs()[0].name if self._ref is not None else ""
        self._ref_crops = np.empty((64, REFINE_SIZE, REFINE_SIZE, 3), np.uint8)
        self._ref_in = np.empty((64, 3, REFINE_SIZE, REFINE_SIZE), np.float32)
        inp = self._det.get_inputs()[0]
        self._det_name = inp.name       # both detectors are exported alike (datasets/train.py export)
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
        #: and for the scores the box refiner gives (``judge``), which replace the detector's where it is shipped
        self.judged_conf = judged_conf or (0.5, 0.5)

    def _session(self, path: Path) -> ort.InferenceSession:
        try:
            return ort.InferenceSession(str(path), self._opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises several unrelated types for a bad file
            raise TileModelError(f"cannot load tile model {path}: {exc}") from exc

    def _detector(self, closeup: bool) -> ort.InferenceSession:
        """The detector for a frame: the close-up one where asked and shipped, else the main one."""
        if not closeup or self._closeup_path is None:
            return self._det
        if self._closeup_det is None:
            self._closeup_det = self._session(self._closeup_path)
        return self._closeup_det

    @classmethod
    def load(cls, path: str | Path | None = None, threads: int = 2, refine: bool = True) -> TileModel:
        """The shipped models (``None``), a folder holding both ONNX files, or an enrolled set's folder.

        ``refine=False`` leaves the box refiner out: the detector's own boxes, which the refiner learns to mend.

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
        closeup, refiner = det.with_name(CLOSEUP_DETECTOR_FILE), det.with_name(REFINER_FILE)
        model = cls(det, clf, protos, threads=threads, conf=float(th.get("conf_down", 0.35)),
                    up_conf=float(th.get("conf_up", 0.35)), iou=float(th.get("iou", 0.5)),
                    view_conf=pair("topdown"), closeup_conf=pair("closeup"),
                    closeup_detector=closeup if closeup.exists() else None,
                    refiner=refiner if refine and refiner.exists() else None,
                    judged_conf=pair("judged"))
        if protos is not None and protos.classifier != model.classifier_id:
            raise StaleSetError(f"{folder}: enrolled with another classifier than {clf} (the model was updated "
                                f"since); `mahj enroll {folder.name} --apply` remakes it from its own tiles")
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

    def _boxes(self, frame: np.ndarray, native: bool = False, conf: tuple[float, float] | None = None,
               closeup: bool = False) -> Reading:
        """(boxes xyxy in frame px, face class ids, scores) after NMS; ``conf``: (face up, face down) score
        thresholds instead of the whole-frame ones; ``closeup``: by the close-up detector, if shipped."""
        up_conf, down_conf = conf or (self.up_conf, self.conf)
        buf, r, x0, y0 = self._prepare(frame, native)
        out = self._detector(closeup).run(None, {self._det_name: buf})[0][0]  # (4 + 2, N)
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

    def settle(self, frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """The boxes redrawn by the box refiner from the frame's own pixels (unchanged if none is shipped).

        The detector reads a camera frame at about half its size, so its edges are a few frame pixels off; the
        refiner sees each box's square (REFINE_MARGIN x its long side) at full resolution and places the four
        edges there, all boxes in one batch (datasets/refiner_train.py). Each crop is read in the square's eight
        symmetries and the readings' edges averaged, since they err a little differently; then the refiner looks
        again, SETTLE_PASSES times in all, at squares centred on the boxes it drew, which it reads best (it
        learnt from boxes a few pixels off). On the synthetic validation frames mAP50-95 went from 0.822 (four
        mirrored views, one pass) to 0.833 with refiner run 8, for about twice the time (models/README.md,
        "Along the rows; eight views, twice")."""
        return self._settled(frame, boxes)[0]

    def _settled(self, frame: np.ndarray, boxes: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``settle``'s boxes with the last pass's face probabilities and expected fit, each the mean of the
        eight views (None, None without a refiner or boxes)."""
        faces = fit = None
        for _ in range(SETTLE_PASSES):
            boxes, faces, fit = self._second_look(frame, boxes, symmetric=True)
        return boxes, faces, fit

    def judge(self, frame: np.ndarray, boxes: np.ndarray, cls: np.ndarray, scores: np.ndarray
              ) -> tuple[Reading, Reading]:
        """The detector's boxes as the box refiner sees them: redrawn, each face and score decided
        again from the refiner's own reading (``judged_scores``), and boxes that now cover the same tile merged
        (``_merged``): the boxes kept, and the boxes merged away at their lowered scores. Without a refiner the
        boxes come back as they are, none merged away."""
        if self._ref is None or not len(boxes):
            return (boxes, cls, scores), (boxes[:0], cls[:0], scores[:0])
        return self._merged(*self._judged(frame, boxes))

    def look_beside(self, frame: np.ndarray, boxes: np.ndarray, cls: np.ndarray, scores: np.ndarray) -> Reading:
        """Judged boxes with the refiner's reading of boxes proposed where the rows of face-down boxes go on
        (``row_continuations``), merged by NMS: a tile in a row of backs that the detector missed is found from
        its neighbours."""
        if self._ref is None or not len(boxes):
            return boxes, cls, scores
        proposed = mostly_inside(row_continuations(boxes[(cls == 1) & (scores >= BESIDE_FROM)]),
                                 *frame.shape[1::-1])
        if len(proposed):
            proposed = proposed[iou_matrix(proposed, boxes).max(axis=1) < BESIDE_FREE]
        if not len(proposed):
            return boxes, cls, scores
        kept, _ = self._merged(*_joined((boxes, cls, scores), self._judged(frame, proposed.astype(boxes.dtype))))
        return kept

    def _judged(self, frame: np.ndarray, boxes: np.ndarray) -> Reading:
        """The refiner's one-view reading of boxes: redrawn, with the face and score it gives each."""
        boxes, faces, fit = self._second_look(frame, boxes)
        return (boxes, *judged_scores(faces, fit))

    def _merged(self, boxes: np.ndarray, cls: np.ndarray, scores: np.ndarray) -> tuple[Reading, Reading]:
        """Boxes that cover the same tile merged: (the boxes NMS at the model's IoU keeps, surest first; the boxes
        it merges away, each scored times 1 - its largest IoU with a surer kept box, surest first).

        A merge cannot tell a second box on one tile from a partly hidden tile under its neighbour (the lower
        back of a wall's stack overlaps the one on it by more than half), so what it merges away is kept, lower
        (linear soft-NMS, Bodla et al. 2017, the kept boxes left exactly as NMS leaves them). At the model's IoU
        of 0.5 a merged-away box keeps at most half its score, under the judged thresholds (both over 0.5), so
        what ``detect`` returns is unchanged box for box; a ranking that goes further down (mAP) finds hidden
        backs there: synthetic validation face-down mAP50-95 0.839 -> 0.849, on the labels of the time
        (models/README.md, "Merged away, kept lower")."""
        idx = _nms(boxes, scores, self.iou)
        away = np.setdiff1d(np.arange(len(boxes)), idx)
        surer = scores[idx][None, :] >= scores[away][:, None]
        lowered = scores[away] * (1 - (iou_matrix(boxes[away], boxes[idx]) * surer).max(axis=1, initial=0.0))
        rank = np.argsort(-lowered, kind="stable")
        return (boxes[idx], cls[idx], scores[idx]), (boxes[away[rank]], cls[away[rank]],
                                                     lowered[rank].astype(scores.dtype))

    def _second_look(self, frame: np.ndarray, boxes: np.ndarray, symmetric: bool = False
                     ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """One batch of the refiner over the boxes: (boxes redrawn, face probabilities up / down / none, the IoU
        the refiner expects its box to have with the tile); the boxes and None, None without a refiner.
        ``symmetric``: each crop is read in all eight symmetries of the square (as it is, mirrored left-right,
        upside down and both, and the same four transposed), in the same batch, and the edges, faces and fit
        averaged (``settle``)."""
        if self._ref is None or not len(boxes):
            return boxes, None, None
        n = len(boxes)
        views = 8 if symmetric else 1
        if n > len(self._ref_crops):
            self._ref_crops = np.empty((n, REFINE_SIZE, REFINE_SIZE, 3), np.uint8)
        crops = self._ref_crops[:n]
        squares = np.empty((n, 3))
        for i, b in enumerate(boxes):
            squares[i] = square_around(tuple(b), REFINE_MARGIN)
            crop_square(frame, tuple(b), REFINE_SIZE, REFINE_MARGIN / CROP_MARGIN, out=crops[i])
        if n * views > len(self._ref_in):
            self._ref_in = np.empty((n * views, 3, REFINE_SIZE, REFINE_SIZE), np.float32)
        x = self._ref_in[:n * views]
        np.copyto(x[:n], crops.transpose(0, 3, 1, 2))  # NHWC uint8 -> NCHW float, into the kept buffer
        if symmetric:
            np.copyto(x[4 * n:5 * n], x[:n].transpose(0, 1, 3, 2))
            for first in (0, 4 * n):
                v = x[first:first + n]
                np.copyto(x[first + n:first + 2 * n], v[:, :, :, ::-1])
                np.copyto(x[first + 2 * n:first + 3 * n], v[:, :, ::-1])
                np.copyto(x[first + 3 * n:first + 4 * n], v[:, :, ::-1, ::-1])
        edges, faces, fit = self._ref.run(None, {self._ref_name: x})
        if symmetric:
            edges = (_unmirrored(edges[:4 * n]) + _unmirrored(edges[4 * n:])[:, [1, 0, 3, 2]]) / 8
            faces, fit = faces.reshape(8, n, -1).mean(axis=0), fit.reshape(8, n).mean(axis=0)
        cx, cy, side = squares[:, :1], squares[:, 1:2], squares[:, 2:]
        out = np.column_stack([cx + edges[:, 0:1] * side, cy + edges[:, 1:2] * side,
                               cx + edges[:, 2:3] * side, cy + edges[:, 3:4] * side])
        h, w = frame.shape[:2]
        return np.clip(out, 0, [w, h, w, h]).astype(boxes.dtype), faces, fit.reshape(-1)

    # ---------------------------------------------------------------------------------------------- classifier
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
        """The tiles' boxes in a camera frame, read at the size that suits them, then judged by the box refiner.

        The first reading, at DETECTOR_SIDE, measures the tiles. Smaller than SMALL_TILE_PX (a whole table in
        one frame), the frame is read again at the scale that makes them SMALL_TILE_AIM_PX, up to the frame's own
        resolution, and that reading is the answer (slower, but small tiles are otherwise missed, merged or
        boxed loosely). Larger than LARGE_TILE_PX, the frame is a close-up photo: it is read at both sizes, by
        the close-up detector where one is shipped and with the close-up thresholds (``closeup_conf``), and the
        reading with the larger sum of scores kept. Where a box refiner is shipped, every box the detector gives
        down to JUDGE_FROM, in the frame and in its mirror images (``candidate_boxes``), is then redrawn and
        scored again by it (``judge``), and it judges boxes where rows of backs go on (``look_beside``);
        ``conf`` (face up, face down; default ``judged_conf``) applies to those scores and to those of the boxes
        the judging merged away (``_merged``: at most half their score, so only a ``conf`` under 0.5 reaches
        them; the evaluation asks for every box to rank them), the boxes kept are drawn again (``settle``),
        merged once more where two settled onto one tile, and ``conf`` applies once more to their scores from
        that last look; without a refiner, ``conf`` applies to the detector's scores."""
        if self._ref is None:
            return self.detector_boxes(frame_bgr, conf)
        up, down = conf or self.judged_conf
        low = min(JUDGE_FROM, up, down)
        kept, away = self.judge(frame_bgr, *self.candidate_boxes(frame_bgr, (low, low)))
        boxes, cls, scores = _above(_joined(self.look_beside(frame_bgr, *kept), away), (up, down))
        boxes, faces, fit = self._settled(frame_bgr, boxes)
        if faces is None:
            return boxes, cls, scores
        # The settled boxes' own reading scores them again: the geometric mean of the judged score and p(face) x
        # fit from the eight views of the last pass (validation mAP50-95 0.833 -> 0.835). Boxes that settled onto
        # one tile (from the frame and its mirror image, or from two sides of a gap) are merged again, the one
        # merged away kept at its lowered score.
        scores = np.sqrt(scores * faces[np.arange(len(cls)), cls] * fit).astype(scores.dtype)
        return _above(_joined(*self._merged(boxes, cls, scores)), (up, down))

    def candidate_boxes(self, frame_bgr: np.ndarray, conf: tuple[float, float]) -> Reading:
        """``detector_boxes`` of the frame and of its mirror images (DETECT_MIRRORS), mapped back onto the frame
        and put together without merging: what the refiner judges. Each reading chooses its size itself."""
        readings = []
        for axes in DETECT_MIRRORS:
            flipped = np.ascontiguousarray(np.flip(frame_bgr, [1 - a for a in axes])) if axes else frame_bgr
            boxes, cls, scores = self.detector_boxes(flipped, conf)
            for axis in axes:
                boxes = mirror_boxes(boxes, axis, frame_bgr.shape[1 - axis])
            readings.append((boxes, cls, scores))
        return _joined(*readings)

    def detector_boxes(self, frame_bgr: np.ndarray, conf: tuple[float, float] | None = None) -> Reading:
        """``frame_boxes`` before the refiner: the detector's own boxes at the size chosen for the frame, down to
        ``conf`` (the detector's own thresholds for whole frames, or for close-ups, if None). Each reading is made
        once, down to the lower of ``conf`` and the thresholds that choose the size. ``vision.photo`` chooses the
        aspect a photo is read at on these scores, as its rule was chosen."""
        usual = (self.up_conf, self.conf)
        first = self._boxes(frame_bgr, conf=_lowest(usual, conf))
        h, w = frame_bgr.shape[:2]
        r = DETECTOR_SIDE / max(h, w)
        sure = _above(first, usual)[0]
        plan = _other_size(sure, r) if len(sure) and not self._fixed else None
        if plan is None:
            return _above(first, conf or usual)
        zoom, closeup = plan
        other = cv2.resize(frame_bgr, None, fx=zoom * r, fy=zoom * r, interpolation=DOWNSCALE) \
            if zoom * r != 1 else frame_bgr
        scale = w / other.shape[1]
        if not closeup:
            ob, oc, os_ = self._boxes(other, native=True, conf=conf)
            return ob * scale, oc, os_
        low = _lowest(self.closeup_conf, conf)
        same = self._closeup_path is None and self.closeup_conf == usual
        near = first if same else self._boxes(frame_bgr, conf=low, closeup=True)
        ob, oc, os_ = self._boxes(other, native=True, conf=low, closeup=True)
        far = ob * scale, oc, os_
        surer = far if _above(far, self.closeup_conf)[2].sum() > _above(near, self.closeup_conf)[2].sum() else near
        return _above(surer, conf or self.closeup_conf)

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


def _joined(*readings: Reading) -> Reading:
    """One reading of the boxes of several, in their order."""
    boxes, cls, scores = (np.concatenate(parts) for parts in zip(*readings, strict=True))
    return boxes, cls, scores


def _lowest(a: tuple[float, float], b: tuple[float, float] | None) -> tuple[float, float]:
    """The lower of two (face up, face down) threshold pairs, face by face (``a`` if ``b`` is None)."""
    return a if b is None else (min(a[0], b[0]), min(a[1], b[1]))


def _above(reading: Reading, conf: tuple[float, float]) -> Reading:
    """The (boxes, face class ids, scores) of a reading at or above ``conf`` (face up, face down)."""
    boxes, cls, scores = reading
    keep = scores >= np.where(cls == 0, conf[0], conf[1])
    return boxes[keep], cls[keep], scores[keep]


def judged_scores(faces: np.ndarray, fit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Face class ids and scores of boxes the refiner has judged, from its face probabilities (up, down, none)
    and the IoU it expects its box to have with the tile: the likelier face, scored by how likely the box holds a
    tile of that face times how well it will fit it, so that of two boxes on one tile the closer ranks first
    (the fit squared, or the detector's score in the product, came out within 0.003 mAP on the validation frames:
    models/README.md)."""
    cls = (faces[:, 1] > faces[:, 0]).astype(np.int64)
    return cls, faces[np.arange(len(cls)), cls] * fit


def _unmirrored(edges: np.ndarray) -> np.ndarray:
    """The sum of four readings' edges (N crops as they are, then mirrored left-right, upside down and both,
    stacked), each taken back to the crop as it is."""
    n = len(edges) // 4
    return (edges[:n] + mirror_edges(edges[n:2 * n], 0) + mirror_edges(edges[2 * n:3 * n], 1)
            + mirror_edges(mirror_edges(edges[3 * n:], 0), 1))


def row_continuations(boxes: np.ndarray) -> np.ndarray:
    """Boxes where rows go on: each box moved away from each of its BESIDE_NEIGHBOURS nearest boxes (centres
    within BESIDE_REACH x its long side) by as far as that one lies, the far side of a pair. Boxes closer than a
    third of a tile are one tile boxed twice, not a row."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    if len(boxes) < 2:
        return np.zeros((0, 4))
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    side = (boxes[:, 2:] - boxes[:, :2]).max(axis=1)
    d = centres[None] - centres[:, None]                      # d[i, j]: from box i to box j
    dist = np.linalg.norm(d, axis=2)
    dist[dist < side[:, None] / 3] = np.inf                   # itself, or the same tile
    k = min(BESIDE_NEIGHBOURS, len(boxes) - 1)
    i = np.repeat(np.arange(len(boxes)), k)
    j = np.argsort(dist, axis=1)[:, :k].ravel()
    near = dist[i, j] <= BESIDE_REACH * side[i]
    i, j = i[near], j[near]
    return boxes[i] - np.hstack([d[i, j], d[i, j]])


def _other_size(boxes: np.ndarray, r: float) -> tuple[float, bool] | None:
    """Whether ``detect`` reads a frame again at another size, from the first reading's boxes (frame px) and the
    frame-to-input scale ``r``: (zoom relative to the input, keep the surer of the two readings) or None. Small
    tiles are read larger (never past the frame's own resolution) and that reading replaces the first; large
    tiles are read at LARGE_ZOOM and the smaller reading kept only if surer."""
    side = float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) * r
    if side < SMALL_TILE_PX and r < 1:
        return min(1 / r, SMALL_TILE_AIM_PX / max(side, 1.0)), False
    if side > LARGE_TILE_PX:
        return LARGE_ZOOM, True
    return None


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
