"""Continuing the box refiner's training from the shipped ONNX file (``--init models/tile_refiner.onnx``, through
``datasets.folded_norms.conv_net_from_onnx``): runs/ does not survive a checkout, so the shipped file is where a
new run starts, e.g. to learn a new detector's boxes. Needs torch and onnx (the ``train`` extra); skipped where
they are not installed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from datasets.folded_norms import conv_net_from_onnx, freeze, start_from  # noqa: E402
from datasets.refiner_train import BoxNet  # noqa: E402
from models import MODELS_DIR  # noqa: E402
from vision.tile_model import CLASSIFIER_FILE, REFINE_SIZE, REFINER_FILE, TileModel  # noqa: E402


@pytest.fixture()
def crops() -> np.ndarray:
    return np.random.default_rng(1).integers(0, 256, (5, 3, REFINE_SIZE, REFINE_SIZE)).astype(np.float32)


def test_the_shipped_refiner_comes_back_as_it_reads(crops):
    session = TileModel.load()._ref
    shipped = session.run(None, {session.get_inputs()[0].name: crops})
    with torch.no_grad():
        rebuilt = conv_net_from_onnx(MODELS_DIR / REFINER_FILE, BoxNet())(torch.from_numpy(crops))
    for name, ours, theirs in zip(("edges", "faces", "fit"), rebuilt, shipped, strict=True):
        assert np.abs(ours.numpy() - theirs).max() < 1e-4, name


def test_a_training_pass_moves_no_norm(crops):
    net = conv_net_from_onnx(MODELS_DIR / REFINER_FILE, BoxNet())
    before = [t.detach() for t in net(torch.from_numpy(crops))]
    net.train()
    freeze(net)
    after = [t.detach() for t in net(torch.from_numpy(crops))]
    assert all(torch.allclose(b, a, atol=1e-5) for b, a in zip(before, after, strict=True))
    norms = [m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert all(m.num_batches_tracked.item() == 0 and float(m.running_mean.abs().max()) == 0.0 for m in norms)


def test_another_networks_file_is_refused():
    with pytest.raises(ValueError, match=CLASSIFIER_FILE):
        conv_net_from_onnx(MODELS_DIR / CLASSIFIER_FILE, BoxNet())


def test_a_checkpoint_of_a_run_from_the_file_stays_folded(crops, tmp_path):
    net, folded = start_from(str(MODELS_DIR / REFINER_FILE), BoxNet())
    ckpt = tmp_path / "best.pt"
    torch.save({"state": net.state_dict(), "folded": folded}, ckpt)
    again, still = start_from(str(ckpt), BoxNet())
    assert folded and still                 # so the run continued from it freezes its norms as well
    with torch.no_grad():
        assert torch.allclose(net(torch.from_numpy(crops))[0], again.eval()(torch.from_numpy(crops))[0])
    assert start_from(None, BoxNet())[1] is False
