"""The table reader on real photos taken from above, as a user meets it (issue 41, item 5).

Each photo of ``datasets/splits/table-corners.tsv`` is given square pixels again, made into a short video (the
photo with fresh sensor noise in every frame, as a still camera gives), calibrated by hand with the table's own
corners (``mahj calibrate table --corners``) and read by the table reader joining a game in progress (``mahj watch
--join``: it adopts what lies there). What the reader then holds (every region's committed tiles) is scored
against the photo's labels, beside ``mahj detect``'s reading of the same picture:

* found: labelled tiles with a tile of the reading inside their box (each reading's tile counts once);
* faces: of those found with a known face, the share read as that face (the labels' own codes, with the fixes of
  datasets/splits/label-fixes.tsv);
* precision: tiles of the reading that lie on a labelled tile (the labels hold face-up tiles only: a face-down
  tile on the table would count against it; these photos have none).

The sources show parts of tables (a tray, a block of rows, the near corner of an automatic table), so the hand
marks a rectangle on the table (the tray's or the block's outer corners, in the tsv) and the table is the square
around the tiles on that plane: its size in mm is measured by the tiles (the median short side of their boxes is
an American tile's 22.2 mm), TABLE_MM across, its corners where that square lies in the picture. The typed table
size (``--sizes``, a factor of the true one) and the top-down scale the reader detects at (``--scales``, px per
mm: vision.region_reading.READER_PX_PER_MM) are what the figures are read against.

    python bench/reader_real.py [--scales 1 1.5 2] [--sizes 0.85 1 1.15] [--models DIR] [--json runs/reader-real.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.pipeline import run  # noqa: E402
from assistant.profile import load_profile  # noqa: E402
from assistant.sources import FrameSource  # noqa: E402
from assistant.wiring import Options, build  # noqa: E402
from datasets.real import SPLITS  # noqa: E402
from datasets.real_photos import RealPhoto, photos  # noqa: E402
from vision import region_reading  # noqa: E402
from vision.calibration import TableLayout, calibrate_from_corners  # noqa: E402
from vision.mat import TILE_MM  # noqa: E402
from vision.reader import TableReader  # noqa: E402
from vision.tile_model import TileModel  # noqa: E402

CORNERS_FILE = SPLITS / "table-corners.tsv"
#: The side of the square table around the tiles, in mm as the tiles measure it (a card table's playing surface).
TABLE_MM = 860.0
FPS, FRAMES, NOISE = 4.0, 12, 3.0


@dataclass
class Marked:
    """One photo of the corners file, with square pixels again, its labels and the table's corners in it."""

    photo: RealPhoto
    group: str
    image: np.ndarray
    boxes: np.ndarray
    codes: tuple[str | None, ...]
    corners: dict[int, tuple[float, float]]
    tile_px: float
    close_up: np.ndarray            # the photo alone (with square pixels, at the frame's scale)
    shift: tuple[float, float]      # where its origin lies in ``image``, the whole table's frame


def group_of(path: Path) -> str:
    name = path.name
    return ("riichi table (never trained on)" if name.startswith("IMG_27") else
            "ivory tray (trained on)" if name.startswith("IMG_2023") else "haitaks (boxes only)")


