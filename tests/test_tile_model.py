"""The shipped tile models through vision.tile_model and `mahj detect`, on a committed fixture.

The fixture (tests/fixtures/tile_model, made by ``python -m datasets.synth.fixture``) is an overhead photo of a
training-style set laid out: 38 tiles face up, 2 face down, with their true boxes and codes.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from tile_model_kit import FIXTURE, match

from assistant.cli import main
from engine.tiles import INDEX
from vision.tile_model import (
    BACK,
    CLASSES,
    NOT_A_TILE,
    Detection,
    TileModel,
    TileModelError,
)

#: Floors for the shipped model on the bundled recording's first frame (measured, then rounded down; raise them
#: with a better model): face-up tiles found and read right, face-down tiles found, boxes that are no tile.
UP_READ_FLOOR, DOWN_FOUND_FLOOR, EXTRA_BOXES_CEILING = 0.95, 0.9, 0.15




def test_detect_finds_and_reads_the_fixture(model, frame, truth):
    dets = model.detect(frame)
    assert all(isinstance(d, Detection) and d.face in ("up", "down") for d in dets)
    for d in dets:
        x1, y1, x2, y2 = d.box
        assert 0 <= x1 < x2 <= frame.shape[1] and 0 <= y1 < y2 <= frame.shape[0]
        assert 0 < d.score <= 1
        # a face-up box is a read tile, scored (one read as "not a tile" is dropped); a face-down one has none
        assert (d.tile is not None and d.tile_score is not None) == (d.face == "up")
    pairs = match(dets, truth)
    found = [d for _, d in pairs if d is not None]
    # Floors at or a little under what the shipped models do on this photo (2026-11-27: 36 of 40 found, 35 with
    # the right face, 34 of 34 read right; models/README.md); raise them with better models.
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


@pytest.mark.parametrize("outputs", [len(CLASSES), BACK], ids=["with the back class", "a file from before it"])
def test_a_face_up_box_read_as_a_back_is_a_tile_face_down_and_one_read_as_no_tile_goes(model, frame, monkeypatch,
                                                                                          outputs):
    """The detector boxes some tile backs as face up; the classifier reads them as "back": they stay, face down
    (a wall or a rack must keep its tiles), while a box read as "not a tile" is dropped. Neither is ever offered
    as a tile's other likely kind. A classifier file from before the back class (37 outputs) reads as it did."""
    boxes = np.array([[100, 100, 130, 140], [200, 100, 230, 140], [300, 100, 330, 140]], np.float32)
    probs = np.full((3, outputs), 0.001, np.float32)
    probs[0, [INDEX["5D"], INDEX["3D"], NOT_A_TILE, outputs - 1]] = 0.55, 0.1, 0.15, 0.15
    probs[1, outputs - 1] = 0.9                     # "back", or "none" for the older file
    probs[2, NOT_A_TILE] = 0.9
    monkeypatch.setattr(model.classifier, "probabilities",
                        lambda crops: (probs[:len(crops)].copy(), np.eye(len(crops), 128, dtype=np.float32)))
    dets = model.read_faces(frame, boxes, np.zeros(3, np.int64), np.array([0.8, 0.7, 0.6], np.float32))
    read = [(d.box[0], d.face, d.tile, d.score) for d in dets]
    if outputs == len(CLASSES):
        assert read == [(100.0, "up", "5D", pytest.approx(0.8)), (200.0, "down", None, pytest.approx(0.7))]
        assert dets[1].tile_score is None and dets[1].alts == ()
    else:
        assert read == [(100.0, "up", "5D", pytest.approx(0.8))]
    assert dets[0].alts[:2] == ("5D", "3D") and not set(dets[0].alts) & {"none", "back"}


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


def test_the_reader_view_finds_and_reads_a_whole_table(model, whole_table):
    """The table reader's way of using the model (the table warped top-down at its scale, faces read from the
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


def test_the_reader_reads_a_blank_soap_on_a_rendered_floor(model):
    """A discarded blank Soap is the plainest face on the floor: in the reader's 1.5 px/mm view the detector
    scores it about 0.5, and the top-down threshold tuned on renders (0.6) dropped it, so its discard went
    unseen and the next turns went to the wrong seats. The floor of a rendered 1080p game (fixture: its floor,
    cut out with the table's homography) is read with the shipped model and thresholds."""
    from vision.calibration import Calibration, TableLayout
    from vision.reader import TableReader

    meta = json.loads((FIXTURE / "floor.json").read_text())
    frame = cv2.imread(str(FIXTURE / "floor.jpg"))
    cal = Calibration((frame.shape[1], frame.shape[0]), meta["table_to_image"],
                      layout=TableLayout(size_mm=meta["size_mm"]))
    reader = TableReader(cal, model)
    seen = reader.reading.read(frame, [reader.table.regions["floor"]], 0, 0.0)["floor"]
    soap = [t for t in seen if np.hypot(t.x - 617, t.y - 232) < 8]
    assert [(t.face, t.tile) for t in soap] == [("up", "WD")]
    assert len(seen) >= 30      # and the other discards around it


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


def test_the_readers_threshold_is_its_own_and_an_export_keeps_it(tmp_path, monkeypatch):
    """The table reader's top-down views take the ``reader`` thresholds, chosen on real tables; the set-up mat's
    views (TOPDOWN_PX_PER_MM) the ``topdown`` ones tuned on renders. An export retunes every rendered threshold
    and keeps the reader's, which no rendered split can judge."""
    from datasets.train import _write_thresholds
    from models import MODELS_DIR

    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("tile_detector.onnx", "tile_classifier.onnx"):
        (folder / name).symlink_to(MODELS_DIR / name)
    reader = {"conf_up": 0.3, "conf_down": 0.4, "up_from": "real tables"}
    (folder / "tile_model.json").write_text(json.dumps(
        {"conf_up": 0.5, "conf_down": 0.3, "topdown": {"conf_up": 0.6, "conf_down": 0.35}, "reader": reader}))
    model = TileModel.load(folder)
    assert model.reader_conf == (0.3, 0.4) and model.view_conf == (0.6, 0.35)
    asked = []
    monkeypatch.setattr(model, "boxes", lambda view, native, conf: asked.append(conf) or (
        np.zeros((0, 4), np.float32), np.zeros(0, int), np.zeros(0, np.float32)))
    view = np.zeros((64, 64, 3), np.uint8)
    model.detect_view(view, view, np.eye(3))
    model.detect_view(view, view, np.eye(3), conf=model.view_conf)
    assert asked == [(0.3, 0.4), (0.6, 0.35)]
    _write_thresholds(folder, tmp_path / "no-renders")
    assert json.loads((folder / "tile_model.json").read_text())["reader"] == reader
