"""A rack photo is decoded no larger than its reading needs (assistant/rack_reading.py ``read_rack_photo``): the
page's 2048 px photo at 1024, a 12 MP one at a quarter, whole where its tiles would come out smaller than the
classifier's input or its EXIF says to turn it (OpenCV's reduced decoding does not turn a photo)."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

import vision.image_file
from assistant import rack_reading
from assistant.rack_reading import read_rack, read_rack_photo, reduction
from vision.tile_model import TileModel

RACK = Path(__file__).parent / "fixtures" / "my_hand" / "rack.jpg"
RACK_TILES = "WD 3B 3B 4B 5B 2C 2C 2C 7D 8D 9D N J J".split()


def jpeg(img: np.ndarray, turn: int | None = None) -> bytes:
    """``img`` as JPEG bytes, with an EXIF orientation when ``turn`` is given."""
    out = io.BytesIO()
    pil = Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
    exif = pil.getexif()
    if turn is not None:
        exif[0x0112] = turn
    pil.save(out, "JPEG", quality=90, exif=exif)
    return out.getvalue()


@pytest.fixture(scope="module")
def model() -> TileModel:
    return TileModel.load()


@pytest.fixture()
def decodes(monkeypatch) -> list[int]:
    """The reduction of every decode the rack reading makes."""
    seen: list[int] = []
    original = vision.image_file.decode_image

    def spy(data: bytes, name: str, reduce: int = 1) -> np.ndarray:
        seen.append(reduce)
        return original(data, name, reduce)
    monkeypatch.setattr(rack_reading, "decode_image", spy)
    return seen


def test_how_much_smaller_a_photo_is_decoded():
    assert reduction(jpeg(np.zeros((1536, 2048, 3), np.uint8))) == 2
    assert reduction(jpeg(np.zeros((3000, 4000, 3), np.uint8))) == 4
    assert reduction(jpeg(np.zeros((900, 1200, 3), np.uint8))) == 1
    assert reduction(jpeg(np.zeros((1536, 2048, 3), np.uint8), turn=1)) == 2
    assert reduction(jpeg(np.zeros((1536, 2048, 3), np.uint8), turn=6)) == 1   # to be turned: decoded whole
    assert reduction(b"not an image") == 1


def test_the_pages_photo_is_read_at_half_size_with_the_same_tiles_in_the_photos_pixels(model, decodes):
    big = cv2.resize(cv2.imread(str(RACK)), (2048, 1536), interpolation=cv2.INTER_CUBIC)
    reading = read_rack_photo(model, jpeg(big), "rack")
    assert decodes == [2]
    assert [t.tile for t in reading.tiles] == RACK_TILES and (reading.width, reading.height) == (2048, 1536)
    whole = read_rack(model, big)
    for half, full in zip(reading.tiles, whole.tiles, strict=True):  # boxes in the 2048 px photo's pixels
        assert np.allclose(half.box, full.box, atol=12), (half.box, full.box)


def test_a_rack_photographed_from_afar_is_read_from_the_whole_photo(model, decodes):
    far = np.full((1536, 2048, 3), 60, np.uint8)
    far[500:1100, 600:1400] = cv2.resize(cv2.imread(str(RACK)), (800, 600), interpolation=cv2.INTER_AREA)
    data = jpeg(far)
    reading = read_rack_photo(model, data, "far")
    assert decodes == [2, 1]          # its tiles at half size came out smaller than the classifier's input
    whole = read_rack(model, cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR))
    assert len(reading.tiles) == len(RACK_TILES) and reading.width == 2048
    assert [(t.tile, t.box) for t in reading.tiles] == [(t.tile, t.box) for t in whole.tiles]   # as read whole
    # shrunk until its tiles are 48 px wide, one Two Crak reads as a 3 Crak at this scale (models/README.md)
    assert sum(t.tile != code for t, code in zip(reading.tiles, RACK_TILES, strict=True)) <= 1


def test_a_turned_photo_is_read_upright(model, decodes):
    upright = cv2.resize(cv2.imread(str(RACK)), (2048, 1536), interpolation=cv2.INTER_CUBIC)
    stored = cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE)      # as a phone held sideways stores it
    reading = read_rack_photo(model, jpeg(stored, turn=6), "turned")
    assert decodes == [1] and [t.tile for t in reading.tiles] == RACK_TILES
