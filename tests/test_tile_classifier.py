"""vision.tile_classifier through the shipped model: batches of crops of any size, the second look at unsure crops."""

from __future__ import annotations

import numpy as np
import pytest

from vision.tile_classifier import (
    CLASSES,
    CROP_ZOOMS,
    NO_FACE_OVERRULED_AT,
    SECOND_LOOK,
    crop_square,
    sure_as_one_crop,
)
from vision.tile_model import Prototypes


def test_classify_is_batched_and_accepts_any_crop_size(model, frame, truth):
    ups = [t for t in truth["tiles"] if t["face"] == "up"]
    crops = [crop_square(frame, tuple(t["box"]), size) for t, size in zip(ups, [48, 64, 30] * 20, strict=False)]
    reads = model.classify(crops)
    assert len(reads) == len(crops) and all(c in CLASSES and 0 <= s <= 1 for c, s in reads)
    assert sum(c == t["code"] for (c, _), t in zip(reads, ups, strict=False)) >= 0.8 * len(ups)
    assert model.classify([]) == []
    blank = np.full((48, 48, 3), (40, 120, 40), np.uint8)  # bare felt
    assert model.classify([blank])[0][0] == "none"


def test_an_unsure_crop_is_read_in_four_quarter_turns_and_a_sure_one_once(model, frame, truth):
    """Tiles lie at any angle and the classifier's views of one err apart: a crop read less surely than
    SECOND_LOOK is read in all four quarter turns and the readings averaged; a sure crop keeps its one reading."""
    ups = [t for t in truth["tiles"] if t["face"] == "up"]
    crops = np.stack([crop_square(frame, tuple(t["box"])) for t in ups])
    # Two tiles blended half and half: crops no classifier reads surely.
    blends = ((crops.astype(np.uint16) + np.roll(crops, 1, axis=0)) // 2).astype(np.uint8)
    batch = np.concatenate([crops, blends])
    once = model.classifier.one_pass(batch)[0].copy()
    unsure = once.max(axis=1) < SECOND_LOOK
    assert unsure.any() and (~unsure).any()
    probs, emb = model.classifier.probabilities(batch.copy())
    turns = [model.classifier.one_pass(np.ascontiguousarray(np.rot90(batch, k, axes=(1, 2))))[0].copy()
             for k in range(4)]
    np.testing.assert_allclose(probs[unsure], np.mean(turns, axis=0)[unsure], atol=1e-5)
    np.testing.assert_allclose(probs[~unsure], once[~unsure], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-4)


def test_a_box_is_read_from_crops_at_every_zoom_in_one_batch_and_the_readings_averaged(model, frame, truth,
                                                                                        monkeypatch):
    """A box cut tight or loose misleads one crop: its face is the mean of the crops at CROP_ZOOMS, and the crop
    kept for an enrolled set's second look is the one at the usual margin."""
    boxes = np.array([t["box"] for t in truth["tiles"] if t["face"] == "up"][:5], np.float32)
    batches = []
    real = model.classifier.probabilities

    def recorded(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        batches.append(len(crops))
        return real(crops)

    monkeypatch.setattr(model.classifier, "probabilities", recorded)
    probs, emb, usual = model.classifier.read_boxes(frame, boxes)
    assert batches == [len(CROP_ZOOMS) * len(boxes)]
    each = [real(np.stack([crop_square(frame, tuple(b), extra=z) for b in boxes])) for z in CROP_ZOOMS]
    np.testing.assert_allclose(probs, np.mean([p for p, _ in each], axis=0), atol=1e-5)
    assert not np.allclose(each[0][0], each[-1][0], atol=1e-3)     # the zooms do read differently
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-4)
    np.testing.assert_array_equal(usual, np.stack([crop_square(frame, tuple(b)) for b in boxes]))


def test_the_mean_of_three_crops_is_made_as_sure_as_one_crop_without_changing_its_order():
    mean = np.array([[0.6, 0.3, 0.1], [0.34, 0.33, 0.33], [1.0, 0.0, 0.0]], np.float32)
    sure = sure_as_one_crop(mean)
    np.testing.assert_allclose(sure.sum(axis=1), 1.0, rtol=1e-6)
    assert (sure.argmax(axis=1) == mean.argmax(axis=1)).all()
    assert sure[0, 0] > 0.6 and sure[1, 0] > 0.34 and sure[2, 0] == pytest.approx(1.0)


def test_the_shipped_classifier_reads_every_class_including_a_tiles_back(model):
    """The shipped file has the back class: 36 kinds, "none" and "back", probabilities summing to one."""
    probs, emb = model.classifier.probabilities(np.full((2, 48, 48, 3), 120, np.uint8))
    assert probs.shape == (2, len(CLASSES)) == (2, 38) and CLASSES[-2:] == ("none", "back")
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-4) and emb.shape[0] == 2


