"""American tile faces and backs, one look per *style id*.

Every American set looks different: body colour, back colour, thickness, the corner index font, and above all
the Joker, Flower and Soap designs. A style id (any int) seeds all those choices, so ``style_for(7)`` is the same
look on every machine; training uses many ids and keeps ``HOLDOUT_STYLE`` out, so enrolment can be measured on a
set the model never saw.

Suit/wind/dragon art comes from the CC0 fluffystuff faces copied into ``art/`` (see import_art.py); Jokers,
Flowers and Soaps are drawn here with Noto fonts (Debian ``fonts-noto-core``, OFL) and simple shapes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from engine.tiles import FLOWER, JOKER, TILES, rank_of, suit_of

ART_DIR = Path(__file__).with_name("art")
#: Debian's fonts-noto-core; MAHJ_FONT_DIR names another folder with the same files (a machine without them).
FONT_DIR = Path(os.environ.get("MAHJ_FONT_DIR", "/usr/share/fonts/truetype/noto"))
#: Face image size in pixels (width, height); tiles are about 23 x 31 mm.
FACE_W, FACE_H = 150, 200
#: The style the training data never uses: enrolment is measured on it.
HOLDOUT_STYLE = 0
#: Designs only the held-out style uses.
_NOVEL_JOKER, _NOVEL_FLOWER, _NOVEL_SOAP = 5, 4, 4

_TEXT_FONTS = ("NotoSans-Bold.ttf", "NotoSerif-Bold.ttf", "NotoSansDisplay-Bold.ttf", "NotoSerifDisplay-Bold.ttf",
               "NotoSans-BoldItalic.ttf", "NotoSerif-BoldItalic.ttf", "NotoSans-Regular.ttf")
_SYMBOL_FONT = "NotoSansSymbols2-Regular.ttf"
#: Mahjong flower and season glyphs (U+1F022..U+1F029) and dingbat flowers, all in Noto Sans Symbols 2.
_FLOWER_GLYPHS = tuple(chr(c) for c in range(0x1F022, 0x1F02A)) + ("\u273f", "\u2740", "\u2741", "\u2698")
_NOVEL_FLOWER_GLYPHS = ("\u273e", "\u2743", "\u2742", "\u273d")
_STAR_GLYPHS = ("\u2605", "\u2726", "\u2739", "\u263a", "\u2660", "\u2665")

_IVORY = [(236, 244, 250), (225, 240, 248), (245, 248, 250), (210, 235, 245), (228, 246, 238), (238, 238, 238),
          (215, 230, 250)]
_COLOURS = [(40, 40, 200), (30, 120, 30), (160, 60, 20), (20, 20, 20), (150, 40, 150), (0, 120, 200),
            (120, 90, 20), (200, 80, 120), (60, 60, 160), (30, 150, 220)]
_BACKS = [(60, 60, 200), (40, 130, 40), (170, 90, 30), (40, 40, 40), (150, 60, 170), (80, 170, 230), (200, 170, 60),
          (180, 120, 230), (30, 90, 160), (230, 230, 230), (120, 60, 60), (90, 200, 200)]


@dataclass(frozen=True)
class Style:
    """Everything that makes one set look like itself (BGR colours, sizes in mm)."""

    style_id: int
    face_colour: tuple[int, int, int]
    side_colour: tuple[int, int, int]
    back_colour: tuple[int, int, int]
    back_pattern: int          # 0 plain, 1 stripe, 2 inner frame, 3 dots
    two_tone: bool             # body colour shows on the sides (as many American sets do)
    thickness_mm: float
    index_font: str
    index_colour: tuple[int, int, int] | None   # None: the suit's own colour (red craks, green bams, blue dots)
    index_scale: float
    index_both_corners: bool
    art_scale: float
    joker_design: int
    joker_colours: tuple[tuple[int, int, int], tuple[int, int, int]]
    joker_font: str
    flower_design: int
    flower_colour: tuple[int, int, int]
    soap_design: int
    soap_colour: tuple[int, int, int]


def style_for(style_id: int) -> Style:
    """The look of set ``style_id``; the same id gives the same look everywhere."""
    rng = np.random.default_rng([0x7A11E, style_id])

    def pick(seq):  # noqa: ANN001, ANN202 - tiny local helper over tuples/lists
        return seq[int(rng.integers(len(seq)))]

    face = tuple(int(np.clip(c + rng.integers(-12, 12), 0, 255)) for c in pick(_IVORY))
    back = tuple(int(np.clip(c + rng.integers(-25, 25), 0, 255)) for c in pick(_BACKS))
    two_tone = bool(rng.random() < 0.6)
    jc = (pick(_COLOURS), pick(_COLOURS))
    if style_id == HOLDOUT_STYLE:
        # The held-out set also has Joker, Flower and Soap designs that no training style has, as a user's own
        # set would: enrolment is measured on exactly that.
        jd, fd, sd = _NOVEL_JOKER, _NOVEL_FLOWER, _NOVEL_SOAP
    else:
        jd, fd, sd = int(rng.integers(5)), int(rng.integers(4)), int(rng.integers(4))
    return Style(
        style_id=style_id, face_colour=face, side_colour=back if two_tone else face, back_colour=back,
        back_pattern=int(rng.integers(4)), two_tone=two_tone, thickness_mm=float(rng.uniform(9, 16)),
        index_font=pick(_TEXT_FONTS), index_colour=None if rng.random() < 0.5 else pick(_COLOURS),
        index_scale=float(rng.uniform(0.18, 0.28)), index_both_corners=bool(rng.random() < 0.25),
        art_scale=float(rng.uniform(0.62, 0.8)),
        joker_design=jd, joker_colours=jc, joker_font=pick(_TEXT_FONTS),
        flower_design=fd, flower_colour=pick(_COLOURS),
        soap_design=sd, soap_colour=pick(_COLOURS[:3] + _COLOURS[5:6]),
    )


@lru_cache(maxsize=64)
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), size)


def _text_mask(text: str, font: str, height_px: int, *, vertical: bool = False) -> np.ndarray:
    """A tight 8-bit mask of ``text`` whose glyph height is about ``height_px``."""
    f = _font(font, max(8, height_px))
    lines = list(text) if vertical else [text]
    boxes = [f.getbbox(s) for s in lines]
    w = max(b[2] - b[0] for b in boxes) + 4
    line_h = max(b[3] - b[1] for b in boxes) + 2
    img = Image.new("L", (w, line_h * len(lines) + 4), 0)
    draw = ImageDraw.Draw(img)
    for i, (s, b) in enumerate(zip(lines, boxes, strict=True)):
        draw.text(((w - (b[2] - b[0])) / 2 - b[0], i * line_h - b[1] + 2), s, fill=255, font=f)
    m = np.asarray(img)
    ys, xs = np.nonzero(m)
    return m[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(xs) else m


def _paste_mask(face: np.ndarray, mask: np.ndarray, colour, cx: float, cy: float, max_w: float, max_h: float) -> None:
    """Colour ``mask`` into ``face`` centred at (cx, cy), scaled to fit max_w x max_h."""
    h, w = mask.shape
    s = min(max_w / w, max_h / h)
    nw, nh = max(1, int(w * s)), max(1, int(h * s))
    m = cv2.resize(mask, (nw, nh), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
    x0, y0 = int(cx - nw / 2), int(cy - nh / 2)
    x0, y0 = max(0, x0), max(0, y0)
    roi = face[y0:y0 + nh, x0:x0 + nw]
    m = m[:roi.shape[0], :roi.shape[1]]
    roi[:] = (roi * (1 - m) + np.array(colour, np.float32) * m).astype(np.uint8)


@lru_cache(maxsize=64)
def _art(code: str) -> np.ndarray:
    img = cv2.imread(str(ART_DIR / f"{code}.png"), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FileNotFoundError(f"{ART_DIR / code}.png: missing tile art (run datasets.synth.import_art)")
    return img


def _paste_art(face: np.ndarray, art: np.ndarray, scale: float, dy: float = 0.0) -> None:
    h, w = face.shape[:2]
    nw, nh = int(w * scale), int(h * scale)
    a = cv2.resize(art, (nw, nh), interpolation=cv2.INTER_AREA).astype(np.float32)
    x0, y0 = (w - nw) // 2, int((h - nh) / 2 + dy * h)
    roi = face[y0:y0 + nh, x0:x0 + nw]
    alpha = a[..., 3:4] / 255.0
    roi[:] = (roi * (1 - alpha) + a[..., :3] * alpha).astype(np.uint8)


_SUIT_COLOUR = {"B": (40, 120, 30), "C": (40, 40, 190), "D": (140, 50, 20)}


def _index_text(code: str, style: Style) -> str | None:
    if code in (JOKER, FLOWER):
        return None
    if code == "WD":
        return "0" if style.soap_design >= 2 else None
    if code in ("RD", "GD"):
        return code[0]
    r = rank_of(code)
    return str(r) if r else code


def _draw_joker(face: np.ndarray, style: Style) -> None:
    h, w = face.shape[:2]
    c1, c2 = style.joker_colours
    d = style.joker_design
    word = _text_mask("JOKER", style.joker_font, 60, vertical=d == 1)
    if d == 0:
        _paste_mask(face, word, c1, w / 2, h / 2, w * 0.9, h * 0.3)
        star = _text_mask(_STAR_GLYPHS[style.style_id % len(_STAR_GLYPHS)], _SYMBOL_FONT, 60)
        _paste_mask(face, star, c2, w / 2, h * 0.22, w * 0.4, h * 0.2)
        _paste_mask(face, star, c2, w / 2, h * 0.78, w * 0.4, h * 0.2)
    elif d == 1:
        _paste_mask(face, word, c1, w / 2, h / 2, w * 0.5, h * 0.88)
    elif d == 2:
        _paste_mask(face, word, c1, w / 2, h * 0.2, w * 0.9, h * 0.22)
        cv2.circle(face, (w // 2, int(h * 0.62)), int(w * 0.3), c2, -1, cv2.LINE_AA)
        cv2.circle(face, (w // 2 - w // 9, int(h * 0.56)), w // 16, (255, 255, 255), -1, cv2.LINE_AA)
        cv2.circle(face, (w // 2 + w // 9, int(h * 0.56)), w // 16, (255, 255, 255), -1, cv2.LINE_AA)
        cv2.ellipse(face, (w // 2, int(h * 0.66)), (w // 7, h // 14), 0, 10, 170, (255, 255, 255), 4, cv2.LINE_AA)
    elif d == 3:
        cv2.rectangle(face, (8, 8), (w - 9, h - 9), c2, 5)
        _paste_mask(face, word, c1, w / 2, h / 2, w * 0.8, h * 0.3)
        for y in (0.22, 0.78):
            _paste_mask(face, _text_mask("\u2666", _SYMBOL_FONT, 40), c2, w / 2, h * y, w * 0.25, h * 0.15)
    elif d == _NOVEL_JOKER:  # a crown over a diagonal band with the word across it
        band = np.array([[0, h * 0.55], [w, h * 0.25], [w, h * 0.55], [0, h * 0.85]], np.int32)
        cv2.fillPoly(face, [band], c2, cv2.LINE_AA)
        _paste_mask(face, _text_mask("\u265b", _SYMBOL_FONT, 80), c1, w / 2, h * 0.2, w * 0.5, h * 0.25)
        pad = word.shape[1] // 3
        big = cv2.copyMakeBorder(word, pad, pad, 0, 0, cv2.BORDER_CONSTANT, value=0)
        rot = cv2.getRotationMatrix2D((big.shape[1] / 2, big.shape[0] / 2), 22, 0.85)
        diag = cv2.warpAffine(big, rot, (big.shape[1], big.shape[0]))
        _paste_mask(face, diag, (255, 255, 255), w / 2, h * 0.58, w * 0.95, h * 0.4)
    else:  # jester hat
        pts = np.array([[w * 0.15, h * 0.62], [w * 0.3, h * 0.22], [w * 0.5, h * 0.5], [w * 0.7, h * 0.22],
                        [w * 0.85, h * 0.62]], np.int32)
        cv2.fillPoly(face, [pts], c2, cv2.LINE_AA)
        for x in (0.3, 0.7):
            cv2.circle(face, (int(w * x), int(h * 0.2)), w // 14, c1, -1, cv2.LINE_AA)
        _paste_mask(face, word, c1, w / 2, h * 0.8, w * 0.85, h * 0.2)


def _draw_flower(face: np.ndarray, style: Style, variant: int) -> None:
    h, w = face.shape[:2]
    c = style.flower_colour
    d = style.flower_design
    if d == _NOVEL_FLOWER:  # a dingbat flower no training set has, with an "F" index
        g = _text_mask(_NOVEL_FLOWER_GLYPHS[variant % 4], _SYMBOL_FONT, 120)
        _paste_mask(face, g, c, w / 2, h * 0.55, w * 0.75, h * 0.6)
        _paste_mask(face, _text_mask("F", style.index_font, 40), (40, 40, 160), w * 0.16, h * 0.11, w * 0.2, h * 0.13)
    elif d in (0, 1):
        glyphs = _FLOWER_GLYPHS[:8] if d == 0 else _FLOWER_GLYPHS[8:]
        g = _text_mask(glyphs[variant % len(glyphs)], _SYMBOL_FONT, 120)
        _paste_mask(face, g, c, w / 2, h / 2, w * 0.8, h * 0.75)
        if d == 1:
            _paste_mask(face, _text_mask(str(variant % 4 + 1), style.index_font, 40), (40, 40, 40),
                        w * 0.18, h * 0.12, w * 0.2, h * 0.14)
    else:
        n = 5 + variant % 3
        cx, cy, r = w / 2, h * (0.42 if d == 3 else 0.5), w * 0.2
        cv2.line(face, (int(cx), int(cy)), (int(cx), int(h * 0.9)), (40, 130, 40), 5, cv2.LINE_AA)
        cv2.ellipse(face, (int(cx + w * 0.1), int(h * 0.75)), (w // 8, h // 30), -30, 0, 360, (40, 130, 40), -1)
        for k in range(n):
            a = 2 * np.pi * k / n + variant
            px, py = cx + r * np.cos(a), cy + r * np.sin(a)
            cv2.ellipse(face, (int(px), int(py)), (int(r * 0.75), int(r * 0.45)), np.degrees(a), 0, 360, c, -1,
                        cv2.LINE_AA)
        cv2.circle(face, (int(cx), int(cy)), int(r * 0.4), (30, 200, 240), -1, cv2.LINE_AA)
        if d == 3:
            _paste_mask(face, _text_mask("FLOWER", style.index_font, 40), c, w / 2, h * 0.1, w * 0.8, h * 0.1)


def _draw_soap(face: np.ndarray, style: Style) -> None:
    h, w = face.shape[:2]
    c = style.soap_colour
    if style.soap_design == 0:
        return
    if style.soap_design == _NOVEL_SOAP:  # an oval ring
        cv2.ellipse(face, (w // 2, h // 2), (int(w * 0.3), int(h * 0.36)), 0, 0, 360, c, 9, cv2.LINE_AA)
        return
    cv2.rectangle(face, (int(w * 0.15), int(h * 0.12)), (int(w * 0.85), int(h * 0.88)), c, 5, cv2.LINE_AA)
    if style.soap_design in (1, 3):
        cv2.rectangle(face, (int(w * 0.24), int(h * 0.2)), (int(w * 0.76), int(h * 0.8)), c, 2, cv2.LINE_AA)
    if style.soap_design == 3:
        for x, y in ((0.15, 0.12), (0.85, 0.12), (0.15, 0.88), (0.85, 0.88)):
            cv2.circle(face, (int(w * x), int(h * y)), w // 14, c, -1, cv2.LINE_AA)


def face_image(code: str, style: Style, variant: int = 0) -> np.ndarray:
    """The face of tile ``code`` in ``style`` as a BGR image FACE_W x FACE_H.

    ``variant`` picks among a set's several Flower designs (sets have 8 different flowers); other tiles ignore it.
    """
    return _face_cached(code, style, variant % 8 if code == FLOWER else 0).copy()


@lru_cache(maxsize=2048)
def _face_cached(code: str, style: Style, variant: int) -> np.ndarray:
    if code not in TILES:
        raise ValueError(f"not a tile code: {code!r}")
    face = np.empty((FACE_H, FACE_W, 3), np.uint8)
    face[:] = style.face_colour
    if code == JOKER:
        _draw_joker(face, style)
    elif code == FLOWER:
        _draw_flower(face, style, variant)
    elif code == "WD":
        _draw_soap(face, style)
    else:
        _paste_art(face, _art(code), style.art_scale, dy=0.06)
    text = _index_text(code, style)
    if text:
        s = suit_of(code)
        colour = style.index_colour or (_SUIT_COLOUR[s.value] if s else (30, 30, 30))
        m = _text_mask(text, style.index_font, 60)
        ih = FACE_H * style.index_scale
        _paste_mask(face, m, colour, FACE_W * 0.16, ih * 0.55 + 4, FACE_W * 0.3, ih)
        if style.index_both_corners:
            _paste_mask(face, m[::-1, ::-1], colour, FACE_W * 0.84, FACE_H - ih * 0.55 - 4, FACE_W * 0.3, ih)
    face.setflags(write=False)
    return face


@lru_cache(maxsize=256)
def back_image(style: Style) -> np.ndarray:
    """The back of a tile in ``style`` (what face-down tiles show), BGR FACE_W x FACE_H."""
    back = np.empty((FACE_H, FACE_W, 3), np.uint8)
    back[:] = style.back_colour
    dark = tuple(int(c * 0.7) for c in style.back_colour)
    if style.back_pattern == 1:
        for x in range(-FACE_H, FACE_W, 24):
            cv2.line(back, (x, 0), (x + FACE_H, FACE_H), dark, 6)
    elif style.back_pattern == 2:
        cv2.rectangle(back, (14, 14), (FACE_W - 15, FACE_H - 15), dark, 4)
    elif style.back_pattern == 3:
        for y in range(20, FACE_H, 30):
            for x in range(20, FACE_W, 30):
                cv2.circle(back, (x, y), 5, dark, -1)
    back.setflags(write=False)
    return back


def contact_sheet(style: Style) -> np.ndarray:
    """All 36 faces of a style (plus the back) in one image, for eyeballing a style."""
    tiles = [face_image(c, style) for c in TILES] + [back_image(style)]
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % 10)
    rows = [np.hstack(tiles[i:i + 10]) for i in range(0, len(tiles), 10)]
    return np.vstack(rows)
