"""Continuing the classifier's training from the shipped ONNX file (``datasets.folded_norms.start_from``, as
``datasets.classifier_train.train`` calls it):
runs/ does not survive a checkout, so the shipped file is where a new run starts. Needs torch and onnx (the
``train`` extra); skipped where they are not installed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from datasets.classifier_train import EXPORT_PREFIX, TileNet, _Export  # noqa: E402
from datasets.folded_norms import freeze, start_from  # noqa: E402
from models import MODELS_DIR  # noqa: E402
from vision.tile_model import CLASSIFIER_FILE, CLASSIFIER_SIZE, TileModel  # noqa: E402


def from_shipped_file() -> TileNet:
    """The shipped classifier back as a TileNet, as a training run started from it gets it: norms folded."""
    net, folded = start_from(str(MODELS_DIR / CLASSIFIER_FILE), TileNet(), prefix=EXPORT_PREFIX)
    assert folded
    return net


@pytest.fixture()
def crops() -> np.ndarray:
    x = np.random.default_rng(0).integers(0, 256, (6, 3, CLASSIFIER_SIZE, CLASSIFIER_SIZE))
    return x.astype(np.float32)


def test_the_shipped_classifier_comes_back_as_it_reads(crops):
    session = TileModel.load().classifier.session
    probs, emb = session.run(None, {session.get_inputs()[0].name: crops})
    with torch.no_grad():
        tp, te = _Export(from_shipped_file())(torch.from_numpy(crops))
    assert np.abs(tp.numpy() - probs).max() < 1e-5
    assert np.abs(te.numpy() - emb).max() < 1e-5


def test_training_from_it_leaves_the_folded_norms_alone(crops):
    net = from_shipped_file()
    before = net(torch.from_numpy(crops) / 255).detach()
    net.train()
    freeze(net)
    net.drop.eval()                     # dropout aside, a training pass must read as the shipped file does
    after = net(torch.from_numpy(crops) / 255).detach()
    assert torch.allclose(before, after, atol=1e-5)
    norm = net.features[1]
    assert float(norm.running_mean.abs().max()) == 0.0 and norm.num_batches_tracked.item() == 0
