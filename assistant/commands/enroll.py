"""``mahj enroll NAME``: teach the tile model a user's own set from a few photos of its tiles laid out face up.

Two runs with a text step between them:

    mahj enroll myset photo1.jpg photo2.jpg     # detect, propose a code for each tile, write labels.tsv
    (edit the "code" column of ~/.local/share/mahj/sets/myset/labels.tsv; "-" drops a row)
    mahj enroll myset --apply                   # store the set; `mahj detect --set myset` then reads with it
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from vision.enroll import LABELS_FILE, EnrolError, apply, propose
from vision.image_file import ImageFileError, read_image
from vision.tile_model import TileModel, TileModelError, sets_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("enroll", help="adapt the tile reader to your own set (photos of its tiles face up)")
    p.add_argument("name", nargs="?", help="a name for the set, e.g. 'grandma-bakelite'")
    p.add_argument("photos", nargs="*", type=Path, help="photos of the tiles laid out face up")
    p.add_argument("--camera", default=None, help="take the photo from this camera (index or device path)")
    p.add_argument("--apply", action="store_true", help="store the set from the edited labels.tsv")
    p.add_argument("--list", action="store_true", help="list enrolled sets")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _grab(camera: str) -> np.ndarray | None:
    cap = cv2.VideoCapture(int(camera) if camera.isdigit() else camera)
    try:
        for _ in range(5):  # let exposure settle
            ok, frame = cap.read()
        return frame if ok else None
    finally:
        cap.release()


def _say(args: argparse.Namespace, obj: dict, text: str) -> None:
    print(json.dumps(obj) if args.json else text)


def run(args: argparse.Namespace) -> int:
    root = sets_dir()
    if args.list:
        names = sorted(p.name for p in root.iterdir() if (p / "set.json").exists()) if root.is_dir() else []
        _say(args, {"sets_dir": str(root), "sets": names}, "\n".join(names) or f"no sets in {root}")
        return 0
    if not args.name or "/" in args.name or args.name.startswith("."):
        print("error: give the set a plain name, e.g. `mahj enroll myset photo.jpg`")
        return 2
    folder = root / args.name
    try:
        model = TileModel.load()
        if args.apply:
            summary = apply(model, folder, args.name)
            _say(args, {"set": str(folder)} | summary,
                 f"stored {summary['tiles']} tiles ({len(summary['kinds'])} kinds) in {folder} "
                 f"in {summary['seconds']} s" + (f"; kinds not shown: {' '.join(summary['missing'])}"
                                                  if summary["missing"] else ""))
            return 0
        images = []
        for p in args.photos:
            try:
                images.append((str(p), read_image(p)))
            except ImageFileError as exc:
                print(f"error: {exc}")
                return 1
        if args.camera is not None:
            frame = _grab(args.camera)
            if frame is None:
                print(f"error: camera {args.camera}: no frame")
                return 2
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / "camera.png"), frame)  # kept so the user can see what was enrolled
            images.append(("camera", frame))
        if not images:
            print("error: give photos of the tiles (or --camera), or --apply after editing labels.tsv")
            return 2
        props = propose(model, images, folder)
    except (EnrolError, TileModelError) as exc:
        print(f"error: {exc}")
        return 2
    labels = folder / LABELS_FILE
    _say(args, {"set": str(folder), "labels": str(labels), "tiles": len(props),
                "proposed": [p.proposed for p in props]},
         f"found {len(props)} face-up tiles; check the 'code' column of {labels}\n"
         f"(crops are in {folder / 'crops'}; '-' drops a row), then run: mahj enroll {args.name} --apply")
    return 0
