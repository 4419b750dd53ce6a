"""Overlap of axis-aligned boxes (x1, y1, x2, y2): the one measure the runtime, training and benchmarks share."""

from __future__ import annotations

import numpy as np


def _area(b: np.ndarray) -> np.ndarray:
    return np.clip(b[..., 2] - b[..., 0], 0, None) * np.clip(b[..., 3] - b[..., 1], 0, None)


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in ``a`` (N, 4) with every box in ``b`` (M, 4): an N x M array."""
    a, b = np.asarray(a, float).reshape(-1, 4), np.asarray(b, float).reshape(-1, 4)
    return paired_iou(a[:, None, :], b[None, :, :])


def paired_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of ``a[i]`` with ``b[i]`` for boxes given row by row (broadcasting over leading axes)."""
    iw = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    ih = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    inter = iw * ih
    return inter / (_area(a) + _area(b) - inter + 1e-9)

