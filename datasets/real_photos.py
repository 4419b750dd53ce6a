"""Every real photo with tile boxes in ``../shared/datasets``, in one catalogue with fixed, committed splits.

Sources (their licences and credits: models/README.md, "Data and credits"):

* ``chinese`` (chinese-mahjong-detection-photos, CC BY 4.0): 856 photos, face labels in 42 classes (flowers and
  seasons become ``F``). Its SOURCE.md lists what must not be used: stretched strips and squeezed wide shots,
  pictures from the web (licence unknown, some drawings), and photos that are also in haitaks; all are left out.
  Roboflow's own split is random per photo, so photos of one sitting landed on both sides. We split by scene:
  the ivory Hong Kong set (``IMG_2023MMDD_*``) by day, the Facebook photos by the leading photo id (nearby ids
  are one post), ``hand_*`` and the family/discard strips by Roboflow's folder (their names repeat across
  folders for different photos). A scene in val or test drops its augmented copies from ``train/``.
* ``unseen``: two whole Japanese sets no model may learn from. ``IMG_27*`` of chinese (42 top-down photos of a
  riichi set on an automatic table, with its LED digits and logo) and all 67 frames of leomiura-riichi-table (a
  player's-eye camera feed; squeezed 16:9 -> 1:1 by its export, read back at 16:9).
* ``haitaks`` (haitaks-table-photos, CC BY 4.0): boxes without usable classes; its committed split as before.

``python -m datasets.real_photos --write-splits`` rewrites ``splits/real-photos.tsv`` (developers only);
``python -m datasets.real_photos --export DIR`` writes the training photos as YOLO folders (two classes, all
boxes face up) and a crops file for the classifier.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from datasets.real import HAITAKS, SHARED, SPLITS, STRETCHED_ASPECT, read_split, yolo_boxes
from engine.tiles import TILES
from vision.boxes import iou_matrix

CHINESE = SHARED / "chinese-mahjong-detection-photos"
LEOMIURA = SHARED / "leomiura-riichi-table"
JUSTINCHAN = SHARED / "justinchan-tile-crops-extra"
SPLIT_FILE = SPLITS / "real-photos.tsv"
#: Boxes whose source label is wrong, checked by eye (``python -m datasets.label_audit``): see datasets/README.md.
FIXES_FILE = SPLITS / "label-fixes.tsv"
#: A fix's code for a tile whose face is not known (it still counts for finding tiles), and for a box on no tile.
UNKNOWN, NO_TILE = "?", "none"
#: leomiura's frames are 16:9 camera captures squeezed to 640 x 640: read back at their own shape.
LEOMIURA_ASPECT = 16 / 9
#: Share of the Facebook scenes held out for test and for validation.
TEST_SHARE, VAL_SHARE = 0.25, 0.1

_CHINESE_SUIT = {"sb": "B", "sc": "C", "sd": "D"}
_CHINESE_HONOUR = {"hwe": "E", "hws": "S", "hww": "W", "hwn": "N", "hdr": "RD", "hdg": "GD", "hdw": "WD"}
_LEO_SUIT = {"sou": "B", "man": "C", "pin": "D"}
_LEO_HONOUR = {"ton": "E", "nan": "S", "sya-": "W", "pe-": "N", "chun": "RD", "hatsu": "GD", "haku": "WD"}


def require_photos() -> None:
    """Stop an evaluation that needs the real photos with where they belong, where they are not there."""
    if not CHINESE.exists():
        sys.exit(f"error: {SHARED}: the real photos are not here (they live in ../shared/datasets beside the "
                 "checkout)")


def chinese_code(name: str) -> str:
    """Our tile code for a chinese-mahjong class name (``sb3``, ``hdg``, ``bf2``...)."""
    if name[:2] in _CHINESE_SUIT:
        return f"{int(name[2])}{_CHINESE_SUIT[name[:2]]}"
    if name in _CHINESE_HONOUR:
        return _CHINESE_HONOUR[name]
    if name[:2] in ("bf", "bs"):
        return "F"
    raise ValueError(f"unknown chinese-mahjong class {name!r}")


def leomiura_code(name: str) -> str | None:
    """Our tile code for a leomiura class name (``3_sou``, ``chun``...); None for its junk class ``0``."""
    if name == "0":
        return None
    if "_" in name:
        n, suit = name.split("_")
        return f"{int(n)}{_LEO_SUIT[suit]}"
    return _LEO_HONOUR[name]


def _class_names(yaml_path: Path) -> list[str]:
    """The ``names: [...]`` list of a data.yaml (no YAML library needed for this one line)."""
    for line in yaml_path.read_text().splitlines():
        if line.startswith("names:"):
            return [s.strip().strip("'\"") for s in line.split("[", 1)[1].rsplit("]", 1)[0].split(",")]
    raise ValueError(f"{yaml_path}: no names list")


@dataclass(frozen=True)
class RealPhoto:
    """One photo: where it is, its true boxes (x1, y1, x2, y2 in the pixels of ``load``'s image) and their codes
    (None where the source has no usable class)."""

    source: str
    path: Path
    split: str
    boxes: np.ndarray
    codes: tuple[str | None, ...]
    aspect: float = 1.0     # the photo is widened by this to get square pixels back
    lines: tuple[int, ...] = ()     # each box's line in its label file (for label fixes and audits)

    @property
    def stretched(self) -> bool:
        """Whether a square export stretched the photo out of shape: a tile's box is at most ~1.5:1 whichever way
        it stands, and these photos' boxes are over STRETCHED_ASPECT:1 in the median (haitaks' screenshots of a
        row of tiles, 7-14 x one way)."""
        if not len(self.boxes):
            return False
        sides = np.sort(self.boxes[:, 2:] - self.boxes[:, :2], axis=1)
        return float(np.median(sides[:, 1] / np.maximum(sides[:, 0], 1e-6))) > STRETCHED_ASPECT

    def load(self) -> np.ndarray:
        img = cv2.imread(str(self.path))
        if img is None:
            raise FileNotFoundError(self.path)
        if self.aspect != 1.0:
            img = cv2.resize(img, (round(img.shape[1] * self.aspect), img.shape[0]), interpolation=cv2.INTER_CUBIC)
        return img


def _listed(path: Path, column: int = 0) -> set[str]:
    """File stems named in one of chinese's SOURCE lists (``#`` lines are comments)."""
    out = set()
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            out.add(Path(line.split()[column]).name.removesuffix(".jpg"))
    return out


