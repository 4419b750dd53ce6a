"""A shipped detector file back as ultralytics weights, to continue training where ``runs/`` is gone.

Why: ``runs/`` does not survive a checkout, and every detector run so far continued the one before (models/README.md,
"Recipe"); without the last run's ``.pt`` the only copy of those hours of training is the ONNX file. The export
folded each batch norm into the convolution before it, so the norms come back as identities plus the folded shift
(scale 1, mean 0, variance 1 - eps) and must stay in eval mode while training (``freeze_norms``): batch
statistics would undo the folding. Needs torch and ultralytics (the ``train`` extra).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn


def load_detector_onnx(onnx_path: Path, yaml_path: Path) -> nn.Module:
    """The ultralytics DetectionModel of ``yaml_path`` carrying the weights of the exported ``onnx_path``.

    The export keeps the torch names of the weights (``model.0.conv.weight``); a folded convolution's bias is
    its batch norm's shift. Raises ValueError, naming the file, when a weight is missing or left over, so that
    a file of another architecture is never half loaded."""
    import onnx
    from onnx import numpy_helper
    from ultralytics.nn.tasks import DetectionModel

    graph = onnx.load(str(onnx_path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer if i.name.startswith("model.")}
    model = DetectionModel(str(yaml_path), ch=3, verbose=False)
    state = model.state_dict()
    filled: dict[str, torch.Tensor] = {}
    for name, value in weights.items():
        t = torch.from_numpy(np.array(value, np.float32))
        norm = name[: -len("conv.bias")] + "bn." if name.endswith("conv.bias") else None
        if name in state:
            filled[name] = t
        elif norm and norm + "bias" in state:
            eps = next(m.eps for n, m in model.named_modules() if n + "." == norm)
            filled[norm + "bias"] = t
            filled[norm + "weight"] = torch.ones_like(t)
            filled[norm + "running_mean"] = torch.zeros_like(t)
            filled[norm + "running_var"] = torch.full_like(t, 1.0 - eps)
        else:
            raise ValueError(f"{onnx_path}: weight {name} has no place in {yaml_path.name}")
    missing = [k for k, v in state.items() if k not in filled and v.is_floating_point()
               and not k.endswith(".dfl.conv.weight")]
    if missing:
        raise ValueError(f"{onnx_path}: no weights for {len(missing)} tensors of {yaml_path.name}, e.g. {missing[0]}")
    model.load_state_dict({**state, **filled})
    return model.eval()


def save_for_training(model: nn.Module, dest: Path, names: dict[int, str]) -> Path:
    """``model`` as a checkpoint ultralytics' ``YOLO(dest)`` and ``train`` load, full precision."""
    model.names = names
    dest.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model, "train_args": {}}, dest)
    return dest


def freeze_norms(trainer: object) -> None:
    """Ultralytics callback (``on_train_batch_start``): every batch norm of the model being trained back in eval
    mode, since the trainer puts the whole model in training mode each epoch."""
    for m in trainer.model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
