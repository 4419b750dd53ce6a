"""Faces of the character tiles (Craks, winds, Red and Green Dragons) drawn from CJK fonts, each time in another
hand: font, weight, slant, size and ink vary from face to face.

Why: the rendered sets draw these kinds from one artist's faces (``art/``), and the real photos come from a few
sets. On a set never trained on (the held-out riichi sources of ``bench/loso.py``) most wrong faces were Craks
whose numeral is drawn in another hand: 三 read as 五, 九 as 七. Makers differ most in exactly these
characters, so the classifier is shown many hands of them (``classifier --glyph-faces``) and must learn the
character, not one artist's brush. Needs fonts-noto-cjk (Debian), as ``datasets.scenes`` print does.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .faces import FACE_H, FACE_W

CJK_FONT_FILES = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
                  "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc")
#: Faces inside a .ttc (SC, TC, JP, KR, HK): the same character is drawn a little differently in each.
TTC_FACES = 5
NUMERALS = "一二三四五六七八九"
HONOURS = {"E": "東", "S": "南", "W": "西", "N": "北", "RD": "中", "GD": "發"}
GLYPH_CODES = tuple(f"{r}C" for r in range(1, 10)) + tuple(HONOURS)
_RED, _GREEN = (40, 30, 200), (60, 130, 20)
_DARK_INKS = ((20, 20, 20), (120, 40, 20), (90, 30, 30), (30, 90, 20))


def available() -> bool:
    """Whether the CJK fonts are installed (fonts-noto-cjk)."""
    return any(Path(f).exists() for f in CJK_FONT_FILES)


def _mask(char: str, rng: np.random.Generator) -> np.ndarray:
    """One character as a tight uint8 mask, in a random font face, weight and slant."""
    fonts = [f for f in CJK_FONT_FILES if Path(f).exists()]
    font = ImageFont.truetype(fonts[int(rng.integers(len(fonts)))], 96, index=int(rng.integers(TTC_FACES)))
    pil = Image.new("L", (160, 160), 0)
    ImageDraw.Draw(pil).text((20, 10), char, fill=255, font=font)
    m = np.asarray(pil).copy()
    weight = int(rng.integers(-1, 4))                   # thinner strokes, or a brush's heavier ones
    if weight:
        k = np.ones((abs(weight) + 1, abs(weight) + 1), np.uint8)
        m = cv2.dilate(m, k) if weight > 0 else cv2.erode(m, k)
    shear = rng.uniform(-0.2, 0.2)
    turn = cv2.getRotationMatrix2D((80, 80), rng.normal(0, 4), 1.0)
    turn[0, 1] += shear
    m = cv2.warpAffine(m, turn, (160, 160))
    ys, xs = np.nonzero(m > 40)
    if not len(xs):
        return m
    return m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _paste(face: np.ndarray, mask: np.ndarray, ink: tuple[int, int, int], box: tuple[float, float, float, float]
           ) -> None:
    """Ink ``mask`` into ``box`` (x0, y0, x1, y1 as fractions of the face), keeping its aspect."""
    x0, y0, x1, y1 = (box[0] * FACE_W, box[1] * FACE_H, box[2] * FACE_W, box[3] * FACE_H)
    r = min((x1 - x0) / mask.shape[1], (y1 - y0) / mask.shape[0])
    w, h = max(1, round(mask.shape[1] * r)), max(1, round(mask.shape[0] * r))
    m = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    ox, oy = int(cx - w / 2), int(cy - h / 2)
    roi = face[oy:oy + h, ox:ox + w]
    roi[:] = (roi * (1 - m) + np.array(ink, np.float32) * m).astype(np.uint8)


def glyph_face(code: str, rng: np.random.Generator) -> np.ndarray:
    """The face of a character tile (one of GLYPH_CODES) as BGR FACE_W x FACE_H, drawn in a random hand on an
    ivory or white face."""
    face = np.empty((FACE_H, FACE_W, 3), np.uint8)
    face[:] = np.clip(np.array([205, 230, 240]) + rng.normal(0, 12, 3), 150, 255)
    dark = _DARK_INKS[int(rng.integers(len(_DARK_INKS)))]
    margin = rng.uniform(0.08, 0.2)
    if code.endswith("C"):
        split = rng.uniform(0.42, 0.52)
        ten_thousand = "萬" if rng.random() < 0.8 else "万"
        _paste(face, _mask(NUMERALS[int(code[0]) - 1], rng), dark, (margin, 0.06, 1 - margin, split))
        _paste(face, _mask(ten_thousand, rng), _RED, (margin, split + 0.03, 1 - margin, 0.94))
    else:
        ink = _RED if code == "RD" else _GREEN if code == "GD" else dark
        _paste(face, _mask(HONOURS[code], rng), ink, (margin, 0.15, 1 - margin, 0.85))
    return face
