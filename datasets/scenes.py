"""Compose detector training scenes from real tile crops (issue 41: train on scenes, not just tiles).

    python -m datasets.scenes --out datasets/rendered/scenes --n 1600 --seed 11

The real photos hold thousands of true tile boxes, but mostly in the few views their photographers chose. This cuts
every face-up box of the *training* photos and lays them out again, with rendered backs, as a table
shows them: discard floors of touching rows and heaps, racks of standing tiles with their rack behind, walls of
backs, exposures, at 10-60 px, with hands and sleeves over some, and things on a table that are not tiles and must
not be boxed: a printed card, book spines and paper with Chinese characters and digits, chips, a phone, a cup,
coins, glare. Renders add the American faces the photos lack (Jokers, Flowers, Soaps, Western indices).

Backgrounds are the training photos themselves (their own tiles keep their labels unless new ones cover them) or
procedural felt, wood and cloth. Only the ``train`` split is cut from: the held-out photos stay unseen, so
``bench/loso.py`` stays honest for the sources the weights never saw.

Output: a YOLO folder like the renderer's (``images/{train,val}``, ``labels/{train,val}``; class 0 face up,
1 face down), for ``datasets.train detector --scenes``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont
from tqdm import tqdm

from datasets import real_photos
from datasets.synth.faces import back_image, face_image, style_for
from engine.tiles import TILES

#: Canvas long side: the detector trains at 512, so a tile's size here is its size at the detector's input.
CANVAS = 512
#: Tile short sides drawn from this range (log-uniform), px at the canvas.
TILE_PX = (10.0, 60.0)
#: A crop is stored at most this long side (it is pasted at 60 px or less).
CROP_MAX = 96
#: A tile covered past this fraction (by another tile, a hand or clutter) loses its label.
MIN_SEEN = 0.6
CJK_FONTS = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
             "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc")
LATIN_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
#: Characters of the negatives' print: what a card, a manual or a book spine shows (numbers, winds, kanji).
CJK_TEXT = "一二三四五六七八九十萬東南西北中發白麻雀牌規則點數和了立直書本日月年大小上下人"
LATIN_TEXT = "0123456789 NEWSDFJ 2026 FF 1111 2222 33 44 Any Like Kong Pung Quint x25 C"


@dataclass
class Pool:
    """The tiles a scene is drawn from, as seen (BGR), face up and face down apart: split once, since a scene
    draws hundreds of them."""

    up: list[np.ndarray]
    down: list[np.ndarray]

    def pick(self, down: bool, rng: np.random.Generator) -> np.ndarray:
        """A face-down tile or a face-up one, as asked (a back labelled face up would teach a lie)."""
        tiles = self.down if down else self.up
        return tiles[int(rng.integers(len(tiles)))]


def real_crops(min_px: int = 14) -> list[np.ndarray]:
    """Every face-up box of the training photos (short side ``min_px`` or more), each shrunk to CROP_MAX on its
    long side. The photos label no backs: the scenes' backs are rendered."""
    crops: list[np.ndarray] = []
    photos = list(real_photos.photos(("train",)))
    for ph in tqdm(photos, desc="cut real tiles", unit="photo"):
        img = ph.load()
        for x1, y1, x2, y2 in ph.boxes.astype(int):
            c = img[max(y1, 0):y2, max(x1, 0):x2]
            if min(c.shape[:2]) >= min_px:
                crops.append(_shrink(c))
    return crops


def rendered_crops(rng: np.random.Generator, n_styles: int = 12) -> Pool:
    """Every tile of a dozen rendered sets, on a body of the set's side colour, and their backs: the American
    faces (Jokers, Flowers, Soaps, Western indices) the real photos lack. Style 0 is never drawn: it is the set
    kept out of training to measure learning a set on."""
    pool = Pool([], [])
    for s in range(1, n_styles + 1):
        style = style_for(s)
        for code in TILES:
            pool.up.append(_with_body(face_image(code, style, int(rng.integers(8))), style.side_colour, rng))
        for _ in range(6):
            pool.down.append(_with_body(back_image(style), style.back_colour, rng))
    return pool