def marked_photos(camera_px: float, table_mm: float = TABLE_MM) -> list[Marked]:
    """The corners file's photos, each with square pixels, in a frame of the whole table whose side is
    ``camera_px`` px (the camera's resolution over the table), with the table's corners (right of East first)."""
    lines = [x for x in CORNERS_FILE.read_text().splitlines() if x and not x.startswith("#")]
    rows = list(csv.DictReader(lines, delimiter="\t"))
    wanted = {r["photo"]: r for r in rows}
    found = {}
    for p in photos(sources=("chinese", "haitaks")):
        rel = str(p.path.relative_to(p.path.parents[4]))
        if rel in wanted:
            found[rel] = p
    out = []
    for rel, row in wanted.items():
        p = found[rel]
        sx, sy = (float(v) for v in row["stretch"].split(","))
        img = p.load()
        img = cv2.resize(img, (round(img.shape[1] * sx), round(img.shape[0] * sy)), interpolation=cv2.INTER_CUBIC)
        boxes = p.boxes * np.float32([sx, sy, sx, sy])
        quad = np.float64([[float(v) for v in pt.split(",")] for pt in row["marked"].split()])
        corners, tile_px = table_square(quad, boxes, table_mm)
        frame, shift, corners = whole_table(img, corners)
        pts = np.float64([corners[i] for i in range(4)])
        f = camera_px / float(np.mean(np.linalg.norm(pts - np.roll(pts, 1, axis=0), axis=1)))
        frame = cv2.resize(frame, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC)
        close = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC)
        out.append(Marked(p, group_of(p.path), frame, (boxes + np.float32([*shift, *shift])) * f, p.codes,
                          {i: (x * f, y * f) for i, (x, y) in corners.items()}, tile_px * f, close,
                          (shift[0] * f, shift[1] * f)))
    return out


def whole_table(img: np.ndarray, corners: dict[int, tuple[float, float]], margin: int = 60
                ) -> tuple[np.ndarray, tuple[float, float], dict[int, tuple[float, float]]]:
    """The camera's frame of the whole table: the photo, at its own resolution, in the middle of a frame that
    holds the table square (and ``margin`` px around it), the rest of the table its own colour (the median of
    the photo's border, with the same sensor noise as the photo gets). The photos show a part of a table; a camera
    over the table sees all of it, and the reader's checks (a picture too dark, a region under an arm) look at
    all of it. Returns the frame, where the photo's origin went, and the corners in the frame."""
    pts = np.float64(list(corners.values()))
    lo = np.floor(np.minimum(pts.min(axis=0), 0)) - margin
    hi = np.ceil(np.maximum(pts.max(axis=0), img.shape[1::-1])) + margin
    w, h = (hi - lo).astype(int)
    border = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    frame = np.empty((h, w, 3), np.uint8)
    frame[:] = np.median(border, axis=0).astype(np.uint8)
    x0, y0 = int(-lo[0]), int(-lo[1])
    frame[y0:y0 + img.shape[0], x0:x0 + img.shape[1]] = img
    return frame, (float(x0), float(y0)), {i: (x + x0, y + y0) for i, (x, y) in corners.items()}


def table_square(quad: np.ndarray, boxes: np.ndarray, table_mm: float) -> tuple[dict[int, tuple[float, float]],
                                                                               float]:
    """The table's corners in the picture: the square of ``table_mm`` centred on the tiles, on the plane of the
    marked rectangle (top-left, top-right, bottom-right, bottom-left), measured in tiles; and the tiles' median
    short side in px."""
    w = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    h = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    to_img = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), np.float32(quad))
    to_rect = np.linalg.inv(to_img)
    pts = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [0, 3]]], axis=1).reshape(-1, 1, 2)
    r = cv2.perspectiveTransform(pts.astype(np.float64), to_rect).reshape(-1, 3, 2)
    short = np.minimum(np.linalg.norm(r[:, 1] - r[:, 0], axis=1), np.linalg.norm(r[:, 2] - r[:, 0], axis=1))
    unit_mm = TILE_MM[0] / float(np.median(short))
    centres = cv2.perspectiveTransform(((boxes[:, :2] + boxes[:, 2:]) / 2).reshape(-1, 1, 2).astype(np.float64),
                                       to_rect).reshape(-1, 2)
    cx, cy = centres.mean(axis=0)
    half = table_mm / 2 / unit_mm
    square = np.float64([[cx + half, cy + half], [cx + half, cy - half], [cx - half, cy - half],
                         [cx - half, cy + half]])        # right of East (bottom right), South, West, North
    at = cv2.perspectiveTransform(square.reshape(-1, 1, 2), to_img).reshape(-1, 2)
    sides = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    return {i: (float(x), float(y)) for i, (x, y) in enumerate(at)}, float(np.median(sides))


