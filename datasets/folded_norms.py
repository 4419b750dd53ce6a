"""Batch norms that an ONNX export folded into the convolution before them, given back for further training.

Why: ``runs/`` does not survive a checkout, so a run that continues a shipped model starts from its ONNX file
(``start_from``, ``detector_onnx.load_detector_onnx``). The export multiplied each norm into its
convolution's weights and left its shift as the convolution's bias; a norm comes back as an identity plus that
shift, and must then stay in eval mode while training (``freeze``): batch statistics would undo the folding.
Needs torch (the ``train`` extra).
"""

from __future__ import annotations

from pathlib import Path

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


def conv_net_from_onnx(path: Path, net: nn.Module, prefix: str = "") -> nn.Module:
    """``net``, whose ``features`` are (conv, batch norm, activation) triples, carrying the weights of its ONNX
    export ``path``: the convolutions in graph order with their norms unfolded, every other weight by its torch
    name (``prefix`` + name, as the exported wrapper called it). Raises ValueError, naming the file, when a
    weight is missing or left over, so a file of another network is never half loaded. Returned in eval mode."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    pairs = list(zip(net.features[0::3], net.features[1::3], strict=True))
    if len(convs) != len(pairs):
        raise ValueError(f"{path}: {len(convs)} convolutions, a {type(net).__name__} has {len(pairs)}")
    rest = {name: p for name, p in net.named_parameters() if not name.startswith("features.")}
    with torch.no_grad():
        for node, (conv, norm) in zip(convs, pairs, strict=True):
            conv.weight.copy_(torch.tensor(weights.pop(node.input[1])))
            unfold(norm, torch.tensor(weights.pop(node.input[2])))
        for name, p in rest.items():
            if prefix + name not in weights:
                raise ValueError(f"{path}: no weight {prefix + name} for this {type(net).__name__}")
            p.copy_(torch.tensor(weights.pop(prefix + name)))
    if weights:
        raise ValueError(f"{path}: weight {next(iter(weights))} has no place in a {type(net).__name__}")
    return net.eval()


def start_from(init: str | None, net: nn.Module, prefix: str = "") -> tuple[nn.Module, bool]:
    """``net`` carrying the weights a run continues from, and whether its norms are folded (then ``freeze`` it
    after every ``net.train()``): none (``init`` None), a shipped ONNX file (``conv_net_from_onnx``), or an
    earlier run's checkpoint, whose ``folded`` says whether that run had started from such a file."""
    if not init:
        return net, False
    if init.endswith(".onnx"):
        return conv_net_from_onnx(Path(init), net, prefix), True
    ckpt = torch.load(init, map_location="cpu", weights_only=False)
    net.load_state_dict(ckpt["state"])
    return net, bool(ckpt.get("folded", False))