def _share(key: str) -> float:
    """A fixed number in [0, 1) for a scene key: the split does not depend on file order or Python's hash."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 2 ** 32


def chinese_scene(stem: str, folder: str) -> str:
    """The scene a chinese photo belongs to (photos of one scene stay on one side of the split)."""
    if m := re.match(r"IMG_(2023\d{4})_", stem):
        return f"ivory-{m.group(1)}"
    if stem.startswith("IMG_27"):
        return "unseen-riichi"
    if m := re.match(r"(\d{6,})_\d+_\d+_n", stem):
        return f"fb-{int(m.group(1)) // 20000}"
    return f"{folder}-{stem.split('_jpg')[0].split('_png')[0]}"


#: The ivory set's days: held out for test and validation (all of them in Roboflow's val/test folders).
IVORY_TEST_DAYS = ("ivory-20231217", "ivory-20231219")
IVORY_VAL_DAYS = ("ivory-20231224",)


def chinese_split(scene: str, folder: str) -> str | None:
    """train / val / test / unseen for a scene seen in a Roboflow folder; None: left out (a held-out scene's
    augmented copy in ``train/``)."""
    if scene == "unseen-riichi":
        return "unseen"
    if scene in IVORY_TEST_DAYS:
        held = "test"
    elif scene in IVORY_VAL_DAYS:
        held = "val"
    elif scene.startswith("ivory-"):
        held = "train"
    elif scene.startswith("fb-"):
        u = _share(scene)
        held = "test" if u < TEST_SHARE else "val" if u < TEST_SHARE + VAL_SHARE else "train"
    else:
        held = {"train": "train", "valid": "val", "test": "test"}[folder]
    if folder == "train" and held != "train":
        return None
    return held


def write_split_file() -> None:
    """Decide every real photo's split once and commit it: ``source``, path under ../shared/datasets, split."""
    bad = _listed(CHINESE / "distorted_images.txt", 1) | _listed(CHINESE / "web_images.txt") \
        | _listed(CHINESE / "overlap_with_haitaks.txt")
    bad.add(next(p.stem for p in (CHINESE / "yolo" / "test" / "images").glob("387322686_*")))  # = a train photo
    rows = []
    for folder in ("train", "valid", "test"):
        for img in sorted((CHINESE / "yolo" / folder / "images").glob("*.jpg")):
            if img.stem in bad or img.stem.startswith("Screenshot"):
                continue
            split = chinese_split(chinese_scene(img.stem, folder), folder)
            if split:
                rows.append(("chinese", img.relative_to(SHARED).as_posix(), split))
    for folder in ("train", "valid", "test"):
        for img in sorted((LEOMIURA / "yolo" / folder / "images").glob("*.jpg")):
            rows.append(("leomiura", img.relative_to(SHARED).as_posix(), "unseen"))
    for split, folder in (("train", "train"), ("test", "valid")):
        for name in read_split(f"haitaks-{split}"):
            rows.append(("haitaks", (HAITAKS / folder / "images" / name).relative_to(SHARED).as_posix(), split))
    with SPLIT_FILE.open("w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(("source", "path", "split"))
        w.writerows(rows)


def _label_path(img: Path) -> Path:
    return img.parent.parent / "labels" / (img.stem + ".txt")


class LabelFixError(ValueError):
    """``label-fixes.tsv`` says something the photos' labels do not bear out: the message names its row."""


@dataclass(frozen=True)
class LabelFix:
    """One row of ``label-fixes.tsv``: what the source says at a label line (or every line) and what is there."""

    said: str
    code: str
    row: int            # the row's line in the fixes file, for messages
    file: Path = FIXES_FILE

    def where(self) -> str:
        return f"{self.file}:{self.row}"


FIXES_COLUMNS = ("path", "line", "source_code", "code")


@contextlib.contextmanager
def fixes_checked() -> Iterator[None]:
    """What the commands that read the photos run under: a wrong row of the fixes file ends the run with its
    message (exit 2), not a traceback."""
    try:
        yield
    except LabelFixError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def label_fixes(path: Path = FIXES_FILE) -> dict[str, dict[str, LabelFix]]:
    """Photo path under ``../shared`` -> {label line, or ``*`` for every line: its fix}, each row checked."""
    fixes: dict[str, dict[str, LabelFix]] = {}
    if not path.exists():
        return fixes
    rows = [(n, line) for n, line in enumerate(path.read_text().splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")]
    header = rows[0][1].split("\t") if rows else []
    if tuple(header[:4]) != FIXES_COLUMNS:
        raise LabelFixError(f"{path}:{rows[0][0] if rows else 1}: expected the columns {' '.join(FIXES_COLUMNS)}")
    for n, line in rows[1:]:
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) < 4:
            raise LabelFixError(f"{path}:{n}: expected path, line, source_code and code separated by tabs")
        photo, at, said, code = cells[:4]
        fix = LabelFix(said, code, n, path)
        if at != "*" and not (at.isascii() and at.isdigit() and int(at) >= 1 and at == str(int(at))):
            raise LabelFixError(f"{fix.where()}: line {at!r} is neither * nor a label line number")
        if said not in TILES or code not in (*TILES, UNKNOWN, NO_TILE) or code == said:
            raise LabelFixError(f"{fix.where()}: {said} -> {code} is not a fix (codes: {' '.join(TILES)}, "
                                f"{UNKNOWN} for a face not known, {NO_TILE} for no tile)")
        if at in fixes.get(photo, {}):
            raise LabelFixError(f"{fix.where()}: this photo and line are fixed already at row "
                                f"{fixes[photo][at].row}")
        fixes.setdefault(photo, {})[at] = fix
    return fixes


def _labelled(label: Path, names: list[str] | None, code_of, fixes: dict[str, LabelFix]
              ) -> tuple[list[tuple[float, ...]], list[str | None], list[int]]:
    """Normalised boxes, codes (None without class names, or where a fix says the face is not known) and line
    numbers of a YOLO label file, with ``fixes`` (label line or ``*`` -> its fix) applied. A fix that finds no
    tile label at its line, or another label than it expects, stops the run: the data set changed under it."""
    text = label.read_text() if label.exists() else ""
    boxes, codes, lines = [], [], []
    applied = set()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.split():
            continue
        box = yolo_boxes(line, f"{label}:{n}")[0]
        code = code_of(names[int(line.split()[0])]) if names else None
        if names and code is None:
            continue            # a junk class
        fix = fixes.get(str(n)) or fixes.get("*")
        if fix is not None:
            if fix.said != code:
                raise LabelFixError(f"{fix.where()}: expects a {fix.said} label at {label}:{n}, which says {code}")
            applied.add(str(n) if str(n) in fixes else "*")
            if fix.code == NO_TILE:
                continue
            code = None if fix.code == UNKNOWN else fix.code
        boxes.append(box)
        codes.append(code)
        lines.append(n)
    for at in fixes.keys() - applied:
        raise LabelFixError(f"{fixes[at].where()}: {label} has no tile label at line {at}; fix or remove the row")
    return boxes, codes, lines


def photos(splits: tuple[str, ...] = ("train", "val", "test", "unseen"),
           sources: tuple[str, ...] = ("chinese", "leomiura", "haitaks")) -> Iterator[RealPhoto]:
    """The catalogue's photos of these splits and sources, in the split file's order."""
    names = {"chinese": _class_names(CHINESE / "yolo" / "data.yaml"),
             "leomiura": _class_names(LEOMIURA / "yolo" / "data.yaml"), "haitaks": None}
    code_of = {"chinese": chinese_code, "leomiura": leomiura_code, "haitaks": None}
    fixes = label_fixes()
    with SPLIT_FILE.open(newline="") as f:
        catalogue = list(csv.DictReader(f, delimiter="\t"))
    source_of = {row["path"]: row["source"] for row in catalogue}
    for photo, by_line in fixes.items():
        if names.get(source_of.get(photo, "")) is None:
            fix = next(iter(by_line.values()))
            raise LabelFixError(f"{fix.where()}: {photo} is no photo with tile classes in {SPLIT_FILE.name}")
    for row in catalogue:
        if row["split"] not in splits or row["source"] not in sources:
            continue
        path = SHARED / row["path"]
        boxes, codes, lines = _labelled(_label_path(path), names[row["source"]], code_of[row["source"]],
                                        fixes.get(row["path"], {}))
        h, w = cv2.imread(str(path)).shape[:2] if boxes else (1, 1)
        aspect = LEOMIURA_ASPECT if row["source"] == "leomiura" else 1.0
        w = w * aspect
        b = np.array([[(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h]
                      for cx, cy, bw, bh in boxes], np.float32).reshape(-1, 4)
        # haitaks lists some tiles two or three times with the same box: one tile, one box.
        _, first = np.unique(np.round(b, 1), axis=0, return_index=True)
        keep = np.sort(first)
        yield RealPhoto(row["source"], path, row["split"], b[keep], tuple(codes[i] for i in keep), aspect,
                        tuple(lines[i] for i in keep))


def justinchan_crops() -> tuple[list[np.ndarray], list[str]]:
    """The 72 tight real crops of justinchan (two Hong Kong sets), held out whole, and their codes."""
    from datasets.real import camerash_code

    imgs, codes = [], []
    with (JUSTINCHAN / "data.csv").open(newline="", encoding="utf-8-sig") as f:
        for row in csv.DictReader(f):
            img = cv2.imread(str(JUSTINCHAN / "images" / row["image-name"]))
            if img is not None:
                imgs.append(img)
                codes.append(camerash_code(row["label-name"].replace("dot-", "dots-")))
    return imgs, codes


#: Boxes of face-up tiles and of backs a photo's labels leave out: image -> (face-up boxes, back boxes).
Unlabelled = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def export_yolo(out: Path, split: str, unlabelled: Unlabelled | None = None,
                long_side: int = 512, quality: int = 80) -> int:
    """Write a split's photos as a YOLO folder: ``images``, ``labels`` (class 0 face up, 1 face down) and
    ``codes`` (each label line's tile code, ``-`` where the source has none, ``down`` for a back), each photo
    re-encoded at ``long_side`` (it travels to a GPU machine under a size limit). The photos label face-up tiles
    only, and most label only the hand on the rack, not the discards beside it; ``unlabelled(image)`` may give
    boxes of the face-up tiles and the backs they leave out (``pseudo_tiles``), so that those are not taught as
    background. Returns the photo count."""
    for sub in ("images", "labels", "codes"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    n = 0
    for k, ph in enumerate(tqdm(list(photos((split,))), desc=f"export {split}", unit="photo")):
        img = ph.load()
        h, w = img.shape[:2]
        ups, backs = unlabelled(img) if unlabelled is not None else (np.zeros((0, 4), np.float32),) * 2
        if len(ph.boxes):
            ups = ups[iou_matrix(ups, ph.boxes).max(axis=1) < 0.2] if len(ups) else ups
            backs = backs[iou_matrix(backs, ph.boxes).max(axis=1) < 0.2] if len(backs) else backs
        r = min(1.0, long_side / max(h, w))
        small = cv2.resize(img, (round(w * r), round(h * r)), interpolation=cv2.INTER_AREA) if r < 1 else img
        stem = f"{ph.source}-{split}-{k:04d}"
        cv2.imwrite(str(out / "images" / f"{stem}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, quality])
        rows, codes = [], []
        for face, boxes, names in ((0, ph.boxes, ph.codes), (0, ups, (None,) * len(ups)),
                                   (1, backs, ("down",) * len(backs))):
            for (x1, y1, x2, y2), code in zip(boxes, names, strict=True):
                rows.append(f"{face} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} "
                            f"{(y2 - y1) / h:.6f}")
                codes.append(code or "-")
        (out / "labels" / f"{stem}.txt").write_text("".join(r + "\n" for r in rows))
        (out / "codes" / f"{stem}.txt").write_text("".join(c + "\n" for c in codes))
        n += 1
    return n


def pseudo_tiles(min_score: float = 0.6, min_face: float = 0.9, back_score: float = 0.6) -> Unlabelled:
    """Boxes of the tiles a photo's labels leave out, as the shipped model sees them: face-up tiles it boxes at
    ``min_score`` or more and reads as a tile at ``min_face`` or more (the discards beside a labelled hand), and
    its own face-down boxes at ``back_score`` or more. A face-up box the classifier reads as a back is not taken
    as a back, or the classifier's mistakes would come back to both networks as labels. Read down to
    ``min_score`` (under the usual threshold, the heaps' tumbled tiles come in: models/README.md, "Retrain")."""
    from vision.tile_model import TileModel

    model = TileModel.load()

    def unlabelled(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        boxes, cls, scores = model.frame_boxes(img, conf=(min_score, back_score))   # cut at both already
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        backs = boxes[cls == 1]
        up = cls == 0
        faces = model.read_faces(img, boxes[up], cls[up], scores[up])
        ups = np.array([d.box for d in faces if d.tile is not None and (d.tile_score or 0) >= min_face],
                       np.float32).reshape(-1, 4)
        return ups, backs

    return unlabelled


def main() -> None:
    ap = argparse.ArgumentParser(description="the real-photo catalogue: fixed splits, YOLO export")
    ap.add_argument("--write-splits", action="store_true", help="rewrite datasets/splits/real-photos.tsv")
    ap.add_argument("--export", type=Path, help="write the train and val splits as YOLO folders under this one")
    ap.add_argument("--no-pseudo-labels", action="store_true",
                    help="add no boxes of unlabelled tiles and backs from the shipped model")
    ap.add_argument("--pseudo-score", type=float, default=0.6,
                    help="an unlabelled face-up tile is labelled from this box score (0.2 takes in the heaps)")
    ap.add_argument("--pseudo-face", type=float, default=0.9,
                    help="... where the classifier reads it as a tile at this or more")
    a = ap.parse_args()
    if a.write_splits:
        write_split_file()
    counts: dict[tuple[str, str], list[int]] = {}
    for ph in photos():
        c = counts.setdefault((ph.source, ph.split), [0, 0])
        c[0] += 1
        c[1] += len(ph.boxes)
    for (source, split), (n, boxes) in sorted(counts.items()):
        print(f"{source:9s} {split:7s} {n:4d} photos {boxes:6d} boxes")
    if a.export:
        unlabelled = None if a.no_pseudo_labels else pseudo_tiles(a.pseudo_score, a.pseudo_face)
        for split in ("train", "val"):
            print(f"{export_yolo(a.export / split, split, unlabelled)} {split} photos -> {a.export / split}")


if __name__ == "__main__":
    with fixes_checked():
        main()
