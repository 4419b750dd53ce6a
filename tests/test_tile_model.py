"""The shipped tile models through vision.tile_model and `mahj detect`, on a committed fixture.

The fixture (tests/fixtures/tile_model, made by ``python -m datasets.synth.fixture``) is an overhead photo of a
training-style set laid out: 38 tiles face up, 2 face down, with their true boxes and codes.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.cli import main
from datasets.synth.layout import grid_scene, overhead_camera
from datasets.synth.scene import render
from engine.tiles import TILES
from vision.tile_model import (
    CLASSES,
    SECOND_LOOK,
    Detection,
    TileModel,
    TileModelError,
    crop_square,
)

FIXTURE = Path(__file__).parent / "fixtures" / "tile_model"
#: Floors for the shipped model on the bundled recording's first frame (measured, then rounded down; raise them
#: with a better model): face-up tiles found and read right, face-down tiles found, boxes that are no tile.
UP_READ_FLOOR, DOWN_FOUND_FLOOR, EXTRA_BOXES_CEILING = 0.95, 0.9, 0.15


@pytest.fixture(scope="module")
def model() -> TileModel:
    return TileModel.load()


@pytest.fixture(scope="module")
def truth() -> dict:
    return json.loads((FIXTURE / "table.json").read_text())


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    return cv2.imread(str(FIXTURE / "table.jpg"))


def _iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    i = ix * iy
    return i / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i)


def _match(dets: list[Detection], truth: dict) -> list[tuple[dict, Detection | None]]:
    out = []
    for t in truth["tiles"]:
        best = max(dets, key=lambda d: _iou(d.box, t["box"]), default=None)
        out.append((t, best if best is not None and _iou(best.box, t["box"]) >= 0.5 else None))
    return out


def test_detect_finds_and_reads_the_fixture(model, frame, truth):
    dets = model.detect(frame)
    assert all(isinstance(d, Detection) and d.face in ("up", "down") for d in dets)
    for d in dets:
        x1, y1, x2, y2 = d.box
        assert 0 <= x1 < x2 <= frame.shape[1] and 0 <= y1 < y2 <= frame.shape[0]
        assert 0 < d.score <= 1
        # a face-up box is a read tile, scored (one read as "not a tile" is dropped); a face-down one has none
        assert (d.tile is not None and d.tile_score is not None) == (d.face == "up")
    pairs = _match(dets, truth)
    found = [d for _, d in pairs if d is not None]
    # Floors a little under what the shipped models do on this photo (38 of 40 found, 36 with the right face,
    # 33 of 36 read right: models/README.md); raise them with better models.
    assert len(found) >= 0.9 * len(pairs), f"found {len(found)} of {len(pairs)} tiles"
    face_ok = sum(d is not None and d.face == t["face"] for t, d in pairs)
    assert face_ok >= 0.85 * len(pairs)
    ups = [(t, d) for t, d in pairs if t["face"] == "up" and d is not None and d.face == "up"]
    read_ok = sum(d.tile == t["code"] for t, d in ups)
    assert read_ok >= 0.85 * len(ups), f"read {read_ok} of {len(ups)} face-up tiles right"
    # What else each face-up tile may be, likeliest first: the choices a person is offered when the read is unsure.
    # A wrong read usually has the right kind among them (both of the shipped model's two wrong reads here).
    for _t, d in ups:
        assert d.alts[0] == d.tile
        assert len(set(d.alts)) == len(d.alts) <= 3 and "none" not in d.alts
    misread = [(t, d) for t, d in ups if d.tile != t["code"]]
    assert sum(t["code"] in d.alts for t, d in misread) >= len(misread) / 2, misread
    assert len(dets) <= len(pairs) + 3  # no flood of false boxes


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
    once = model._classifier_pass(batch)[0].copy()
    unsure = once.max(axis=1) < SECOND_LOOK
    assert unsure.any() and (~unsure).any()
    probs, emb = model._run_classifier(batch.copy())
    turns = [model._classifier_pass(np.ascontiguousarray(np.rot90(batch, k, axes=(1, 2))))[0].copy()
             for k in range(4)]
    np.testing.assert_allclose(probs[unsure], np.mean(turns, axis=0)[unsure], atol=1e-5)
    np.testing.assert_allclose(probs[~unsure], once[~unsure], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-4)


def test_load_errors_name_the_path(tmp_path):
    with pytest.raises(TileModelError, match="no such model folder"):
        TileModel.load(tmp_path / "nope")
    (tmp_path / "set.json").write_text("{}")
    with pytest.raises(TileModelError, match=str(tmp_path)):
        TileModel.load(tmp_path)


def test_detect_cli_json_and_overlay(tmp_path, capsys, truth):
    out = tmp_path / "overlay.png"
    assert main(["detect", str(FIXTURE / "table.jpg"), "--json", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["width"] == 1280 and doc["height"] == 720
    assert 0.9 * len(truth["tiles"]) <= len(doc["tiles"]) <= len(truth["tiles"]) + 3
    t = doc["tiles"][0]
    assert set(t) == {"box", "face", "tile", "score", "tile_score"} and len(t["box"]) == 4
    overlay = cv2.imread(str(out))
    assert overlay.shape == (720, 1280, 3)
    assert np.abs(overlay.astype(int) - cv2.imread(str(FIXTURE / "table.jpg")).astype(int)).mean() > 0.5


@pytest.fixture(scope="module")
def whole_table() -> tuple:
    """The first frame of the bundled 1080p recording (a whole table), its frame number and its true tiles."""
    from vision.oracle import OracleDetector
    from vision.recording import frames, meta_for

    video = Path(__file__).resolve().parents[1] / "datasets" / "video" / "fixtures" / "demo.mp4"
    frame, idx, _t = next(iter(frames(video)))
    truth = OracleDetector.load(video.with_suffix(".boxes.npz"), meta_for(video)["frames"]).detect_at(
        idx, (0, 0, frame.shape[1], frame.shape[0]))
    return frame, idx, truth


def test_the_reader_view_finds_and_reads_a_whole_table(model, whole_table):
    """The table reader's way of using the model (the table warped top-down at 1 px/mm, faces read from the
    frame) on the first frame of the bundled 1080p recording, against the renderer's true boxes: face-up tiles
    found with the right code, face-down tiles (walls, standing tiles) found, and few boxes that are no tile."""
    from vision.calibration import calibrate_frame
    from vision.reader import TableReader

    frame, idx, truth = whole_table
    cal = calibrate_frame(frame)
    reader = TableReader(cal, model)
    dets, at = reader.reading.detect(frame, idx)
    centres = cal.to_table(np.array([[(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2] for d in truth]))
    used: set[int] = set()
    hits = {"up": [0, 0], "down": [0, 0]}
    for d, (x, y) in zip(truth, centres, strict=True):
        hits[d.face][1] += 1
        dist = np.hypot(at[:, 0] - x, at[:, 1] - y)
        for j in np.argsort(dist):
            if dist[j] > 12:
                break
            if j not in used and dets[j].face == d.face:
                used.add(int(j))
                hits[d.face][0] += d.face == "down" or dets[j].tile == d.tile
                break
    (up_ok, n_up), (down_ok, n_down) = hits["up"], hits["down"]
    assert n_up >= 15 and n_down >= 80
    assert up_ok >= UP_READ_FLOOR * n_up, f"{up_ok} of {n_up} face-up tiles found and read right"
    assert down_ok >= DOWN_FOUND_FLOOR * n_down, f"{down_ok} of {n_down} face-down tiles found"
    assert len(dets) - len(used) <= EXTRA_BOXES_CEILING * len(truth), f"{len(dets) - len(used)} boxes match no tile"


def test_a_whole_table_frame_is_detected_again_at_a_scale_its_tiles_can_be_found(model, whole_table):
    """A 1080p frame of a whole table letterboxed to the detector's input shows 6-10 px tiles, of which it finds
    almost none (4 of 117 when measured); ``detect`` notices the small boxes and runs the frame again larger, so
    the boxes come back in frame pixels around most tiles (80 of 117 at IoU 0.5 when measured)."""
    frame, _idx, truth = whole_table
    dets = model.detect(frame)
    hits = sum(max(_iou(d.box, t.box) for t in truth) >= 0.5 for d in dets)
    assert hits >= 0.6 * len(truth), f"{hits} of {len(truth)} tiles boxed"


def test_a_close_up_is_detected_again_smaller_where_tiles_come_out_larger_than_trained(model, frame, truth):
    """Cut close around a few tiles, the fixture's tiles come out 2-3 x larger at the detector's input than on
    the table. ``detect`` notices the large boxes, reads the picture again smaller, and keeps the surer of the
    two readings: never fewer tiles than the one-size read (the detector that learnt from real close-ups: 27 of
    29 at one size, 28 with the second reading, when measured; its predecessor 14 and 29)."""
    h, w = frame.shape[:2]
    found_one, found, n = 0, 0, 0
    for share, (cx, cy) in [(s, c) for s in (0.4, 0.33) for c in ((0.5, 0.5), (0.65, 0.65))]:
        cw, ch = int(w * share), int(h * share)
        x0, y0 = int(cx * w - cw / 2), int(cy * h - ch / 2)
        crop = frame[y0:y0 + ch, x0:x0 + cw]
        inside = [[b[0] - x0, b[1] - y0, b[2] - x0, b[3] - y0] for b in (t["box"] for t in truth["tiles"])
                  if b[0] >= x0 and b[1] >= y0 and b[2] <= x0 + cw and b[3] <= y0 + ch]
        n += len(inside)
        one_size = model._boxes(crop)[0]
        boxes = [d.box for d in model.detect(crop)]
        found_one += sum(max((_iou(b, t) for b in one_size), default=0.0) >= 0.5 for t in inside)
        found += sum(max((_iou(b, t) for b in boxes), default=0.0) >= 0.5 for t in inside)
    assert n >= 25
    assert found >= max(0.9 * n, found_one), f"{found} of {n} tiles boxed ({found_one} at one size)"


def test_an_overhead_layout_of_small_tiles_is_read_again_where_every_tile_is_found_and_boxed_closely(model):
    """60 tiles laid out under an overhead 720p camera come out about 19 px at the detector's usual input, where
    it finds most but not all of them and boxes them loosely (51 of 60 at IoU 0.5 when measured). ``detect``
    reads the frame again with the tiles at SMALL_TILE_AIM_PX: all 60, with closer boxes. ``frame_boxes`` with
    low thresholds (the evaluation's ranking) reads at the same size."""
    rng = np.random.default_rng(5)
    scene = grid_scene([TILES[int(rng.integers(len(TILES)))] for _ in range(60)], 3, rng, cols=12)
    frame, labels = render(scene, overhead_camera(), rng)
    truth = [lab.box for lab in labels]

    def fit(boxes) -> list[float]:
        return [max((_iou(b, t) for b in boxes), default=0.0) for t in truth]

    one_size, read = fit(model._boxes(frame)[0]), fit([d.box for d in model.detect(frame)])
    assert len(truth) == 60
    assert sum(f >= 0.5 for f in read) >= 59 > sum(f >= 0.5 for f in one_size)
    assert np.mean(read) > np.mean(one_size) + 0.05
    ranked = model.frame_boxes(frame, conf=(0.01, 0.01))[0]
    assert sum(f >= 0.5 for f in fit(ranked)) >= 59 and len(ranked) >= len(read)


@pytest.mark.parametrize("shape, side_px, passes", [
    ((1080, 1920), 30.0, 2),     # a whole table in 1080p: 8 px at the input, read again larger
    ((300, 400), 8.0, 1),        # already over-sampled at the input: nothing larger to read
    ((640, 640), 150.0, 4),      # a close-up: read again with the close-up thresholds, and zoomed out twice
    ((640, 640), None, 4),       # nothing found: maybe one tile filling the picture, looked for zoomed out
    ((720, 1280), 45.0, 2),      # 18 px at the input: found, but read again at the size it fits best
    ((720, 1280), 60.0, 1),      # tiles the size the detector learnt
])
def test_detect_reads_a_frame_again_only_where_another_size_can_help(model, monkeypatch, shape, side_px, passes):
    """How many detector passes ``detect`` makes, from the size of the tiles the first pass found."""
    calls = []

    def boxes(img, native=False, conf=None):
        calls.append(img.shape[:2])
        if side_px is None:
            return np.zeros((0, 4)), np.zeros(0, int), np.zeros(0)
        return np.array([[10.0, 10.0, 10.0 + side_px, 10.0 + 1.3 * side_px]]), np.array([1]), np.array([0.9])

    monkeypatch.setattr(model, "_boxes", boxes)
    model.detect(np.zeros((*shape, 3), np.uint8))
    assert len(calls) == passes


def test_a_close_up_is_read_with_the_close_up_thresholds(model, monkeypatch):
    """Close-up photos get their own score thresholds (tuned on rendered close-ups): once the first pass says the
    tiles are large, both readings are made with them, and the answer is the surer; a whole-table frame and a
    frame of ordinary tiles keep the whole-frame thresholds."""
    calls = []

    def boxes(img, native=False, conf=None):
        calls.append(conf)
        side = 150.0 if img.shape[0] == 640 else 60.0
        return np.array([[10.0, 10.0, 10.0 + side, 10.0 + 1.3 * side]]), np.array([0]), np.array([0.9])

    monkeypatch.setattr(model, "_boxes", boxes)
    monkeypatch.setattr(model, "closeup_conf", (0.2, 0.1))
    usual = (model.up_conf, model.conf)
    model.frame_boxes(np.zeros((640, 640, 3), np.uint8), None)
    assert calls == [usual] + [(0.2, 0.1)] * 3
    calls.clear()
    model.frame_boxes(np.zeros((720, 1280, 3), np.uint8), None)
    assert calls == [usual]
    # asked for lower thresholds (an evaluation's ranking), each reading is still made once, down to the lower
    # of the two
    calls.clear()
    model.frame_boxes(np.zeros((640, 640, 3), np.uint8), (0.15, 0.15))
    assert calls == [(0.15, 0.15)] + [(0.15, 0.1)] * 3


def test_close_up_thresholds_are_tuned_on_rendered_close_ups_and_loaded_with_the_model(tmp_path):
    """``datasets.train`` export tunes the close-up thresholds on the close-up validation frames, read as
    ``detect`` reads them, and ``TileModel.load`` takes them from ``tile_model.json``."""
    from datasets.synth.generate import generate
    from datasets.train import tune_thresholds
    from models import MODELS_DIR

    closeup = tmp_path / "closeup"
    generate(closeup, 3, seed=4, val=1.0, test=0.0, view="closeup")
    th = tune_thresholds(tmp_path / "none", tmp_path / "none", MODELS_DIR, closeup)
    assert 0.05 <= th["closeup"]["conf_up"] <= 0.9 and th["closeup"]["f1_up_val"] > 0.3
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "tile_model.json").write_text(json.dumps(th))
    for name in ("tile_detector.onnx", "tile_classifier.onnx"):
        (folder / name).symlink_to(MODELS_DIR / name)
    loaded = TileModel.load(folder)
    assert loaded.closeup_conf == (th["closeup"]["conf_up"], th["closeup"]["conf_down"])
    assert loaded.up_conf == th["conf_up"] and loaded.view_conf is None




def test_a_tile_that_fills_most_of_the_picture_is_found_zoomed_out(model, frame, truth):
    """A phone held close over one tile: read as it is, the detector sees no tile (on real close-ups a tile
    filling 70 % of the side was found 0 times in 27); ``detect`` looks for it again zoomed out, with table
    around it."""
    found = 0
    ups = [t for t in truth["tiles"] if t["face"] == "up"][:8]
    for t in ups:
        x1, y1, x2, y2 = t["box"]
        half = max(x2 - x1, y2 - y1) / 0.65 / 2
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        X1, Y1 = int(max(0, cx - half)), int(max(0, cy - half))
        crop = frame[Y1:int(cy + half), X1:int(cx + half)]
        s = 640 / crop.shape[1]
        big = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC)
        box = [(x1 - X1) * s, (y1 - Y1) * s, (x2 - X1) * s, (y2 - Y1) * s]
        found += any(_iou(d.box, box) >= 0.5 for d in model.detect(big))
    assert found >= 6, f"{found} of {len(ups)}"
