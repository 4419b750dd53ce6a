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
    ("three.jpg", b"abc", "not an image"),  # shorter than Pillow's BMP check reads: it raised struct.error
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


def test_an_image_too_large_is_refused_before_decoding_with_its_size_and_the_limit(tmp_path, capsys):
    """A PNG declaring 32000 x 32000 pixels (a real one of 1 MB took 39 s and 7.7 GB to decode) is refused from
    its header: the pixels behind it here are not even there, so only the header can have been read."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 32000, 32000, 8, 2, 0, 0, 0)
    path = tmp_path / "bomb.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(9999)))
                     + chunk(b"IEND", b""))
    with pytest.raises(ImageFileError, match=r"32000 x 32000 pixels .*more than mahj reads \(210 million\)"):
        read_image(path)
    assert main(["detect", str(path), "--json"]) == 1
    assert "32000 x 32000" in json.loads(capsys.readouterr().out)["error"]


def test_an_image_within_the_limit_still_reads(tmp_path):
    path = tmp_path / "wide.png"
    cv2.imwrite(str(path), np.zeros((8, 9000, 3), np.uint8))
    assert read_image(path).shape == (8, 9000, 3)


@pytest.mark.parametrize("out, reason", [
    ("overlay.txt", "an image is written as .png, .jpg, .jpeg, .bmp, .tif, .tiff, .webp"),
    ("nowhere/overlay.png", "no folder"),
])
def test_an_overlay_name_that_cannot_be_written_is_refused_before_reading(tmp_path, capsys, out, reason):
    """``--out overlay.txt`` once ended in OpenCV's traceback after the whole reading; now it says which extensions
    an overlay is written as, before any work."""
    image = tmp_path / "felt.png"
    cv2.imwrite(str(image), np.full((64, 64, 3), 90, np.uint8))
    assert main(["detect", str(image), "--out", str(tmp_path / out)]) == 1
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err and not (tmp_path / out).exists()
    assert main(["detect", str(image), "--out", str(tmp_path / "overlay.webp")]) == 0
    assert read_image(tmp_path / "overlay.webp").shape == (64, 64, 3)