def write_video(img: np.ndarray, folder: Path) -> Path:
    """FRAMES frames of the photo in ``folder``, each with its own sensor noise (a still camera's frames are never
    equal), as BMP (written and read fast; a recording's frames are read the same way)."""
    folder.mkdir(parents=True, exist_ok=True)
    noise = np.empty(img.shape, np.int16)
    for k in range(FRAMES):
        cv2.randn(noise, 0, NOISE)
        cv2.imwrite(str(folder / f"{k:04d}.bmp"), cv2.add(img, noise, dtype=cv2.CV_8U))
    return folder


def read_joined(model: TileModel, m: Marked, video: Path, typed_mm: float, scale: float
                ) -> tuple[list, dict | None]:
    """The reader's committed tiles after watching the photo's ``video`` joined, as (image x, y, face, code), and
    the taken_in notice's data (None if it never came)."""
    region_reading.READER_PX_PER_MM = scale
    h, w = m.image.shape[:2]
    cal = calibrate_from_corners(m.corners, (w, h), TableLayout(size_mm=typed_mm))
    with ExitStack() as stack:
        assistant = build(load_profile(None), Options(speech=False, display=False, board_port="none", quiet=True),
                          stack)
        assistant.join = {"east": 0, "turn": 0, "wall": 40}
        notices: list[dict] = []
        real_notice = assistant.notice
        assistant.notice = lambda n: (notices.append(n.to_json()), real_notice(n))[1]   # type: ignore[method-assign]
        reader = TableReader(cal, model, fps=FPS)
        run(assistant, iter(FrameSource(str(video), fps=FPS)), reader)
    tiles = []
    for name in reader.regions:
        for t in reader.tiles(name):
            (x, y), = cal.to_image(np.float64([[t.x, t.y]]))
            tiles.append((float(x), float(y), t.face, t.tile))
    taken = next((n["data"] for n in notices if n["kind"] == "taken_in"), None)
    return tiles, taken


def detected(model: TileModel, image: np.ndarray, shift: tuple[float, float] = (0.0, 0.0)) -> list:
    """``mahj detect``'s reading of a picture, as (x, y, face, code) box centres moved by ``shift``."""
    return [((d.box[0] + d.box[2]) / 2 + shift[0], (d.box[1] + d.box[3]) / 2 + shift[1], d.face, d.tile)
            for d in model.detect(image, photo=True)]


def score(tiles: list, boxes: np.ndarray, codes: tuple[str | None, ...]) -> dict:
    """found / faces / precision of a reading's tiles against the labelled boxes (see the module's docstring)."""
    free = list(range(len(tiles)))
    found = right = known = 0
    for b, code in zip(boxes, codes, strict=True):
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        inside = [k for k in free if b[0] <= tiles[k][0] <= b[2] and b[1] <= tiles[k][1] <= b[3]]
        if not inside:
            continue
        k = min(inside, key=lambda k: np.hypot(tiles[k][0] - cx, tiles[k][1] - cy))
        free.remove(k)
        found += 1
        if code not in (None, "?"):
            known += 1
            right += tiles[k][2] == "up" and tiles[k][3] == code
    return {"tiles": len(boxes), "found": found, "known": known, "right": right, "read": len(tiles),
            "on_tiles": len(tiles) - len(free)}


