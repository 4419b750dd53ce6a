"""Continuing the classifier's training from the shipped ONNX file (``datasets.folded_norms.start_from``, as
``datasets.classifier_train.train`` calls it):
runs/ does not survive a checkout, so the shipped file is where a new run starts. Needs torch and onnx (the
``train`` extra); skipped where they are not installed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from datasets.classifier_train import (  # noqa: E402
    BACK_START,
    EXPORT_PREFIX,
    TileNet,
    _Export,
    head_rows,
    initial_net,
)
from datasets.folded_norms import freeze, start_from  # noqa: E402
from models import MODELS_DIR  # noqa: E402
from vision.tile_model import BACK, CLASSES, CLASSIFIER_FILE, CLASSIFIER_SIZE, NOT_A_TILE, TileModel  # noqa: E402

SHIPPED = str(MODELS_DIR / CLASSIFIER_FILE)


def from_shipped_file() -> TileNet:
    """The shipped classifier back as a TileNet of its own head's size, norms folded."""
    net, folded = start_from(SHIPPED, TileNet(head_rows(SHIPPED)), prefix=EXPORT_PREFIX)
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


def test_a_run_from_a_file_without_the_back_class_gets_a_back_row_and_reads_as_that_file(tmp_path, crops):
    """A classifier from before the back class (37 outputs) is continued with one more head row, "back", started
    from its "not a tile" row (where it had learnt backs) BACK_START lower: the other rows read exactly as the
    file does and no crop's likeliest class changes, so training starts from what shipped."""
    old = TileNet(BACK).eval()
    with torch.no_grad():
        for m in old.modules():                 # norms that the export folds into the convolutions
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5), m.bias.uniform_(-0.2, 0.2), m.running_mean.uniform_(-0.1, 0.1)
        old.head.bias[NOT_A_TILE] += 5.0        # some crops read "not a tile"
    path = tmp_path / "old.onnx"
    torch.onnx.export(_Export(old), torch.zeros(2, 3, CLASSIFIER_SIZE, CLASSIFIER_SIZE), str(path),
                      input_names=["crops"], output_names=["probs", "embedding"], dynamic_axes={"crops": {0: "n"}},
                      opset_version=17, dynamo=False)
    assert head_rows(str(path)) == BACK
    net, folded = initial_net(str(path))
    assert folded and net.head.out_features == len(CLASSES) == BACK + 1
    x = torch.from_numpy(crops) / 255
    with torch.no_grad():
        want, got = old.eval()(x), net.eval()(x)      # (the export leaves its module in training mode)
    np.testing.assert_allclose(got[:, :BACK].numpy(), want.numpy(), atol=1e-4)
    np.testing.assert_allclose(got[:, BACK].numpy(), want[:, NOT_A_TILE].numpy() - BACK_START, atol=1e-4)
    assert (got.argmax(1) == want.argmax(1)).all() and (want.argmax(1) == NOT_A_TILE).any()
    # a run's own checkpoint of the wider net is continued as it is
    torch.save({"state": net.state_dict(), "folded": True}, tmp_path / "best.pt")
    again, folded = initial_net(str(tmp_path / "best.pt"))
    assert folded and again.head.out_features == len(CLASSES)
    assert torch.equal(again.head.weight, net.head.weight)


def test_a_checkpoint_is_exported_with_its_fitted_temperature_and_refused_without(tmp_path, crops):
    """The exported file's probabilities are the calibrated ones, softmax(logits / T); a checkpoint saved before
    its run fitted T (the run still training) is refused, not exported at T = 1."""
    import onnxruntime as ort

    from datasets.classifier_train import export_onnx

    net = from_shipped_file()
    ckpt = tmp_path / "best.pt"
    torch.save({"state": net.state_dict()}, ckpt)
    with pytest.raises(SystemExit, match="no temperature"):
        export_onnx(ckpt, tmp_path / "early.onnx")
    torch.save({"state": net.state_dict(), "temperature": 0.5}, ckpt)
    export_onnx(ckpt, tmp_path / "c.onnx")
    session = ort.InferenceSession(str(tmp_path / "c.onnx"))
    probs = session.run(None, {session.get_inputs()[0].name: crops})[0]
    with torch.no_grad():
        logits = net.eval()(torch.from_numpy(crops) / 255.0)
    want = torch.softmax(logits / 0.5, dim=1).numpy()
    assert np.allclose(probs, want, atol=1e-4)
