"""Continuing the detector's training from the shipped ONNX file (``datasets.detector_onnx``): runs/ does not
survive a checkout, so the shipped file is where a new run starts. Needs torch, onnx and ultralytics (the
``train`` extra); skipped where they are not installed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")
pytest.importorskip("ultralytics")

from datasets.detector_onnx import load_detector_onnx, save_for_training  # noqa: E402
from datasets.folded_norms import freeze  # noqa: E402
from datasets.train import _ultralytics_env, detector_yaml  # noqa: E402
from models import MODELS_DIR  # noqa: E402
from vision.tile_model import DETECTOR_FILE, TileModel  # noqa: E402


@pytest.fixture(scope="module")
def rebuilt():
    _ultralytics_env()
    return load_detector_onnx(MODELS_DIR / DETECTOR_FILE, detector_yaml())


@pytest.fixture()
def frame() -> np.ndarray:
    return np.random.default_rng(0).random((1, 3, 288, 512), np.float32)


def _read(model, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        y = model(torch.from_numpy(x))
    return (y[0] if isinstance(y, (list, tuple)) else y).numpy()


def test_the_shipped_detector_comes_back_as_it_reads(rebuilt, frame):
    session = TileModel.load().detector.session
    onnx_out = session.run(None, {session.get_inputs()[0].name: frame})[0]
    assert onnx_out.shape == _read(rebuilt, frame).shape
    # Box coordinates run to hundreds of input pixels; a thousandth of a pixel is float rounding.
    assert np.abs(_read(rebuilt, frame) - onnx_out).max() < 1e-3


def test_training_from_it_leaves_the_folded_norms_alone(rebuilt, frame):
    before = _read(rebuilt.eval(), frame)
    rebuilt.train()
    freeze(rebuilt)
    norms = [m for m in rebuilt.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert norms and not any(m.training for m in norms)
    with torch.no_grad():
        rebuilt(torch.from_numpy(frame))            # a training-mode pass: no statistics may move
    assert all(float(m.running_mean.abs().max()) == 0.0 for m in norms)
    assert np.abs(_read(rebuilt.eval(), frame) - before).max() < 1e-4


def test_a_file_of_another_shape_is_refused(tmp_path):
    _ultralytics_env()
    with pytest.raises(ValueError, match="tile_classifier.onnx"):
        load_detector_onnx(MODELS_DIR / "tile_classifier.onnx", detector_yaml())


def test_the_checkpoint_loads_as_ultralytics_weights(rebuilt, tmp_path, frame):
    from ultralytics import YOLO

    pt = save_for_training(rebuilt, tmp_path / "init.pt", {0: "up", 1: "down"})
    again = YOLO(str(pt)).model.float().eval()
    assert again.names == {0: "up", 1: "down"}
    assert np.abs(_read(again, frame) - _read(rebuilt.eval(), frame)).max() < 1e-4