def totals(scores: list[dict]) -> dict:
    s = {k: sum(x[k] for x in scores) for k in ("tiles", "found", "known", "right", "read", "on_tiles")}
    return s | {"found": round(s["found"] / max(s["tiles"], 1), 3), "faces": round(s["right"] / max(s["known"], 1), 3),
                "precision": round(s["on_tiles"] / max(s["read"], 1), 3), "found_tiles": s["found"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scales", type=float, nargs="+", default=[1.0, 1.5, 2.0],
                    help="top-down scales to read at (px per mm)")
    ap.add_argument("--sizes", type=float, nargs="+", default=[0.85, 1.0, 1.15],
                    help="typed table size as a factor of the true one (at the best scale)")
    ap.add_argument("--json", type=Path, help="write every figure here")
    ap.add_argument("--camera-px", type=float, default=1600.0,
                    help="the table's side in the camera's frame, px (default 1600: a 4K camera over an 860 mm "
                         "table, tiles about 41 px; 1000 is a 1080p camera's, tiles about 26 px)")
    ap.add_argument("--only", nargs="+", default=None, help="photos whose file names start with these")
    ap.add_argument("--models", type=Path, default=None,
                    help="a folder with another tile model and its thresholds (default: the shipped one)")
    args = ap.parse_args()
    model = TileModel.load(args.models)
    marked = [m for m in marked_photos(args.camera_px)
              if args.only is None or m.photo.path.name.startswith(tuple(args.only))]
    print(f"{len(marked)} photos; tiles {min(m.tile_px for m in marked):.0f}-{max(m.tile_px for m in marked):.0f} "
          "px (short side) in the camera's frame")
    report: dict = {"camera_px": args.camera_px, "table_mm": TABLE_MM, "photos": [], "detect_photo": {},
                    "detect": {}, "scales": {}, "sizes": {}}
    det, det_photo = {}, {}
    for m in marked:
        det[m.photo.path.name] = score(detected(model, m.image), m.boxes, m.codes)
        det_photo[m.photo.path.name] = score(detected(model, m.close_up, m.shift), m.boxes, m.codes)
    groups = sorted({m.group for m in marked})
    tmp = Path(tempfile.mkdtemp(prefix="reader-real-"))
    videos = {m.photo.path.name: write_video(m.image, tmp / m.photo.path.stem) for m in marked}

    def by_group(per: dict[str, dict]) -> dict:
        out = {g: totals([per[m.photo.path.name] for m in marked if m.group == g]) for g in groups}
        return out | {"all": totals(list(per.values()))}

    report["detect"] = by_group(det)
    report["detect_photo"] = by_group(det_photo)
    best, best_found = args.scales[0], -1.0
    for scale in args.scales:
        t0 = time.perf_counter()
        per, taken = {}, 0
        for m in marked:
            tiles, notice = read_joined(model, m, videos[m.photo.path.name], TABLE_MM, scale)
            per[m.photo.path.name] = score(tiles, m.boxes, m.codes)
            taken += notice is not None
        report["scales"][str(scale)] = by_group(per) | {"seconds": round(time.perf_counter() - t0, 1),
                                                        "taken_in_notices": taken}
        if report["scales"][str(scale)]["all"]["found"] > best_found:
            best, best_found = scale, report["scales"][str(scale)]["all"]["found"]
            report["photos"] = [{"photo": m.photo.path.name, "group": m.group, "tile_px": round(m.tile_px, 1),
                                 "frame_px": list(m.image.shape[1::-1]), "watch": per[m.photo.path.name],
                                 "detect": det[m.photo.path.name], "detect_photo": det_photo[m.photo.path.name]}
                                for m in marked]
    for factor in args.sizes:
        if factor == 1.0:
            report["sizes"]["1.0"] = report["scales"][str(best)]["all"]
            continue
        per = {m.photo.path.name: score(read_joined(model, m, videos[m.photo.path.name], TABLE_MM * factor, best)[0],
                                        m.boxes, m.codes) for m in marked}
        report["sizes"][str(factor)] = totals(list(per.values()))
    report["best_scale"] = best
    print(f"{'reading':28} {'group':32} found  faces  precision")
    for what, key in (("mahj detect, the photo", "detect_photo"), ("mahj detect, whole frame", "detect")):
        for g, t in report[key].items():
            print(f"{what:28} {g:32} {t['found']:.3f}  {t['faces']:.3f}  {t['precision']:.3f}")
    for scale, per_group in report["scales"].items():
        for g in [*groups, "all"]:
            t = per_group[g]
            print(f"{f'watch --join at {scale} px/mm':28} {g:32} {t['found']:.3f}  {t['faces']:.3f}  "
                  f"{t['precision']:.3f}")
    for factor, t in report["sizes"].items():
        print(f"{f'table typed x {factor} ({best} px/mm)':28} {'all':32} {t['found']:.3f}  {t['faces']:.3f}  "
              f"{t['precision']:.3f}")
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
