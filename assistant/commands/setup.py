"""``mahj setup``: get a table ready before the first game (issue 32).

    mahj setup mat [--paper letter|a4] [--out mat.pdf]          # print the set-up mat (PDF, and a PNG a sheet)
    mahj setup tiles --photo F [F ...] | --camera N [--set NAME] [--profile mahj.toml] [--display]
                                                                # teach mahj your tiles, laid on the mat
    mahj setup tiles --list                                     # the sets learned so far
    mahj setup camera --camera N | --photo F                    # can the camera read tiles? pass/fail, with fixes

Details: docs/setup.md.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from assistant.camera import open_camera, time_camera
from assistant.console import report_error
from assistant.setup_tiles import register_tiles
from vision.camera_check import Check, check_frame, check_frames, check_timing
from vision.image_file import ImageFileError, read_image
from vision.mat import PAPERS, SHEETS, TILE_MM
from vision.mat_print import sheet_image, write_pdf
from vision.tile_model import TileModel, TileModelError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("setup", help="before the first game: print the mat, teach mahj your tiles, check the camera")
    ssub = p.add_subparsers(dest="setup_command", metavar="STEP")

    m = ssub.add_parser("mat", help="write the printable set-up mat (PDF, and a PNG for each sheet)")
    m.add_argument("--paper", choices=sorted(PAPERS), default="letter", help="paper size (default: letter)")
    m.add_argument("--out", type=Path, default=Path("mat.pdf"), help="the PDF (default: mat.pdf); the PNGs are "
                                                                     "written beside it as NAME-1.png, NAME-2.png")
    m.add_argument("--dpi", type=int, default=200, help="resolution of the PNGs (default: 200)")
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.set_defaults(func=run_mat)

    register_tiles(ssub)

    c = ssub.add_parser("camera", help="check the camera can read tiles: size, focus, light, frame rate")
    src = c.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", metavar="N", help="camera index, device path or a video file")
    src.add_argument("--photo", type=Path, metavar="F", help="a picture the camera took (no frame rate then)")
    c.add_argument("--width", type=int, default=1920, help="ask the camera for this width (default: 1920)")
    c.add_argument("--height", type=int, default=1080, help="and this height (default: 1080)")
    c.add_argument("--frames", type=int, default=60, help="frames to time (default: 60)")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.set_defaults(func=run_camera)
    p.set_defaults(func=lambda _args: (p.print_help(), 2)[1])


def run_mat(args: argparse.Namespace) -> int:
    pdf = args.out if args.out.suffix.lower() == ".pdf" else args.out.with_name(args.out.name + ".pdf")
    if not 50 <= args.dpi <= 600:
        return report_error(f"--dpi {args.dpi}: give 50 to 600", json_mode=args.json, code=2)
    if not pdf.parent.is_dir():
        return report_error(f"{pdf.parent}: no such folder (make it, or give --out in a folder that exists)",
                            json_mode=args.json, code=1)
    pngs = [pdf.with_name(f"{pdf.stem}-{s + 1}.png") for s in range(len(SHEETS))]
    try:
        write_pdf(pdf, args.paper)
    except OSError as exc:
        return report_error(f"{pdf}: cannot write ({exc.strerror})", json_mode=args.json, code=1)
    for s, png in enumerate(pngs):
        if not cv2.imwrite(str(png), sheet_image(s, args.paper, args.dpi)):
            return report_error(f"{png}: cannot write", json_mode=args.json, code=1)
    cells = [len(s) for s in SHEETS]
    if args.json:
        print(json.dumps({"pdf": str(pdf), "png": [str(p) for p in pngs], "paper": args.paper,
                          "sheets": len(SHEETS), "cells": cells, "tile_mm": list(TILE_MM)}))
        return 0
    print(f"wrote {pdf} ({len(SHEETS)} pages, {args.paper} landscape) and {', '.join(map(str, pngs))}")
    print("Print at 100 % (no 'fit to page'). One sheet holds 27 cells: sheet 1 the Bams, Craks and Dots, sheet 2")
    print("the winds, dragons, 8 Flowers and 8 Jokers. Lay one tile face up in each box, upright, then run")
    print("`mahj setup tiles --camera 0` (or --photo FILE...). Both sheets may lie side by side in one picture.")
    return 0


def run_camera(args: argparse.Namespace) -> int:
    """Exit 0 when every check passes, 1 when one fails, 2 when there is no picture to check."""
    try:
        model = TileModel.load()
    except TileModelError as exc:
        return report_error(str(exc), json_mode=args.json, code=2)
    if args.photo:
        try:
            frame = read_image(args.photo)
        except ImageFileError as exc:
            return report_error(str(exc), json_mode=args.json, code=2)
        checks = check_frame(model, frame)
    else:
        cam = open_camera(args.camera, args.width, args.height)
        if cam is None:
            return report_error(f"camera {args.camera}: cannot open it (is it plugged in, or used by another "
                                "program?)", json_mode=args.json, code=2)
        try:
            frames, fps, latency = time_camera(cam, max(args.frames, 5))
        finally:
            cam.release()
        if not frames:
            return report_error(f"camera {args.camera}: no picture came (try another --camera)",
                                json_mode=args.json, code=2)
        frame = frames[-1]
        checks = check_frames(model, frames) + check_timing(fps, latency)
    failed = [ch for ch in checks if ch.ok is False]
    frames_checked = 1 if args.photo else len(frames)
    if args.json:
        print(json.dumps({"width": frame.shape[1], "height": frame.shape[0], "passed": not failed,
                          "frames_checked": frames_checked} | ({} if args.photo else {"fps": round(fps, 1),
                                                                                       "latency_ms": round(latency, 1)})
                         | {"checks": [ch.to_json() for ch in checks]}))
    else:
        _print_checks(checks, frame, frames_checked)
    return 1 if failed else 0


def _print_checks(checks: list[Check], frame: np.ndarray, frames: int) -> None:
    over = f" (median over {frames} frames)" if frames > 1 else ""
    print(f"camera check on a {frame.shape[1]}x{frame.shape[0]} picture{over}:")
    for ch in checks:
        value = "-" if ch.value is None else f"{ch.value:.0f} {ch.unit}".strip()
        verdict = {True: "pass", False: "FAIL", None: "n/a"}[ch.ok]
        print(f"  {ch.name:26} {value:>14}  need {ch.need:10} {verdict}")
    for ch in checks:
        if ch.ok is not True:
            print(f"  {'!' if ch.ok is False else '-'} {ch.name}: {ch.fix}")
    print("all checks pass" if all(ch.ok is not False for ch in checks) else "fix the failures, then check again")
