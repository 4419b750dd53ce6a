"""Render the small committed test fixture: one overhead photo of a set laid out, with its true labels.

    python -m datasets.synth.fixture tests/fixtures/tile_model

Tests of the runtime (``tests/test_tile_model.py``, ``test_tile_sizes.py``, ``test_tile_classifier.py``) read it,
so they need neither ``../shared`` nor Pillow.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

from engine.tiles import TILES

from .layout import grid_scene, overhead_camera
from .scene import render

STYLE = 3  # a training style: the fixture checks the shipped model, not enrolment


def make_fixture(dest: Path) -> None:
    rng = np.random.default_rng(2026)
    scene = grid_scene(list(TILES) + ["F", "J", "1B", "5D"], STYLE, rng, cols=10)
    for t in scene.tiles[-2:]:
        t.face = "down"
    img, labels = render(scene, overhead_camera(view_mm=560), rng)
    dest.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(dest / "table.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 88])
    (dest / "table.json").write_text(json.dumps(
        {"style": STYLE, "tiles": [{"code": lb.code if lb.face == "up" else None, "face": lb.face,
                                    "box": [round(v, 1) for v in lb.box]} for lb in labels]}, indent=1) + "\n")


if __name__ == "__main__":
    make_fixture(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/tile_model"))
