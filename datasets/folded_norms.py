"""Batch norms that an ONNX export folded into the convolution before them, given back for further training.

Why: ``runs/`` does not survive a checkout, so a run that continues a shipped model starts from its ONNX file
(``classifier_train.from_onnx``, ``detector_onnx.load_detector_onnx``). The export multiplied each norm into its
convolution's weights and left its shift as the convolution's bias; a norm comes back as an identity plus that
shift, and must then stay in eval mode while training (``freeze``): batch statistics would undo the folding.
Needs torch (the ``train`` extra).
"""

from __future__ import annotations

import torch
from torch import nn


def unfold(norm: nn.BatchNorm2d, shift: torch.Tensor) -> None:
    """``norm`` as the identity plus the folded ``shift``: scale 1, mean 0, variance 1 - eps."""
    with torch.no_grad():
        norm.weight.fill_(1.0)
        norm.bias.copy_(shift)
        norm.running_mean.zero_()
        norm.running_var.fill_(1.0 - norm.eps)


def freeze(net: nn.Module) -> None:
    """Batch norms to eval mode (their running statistics used and left alone), the rest of ``net`` as it is;
    called after every ``net.train()``, which puts them back in training mode."""
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
