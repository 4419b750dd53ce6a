"""The box refiner (``TileModel.refine``): each detector box redrawn from the frame's own pixels around it.

The frames are rendered here (an overhead 720p camera over 60 tiles laid out in rows), so the true box of every
tile is known; the refiner was trained on other renders (datasets/refiner_train.py).
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from datasets.synth.layout import grid_scene, overhead_camera
from datasets.synth.scene import render
from engine.tiles import TILES
from models import MODELS_DIR
from vision.boxes import iou_matrix, paired_iou
from vision.tile_model import CLASSIFIER_FILE, DETECTOR_FILE, REFINER_FILE, SETTINGS_FILE, TileModel


@pytest.fixture(scope="module")
def model() -> TileModel:
    return TileModel.load()


@pytest.fixture(scope="module")
def unrefined() -> TileModel:
    """The shipped models without the refiner: the detector's own boxes."""
    return TileModel.load(refine=False)


@pytest.fixture(scope="module")
def layout() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    scene = grid_scene([TILES[int(rng.integers(len(TILES)))] for _ in range(60)], 3, rng, cols=12)
    frame, labels = render(scene, overhead_camera(), rng)
    return frame, np.array([lab.box for lab in labels], np.float32)


def test_the_refiner_ships_beside_the_detector():
    assert (MODELS_DIR / REFINER_FILE).exists()


def test_without_a_refiner_boxes_are_left_as_they_are(unrefined, layout, tmp_path):
    frame, truth = layout
    assert np.array_equal(unrefined.refine(frame, truth), truth)
    # a folder with a detector of its own (a training candidate) does not borrow the shipped refiner
    for name in (DETECTOR_FILE, CLASSIFIER_FILE, SETTINGS_FILE):
        shutil.copy(MODELS_DIR / name, tmp_path / name)
    assert np.array_equal(TileModel.load(tmp_path).refine(frame, truth), truth)


def test_detected_boxes_fit_their_tiles_closer_once_refined(model, unrefined, layout):
    """The same detector's boxes for the same frame, as detected and refined: the refiner only moves them (same
    count, faces and scores), and they fit their tiles far closer."""
    frame, truth = layout
    raw, refined = unrefined.frame_boxes(frame), model.frame_boxes(frame)
    assert len(truth) == 60
    assert np.array_equal(raw[1], refined[1]) and np.allclose(raw[2], refined[2])
    fit_raw = iou_matrix(truth, raw[0]).max(axis=1)
    fit_refined = iou_matrix(truth, refined[0]).max(axis=1)
    assert (fit_refined >= 0.5).sum() >= (fit_raw >= 0.5).sum()
    # measured: median IoU 0.84 -> 0.91, boxes at IoU 0.9 or more 9 -> 39 of 60
    assert np.median(fit_refined) >= np.median(fit_raw) + 0.05, (np.median(fit_raw), np.median(fit_refined))
    assert (fit_refined >= 0.9).mean() >= max(0.4, 2 * (fit_raw >= 0.9).mean())


def test_boxes_off_by_a_seventh_of_a_tile_are_drawn_back_onto_their_tiles(model, layout):
    """Boxes shifted and resized by up to 15 % of a tile, every way (twice the detector's usual error): the refiner
    finds each tile's edges again (measured: mean IoU 0.67 -> 0.88, every box closer), and a box's answer does not
    depend on the other boxes in the batch (here 120, past the kept buffer)."""
    frame, truth = layout
    k = np.arange(len(truth))
    w, h = truth[:, 2] - truth[:, 0], truth[:, 3] - truth[:, 1]
    dx, dy, grow = 0.15 * np.cos(k * 2.4), 0.15 * np.sin(k * 2.4), 1 + 0.15 * np.cos(k * 1.7)
    cx, cy = (truth[:, 0] + truth[:, 2]) / 2 + dx * w, (truth[:, 1] + truth[:, 3]) / 2 + dy * h
    off = np.column_stack([cx - w * grow / 2, cy - h * grow / 2, cx + w * grow / 2, cy + h * grow / 2])
    refined = model.refine(frame, off)
    before, after = paired_iou(off, truth), paired_iou(refined, truth)
    assert after.mean() >= 0.85 and after.mean() >= before.mean() + 0.15, (before.mean(), after.mean())
    assert (after > before).mean() >= 0.95
    both = model.refine(frame, np.vstack([off, truth]))
    assert np.allclose(both[:len(off)], refined, atol=0.05)
