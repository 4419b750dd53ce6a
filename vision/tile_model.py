"""Find tiles in an image (a camera frame or a photo, one path for both) and read their faces, with onnxruntime
only.

Two models (see models/README.md): a detector that boxes every tile and says face up or face down
(vision.tile_detector), and a crop classifier over the 36 tile kinds plus "not a tile" and "a tile's back" that
reads each face-up box (vision.tile_classifier). The classifier also gives an embedding; a user's own set
(``mahj setup tiles``) stores prototypes of its own tiles in that space, and a model loaded from the set's folder
reads with them. Which size an image is read at is vision.tile_sizes'.

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

from models import MODELS_DIR
from vision import mirror_reading, tile_sizes
from vision.onnx_session import TileModelError
from vision.prototypes import PROTOTYPES_FILE, SET_FILE, Prototypes
from vision.tile_classifier import (
    BACK,
    CLASSES,
    CLASSIFIER_SIZE,
    CROP_ZOOMS,
    NO_FACE,
    NOT_A_TILE,
    TileClassifier,
    crop_square,
    sure_as_one_crop,
)
from vision.tile_detector import FACES, Reading, TileDetector
from vision.tile_sizes import TOPDOWN_PX_PER_MM
from vision.tracker import ALTS

__all__ = ["BACK", "CLASSES", "CLASSIFIER_FILE", "CLASSIFIER_SIZE", "DETECTOR_FILE", "FACES", "MODELS_DIR",
           "NOT_A_TILE", "NO_FACE", "PROTOTYPES_FILE", "SET_FILE", "SETTINGS_FILE", "TOPDOWN_PX_PER_MM", "Detection",
           "Prototypes", "Reading",
           "StaleSetError", "TileModel", "TileModelError", "check_image", "classifier_id", "crop_square",
           "draw_overlay", "sets_dir"]

DETECTOR_FILE = "tile_detector.onnx"
CLASSIFIER_FILE = "tile_classifier.onnx"
#: Thresholds chosen on the validation split at export time (see datasets/train.py tune_thresholds).
SETTINGS_FILE = "tile_model.json"


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


class TileModel:
    """The detector + classifier pair (and optionally an enrolled set), ready to run on frames."""

    def __init__(self, detector: Path, classifier: Path, prototypes: Prototypes | None = None, threads: int = 2,
                 conf: float = 0.35, iou: float = 0.5, up_conf: float = 0.35,
                 view_conf: tuple[float, float] | None = None,
                 closeup_conf: tuple[float, float] | None = None,
                 reader_conf: tuple[float, float] | None = None) -> None:
        self.detector = TileDetector(detector, threads, iou)
        self.classifier = TileClassifier(classifier, threads)
        self.fixed = self.detector.fixed
        self.prototypes = prototypes
        self.classifier_id = classifier_id(classifier)
        self.conf, self.up_conf = conf, up_conf
        #: (face up, face down) score thresholds for top-down views at TOPDOWN_PX_PER_MM (the set-up mat's),
        #: tuned on rendered top-down crops apart from whole frames
        self.view_conf = view_conf
        #: and for the table reader's views (vision.region_reading), chosen on real tables; else ``view_conf``
        self.reader_conf = reader_conf or view_conf
        #: and for close-up photos (``frame_boxes``), tuned on rendered close-ups; the whole-frame ones if absent
        self.closeup_conf = closeup_conf or (up_conf, conf)

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
                    view_conf=pair("topdown"), closeup_conf=pair("closeup"), reader_conf=pair("reader"))
        if protos is not None and protos.classifier != model.classifier_id:
            raise StaleSetError(f"{folder}: learned with another classifier than {clf} (the model was updated "
                                "since); `mahj watch` and `mahj detect --set` remake it from its own tiles")
        return model

    def input_shape(self, h: int, w: int, native: bool = False) -> tuple[int, int]:
        """The detector's input (height, width) for an h x w frame (vision.tile_detector)."""
        return self.detector.input_shape(h, w, native)

    def boxes(self, frame: np.ndarray, native: bool = False, conf: tuple[float, float] | None = None,
              window: tuple[int, int, int, int] | None = None) -> Reading:
        """One detector reading at one size: (boxes xyxy in frame px, face class ids, scores) after NMS; ``conf``:
        (face up, face down) score thresholds instead of the whole-frame ones; ``window``: only that part of the
        frame read, as the whole reading reads it (TileDetector.boxes)."""
        return self.detector.boxes(frame, conf or (self.up_conf, self.conf), native, window)

    def slice_boxes(self, image: np.ndarray, conf: tuple[float, float] | None = None) -> Reading:
        """A reading of a large image at its own scale in overlapping slices, in one batch
        (TileDetector.slice_boxes), down to ``conf`` (the whole-frame thresholds if None)."""
        return self.detector.slice_boxes(image, tile_sizes.SLICE_PX, tile_sizes.SLICE_OVERLAP_PX,
                                         conf or (self.up_conf, self.conf))

    def classify(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """Read square BGR crops (any size; resized to the classifier's input) in one batch.

        Returns (code, "none" or "back", score) for each crop.
        """
        if not crops:
            return []
        batch = self.classifier.batch(crops)
        probs, emb = self.classifier.probabilities(batch)
        return self.classifier.codes(probs, emb, self.prototypes, batch)

    def kind_probability(self, frame: np.ndarray, boxes: list[tuple[float, float, float, float]],
                         code: str) -> np.ndarray:
        """The classifier's calibrated probability that each box of ``frame`` shows a ``code`` tile. For boxes the
        reading left face down: a plain Soap is a blank white face, close to a tile's back, and a rack photo asks
        about one rather than losing it (assistant.rack_doubt.SOAP_ASKED_AT)."""
        if not boxes:
            return np.zeros(0, np.float32)
        probs = self.classifier.read_boxes(frame, np.asarray(boxes, np.float32))[0]
        return sure_as_one_crop(probs)[:, CLASSES.index(code)]

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """L2-normalised embeddings of CLASSIFIER_SIZE square crops (N, S, S, 3): what enrolment stores."""
        return self.classifier.probabilities(crops)[1]

    # ---------------------------------------------------------------------------------------------------- both
    def detect(self, frame_bgr: np.ndarray, photo: bool = False) -> list[Detection]:
        """Every tile in a BGR frame: box, face, and for face-up tiles the code the classifier reads. ``photo``: a
        still photo whose reader can wait (``mahj detect``, a rack photo), read as it is and mirrored unless it
        is a whole table (``vision.mirror_reading``, about twice the time), not a camera frame."""
        check_image(frame_bgr)
        boxes = mirror_reading.photo_boxes(self, frame_bgr) if photo else self.frame_boxes(frame_bgr)
        return self.read_faces(frame_bgr, *boxes, up_conf=self.up_conf)

    def frame_boxes(self, frame_bgr: np.ndarray, conf: tuple[float, float] | None = None) -> Reading:
        """The tiles' boxes in an image, read at the size that suits them (vision.tile_sizes.frame_boxes), down
        to ``conf`` (the thresholds for whole frames, or for close-ups, if None)."""
        return tile_sizes.frame_boxes(self, frame_bgr, conf)

    def detect_view(self, view: np.ndarray, frame: np.ndarray, view_to_frame: np.ndarray,
                    conf: tuple[float, float] | None = None) -> list[Detection]:
        """Tiles found in a top-down ``view`` of the table (detected at its own scale, not rescaled), with boxes
        mapped back into ``frame`` by the 3x3 ``view_to_frame`` and faces read from the frame, whose pixels are
        the camera's own (the view is resampled). Down to ``conf``, by default the table reader's thresholds;
        the set-up mat's views at TOPDOWN_PX_PER_MM pass ``view_conf``."""
        check_image(view)
        vb, cls, scores = self.boxes(view, native=True, conf=conf or self.reader_conf)
        if len(vb):
            corners = vb[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 1, 2).astype(np.float64)
            fc = cv2.perspectiveTransform(corners, view_to_frame).reshape(-1, 4, 2)
            h, w = frame.shape[:2]
            vb = np.clip(np.column_stack([fc.min(axis=1), fc.max(axis=1)]), 0, [w, h, w, h])
        return self.read_faces(frame, vb, cls, scores)

    def read_faces(self, frame: np.ndarray, boxes: np.ndarray, cls: np.ndarray, scores: np.ndarray,
                   up_conf: float | None = None) -> list[Detection]:
        """Detections for these boxes, the face-up ones read by the classifier in one batch.

        A face-up box the classifier reads as "not a tile" is dropped: on real photos the detector boxes book
        spines, LED digits and fingers that the classifier, which learnt "not a tile" from real backgrounds,
        knows are none (held-out real photos, bench/eval_real.py: unseen sets' precision 0.833 -> 0.876,
        recall 0.932 -> 0.930; seen sets' precision 0.985 -> 0.988). One it reads as a tile's back is a tile
        face down: the detector boxes some backs (a wall's, a rack's) as face up, and they must stay on the
        table.

        With ``up_conf`` (whole images: ``detect``), a face-up tile is scored by the detector's score times the
        classifier's probability that the box holds a tile's face (``face_probability``) and dropped under
        ``up_conf``: the detector finds, the classifier vouches. A spine the classifier reads as a Bam at 0.5
        with "not a tile" at 0.4 no longer passes on the detector's word alone (leave one source out, the
        bookshelf source never trained on: precision 0.830 -> 0.861 at the same recall; models/README.md). The
        table reader's top-down views keep the detector's score: their threshold was chosen on real tables. A
        whole image's faces are read from three crops each (CROP_ZOOMS), a view's from one."""
        up = np.nonzero(cls == 0)[0]
        reads: dict[int, tuple[str, float, tuple[str, ...], float]] = {}
        if len(up):
            zooms = CROP_ZOOMS if up_conf is not None else (1.0,)
            probs, emb, crops = self.classifier.read_boxes(frame, boxes[up], zooms)
            kinds = sure_as_one_crop(probs) if len(zooms) > 1 else probs
            likeliest = np.argsort(-kinds, axis=1)[:, :ALTS + 2]   # two more: "none" and "back" may be among them
            codes = self.classifier.codes(kinds, emb, self.prototypes, crops)
            faces = face_probability(probs, [c for c, _ in codes])
            for k, (i, (code, s)) in enumerate(zip(up.tolist(), codes, strict=True)):
                ranked = [code] + [CLASSES[c] for c in likeliest[k]]
                reads[i] = code, s, tuple(dict.fromkeys(c for c in ranked if c not in NO_FACE))[:ALTS], faces[k]
        out = []
        for i in range(len(boxes)):
            box = tuple(float(v) for v in boxes[i])
            if cls[i] == 0:
                code, s, alts, face = reads[i]
                score = float(scores[i]) if up_conf is None else float(scores[i] * face)
                if code == "back":
                    out.append(Detection(box, "down", None, float(scores[i]), None))
                elif code != "none" and (up_conf is None or score >= up_conf):
                    out.append(Detection(box, "up", code, score, s, alts))
            else:
                out.append(Detection(box, "down", None, float(scores[i]), None))
        return out


def face_probability(probs: np.ndarray, codes: list[str]) -> np.ndarray:
    """For each crop, the classifier's probability that it shows a tile's face: one less "not a tile" and "back".
    Where an enrolled set read as its own tile a crop the classifier called no face (a plain Soap it takes for a
    back), the set vouches for it: 1."""
    face = np.clip(1.0 - probs[:, NOT_A_TILE:].sum(axis=1), 0.0, 1.0)
    overruled = (probs.argmax(axis=1) >= NOT_A_TILE) & np.array([c not in NO_FACE for c in codes], bool)
    return np.where(overruled, 1.0, face)


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
