"""``mahj detect IMAGE``: every tile in a photo, face up or down, with the code of each face-up tile.

Every image is read as it is, with square pixels, by the same code that reads the camera's frames: a phone photo
and a camera frame go one way. ``--stretched`` says the image went through an export or a screenshot that
stretched it out of shape; it is then also read squeezed back along either side (``vision.photo``) and the
reading that suits it is kept. Searching every photo's aspect misread 12 of 17 ordinary photos (issue 29).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from assistant.console import report_error
from assistant.profile import ProfileError, profile_tile_set
from vision.image_file import ImageFileError, check_image_name, read_image, write_image
from vision.photo import read_photo
from vision.tile_model import TileModel, TileModelError, draw_overlay


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("detect", help="find tiles in an image and read face-up tiles")
    p.add_argument("image", type=Path, help="photo or frame (any format OpenCV reads)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", type=Path, help="write an overlay image with boxes and codes (.png, .jpg, .webp, ...)")
    p.add_argument("--model", type=Path, default=None,
                   help="model folder or enrolled set folder (default: the shipped models)")
    p.add_argument("--profile", type=Path, help="profile TOML: its learned set (camera.tile_set, written by `mahj "
                                                "setup tiles --profile`) reads the image")
    p.add_argument("--set", dest="set_name", default=None,
                   help="name of a set learned with `mahj setup tiles` (default: the profile's set, if any)")
    p.add_argument("--no-set", action="store_true",
                   help="read with the shipped model, not the profile's learned set")
    p.add_argument("--stretched", action="store_true",
                   help="the image was stretched out of shape (a square export, a screenshot): also read it "
                        "squeezed back along either side and keep the reading that suits it (slower)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.out:
            check_image_name(args.out)
        frame = read_image(args.image)
    except ImageFileError as exc:
        return report_error(str(exc), json_mode=args.json, code=1)
    if args.no_set and args.set_name:
        return report_error("--set and --no-set: give one (--no-set reads with the shipped model)",
                            json_mode=args.json)
    try:
        tile_set = args.set_name or ("" if args.no_set or args.model else profile_tile_set(args.profile))
    except ProfileError as exc:
        return report_error(str(exc), json_mode=args.json)
    try:
        from vision.enroll import load_set
        from vision.tile_model import sets_dir

        if tile_set and not (sets_dir() / tile_set).is_dir():
            return report_error(f"no set {tile_set!r} in {sets_dir()} (see `mahj setup tiles --list`; --no-set "
                                "reads with the shipped model)", json_mode=args.json)
        model = load_set(sets_dir() / tile_set) if tile_set else TileModel.load(args.model)
    except (TileModelError, ValueError) as exc:
        return report_error(str(exc), json_mode=args.json)
    if args.stretched:
        reading = read_photo(model, frame)
        dets, scale = reading.detections, reading.scale
    else:
        dets, scale = model.detect(frame, photo=True), (1.0, 1.0)
    if args.out:
        try:
            write_image(args.out, draw_overlay(frame, dets))
        except ImageFileError as exc:
            return report_error(str(exc), json_mode=args.json)
    up = [d for d in dets if d.face == "up"]
    if args.json:
        print(json.dumps({"image": str(args.image), "tile_set": tile_set or None,
                          "width": frame.shape[1], "height": frame.shape[0],
                          "read_scale": [round(v, 4) for v in scale], "tiles": [d.to_json() for d in dets]}))
    else:
        print(f"{args.image}: {len(dets)} tiles, {len(up)} face up, {len(dets) - len(up)} face down"
              + (f" (read with your set '{tile_set}'; --no-set: the shipped model)" if tile_set else ""))
        if scale != (1.0, 1.0):
            print(f"  (the photo looks stretched: read resized to {scale[0]:.3g} x its width, "
                  f"{scale[1]:.3g} x its height)")
        for d in sorted(dets, key=lambda d: (d.box[1], d.box[0])):
            x1, y1, x2, y2 = (round(v) for v in d.box)
            what = (d.tile or "?") if d.face == "up" else "(down)"
            print(f"  {what:6} {d.score:.2f}  [{x1},{y1},{x2},{y2}]")
        if args.out:
            print(f"overlay: {args.out}")
    return 0
