"""Photos out of shape (vision.photo, ``mahj detect --stretched``): a photo stretched one way is read at the aspect
ratio that suits it; every other image is read with square pixels."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from tile_model_kit import iou as _iou

from assistant.cli import main
from datasets.synth.layout import closeup_camera, grid_scene
from datasets.synth.scene import render
from engine.tiles import TILES
from vision.photo import MIN_SIDE_PX, PHOTO_STRETCHES, SURETY_TILES, photo_scales, read_photo, surety
from vision.tile_model import TileModel

STRETCH = 6.0   # as the haitaks screenshots of a row of tiles: blown up 7-14x one way by a square export


@pytest.fixture(scope="module")
def model() -> TileModel:
    return TileModel.load()


def _row_photo(seed: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A rendered close-up phone photo of seven tiles in a row: (image, true boxes, codes)."""
    rng = np.random.default_rng([7, seed])
    scene = grid_scene([TILES[i] for i in rng.choice(len(TILES), 7, replace=False)], 3, rng, cols=7)
    for _ in range(50):     # a framing that shows every tile
        img, labels = render(scene, closeup_camera(rng, scene, 512, 384), None)
        if len(labels) == len(scene.tiles):
            break
    return img, np.array([lb.box for lb in labels]), [lb.code for lb in labels]


@pytest.fixture(scope="module", params=["wide", "tall"])
def stretched(request) -> tuple[np.ndarray, np.ndarray, list[str], tuple[float, float]]:
    """A row photo stretched STRETCH times across (``wide``) or up and down, with its true boxes so stretched."""
    img, boxes, codes = _row_photo(0 if request.param == "wide" else 1)
    f = (STRETCH, 1.0) if request.param == "wide" else (1.0, STRETCH)
    out = cv2.resize(img, None, fx=f[0], fy=f[1], interpolation=cv2.INTER_LINEAR)
    return out, boxes * [f[0], f[1], f[0], f[1]], codes, f


def _found(boxes: list[tuple[float, ...]], truth: np.ndarray) -> list[int | None]:
    """For each true box, the index of the detected box over it at IoU 0.5 (None if none)."""
    out = []
    for t in truth:
        ious = [_iou(b, t) for b in boxes]
        k = int(np.argmax(ious)) if ious else -1
        out.append(k if k >= 0 and ious[k] >= 0.5 else None)
    return out


def test_a_stretched_photo_is_read_squeezed_back_and_its_tiles_found_in_its_own_pixels(model, stretched):
    img, truth, codes, f = stretched
    # read as it is, nothing in it is tile-shaped: the detector finds next to none of the tiles
    plain = _found([d.box for d in model.detect(img)], truth)
    assert sum(k is not None for k in plain) <= len(truth) // 2
    reading = read_photo(model, img)
    # squeezed along the stretched side, by about the stretch, the other side left alone
    squeeze = 1 / min(reading.scale)
    assert max(reading.scale) == 1.0 and STRETCH / 1.5 <= squeeze <= STRETCH * 1.5
    assert (reading.scale[0] < 1) == (f[0] > 1)
    assert reading.image.shape[:2] == (round(img.shape[0] * reading.scale[1]), round(img.shape[1] * reading.scale[0]))
    dets = reading.detections
    found = _found([d.box for d in dets], truth)         # boxes in the photo's own pixels
    assert all(k is not None for k in found), found
    assert len(dets) <= len(truth) + 1
    # read from the photo at the aspect it was read at, the faces come out right (all 7 here; floor 5)
    assert sum(dets[k].tile == c for k, c in zip(found, codes, strict=True)) >= 5
    x1, y1, x2, y2 = reading.in_image(dets[0])
    assert x2 <= reading.image.shape[1] + 1 and y2 <= reading.image.shape[0] + 1


def test_a_photo_in_shape_is_read_as_well_as_detect_reads_it(model):
    img, truth, _codes = _row_photo(2)
    assert all(k is not None for k in _found([d.box for d in model.detect(img)], truth))
    reading = read_photo(model, img)
    assert all(k is not None for k in _found([d.box for d in reading.detections], truth))
    assert len(reading.detections) <= len(truth) + 1


def test_surety_is_the_mean_of_the_surest_few_and_needs_two_boxes():
    assert surety(np.array([])) == 0.0 and surety(np.array([0.99])) == 0.0
    assert surety(np.array([0.5, 0.9])) == pytest.approx(0.7)
    many = np.array([0.9] * SURETY_TILES + [0.1] * 30)          # many unsure boxes do not drown the sure ones
    assert surety(many) == pytest.approx(0.9)
    assert surety(np.array([0.6] * 40)) < surety(np.array([0.8] * 3))


def test_photo_scales_start_as_is_and_skip_sides_squeezed_to_nothing(model):
    scales = photo_scales(640, 640)
    assert scales[0] == (1.0, 1.0) and len(scales) == 1 + 2 * len(PHOTO_STRETCHES)
    assert {min(s) for s in scales[1:]} == {1 / f for f in PHOTO_STRETCHES}
    narrow = photo_scales(60, 640)                               # a strip 60 px wide: its width can't shrink much
    assert all(60 * sx >= MIN_SIDE_PX for sx, _ in narrow) and (1.0, 1 / 16) in narrow
    assert photo_scales(20, 20) == [(1.0, 1.0)]
    tiny = np.zeros((20, 20, 3), np.uint8)
    assert read_photo(model, tiny).detections == []


def test_detect_cli_reads_square_pixels_unless_told_the_photo_is_stretched(tmp_path, capsys, stretched):
    img, truth, _codes, f = stretched
    path = tmp_path / "stretched.png"
    cv2.imwrite(str(path), img)
    assert main(["detect", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["read_scale"] == [1.0, 1.0]
    assert main(["detect", str(path), "--json", "--stretched"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["read_scale"][0] < 1) == (f[0] > 1) and max(doc["read_scale"]) == 1.0
    assert all(k is not None for k in _found([t["box"] for t in doc["tiles"]], truth))
    assert main(["detect", str(path), "--stretched"]) == 0
    assert "the photo looks stretched" in capsys.readouterr().out
