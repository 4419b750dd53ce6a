"""Reading a still image from a file, with a reason a person can act on when it cannot be read.

OpenCV's ``imread`` answers None for a missing file, a folder, an empty file and a PDF alike, and reads a JPEG
cut short without a word (libjpeg prints a warning and fills the rest grey): ``read_image`` tells them apart.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

#: Formats OpenCV reads, named in the message for a file it cannot.
FORMATS = "JPEG, PNG, BMP, TIFF or WebP"


class ImageFileError(ValueError):
    """An image file that cannot be read; the message is ``path: reason``."""


def read_image(path: Path) -> np.ndarray:
    """The BGR image in ``path``, or ImageFileError saying why not (missing, a folder, empty, cut short, not an
    image, no pixels)."""
    if not path.exists():
        raise ImageFileError(f"{path}: no such file")
    if path.is_dir():
        raise ImageFileError(f"{path}: a folder, not an image file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageFileError(f"{path}: cannot be read ({exc.strerror})") from exc
    if not data:
        raise ImageFileError(f"{path}: the file is empty")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data:     # no end marker anywhere (phones append data)
        raise ImageFileError(f"{path}: the JPEG is cut short (an interrupted copy or download?): copy it again")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        kind = "a PDF" if data[:5] == b"%PDF-" else "not an image"
        raise ImageFileError(f"{path}: {kind}, which mahj cannot read: save it as {FORMATS}")
    if min(img.shape[:2]) < 1:
        raise ImageFileError(f"{path}: the image has no pixels")
    return img
