"""Reading a still image from a file, with a reason a person can act on when it cannot be read.

OpenCV's ``imread`` answers None for a missing file, a folder, an empty file and a PDF alike, and reads a JPEG
cut short without a word (libjpeg prints a warning and fills the rest grey): ``read_image`` tells them apart.
It also reads the size an image says it has before decoding it: a PNG of 1 MB may hold 32000 x 32000 pixels, which
OpenCV decodes into gigabytes (39 s and 7.7 GB on the team's machine) before anything could refuse it.
"""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

#: Formats OpenCV reads, named in the message for a file it cannot.
FORMATS = "JPEG, PNG, BMP, TIFF or WebP"
#: The most pixels an image may have: a 200 MP phone's full-resolution photo (16320 x 12240) and a little more.
#: Decoding takes about 8 bytes a pixel at its peak, so this bounds a read at about 1.7 GB; a larger image is
#: refused before decoding.
MAX_PIXELS = 210_000_000


#: Extensions an image is written with (OpenCV picks the format by the extension and has no writer for others).
WRITE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class ImageFileError(ValueError):
    """An image file that cannot be read or written; the message is ``path: reason``."""


def check_image_name(path: Path) -> None:
    """Refuse a file name OpenCV cannot write an image under (``overlay.txt``, or in no folder), before any work
    is done, saying which extensions it can."""
    if path.suffix.lower() not in WRITE_EXTENSIONS:
        raise ImageFileError(f"{path}: an image is written as {', '.join(WRITE_EXTENSIONS)}; end the name with one "
                             "of those (e.g. overlay.png)")
    if not path.parent.is_dir():
        raise ImageFileError(f"{path}: no folder {path.parent} to write it in")


def write_image(path: Path, img: np.ndarray) -> None:
    """Write ``img`` to ``path`` (its extension says the format), or ImageFileError saying why not."""
    check_image_name(path)
    if not cv2.imwrite(str(path), img):
        raise ImageFileError(f"{path}: cannot write the image there (is the folder writable?)")


def read_image(path: Path) -> np.ndarray:
    """The BGR image in ``path``, or ImageFileError saying why not (missing, a folder, empty, cut short, not an
    image, no pixels)."""
    return decode_image(image_bytes(path), str(path))


def image_bytes(path: Path) -> bytes:
    """The bytes of the image file ``path``, undecoded, or ImageFileError saying why not (missing, a folder,
    unreadable)."""
    if not path.exists():
        raise ImageFileError(f"{path}: no such file")
    if path.is_dir():
        raise ImageFileError(f"{path}: a folder, not an image file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageFileError(f"{path}: cannot be read ({exc.strerror})") from exc
    return data


#: OpenCV's decoding at a half, a quarter or an eighth of the size (a JPEG's decoder skips the detail itself).
REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
           8: cv2.IMREAD_REDUCED_COLOR_8}


def decode_image(data: bytes, name: str, reduce: int = 1) -> np.ndarray:
    """The BGR image in ``data``, the bytes of an image file (``name`` says where they came from, in the
    message), or ImageFileError saying why not: ``read_image`` for a file, and the rack photo a player's phone
    sends to her seat page (assistant/display/seats.py). ``reduce`` (1, 2, 4 or 8): decoded at that fraction
    of its size, faster than decoding it whole; OpenCV then ignores an EXIF orientation (``orientation``)."""
    if not data:
        raise ImageFileError(f"{name}: the file is empty")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data:     # no end marker anywhere (phones append data)
        raise ImageFileError(f"{name}: the JPEG is cut short (an interrupted copy or download?): copy it again")
    size = declared_size(data)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        w, h = size
        raise ImageFileError(f"{name}: {w} x {h} pixels ({w * h / 1e6:.0f} million), more than mahj reads "
                             f"({MAX_PIXELS / 1e6:.0f} million): save it smaller, e.g. 4000 x 3000")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), REDUCED[reduce])
    if img is None:
        kind = "a PDF" if data[:5] == b"%PDF-" else "not an image"
        raise ImageFileError(f"{name}: {kind}, which mahj cannot read: save it as {FORMATS}")
    if min(img.shape[:2]) < 1:
        raise ImageFileError(f"{name}: the image has no pixels")
    return img


def orientation(data: bytes) -> int | None:
    """The EXIF orientation an image file's header declares (1: upright as stored; 2-8: turned or mirrored), None
    where it declares none or is no image Pillow knows; read without decoding the pixels."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            value = img.getexif().get(0x0112)
    except Exception:  # noqa: BLE001 - what Pillow cannot parse has no orientation it can tell
        return None
    return value if isinstance(value, int) else None


def declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) that an image file's header declares, read without decoding its pixels; None when Pillow
    does not know the format (OpenCV may still read it).

    Pillow's format plugins parse only the header when an image is opened. They are called directly rather than
    through ``Image.open``, whose own guard against large images raises without saying the size.
    """
    Image.init()
    for fmt in Image.ID:
        factory, accept = Image.OPEN[fmt]
        try:  # an accept check may raise on a prefix shorter than it reads (BMP's needs 4 bytes)
            if accept is not None and not accept(data[:16]):
                continue
            return factory(io.BytesIO(data)).size
        except Exception:  # noqa: BLE001 - a plugin that cannot parse the header raises anything; try the next
            continue
    return None
