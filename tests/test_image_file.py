"""Bad image files get ``file: reason`` and exit 1 from ``mahj detect``, never a traceback; an image with no tiles
gives an empty list (issue 29)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from assistant.cli import main
from vision.image_file import ImageFileError, read_image


def _jpeg(tmp_path) -> bytes:
    path = tmp_path / "ok.jpg"
    cv2.imwrite(str(path), np.full((64, 64, 3), 128, np.uint8))
    return path.read_bytes()


@pytest.mark.parametrize("name, content, reason", [
    ("empty.jpg", b"", "the file is empty"),
    ("doc.pdf", b"%PDF-1.4\n1 0 obj\n", "a PDF"),
    ("noise.png", bytes(range(256)) * 4, "not an image"),
    ("cut.jpg", None, "cut short"),
])
def test_an_unreadable_file_says_why_and_detect_exits_1(tmp_path, capsys, name, content, reason):
    path = tmp_path / name
    path.write_bytes(content if content is not None else _jpeg(tmp_path)[:300])
    with pytest.raises(ImageFileError, match=reason):
        read_image(path)
    assert main(["detect", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}: " in err and reason in err and "Traceback" not in err


def test_a_missing_file_and_a_folder_are_named(tmp_path, capsys):
    assert main(["detect", str(tmp_path / "nosuch.jpg")]) == 1
    assert "nosuch.jpg: no such file" in capsys.readouterr().err
    assert main(["detect", str(tmp_path)]) == 1
    assert "a folder, not an image file" in capsys.readouterr().err


def test_a_photo_with_no_tiles_gives_an_empty_list(tmp_path, capsys):
    rng = np.random.default_rng(0)
    felt = np.clip(np.full((480, 640, 3), (40, 110, 40), np.float32) + rng.normal(0, 6, (480, 640, 3)), 0, 255)
    path = tmp_path / "felt.png"
    cv2.imwrite(str(path), felt.astype(np.uint8))
    assert main(["detect", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tiles"] == []
    tiny = tmp_path / "one.png"
    cv2.imwrite(str(tiny), np.zeros((1, 1, 3), np.uint8))
    assert main(["detect", str(tiny), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tiles"] == []
