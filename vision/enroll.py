"""Teaching mahj a player's own set from photos of the set-up mat (``mahj setup tiles``, issue 32).

Why prototypes: every American set draws its Jokers, Flowers and Soaps differently, and on the mat a player lays
out each kind once. Embeddings of those crops (from the shipped classifier, under quarter turns and small
rescales) are stored as labelled prototypes; at reading time the nearest prototype names the tile. No training
run (the runtime has no training library): it takes seconds on a 2-core CPU, and a set never changes how the
shipped model or any other set reads. ``bench/setup_tiles.py`` measures it on sets never seen in training.

Steps: ``read_capture`` finds the mat's sheets in a picture (``vision.mat``), reads each from straight above as
the table reader reads the table (``TileModel.detect_view``) and says what lies in each cell (empty, a tile, two
tiles, a tile face down, a tile off its box's middle, or something it cannot make out); a capture it doubts (seen
too steeply, tiles too small, blurred) teaches nothing. ``learn`` stores the crops of the cells holding one tile
face up, labelled by their cell (no typing), and the set's prototypes; ``assess`` says per kind how sure the set
reads, by reading each capture with the prototypes made from the others, and which kinds look alike.
``load_set`` is what ``mahj watch`` and ``mahj detect --set`` use.
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from engine.tiles import TILES, TileError, parse_tiles

from .camera_check import FOCUS_MIN, MIN_TILE_PX, tile_focus
from .mat import TILE_MM, Cell, MatError, SheetView, cells, check_view, find_sheets, label, top_down
from .prototypes import read_meta
from .tile_model import (
    CLASSIFIER_SIZE,
    SET_FILE,
    Prototypes,
    StaleSetError,
    TileModel,
    crop_square,
)

LABELS_FILE = "labels.tsv"
CROPS_DIR = "crops"
#: Below this cosine similarity to every prototype, the shipped classifier's reading is kept.
MIN_SIMILARITY = 0.5
#: A tile's centre may lie this far (mm) outside its cell's box and still count as in it (a hand lays it
#: roughly); further out it is between cells and belongs to none.
SLACK_MM = 3.0
#: An empty cell's box is plain paper: a grey spread under this (0-255) inside it, 3 mm in from its lines, says
#: nothing lies there, whatever the detector boxed (it may take a printed empty box for a Soap). Blank cells on the
#: rendered mat photos spread about 1.2; a tile, its face and its edge, far more.
BLANK_STD = 8.0
#: A kind read from the other captures with a margin under this (cosine similarity to its own prototypes less
#: that to the nearest other kind's) is reported as looking alike that kind.
ALIKE_MARGIN = 0.05
#: A tile whose box's middle lies further than this (mm) from its cell's middle is not learned (the cell's box
#: leaves a tile about 2 mm of play each side; a hand lays it within 1.5 mm more). Along the cell, the detector
#: may take the printed label above into the tile's box, which moves the box's middle up to LABEL_SHIFT_MM more.
OFF_CENTRE_MM = 4.5
LABEL_SHIFT_MM = 6.0
STATES = ("empty", "tile", "two tiles", "face down", "off centre", "unclear")
#: How sure the classifier must be of "back" for a tile on the mat to be called face down (the player is told to
#: turn it over). Under it, "back" is a guess among near-equal kinds: the cell is unclear.
BACK_SURE = 0.5
_ADVICE = {"two tiles": "leave one tile in it", "face down": "turn the tile face up",
           "off centre": "lay the tile in the middle of its box (or take away the tile lying over it)",
           "unclear": "clear the box of anything but one tile, face up and inside its lines"}


class EnrolError(ValueError):
    """A set that cannot be learned or a labels file that cannot be read; the message says where and what to do."""


@dataclass
class CellSeen:
    """What one capture shows in one cell: ``state`` is one of STATES; ``box`` (image px) and ``read`` (the kind
    the model reads before learning) for a cell holding one tile face up."""

    cell: Cell
    state: str
    box: tuple[float, float, float, float] | None = None
    read: str | None = None


@dataclass
class Capture:
    """One picture of the mat: the sheets found, what each of their cells holds, and why it is doubted (if it is,
    nothing is learned from it)."""

    name: str
    image: np.ndarray
    views: list[SheetView]
    cells: list[CellSeen]
    tile_px: float
    focus: float | None
    doubts: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return not self.doubts

    def problems(self) -> list[str]:
        """Per cell trouble, each with what to do."""
        return [f"{c.cell.name}: {c.state}: {_ADVICE[c.state]}" for c in self.cells if c.state in _ADVICE]


def read_capture(model: TileModel, img: np.ndarray, name: str) -> Capture:
    """Find the mat in ``img`` and say what lies in each cell. ``MatError`` if no sheet is in the picture."""
    views = find_sheets(img)
    if not views:
        raise MatError(f"{name}: no set-up mat found: at least three of a sheet's four black corner squares must "
                       "be in the picture (print it with `mahj setup mat`); lay it flat, light it evenly, let the "
                       "camera focus")
    doubts = []
    for v in views:
        try:
            check_view(v, name)
        except MatError as exc:
            doubts.append(str(exc))
    found: dict[tuple[int, int], list[tuple[tuple[float, float, float, float], str]]] = {}
    boxes_mm: dict[int, list[np.ndarray]] = {}
    for v in views:
        for d in model.detect_view(*top_down(img, v), conf=model.view_conf):
            x1, y1, x2, y2 = d.box
            mm = v.to_mat(np.float64([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]))
            boxes_mm.setdefault(v.sheet, []).append(np.concatenate([mm.min(axis=0), mm.max(axis=0)]))
            where = _cell_of(v, d.box)
            if where is not None:
                found.setdefault((v.sheet, where), []).append((d.box, d.face))
    seen = []
    for v in views:
        for c in cells(v.sheet):
            here = found.get((v.sheet, c.index), [])
            if _blank(img, v, c):       # the detector may box an empty cell's printed outline as a tile
                seen.append(CellSeen(c, "empty"))
            elif len(here) > 1:
                seen.append(CellSeen(c, "two tiles"))
            elif here and _off_centre(v, c, here[0][0]):
                seen.append(CellSeen(c, "off centre"))
            elif here and here[0][1] == "down":
                seen.append(_judged(model, img, c, here[0][0], CellSeen(c, "face down")))
            elif here:
                seen.append(CellSeen(c, "tile", _in_cell(v, c, here[0][0])))
            elif _covered(c, boxes_mm.get(v.sheet, [])):
                seen.append(CellSeen(c, "unclear"))
            else:
                # Something lies there that the detector does not box (a design it finds hard on white paper):
                # a tile if the classifier, reading where one would lie, does not call it "not a tile".
                box = _in_cell(v, c, None)
                seen.append(_judged(model, img, c, box, CellSeen(c, "tile", box)))
    tile_px = min(v.tile_px for v in views)
    focus = [tile_focus(img, s.box) for s in seen if s.box is not None]
    sharp = float(np.median(focus)) if focus else None
    if tile_px < MIN_TILE_PX:
        doubts.append(f"{name}: tiles are {tile_px:.0f} px wide in the picture, too small to learn from (at least "
                      f"{MIN_TILE_PX:.0f}): bring the camera closer to the mat, or use a higher resolution")
    if sharp is not None and sharp < FOCUS_MIN:
        doubts.append(f"{name}: the tiles are blurred (focus {sharp:.0f}, at least {FOCUS_MIN:.0f}): hold the "
                      "camera still, let it focus on the mat, and take the picture again")
    return Capture(name, img, views, seen, tile_px, sharp, doubts)


def _judged(model: TileModel, img: np.ndarray, c: Cell, box: tuple[float, float, float, float],
            otherwise: CellSeen) -> CellSeen:
    """A cell whose tile the detector did not see face up, judged by the classifier on ``box``: face down only
    where it reads a back surely (BACK_SURE); unclear where it reads no tile, or a back unsurely (a Joker of a
    style never trained on, read "back" at 0.15, would otherwise have the player turn over a tile lying face up,
    and a tile learned from it could be a back); else ``otherwise``."""
    ((code, score),) = model.classify([crop_square(img, box)])
    if code == "back" and score >= BACK_SURE:
        return CellSeen(c, "face down")
    if code in ("back", "none"):
        return CellSeen(c, "unclear")
    return otherwise


def _cell_of(view: SheetView, box: tuple[float, float, float, float]) -> int | None:
    """The cell (index on the view's sheet) whose box holds this detection's centre; None if it lies in none.
    Two tiles in one cell are two detections there: a box's size says nothing more, since the detector may take a
    cell's printed label into a tile's box (on rendered mat photos, up to 1.9 x the tile's own area)."""
    x1, y1, x2, y2 = box
    cx, cy = view.to_mat(np.float64([[(x1 + x2) / 2, (y1 + y2) / 2]]))[0]
    for c in cells(view.sheet):
        zx0, zy0, zx1, zy1 = c.zone
        if zx0 - SLACK_MM <= cx <= zx1 + SLACK_MM and zy0 - SLACK_MM <= cy <= zy1 + SLACK_MM:
            return c.index
    return None


def _off_centre(view: SheetView, cell: Cell, box: tuple[float, float, float, float]) -> bool:
    """Whether a tile lies so far from its cell's middle that it may be another cell's, or a second tile slipped
    over the first (the cell's own tile then hidden): more than OFF_CENTRE_MM."""
    x1, y1, x2, y2 = box
    cx, cy = view.to_mat(np.float64([[(x1 + x2) / 2, (y1 + y2) / 2]]))[0]
    zx0, zy0, zx1, zy1 = cell.zone
    return abs(cx - (zx0 + zx1) / 2) > OFF_CENTRE_MM or abs(cy - (zy0 + zy1) / 2) > OFF_CENTRE_MM + LABEL_SHIFT_MM


def _covered(cell: Cell, boxes_mm: list[np.ndarray]) -> bool:
    """Whether a tile found in another cell reaches over a fifth of this cell's box (what lies here is then partly
    hidden, and must not be learned as this cell's kind)."""
    zx0, zy0, zx1, zy1 = cell.zone
    for bx0, by0, bx1, by1 in boxes_mm:
        w, h = min(zx1, bx1) - max(zx0, bx0), min(zy1, by1) - max(zy0, by0)
        if w > 0 and h > 0 and w * h > 0.2 * (zx1 - zx0) * (zy1 - zy0):
            return True
    return False


def _in_cell(view: SheetView, cell: Cell, box: tuple[float, float, float, float] | None
             ) -> tuple[float, float, float, float]:
    """The tile's box in the picture, kept to its cell: the detection's box, less what lies beyond SLACK_MM around
    the cell's box (the detector may take the printed label above a tile into its box, which must not be learned
    as part of the face); with no detection, where a tile laid in the cell would be."""
    x0, y0, x1, y1 = cell.zone
    if box is None:
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        lo, hi = np.float64([mx - TILE_MM[0] / 2, my - TILE_MM[1] / 2]), np.float64([mx + TILE_MM[0] / 2,
                                                                                     my + TILE_MM[1] / 2])
    else:
        bx1, by1, bx2, by2 = box
        mm = view.to_mat(np.float64([[bx1, by1], [bx2, by1], [bx2, by2], [bx1, by2]]))
        lo = np.maximum(mm.min(axis=0), [x0 - SLACK_MM, y0 - SLACK_MM])
        hi = np.minimum(mm.max(axis=0), [x1 + SLACK_MM, y1 + SLACK_MM])
    px = view.to_image(np.float64([lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]]))
    return (*(float(v) for v in px.min(axis=0)), *(float(v) for v in px.max(axis=0)))


def _blank(img: np.ndarray, view: SheetView, cell: Cell, px_per_mm: float = 2.0) -> bool:
    """Whether the inside of a cell's box is plain paper (its grey spread under BLANK_STD)."""
    x0, y0, x1, y1 = cell.zone
    inset = 3.0
    w, h = round((x1 - x0 - 2 * inset) * px_per_mm), round((y1 - y0 - 2 * inset) * px_per_mm)
    to_mm = np.array([[1 / px_per_mm, 0, x0 + inset], [0, 1 / px_per_mm, y0 + inset], [0, 0, 1]])
    patch = cv2.warpPerspective(img, view.mm_to_px @ to_mm, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    return float(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).std()) < BLANK_STD


# ------------------------------------------------------------------------------------------------- learning
def views(crop: np.ndarray) -> np.ndarray:
    """The crop under four quarter turns and three scales: the ways the same tile meets the camera."""
    out = []
    big = crop.shape[0]
    for scale in (1.0, 0.9, 1.1):
        side = big / scale
        m = np.array([[CLASSIFIER_SIZE / side, 0, CLASSIFIER_SIZE / 2 - big / 2 * CLASSIFIER_SIZE / side],
                      [0, CLASSIFIER_SIZE / side, CLASSIFIER_SIZE / 2 - big / 2 * CLASSIFIER_SIZE / side]],
                     np.float32)
        v = cv2.warpAffine(crop, m, (CLASSIFIER_SIZE, CLASSIFIER_SIZE), flags=cv2.INTER_AREA,
                           borderMode=cv2.BORDER_REPLICATE)
        out += [np.ascontiguousarray(np.rot90(v, k)) for k in range(4)]
    return np.stack(out)


def embed_views(model: TileModel, crops: list[np.ndarray]) -> list[np.ndarray]:
    """Each crop's embeddings under ``views``: made once, shared by the set's prototypes and its assessment."""
    return [model.embed(views(c)) for c in crops]


def build_prototypes(model: TileModel, crops: list[np.ndarray], codes: list[str],
                     embedded: list[np.ndarray] | None = None) -> Prototypes:
    """The prototypes of labelled crops (``embedded``: their ``embed_views``, if already made)."""
    embedded = embedded if embedded is not None else embed_views(model, crops)
    labels = [code for e, code in zip(embedded, codes, strict=True) for _ in range(len(e))]
    return Prototypes(np.concatenate(embedded), labels, MIN_SIMILARITY, model.classifier_id)


@dataclass
class Sample:
    """One tile learned: its crop (square, 2 x the classifier's size), its kind, the cell and the capture."""

    crop: np.ndarray
    code: str
    cell: str
    capture: int


def samples(captures: list[Capture]) -> list[Sample]:
    """The crops of every cell holding one tile face up, in the captures not doubted."""
    out = []
    for k, cap in enumerate(captures):
        if not cap.usable:
            continue
        for s in cap.cells:
            if s.state == "tile" and s.box is not None:
                out.append(Sample(crop_square(cap.image, s.box, CLASSIFIER_SIZE * 2), s.cell.code, s.cell.name, k))
    return out


def missing_kinds(found: list[Sample]) -> list[str]:
    """Kinds no usable capture showed."""
    have = {s.code for s in found}
    return [t for t in TILES if t not in have]


def learn(model: TileModel, captures: list[Capture], folder: Path, name: str) -> dict:
    """Store the set learned from the captures (crops, labels.tsv, prototypes, set.json) in ``folder``, replacing
    what was there, and return the summary with the assessment. ``EnrolError`` (nothing stored) when no capture
    can be used or a kind has no tile."""
    t0 = time.perf_counter()
    usable = [c for c in captures if c.usable]
    if not captures:
        raise EnrolError("nothing learned: no capture showed the mat")
    if not usable:
        raise EnrolError("nothing learned: every capture was doubted (" + "; ".join(d for c in captures
                                                                                    for d in c.doubts) + ")")
    found = samples(captures)
    missing = missing_kinds(found)
    if missing:
        where = ", ".join(next(c.name for s in range(2) for c in cells(s) if c.code == t) for t in missing)
        raise EnrolError(f"nothing learned: no tile seen face up for {len(missing)} kind(s): {where}; lay one tile "
                         "in each of those boxes and take the pictures again")
    embedded = embed_views(model, [s.crop for s in found])
    protos = build_prototypes(model, [], [s.code for s in found], embedded)
    report = assess([s.code for s in found], [s.capture for s in found], embedded)
    meta = {"name": name, "created": datetime.now(UTC).isoformat(timespec="seconds"), "method": "prototypes",
            "source": "mat", "tiles": len(found), "captures": len(usable), "kinds": list(TILES)}
    with new_set_folder(folder) as new:
        (new / CROPS_DIR).mkdir()
        with (new / LABELS_FILE).open("w", newline="") as f:
            w = csv.writer(f, delimiter="\t", lineterminator="\n")
            w.writerow(("crop", "code", "cell", "capture"))
            for i, s in enumerate(found):
                crop = f"{i:04d}.png"
                if not cv2.imwrite(str(new / CROPS_DIR / crop), s.crop):
                    raise OSError(f"{new / CROPS_DIR / crop}: cannot be written (is the disk full?)")
                w.writerow((crop, s.code, s.cell, captures[s.capture].name))
        protos.save(new, meta)
    return {"set": str(folder), "tiles": len(found), "captures": len(usable),
            "seconds": round(time.perf_counter() - t0, 2)} | report


@contextmanager
def new_set_folder(folder: Path) -> Iterator[Path]:
    """A fresh folder beside ``folder`` to write a set in; when the block ends without an error it takes the set's
    place (the old folder renamed aside, the new one renamed in, the old one removed), so a crash or a full disk
    while learning leaves the set learned before whole. Between the two renames the old set sits in
    ``.NAME.old``, which ``restore_set`` puts back if a crash fell exactly there."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    restore_set(folder)
    new = Path(tempfile.mkdtemp(prefix=f".{folder.name}.new-", dir=folder.parent))
    try:
        yield new
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    old = folder.with_name(f".{folder.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if folder.exists():
        os.replace(folder, old)
    os.replace(new, folder)
    shutil.rmtree(old, ignore_errors=True)


def restore_set(folder: Path) -> None:
    """Put back a set left aside as ``.NAME.old`` by a crash between ``new_set_folder``'s two renames."""
    old = folder.with_name(f".{folder.name}.old")
    if not folder.exists() and (old / SET_FILE).exists():
        os.replace(old, folder)


def assess(codes: list[str], groups: list[int], embedded: list[np.ndarray]) -> dict:
    """How sure the set reads each kind: every capture's tiles read (single view) by the prototypes of the other
    captures, as another evening's captures would be. Per kind: tiles, right, and the margin (cosine similarity to
    its own kind's nearest prototype less the nearest other kind's); kinds within ALIKE_MARGIN of another, or
    read as another, look alike. With one capture there is nothing to read it against: ``checked`` is False."""
    labels = np.array(codes)
    group = np.array(groups)
    single = np.stack([e[0] for e in embedded])          # the crop as it is (first view)
    per: dict[str, dict] = {t: {"tiles": 0, "right": 0, "margin": 1.0} for t in TILES}
    alike: Counter[tuple[str, str]] = Counter()
    if len(set(groups)) < 2:
        return {"checked": False, "kinds": {}, "alike": []}
    for g in sorted(set(groups)):
        others = [k for k in range(len(codes)) if group[k] != g]
        bank = np.concatenate([embedded[k] for k in others])
        bank_codes = np.array([codes[k] for k in others for _ in range(len(embedded[k]))])
        for k in np.nonzero(group == g)[0]:
            sim = bank @ single[k]
            own = sim[bank_codes == labels[k]]
            other = sim[bank_codes != labels[k]]
            j = int(np.argmax(other)) if len(other) else -1
            nearest = str(bank_codes[bank_codes != labels[k]][j]) if j >= 0 else None
            margin = float(own.max() - other[j]) if len(own) and j >= 0 else (1.0 if len(own) else -1.0)
            p = per[codes[k]]
            p["tiles"] += 1
            p["right"] += margin > 0
            p["margin"] = min(p["margin"], margin)
            if nearest and margin < ALIKE_MARGIN:
                alike[tuple(sorted((codes[k], nearest), key=TILES.index))] += 1
    kinds = {t: p | {"sure": _sure(p)} for t, p in per.items() if p["tiles"]}
    return {"checked": True, "kinds": kinds, "alike": [list(pair) for pair, _ in alike.most_common()]}


def _sure(p: dict) -> str:
    if p["right"] < p["tiles"]:
        return "unsure"
    return "sure" if p["margin"] >= 2 * ALIKE_MARGIN else "fairly sure"


def alike_advice(pair: list[str]) -> str:
    """'your 2 Dot and 8 Dot look alike: ...', for the report."""
    return (f"your {label(pair[0])} and {label(pair[1])} look alike: lay them again (straight, in good light) or "
            "add another capture")


# ---------------------------------------------------------------------------------- stored sets, remade
def read_labels(folder: Path) -> list[tuple[str, str]]:
    """(crop file, code) rows of a set's ``labels.tsv``; rows whose code is ``-`` or empty are skipped."""
    path = folder / LABELS_FILE
    try:
        text = path.read_text()
    except OSError as exc:
        raise EnrolError(f"{path}: {exc.strerror}") from exc
    rows = list(csv.reader(text.splitlines(), delimiter="\t"))
    if not rows or "crop" not in rows[0] or "code" not in rows[0]:
        raise EnrolError(f"{path}:1: header must name the columns crop and code")
    ci, ki = rows[0].index("crop"), rows[0].index("code")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) <= max(ci, ki):
            raise EnrolError(f"{path}:{n}: expected {len(rows[0])} tab-separated columns, got {len(row)}")
        code = row[ki].strip()
        if code in ("", "-"):
            continue
        try:
            (code,) = parse_tiles(code)
        except (TileError, ValueError) as exc:
            raise EnrolError(f"{path}:{n}:{ki + 1}: {row[ki]!r} is not one tile ({exc})") from exc
        if not (folder / CROPS_DIR / row[ci]).exists():
            raise EnrolError(f"{path}:{n}:{ci + 1}: crop {row[ci]!r} missing from {folder / CROPS_DIR}")
        out.append((row[ci], code))
    return out


def rebuild(model: TileModel, folder: Path) -> None:
    """Make a stored set's prototypes again from its own crops and labels (after the shipped classifier changed)."""
    rows = read_labels(folder)
    if not rows:
        raise EnrolError(f"{folder / LABELS_FILE}: no labelled tiles")
    crops = [cv2.imread(str(folder / CROPS_DIR / c)) for c, _ in rows]
    unreadable = [c for (c, _), img in zip(rows, crops, strict=True) if img is None]
    if unreadable:
        raise EnrolError(f"{folder / CROPS_DIR / unreadable[0]}: cannot be read; learn the set again with `mahj "
                         f"setup tiles --set {folder.name} --photo ...`")
    build_prototypes(model, crops, [k for _, k in rows]).save(folder, read_meta(folder))


def load_set(folder: Path) -> TileModel:
    """A learned set's model. A set whose prototypes an earlier classifier made is remade from its own crops and
    labels first (seconds), so an updated shipped model never leaves a player's set behind."""
    restore_set(folder)
    try:
        return TileModel.load(folder)
    except StaleSetError:
        rebuild(TileModel.load(), folder)
        return TileModel.load(folder)
