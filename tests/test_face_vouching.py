"""A face-up tile in a whole image stands on the detector's score times the classifier's word that it is a face
(``TileModel.read_faces`` with ``up_conf``; ``face_probability``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.tile_classifier import CROP_ZOOMS, sure_as_one_crop
from vision.tile_model import BACK, CLASSES, NOT_A_TILE, TileModel, face_probability

UP_CONF = 0.425


def probs_row(**p: float) -> np.ndarray:
    """One row of classifier probabilities; ``none`` and ``back`` by name, tile kinds by code (``_3C`` for 3C)."""
    row = np.zeros(len(CLASSES), np.float32)
    for name, v in p.items():
        row[CLASSES.index(name.lstrip("_"))] = v
    row[NOT_A_TILE - 1] += 1.0 - row.sum()     # what is left goes to the last tile kind, never to "no face"
    return row


#: (detector's face class, its score, what the classifier says)
BOXES = [(0, 0.80, probs_row(_9B=0.55, none=0.40)),            # a tile the classifier half doubts: 0.80 x 0.60
         (0, 0.60, probs_row(_9B=0.50, none=0.45)),            # a book spine: 0.60 x 0.55 = 0.33, dropped
         (0, 0.50, probs_row(_3C=0.50, _5C=0.45, none=0.05)),  # sure it is a tile, unsure which: 0.50 x 0.95
         (1, 0.90, probs_row(back=1.0))]                       # face down: the detector's score


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> TileModel:
    model = TileModel.load()
    rows = np.stack([p for cls, _, p in BOXES if cls == 0])
    model.zooms_asked = []

    def read_boxes(frame: np.ndarray, boxes: np.ndarray, zooms: tuple[float, ...]):
        model.zooms_asked.append(zooms)
        return rows[:len(boxes)], np.zeros((len(boxes), 128), np.float32), np.zeros((len(boxes), 48, 48, 3), np.uint8)

    monkeypatch.setattr(model.classifier, "read_boxes", read_boxes)
    return model


def read(model: TileModel, up_conf: float | None):
    boxes = np.array([[10.0 + 40 * i, 10, 40 + 40 * i, 50] for i in range(len(BOXES))], np.float32)
    cls = np.array([c for c, _, _ in BOXES])
    scores = np.array([s for _, s, _ in BOXES], np.float32)
    return model.read_faces(np.zeros((64, 200, 3), np.uint8), boxes, cls, scores, up_conf=up_conf)


def test_a_face_up_box_needs_the_classifier_to_vouch_for_a_face_and_a_doubt_between_kinds_costs_nothing(scripted):
    dets = read(scripted, UP_CONF)
    got = [(d.face, d.tile, round(d.score, 3)) for d in dets]
    assert got == [("up", "9B", 0.48), ("up", "3C", 0.475), ("down", None, 0.9)]
    assert scripted.zooms_asked == [CROP_ZOOMS]     # a whole image: each face read from three crops
    # the kind's score is made as sure as one crop's; what vouches for a face (above) keeps the plain mean
    rows = sure_as_one_crop(np.stack([p for cls, _, p in BOXES if cls == 0]))
    assert [d.tile_score for d in dets[:2]] == pytest.approx([rows[0, CLASSES.index("9B")],
                                                              rows[2, CLASSES.index("3C")]])
    assert rows[0, CLASSES.index("9B")] > 0.55


def test_without_a_threshold_every_box_keeps_the_detectors_score(scripted):
    """The table reader's top-down views: their threshold was chosen on the detector's score alone."""
    got = [(d.face, d.tile, round(d.score, 3)) for d in read(scripted, None)]
    assert got == [("up", "9B", 0.8), ("up", "9B", 0.6), ("up", "3C", 0.5), ("down", None, 0.9)]
    assert scripted.zooms_asked == [(1.0,)]         # a view of the table at a fixed scale: one crop


def test_a_tile_an_enrolled_set_reads_where_the_classifier_saw_no_face_is_vouched_for_by_the_set():
    probs = np.stack([probs_row(back=0.7, _1D=0.2), probs_row(none=0.6, _WD=0.3), probs_row(_2B=0.9, none=0.1)])
    assert probs[0, BACK] == pytest.approx(0.7)
    face = face_probability(probs, ["WD", "none", "2B"])   # the set read the first "back" as its plain Soap
    assert face == pytest.approx([1.0, 0.4, 0.9], abs=1e-6)