def _shrink(img: np.ndarray) -> np.ndarray:
    r = CROP_MAX / max(img.shape[:2])
    if r >= 1:
        return img.copy()
    return cv2.resize(img, (max(1, round(img.shape[1] * r)), max(1, round(img.shape[0] * r))),
                      interpolation=cv2.INTER_AREA)


def _with_body(face: np.ndarray, side: tuple[int, int, int], rng: np.random.Generator) -> np.ndarray:
    """A face seen from above a little off its axis: the tile's body shows as a darker band along two sides."""
    h, w = face.shape[:2]
    t = int(rng.uniform(0.04, 0.12) * h)
    left = rng.random() < 0.5
    out = np.empty((h + t + 4, w + t // 2 + 4, 3), np.uint8)
    out[:] = np.array(side, np.float32) * 0.7
    ox, oy = 2 + (t // 2 if left else 0), 2
    out[oy:oy + h, ox:ox + w] = face
    cv2.rectangle(out, (ox, oy), (ox + w - 1, oy + h - 1), tuple(int(c * 0.8) for c in face[2, 2]), 2)
    return _shrink(out)


# --- backgrounds ---------------------------------------------------------------------------------------------

def procedural_background(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Felt, wood or a patterned cloth, lit unevenly."""
    base = rng.uniform(20, 230, 3)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    kind = rng.integers(3)
    if kind == 1:       # wood: stretched noise along one direction
        grain = cv2.resize(rng.normal(0, 1, (max(2, h // 8), 4)).astype(np.float32), (w, h))
        img += grain[..., None] * rng.uniform(8, 25)
    elif kind == 2:     # cloth: checks or stripes
        p = int(rng.integers(12, 60))
        yy, xx = np.mgrid[0:h, 0:w]
        mask = ((yy // p + xx // p) % 2 == 0) if rng.random() < 0.5 else ((xx // p) % 2 == 0)
        img[mask] = rng.uniform(20, 230, 3)
    img += rng.normal(0, rng.uniform(2, 10), (h, w, 1))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = 1 + rng.uniform(-0.25, 0.25) * (xx / w - 0.5) + rng.uniform(-0.25, 0.25) * (yy / h - 0.5)
    return np.clip(img * light[..., None], 0, 255).astype(np.uint8)


def photo_background(folder: Path, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """An exported training photo with its own boxes (x1, y1, x2, y2 px) and classes, or None."""
    images = sorted((folder / "images").glob("*.jpg"))
    if not images:
        return None
    path = images[int(rng.integers(len(images)))]
    img = cv2.imread(str(path))
    h, w = img.shape[:2]
    rows = np.loadtxt(folder / "labels" / f"{path.stem}.txt", ndmin=2).reshape(-1, 5)
    boxes = np.stack([(rows[:, 1] - rows[:, 3] / 2) * w, (rows[:, 2] - rows[:, 4] / 2) * h,
                      (rows[:, 1] + rows[:, 3] / 2) * w, (rows[:, 2] + rows[:, 4] / 2) * h], 1)
    return img, boxes.astype(np.float32), rows[:, 0].astype(int)


# --- drawing -------------------------------------------------------------------------------------------------

class Canvas:
    """The scene being composed: its image, and which drawn tile owns each pixel (for what is left seen)."""

    def __init__(self, img: np.ndarray) -> None:
        self.img = img
        self.owner = np.full(img.shape[:2], -1, np.int32)
        self.tiles: list[tuple[np.ndarray, int, int]] = []   # (box, class, pixel area when drawn)

    def paste(self, crop: np.ndarray, cx: float, cy: float, side: float, angle: float, cls: int | None) -> bool:
        """Draw ``crop`` with its short side ``side`` px, turned ``angle`` degrees about (cx, cy); a tile
        (``cls`` not None) is labelled by its axis-aligned box. False where it would leave the canvas."""
        h, w = crop.shape[:2]
        r = side / min(h, w)
        sw, sh = max(2, round(w * r)), max(2, round(h * r))
        small = cv2.resize(crop, (sw, sh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
        m = cv2.getRotationMatrix2D((sw / 2, sh / 2), angle, 1.0)
        cos, sin = abs(m[0, 0]), abs(m[0, 1])
        bw, bh = int(np.ceil(sh * sin + sw * cos)), int(np.ceil(sh * cos + sw * sin))
        m[0, 2] += bw / 2 - sw / 2
        m[1, 2] += bh / 2 - sh / 2
        rot = cv2.warpAffine(small, m, (bw, bh), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpAffine(np.full((sh, sw), 255, np.uint8), m, (bw, bh), flags=cv2.INTER_LINEAR) > 127
        x0, y0 = round(cx - bw / 2), round(cy - bh / 2)
        H, W = self.owner.shape
        if x0 < 0 or y0 < 0 or x0 + bw > W or y0 + bh > H:
            return False
        region = self.img[y0:y0 + bh, x0:x0 + bw]
        region[alpha] = rot[alpha]
        ident = len(self.tiles) if cls is not None else -2
        self.owner[y0:y0 + bh, x0:x0 + bw][alpha] = ident
        if cls is not None:
            ys, xs = np.nonzero(alpha)
            box = np.array([x0 + xs.min(), y0 + ys.min(), x0 + xs.max() + 1, y0 + ys.max() + 1], np.float32)
            self.tiles.append((box, cls, int(alpha.sum())))
        return True

    def cover(self, mask: np.ndarray, colour: np.ndarray) -> None:
        """Lay something that is not a tile over ``mask`` (a hand, a sleeve, a chip)."""
        self.img[mask] = colour
        self.owner[mask] = -2

    def labels(self) -> list[tuple[int, np.ndarray]]:
        """The drawn tiles still seen at MIN_SEEN or more, as (class, box)."""
        seen = np.bincount(self.owner[self.owner >= 0].ravel(), minlength=len(self.tiles))
        return [(cls, box) for k, (box, cls, area) in enumerate(self.tiles) if seen[k] >= MIN_SEEN * area]


def lay_rows(cv: Canvas, pool: Pool, rng: np.random.Generator, side: float, down: bool = False) -> None:
    """A discard floor, an exposure or a wall: rows of touching tiles at one angle, some turned end for end."""
    rows, per_row = int(rng.integers(1, 5)), int(rng.integers(3, 13))
    theta = float(rng.choice([0, 90]) + rng.normal(0, 12) if rng.random() < 0.7 else rng.uniform(0, 180))
    H, W = cv.owner.shape
    ox, oy = rng.uniform(0, W), rng.uniform(0, H)
    ux, uy = np.cos(np.radians(-theta)), np.sin(np.radians(-theta))
    pitch, row_pitch = side * rng.uniform(1.0, 1.12), side * 1.35 * rng.uniform(1.0, 1.15)
    for r in range(rows):
        for k in range(per_row):
            x = ox + ux * k * pitch - uy * r * row_pitch
            y = oy + uy * k * pitch + ux * r * row_pitch
            if rng.random() < 0.08:
                continue
            cls_down = down or rng.random() < 0.05
            crop = pool.pick(cls_down, rng)
            turn = float(rng.choice([0, 180]) if rng.random() < 0.8 else rng.choice([90, 270]))
            cv.paste(crop, x, y, side * rng.uniform(0.95, 1.05), theta + turn + rng.normal(0, 3), int(cls_down))


def lay_heap(cv: Canvas, pool: Pool, rng: np.random.Generator, side: float) -> None:
    """Tiles pushed together in a heap, at any angle, some face down, some overlapping."""
    H, W = cv.owner.shape
    cx, cy = rng.uniform(0, W), rng.uniform(0, H)
    spread = side * rng.uniform(2, 6)
    for _ in range(int(rng.integers(4, 25))):
        down = rng.random() < 0.3
        cv.paste(pool.pick(down, rng), cx + rng.normal(0, spread), cy + rng.normal(0, spread),
                 side * rng.uniform(0.9, 1.1), rng.uniform(0, 360), int(down))


def lay_rack(cv: Canvas, pool: Pool, rng: np.random.Generator, side: float) -> None:
    """A rack seen from a seat: standing tiles in a row on a coloured rack, its pusher below them."""
    H, W = cv.owner.shape
    n = int(rng.integers(8, 15))
    x0, y0 = rng.uniform(0, W * 0.5), rng.uniform(side, H - side * 2)
    length = n * side * 1.02
    colour = rng.uniform(20, 230, 3)
    cv.img[int(y0 + side * 0.6):int(y0 + side * 1.2), int(x0):int(min(W, x0 + length))] = colour
    for k in range(n):
        cv.paste(pool.pick(False, rng), x0 + side * 0.5 + k * side * 1.02, y0, side, rng.normal(0, 1.5), 0)


def clutter(cv: Canvas, rng: np.random.Generator, side: float) -> None:
    """One thing on a table that is not a tile: print with characters and digits (a card, a manual, a book's
    spine), a chip or coin, a phone, a cup's rim, a hand or a sleeve."""
    H, W = cv.owner.shape
    kind = rng.integers(6)
    if kind <= 1:
        cv.img[:] = _print(cv.img, cv.owner, rng, side, spine=kind == 1)
        return
    mask = np.zeros((H, W), np.uint8)
    cx, cy = int(rng.uniform(0, W)), int(rng.uniform(0, H))
    colour = rng.uniform(0, 255, 3)
    if kind == 2:                                                   # chips, coins
        for _ in range(int(rng.integers(1, 8))):
            cv2.circle(mask, (cx + int(rng.normal(0, side)), cy + int(rng.normal(0, side))),
                       int(side * rng.uniform(0.4, 0.9)), 255, -1)
    elif kind == 3:                                                 # a phone or a card box
        box = cv2.boxPoints(((cx, cy), (side * rng.uniform(2, 4), side * rng.uniform(3, 7)), rng.uniform(0, 180)))
        cv2.fillPoly(mask, [box.astype(np.int32)], 255)
        colour = rng.uniform(0, 60, 3)
    elif kind == 4:                                                 # a cup's rim
        cv2.circle(mask, (cx, cy), int(side * rng.uniform(1.5, 3)), 255, int(max(2, side * 0.3)))
    else:                                                           # a hand and its sleeve
        r = int(side * rng.uniform(1, 2))
        cv2.ellipse(mask, (cx, cy), (r, int(r * 1.3)), rng.uniform(0, 180), 0, 360, 255, -1)
        end = (int(cx + rng.normal(0, W)), int(cy + rng.normal(0, H)))
        cv2.line(mask, (cx, cy), end, 255, int(r * 1.6))
        colour = rng.choice([np.array([140, 170, 220]), np.array([90, 120, 170]), np.array([60, 80, 110])])
        colour = colour + rng.normal(0, 15, 3)
    cv.cover(mask > 0, np.clip(colour, 0, 255))


@lru_cache(maxsize=32)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def _print(img: np.ndarray, owner: np.ndarray, rng: np.random.Generator, side: float, spine: bool) -> np.ndarray:
    """Paper or a book's spine with characters and digits about a tile's size: the false tiles the held-out
    player's-eye photos showed came from print like this, and an NMJL card lies on every American table."""
    H, W = owner.shape
    pil = Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB))
    d = ImageDraw.Draw(pil)
    size = int(side * rng.uniform(0.5, 1.1))
    x0, y0 = int(rng.uniform(0, W * 0.8)), int(rng.uniform(0, H * 0.8))
    paper = tuple(int(c) for c in (rng.uniform(150, 255, 3) if rng.random() < 0.6 else rng.uniform(0, 200, 3)))
    cjk = rng.random() < 0.6 and any(Path(f).exists() for f in CJK_FONTS)   # fonts-noto-cjk, where installed
    chars = CJK_TEXT if cjk else LATIN_TEXT
    fonts = [f for f in CJK_FONTS if Path(f).exists()] if cjk else [LATIN_FONT]
    font = _font(fonts[int(rng.integers(len(fonts)))], max(6, size))
    ink = tuple(int(c) for c in rng.choice([[0, 0, 0], [200, 20, 20], [20, 120, 40], [20, 40, 160], [230, 200, 60]]))
    if spine:
        n_spines = int(rng.integers(2, 7))
        for s in range(n_spines):
            w = int(size * rng.uniform(1.3, 2.2))
            x = x0 + s * w
            col = tuple(int(c) for c in rng.uniform(0, 255, 3))
            d.rectangle([x, y0, x + w - 2, min(H, y0 + int(size * rng.uniform(6, 14)))], fill=col)
            for k in range(int(rng.integers(2, 8))):
                d.text((x + w * 0.15, y0 + k * size * 1.15), chars[int(rng.integers(len(chars)))], font=font,
                       fill=ink if sum(col) > 300 else (240, 240, 230))
        x1, y1 = x0 + n_spines * int(size * 2.2), H
    else:
        lines, cols = int(rng.integers(2, 8)), int(rng.integers(4, 14))
        x1, y1 = min(W, x0 + int(cols * size * 1.1)), min(H, y0 + int(lines * size * 1.5))
        d.rectangle([x0, y0, x1, y1], fill=paper)
        for li in range(lines):
            text = "".join(chars[int(rng.integers(len(chars)))] for _ in range(cols))
            d.text((x0 + 3, y0 + li * size * 1.5), text, font=font, fill=ink)
    out = cv2.cvtColor(np.asarray(pil), cv2.COLOR_RGB2BGR)
    drawn = (slice(max(0, y0), min(H, y1)), slice(max(0, x0), min(W, x1)))
    owner[drawn][np.any(out[drawn] != img[drawn], axis=2)] = -2     # what the print covers is no tile's
    return out


def print_boxes(n: int, rng: np.random.Generator) -> list[tuple[np.ndarray, tuple[float, float, float, float]]]:
    """``n`` pictures of print (book spines, a card, a manual) with a tile-shaped box on its characters, as the
    detector boxes them on real tables: "not a tile" examples for the classifier, which carries precision where
    the detector is lenient (on the held-out player's-eye photos most false tiles were spines read as Bams)."""
    out: list[tuple[np.ndarray, tuple[float, float, float, float]]] = []
    while len(out) < n:
        side = float(np.exp(rng.uniform(np.log(20.0), np.log(60.0))))
        img = procedural_background(256, 256, rng)
        owner = np.full(img.shape[:2], -1, np.int32)
        img = finish(_print(img, owner, rng, side, spine=rng.random() < 0.6), rng)
        strokes = np.abs(cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_32F, ksize=3)) > 60
        ys, xs = np.nonzero((owner == -2) & strokes)      # on the characters, where a detector boxes print
        if not len(xs):
            continue
        k = int(rng.integers(len(xs)))
        w, h = (side * 0.75, side) if rng.random() < 0.7 else (side, side * 0.75)
        out.append((img, (xs[k] - w / 2, ys[k] - h / 2, xs[k] + w / 2, ys[k] + h / 2)))
    return out


def finish(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Glare, light, blur, sensor noise and JPEG, as a camera would add them."""
    f = img.astype(np.float32)
    H, W = img.shape[:2]
    if rng.random() < 0.4:                      # glare
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        cx, cy, r = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(20, W / 3)
        f += 200 * rng.uniform(0.3, 1) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))[..., None]
    f = f * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30) + rng.normal(0, 8, 3)
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.5, 1.2))
    f += rng.normal(0, rng.uniform(0, 6), f.shape)
    out = np.clip(f, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 95))])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def compose(pool: Pool, photo_folder: Path | None, rng: np.random.Generator
            ) -> tuple[np.ndarray, list[tuple[int, np.ndarray]]]:
    """One scene and its labels (class, x1, y1, x2, y2 px)."""
    bg = photo_background(photo_folder, rng) if photo_folder is not None and rng.random() < 0.4 else None
    if bg is not None:
        img, own_boxes, own_cls = bg
        r = CANVAS / max(img.shape[:2])
        img = cv2.resize(img, (round(img.shape[1] * r), round(img.shape[0] * r)))
        own_boxes = own_boxes * r
    else:
        h = int(rng.choice([CANVAS, CANVAS * 9 // 16, CANVAS * 3 // 4]))
        img, own_boxes, own_cls = procedural_background(h, CANVAS, rng), np.zeros((0, 4), np.float32), np.zeros(0, int)
    cv = Canvas(img.copy())
    for b in own_boxes.astype(int):           # the photo's own tiles are not drawn over
        cv.owner[max(0, b[1]):b[3], max(0, b[0]):b[2]] = -3
    side = float(np.exp(rng.uniform(np.log(TILE_PX[0]), np.log(TILE_PX[1]))))
    free = cv.owner.copy()
    for _ in range(int(rng.integers(1, 5))):
        layout = rng.random()
        if layout < 0.45:
            lay_rows(cv, pool, rng, side)
        elif layout < 0.6:
            lay_rows(cv, pool, rng, side, down=True)
        elif layout < 0.8:
            lay_heap(cv, pool, rng, side)
        else:
            lay_rack(cv, pool, rng, side)
    drawn_over_own = (free == -3) & (cv.owner != -3)
    for _ in range(int(rng.poisson(1.5))):
        clutter(cv, rng, side)
    labels = cv.labels()
    for b, c in zip(own_boxes, own_cls, strict=True):
        x1, y1, x2, y2 = b.astype(int)
        patch = drawn_over_own[max(0, y1):y2, max(0, x1):x2]
        if patch.size and patch.mean() < 1 - MIN_SEEN and (cv.owner[max(0, y1):y2, max(0, x1):x2] == -2).mean() < 0.4:
            labels.append((int(c), b))
    return finish(cv.img, rng), labels


def write(out: Path, n: int, seed: int, val: float) -> None:
    rng = np.random.default_rng(seed)
    pool = rendered_crops(rng)
    pool.up += real_crops()
    photo_folder = Path(__file__).resolve().parents[1] / "datasets" / "rendered" / "real" / "train"
    photo_folder = photo_folder if (photo_folder / "images").exists() else None
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    n_val = round(n * val)
    for k in tqdm(range(n), desc="compose scenes", unit="scene"):
        split = "val" if k < n_val else "train"
        img, labels = compose(pool, photo_folder, rng)
        h, w = img.shape[:2]
        cv2.imwrite(str(out / "images" / split / f"scene-{seed}-{k:05d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        rows = [f"{c} {(b[0] + b[2]) / 2 / w:.6f} {(b[1] + b[3]) / 2 / h:.6f} {(b[2] - b[0]) / w:.6f} "
                f"{(b[3] - b[1]) / h:.6f}\n" for c, b in labels]
        (out / "labels" / split / f"scene-{seed}-{k:05d}.txt").write_text("".join(rows))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="compose detector training scenes from real tile crops and renders")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--n", type=int, default=1600)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--val", type=float, default=0.05)
    a = ap.parse_args(argv)
    write(a.out, a.n, a.seed, a.val)


if __name__ == "__main__":
    main()
