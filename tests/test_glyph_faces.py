"""The character faces drawn in random hands, for the classifier's training (datasets.synth.glyph_faces)."""

from __future__ import annotations

import numpy as np
import pytest

from datasets import scenes
from datasets.synth.faces import FACE_H, FACE_W
from datasets.synth.glyph_faces import GLYPH_CODES, available, glyph_face

pytestmark = pytest.mark.skipif(not available(), reason="needs fonts-noto-cjk")


def _red(face: np.ndarray) -> np.ndarray:
    b, g, r = (face[..., k].astype(int) for k in range(3))
    return (r > 150) & (r - g > 80) & (r - b > 80)


def _dark(face: np.ndarray) -> np.ndarray:
    return face.max(axis=2) < 140


def test_a_crak_has_its_numeral_above_and_the_red_ten_thousand_below() -> None:
    rng = np.random.default_rng(5)
    for code in ("1C", "3C", "9C"):
        face = glyph_face(code, rng)
        assert face.shape == (FACE_H, FACE_W, 3) and face.dtype == np.uint8
        top, bottom = face[: FACE_H * 2 // 5], face[FACE_H * 3 // 5:]
        assert _red(bottom).sum() > 10 * max(1, _red(top).sum())
        assert _dark(top).sum() > 60


def test_dragons_are_inked_in_their_colour_and_winds_in_a_dark_ink() -> None:
    rng = np.random.default_rng(6)
    red_dragon, green_dragon, north = glyph_face("RD", rng), glyph_face("GD", rng), glyph_face("N", rng)
    assert _red(red_dragon).sum() > 300
    g = green_dragon.astype(int)
    assert ((g[..., 1] - g[..., 2] > 60) & (g[..., 1] - g[..., 0] > 40)).sum() > 300
    assert _red(north).sum() == 0 and _dark(north).sum() > 300


def test_each_face_is_drawn_in_another_hand() -> None:
    rng = np.random.default_rng(7)
    inks = [_dark(glyph_face("5C", rng)) for _ in range(4)]
    assert all((a != b).mean() > 0.01 for i, a in enumerate(inks) for b in inks[i + 1:])


def test_glyph_boxes_give_the_middle_tile_of_a_row_with_its_kind() -> None:
    rng = np.random.default_rng(8)
    found = scenes.glyph_boxes(10, rng)
    assert len(found) == 10
    for img, (x1, y1, x2, y2), code in found:
        assert code in GLYPH_CODES
        assert 17 <= min(x2 - x1, y2 - y1) <= 64 and x1 > 0 and x2 < img.shape[1]
        cx = (x1 + x2) / 2
        assert abs(cx - img.shape[1] / 2) < 3     # the middle one of the three, not a neighbour
