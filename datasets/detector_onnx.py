"""A shipped detector file back as ultralytics weights, to continue training where ``runs/`` is gone.

Why: ``runs/`` does not survive a checkout, and every detector run so far continued the one before (models/README.md,
"Recipe"); without the last run's ``.pt`` the only copy of those hours of training is the ONNX file. Its batch
norms come back unfolded and stay frozen while training (``datasets.folded_norms``; ``datasets.train`` adds the
callback). Needs torch and ultralytics (the ``train`` extra).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from .folded_norms import unfold


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
    params = dict(model.named_parameters())
    modules = dict(model.named_modules())
    filled: set[str] = set()
    with torch.no_grad():
        for name, value in weights.items():
            t = torch.from_numpy(np.array(value, np.float32))
            norm = name[: -len(".conv.bias")] + ".bn" if name.endswith(".conv.bias") else ""
            if name in params:
                params[name].copy_(t)
                filled.add(name)
            elif isinstance(modules.get(norm), nn.BatchNorm2d):
                unfold(modules[norm], t)
                filled.update(f"{norm}.{k}" for k in ("weight", "bias"))
            else:
                raise ValueError(f"{onnx_path}: weight {name} has no place in {yaml_path.name}")
    missing = [k for k, v in params.items() if k not in filled and v.requires_grad]
    if missing:
        raise ValueError(f"{onnx_path}: no weights for {len(missing)} tensors of {yaml_path.name}, e.g. {missing[0]}")
    return model.eval()


def save_for_training(model: nn.Module, dest: Path, names: dict[int, str]) -> Path:
    """``model`` as a checkpoint ultralytics' ``YOLO(dest)`` and ``train`` load, full precision."""
    model.names = names
    dest.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model, "train_args": {}}, dest)
    return dest

