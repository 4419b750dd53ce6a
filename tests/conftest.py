"""Fixtures the tile-model tests share (test_tile_model, test_tile_sizes, test_tile_classifier): the shipped
model and the committed fixture photo. Module scope, as each of those modules had; a module that defines a
fixture of the same name uses its own."""

from __future__ import annotations

import numpy as np
import pytest
from tile_model_kit import fixture_photo, fixture_truth, whole_table_frame

from vision.tile_model import TileModel


@pytest.fixture(scope="module")
def model() -> TileModel:
    return TileModel.load()


@pytest.fixture(scope="module")
def truth() -> dict:
    return fixture_truth()


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    return fixture_photo()


@pytest.fixture(scope="module")
def whole_table() -> tuple:
    return whole_table_frame()