def test_an_enrolled_set_overrules_no_face_only_with_a_tile_very_like_it_and_no_tile_only_when_unsure(model):
    """A set enrols faces only: a crop the shipped model reads as a back, or unsurely as no tile, stays so unless
    the set has a tile as near as its own tiles are to each other (a plain Soap; the set's own Joker, which may
    look like nothing the shipped model knows), while any face is read as the set's nearest tile. A sure "not a
    tile" stays, however near."""
    index = {c: i for i, c in enumerate(CLASSES)}
    protos = Prototypes(np.eye(2, 128, dtype=np.float32), ["J", "WD"])
    reads = [("back", 0.6, 0, 0.72), ("back", 0.6, 1, NO_FACE_OVERRULED_AT + 0.05), ("back", 0.95, 1, 0.99),
             ("none", 0.6, 0, 0.72), ("none", 0.6, 0, NO_FACE_OVERRULED_AT + 0.05), ("none", 0.95, 0, 0.99),
             ("5D", 0.6, 0, 0.6), ("5D", 0.6, 0, 0.3)]
    probs = np.full((len(reads), len(CLASSES)), 0.001, np.float32)
    for i, (code, p, _, _) in enumerate(reads):
        probs[i, index[code]] = p
    emb = np.stack([_at_similarity(k, sim) for _, _, k, sim in reads])
    got = model.classifier.codes(probs, emb, protos)
    assert [c for c, _ in got] == ["back", "WD", "WD", "none", "J", "none", "J", "5D"]
    # a read the set overrules scores its similarity; one it keeps, the shipped model's probability
    assert [s for _, s in got] == pytest.approx([0.6, NO_FACE_OVERRULED_AT + 0.05, 0.99, 0.6,
                                                 NO_FACE_OVERRULED_AT + 0.05, 0.95, 0.6, 0.6])
    assert [c for c, _ in model.classifier.codes(probs, emb, None)] == [r[0] for r in reads]
    protos.min_similarity = 0.95         # a stricter set: nothing under it overrules, a back included
    assert [c for c, _ in model.classifier.codes(probs, emb, protos)] == ["back", "back", "WD", "none", "none",
                                                                          "none", "5D", "5D"]


def _at_similarity(k: int, sim: float) -> np.ndarray:
    """A unit embedding at cosine similarity ``sim`` to the k-th unit axis (the k-th prototype above)."""
    v = np.zeros(128, np.float32)
    v[k], v[5] = sim, np.sqrt(1 - sim ** 2)
    return v


def test_a_crop_an_enrolled_set_is_unsure_of_is_read_again_in_its_four_turns(model, frame, truth):
    """A set's two nearest kinds within SET_SECOND_LOOK of each other: the crop is embedded again in its four
    quarter turns, averaged, and read by that (a framed Soap's turn lying near a 3 Dot's). A crop the set is sure
    of, and embeddings that are not the last batch's own, keep their one reading."""
    from vision.tile_classifier import SET_SECOND_LOOK

    ups = [t for t in truth["tiles"] if t["face"] == "up"]
    crops = np.stack([crop_square(frame, tuple(t["box"])) for t in ups])
    probs, emb = model.classifier.probabilities(crops.copy())
    sure = int(np.argmax(probs.max(axis=1)))          # read surely: its embedding is of the crop as it is
    assert probs[sure].max() >= SECOND_LOOK
    one = emb[sure]
    turned = np.stack([model.classifier.one_pass(np.ascontiguousarray(np.rot90(crops[sure:sure + 1], k,
                                                                                axes=(1, 2))))[1][0]
                       for k in range(4)]).sum(axis=0)
    turned /= np.linalg.norm(turned)
    # "3D" sits a little nearer the crop as it is than "WD" does, "WD" is the crop in its four turns
    for w in np.linspace(0.05, 0.95, 19):
        near = w * one + (1 - w) * turned
        near /= np.linalg.norm(near)
        margin = float(one @ near - one @ turned)
        if 0 < margin < SET_SECOND_LOOK and float(turned @ turned) > float(turned @ near):
            break
    else:
        pytest.skip("this crop reads the same in every turn")
    protos = Prototypes(np.stack([near, turned]), ["3D", "WD"], min_similarity=0.0)
    crop = crops[sure:sure + 1].copy()
    probs1, emb1 = model.classifier.probabilities(crop)
    assert [c for c, _ in model.classifier.codes(probs1, emb1, protos, crop)] == ["WD"]
    assert [c for c, _ in model.classifier.codes(probs1, emb1, protos)] == ["3D"]   # no crops: no second look
    sure_set = Prototypes(np.stack([one, -turned]), ["3D", "WD"], min_similarity=0.0)
    assert [c for c, _ in model.classifier.codes(probs1, emb1, sure_set, crop)] == ["3D"]
