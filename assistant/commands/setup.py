"""``mahj setup``: get a table ready before the first game (issue 32).

    mahj setup mat [--paper letter|a4] [--out mat.pdf]          # print the set-up mat (PDF, and a PNG a sheet)
    mahj setup tiles --photo F [F ...] | --camera N [--set NAME] [--profile mahj.toml]
                                                                # teach mahj your tiles, laid on the mat
    mahj setup tiles --list                                     # the sets learned so far
    mahj setup camera --camera N | --photo F                    # can the camera read tiles? pass/fail, with fixes

Details: docs/setup.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from assistant.profile import ProfileError, load_profile
from vision.camera_check import Check, check_frame, check_timing
from vision.enroll import Capture, EnrolError, alike_advice, learn, read_capture
from vision.image_file import ImageFileError, read_image
from vision.mat import PAPERS, SHEETS, TILE_MM, MatError, label
from vision.mat_print import sheet_image, write_pdf
from vision.tile_model import SET_FILE, TileModel, TileModelError, sets_dir

#: How each cell state is shown in the terminal and drawn on the capture's overlay (BGR).
_SHOWN = {"tile": ("ok", (0, 170, 0)), "empty": ("EMPTY", (0, 140, 255)), "two tiles": ("TWO", (0, 0, 220)),
          "face down": ("DOWN", (200, 0, 200)), "off centre": ("OFF", (0, 0, 220)),
          "unclear": ("??", (0, 0, 220))}


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

    t = ssub.add_parser("tiles", help="teach mahj your own tiles: one in each box of the mat, two or three captures")
    src = t.add_mutually_exclusive_group()
    src.add_argument("--photo", type=Path, nargs="+", metavar="F", help="photos of the mat with the tiles on it")
    src.add_argument("--camera", metavar="N", help="take the captures with this camera (index or device path)")
    src.add_argument("--list", action="store_true", help="list the sets learned so far")
    t.add_argument("--set", dest="set_name", default="my-set", help="a name for your set (default: my-set)")
    t.add_argument("--captures", type=int, default=3, help="how many captures to take with --camera (default: 3)")
    t.add_argument("--profile", type=Path, help="profile to read with the set from now on (`mahj watch --profile`)")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.set_defaults(func=run_tiles)

    c = ssub.add_parser("camera", help="check the camera can read tiles: size, focus, light, frame rate")
    src = c.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", metavar="N", help="camera index or device path")
    src.add_argument("--photo", type=Path, metavar="F", help="a picture the camera took (no frame rate then)")
    c.add_argument("--width", type=int, default=1920, help="ask the camera for this width (default: 1920)")
    c.add_argument("--height", type=int, default=1080, help="and this height (default: 1080)")
    c.add_argument("--frames", type=int, default=60, help="frames to time (default: 60)")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.set_defaults(func=run_camera)
    p.set_defaults(func=lambda _args: (p.print_help(), 2)[1])


def _fail(args: argparse.Namespace, message: str, code: int) -> int:
    print(json.dumps({"error": message}) if args.json else f"error: {message}")
    return code


def run_mat(args: argparse.Namespace) -> int:
    pdf = args.out if args.out.suffix.lower() == ".pdf" else args.out.with_name(args.out.name + ".pdf")
    if not 50 <= args.dpi <= 600:
        return _fail(args, f"--dpi {args.dpi}: give 50 to 600", 2)
    if not pdf.parent.is_dir():
        return _fail(args, f"{pdf.parent}: no such folder (make it, or give --out in a folder that exists)", 1)
    pngs = [pdf.with_name(f"{pdf.stem}-{s + 1}.png") for s in range(len(SHEETS))]
    try:
        write_pdf(pdf, args.paper)
    except OSError as exc:
        return _fail(args, f"{pdf}: cannot write ({exc.strerror})", 1)
    for s, png in enumerate(pngs):
        if not cv2.imwrite(str(png), sheet_image(s, args.paper, args.dpi)):
            return _fail(args, f"{png}: cannot write", 1)
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


def run_tiles(args: argparse.Namespace) -> int:
    root = sets_dir()
    if args.list:
        names = sorted(p.name for p in root.iterdir() if (p / SET_FILE).exists()) if root.is_dir() else []
        print(json.dumps({"sets_dir": str(root), "sets": names}) if args.json
              else "\n".join(names) or f"no sets in {root}")
        return 0
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args.set_name):
        return _fail(args, f"--set {args.set_name!r}: give a plain name of letters, digits, '-', '_' or '.', "
                           "e.g. --set grandmas-set", 2)
    if not args.photo and args.camera is None:
        return _fail(args, "give --photo FILE... (pictures of the mat with your tiles on it) or --camera N", 2)
    if args.profile is not None:
        try:
            load_profile(args.profile)
        except ProfileError as exc:
            return _fail(args, f"{exc} (`mahj init {args.profile}` writes one)", 2)
    try:
        model = TileModel.load()
    except TileModelError as exc:
        return _fail(args, str(exc), 2)
    folder = root / args.set_name
    if args.photo:
        captures, refused = _from_photos(args, model)
        if captures is None:
            return 1
    else:
        captures, refused = _from_camera(args, model)
        if captures is None:
            return 2
    for k, cap in enumerate(captures):
        _overlay(cap, folder / f"capture-{k + 1}.png")
    try:
        summary = learn(model, captures, folder, args.set_name)
    except EnrolError as exc:
        if args.json:
            print(json.dumps({"error": str(exc), "refused": refused,
                              "captures": [_capture_json(c) for c in captures]}))
        else:
            print(f"error: {exc}")
        return 1
    if args.profile is not None:
        _use_in_profile(args.profile, args.set_name)
    if args.json:
        print(json.dumps(summary | {"name": args.set_name, "refused": refused,
                                    "profile": str(args.profile) if args.profile else None,
                                    "captures_seen": [_capture_json(c) for c in captures]}))
        return 0
    _print_report(summary, args)
    return 0


def _from_photos(args: argparse.Namespace, model: TileModel) -> tuple[list[Capture] | None, list[str]]:
    """Read every photo; a photo that is no image stops here (exit 1), one without the mat is refused and said."""
    captures, refused = [], []
    for path in args.photo:
        try:
            img = read_image(path)
        except ImageFileError as exc:
            _fail(args, str(exc), 1)
            return None, refused
        if not args.json:
            print(f"reading {path} ...", flush=True)
        try:
            cap = read_capture(model, img, str(path))
        except MatError as exc:
            refused.append(str(exc))
            if not args.json:
                print(f"  refused: {exc}")
            continue
        captures.append(cap)
        if not args.json:
            _print_capture(cap)
    return captures, refused


def _grab(cap: cv2.VideoCapture) -> np.ndarray | None:
    frame = None
    for _ in range(5):   # let exposure settle and drop stale buffered frames
        ok, got = cap.read()
        frame = got if ok else frame
    return frame


def _from_camera(args: argparse.Namespace, model: TileModel) -> tuple[list[Capture] | None, list[str]]:
    """Take ``--captures`` pictures, asking the player to turn the mat or change the light between them; a capture
    that is refused or doubted is taken again (twice at most)."""
    cam = cv2.VideoCapture(int(args.camera) if str(args.camera).isdigit() else args.camera)
    if not cam.isOpened():
        _fail(args, f"camera {args.camera}: cannot open it (is it plugged in, or used by another program?)", 2)
        return None, []
    interactive = sys.stdin.isatty() and not args.json
    hints = ("lay one tile in each box of the mat", "turn the mat a quarter turn", "change the light (a lamp on or "
             "off, curtains) or move the mat")
    captures, refused = [], []
    try:
        for k in range(args.captures):
            for attempt in range(3):
                if interactive:
                    input(f"capture {k + 1} of {args.captures}: {hints[min(k, 2)]}, then press Enter ")
                elif k or attempt:
                    time.sleep(2.0)
                frame = _grab(cam)
                if frame is None:
                    _fail(args, f"camera {args.camera}: no picture came (try another --camera)", 2)
                    return None, refused
                try:
                    cap = read_capture(model, frame, f"capture {k + 1}")
                except MatError as exc:
                    refused.append(str(exc))
                    if not args.json:
                        print(f"  refused: {exc}")
                    continue
                if not args.json:
                    _print_capture(cap)
                if cap.usable or attempt == 2:
                    captures.append(cap)
                    break
    finally:
        cam.release()
    return captures, refused


def _capture_json(cap: Capture) -> dict:
    return {"name": cap.name, "sheets": [v.sheet + 1 for v in cap.views],
            "tilt_deg": [round(v.tilt_deg, 1) for v in cap.views], "tile_px": round(cap.tile_px, 1),
            "focus": None if cap.focus is None else round(cap.focus), "usable": cap.usable, "doubts": cap.doubts,
            "cells": [{"cell": c.cell.name, "code": c.cell.code, "state": c.state} for c in cap.cells]}


def _print_capture(cap: Capture) -> None:
    sheets = ", ".join(f"sheet {v.sheet + 1} at {v.tilt_deg:.0f} degrees" for v in cap.views)
    focus = "" if cap.focus is None else f", focus {cap.focus:.0f}"
    print(f"  {sheets}; tiles {cap.tile_px:.0f} px{focus}")
    for v in cap.views:
        seen = [c for c in cap.cells if c.cell.sheet == v.sheet]
        rows: dict[float, list[str]] = {}
        for c in seen:
            rows.setdefault(c.cell.zone[1], []).append(f"{label(c.cell.code):>6} {_SHOWN[c.state][0]:<5}")
        for row in rows.values():
            print("   " + " ".join(row))
    for p in cap.problems():
        print(f"  ! {p}")
    for d in cap.doubts:
        print(f"  ! nothing learned from this capture: {d}")


def _overlay(cap: Capture, path: Path) -> None:
    """The capture with each cell outlined in the colour of what was seen in it (kept beside the set)."""
    img = cap.image.copy()
    for c in cap.cells:
        view = next(v for v in cap.views if v.sheet == c.cell.sheet)
        x0, y0, x1, y1 = c.cell.zone
        poly = view.to_image(np.float64([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])).round().astype(np.int32)
        cv2.polylines(img, [poly], True, _SHOWN[c.state][1], 3, cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img)


def _print_report(summary: dict, args: argparse.Namespace) -> None:
    print(f"learned your set '{args.set_name}' from {summary['captures']} capture(s), {summary['tiles']} tiles, "
          f"in {summary['seconds']} s: {summary['set']}")
    if not summary["checked"]:
        print("how sure it is cannot be checked from one capture: add a second (turn the mat) to see it")
    else:
        print("how sure, per kind (each capture read with what the others taught):")
        for sure in ("sure", "fairly sure", "unsure"):
            kinds = [label(k) for k, v in summary["kinds"].items() if v["sure"] == sure]
            if kinds:
                print(f"  {sure}: {', '.join(kinds)}")
        for pair in summary["alike"]:
            print(f"  {alike_advice(pair)}")
    if args.profile is not None:
        print(f"{args.profile} now reads with it (camera.tile_set = \"{args.set_name}\"): `mahj watch --profile "
              f"{args.profile}`; `mahj detect --set {args.set_name} photo.jpg`")
    else:
        print(f"use it: `mahj detect --set {args.set_name} photo.jpg`, or set camera.tile_set = "
              f"\"{args.set_name}\" in your profile (or give --profile) for `mahj watch`")


def _use_in_profile(path: Path, name: str) -> None:
    """Point the profile's ``camera.tile_set`` at the set, keeping the rest of the file (and its comments) as is."""
    text = path.read_text()
    line = f'tile_set = "{name}"'
    if re.search(r"(?m)^tile_set\s*=.*$", text):
        text = re.sub(r"(?m)^tile_set\s*=.*$", line, text, count=1)
    elif re.search(r"(?m)^\[camera\]\s*$", text):
        text = re.sub(r"(?m)^\[camera\]\s*$", f"[camera]\n{line}", text, count=1)
    else:
        text = text.rstrip("\n") + f"\n\n[camera]\n{line}\n"
    path.write_text(text)
    load_profile(path)


def run_camera(args: argparse.Namespace) -> int:
    """Exit 0 when every check passes, 1 when one fails, 2 when there is no picture to check."""
    try:
        model = TileModel.load()
    except TileModelError as exc:
        return _fail(args, str(exc), 2)
    if args.photo:
        try:
            frame = read_image(args.photo)
        except ImageFileError as exc:
            return _fail(args, str(exc), 2)
        checks = check_frame(model, frame)
    else:
        cam = cv2.VideoCapture(int(args.camera) if str(args.camera).isdigit() else args.camera)
        if not cam.isOpened():
            return _fail(args, f"camera {args.camera}: cannot open it (is it plugged in, or used by another "
                               "program?)", 2)
        try:
            cam.set(cv2.CAP_PROP_FRAME_WIDTH, args.width)
            cam.set(cv2.CAP_PROP_FRAME_HEIGHT, args.height)
            frame, fps, latency = _time_camera(cam, max(args.frames, 5))
        finally:
            cam.release()
        if frame is None:
            return _fail(args, f"camera {args.camera}: no picture came (try another --camera)", 2)
        checks = check_frame(model, frame) + check_timing(fps, latency)
    failed = [ch for ch in checks if ch.ok is False]
    if args.json:
        print(json.dumps({"width": frame.shape[1], "height": frame.shape[0], "passed": not failed,
                          "checks": [ch.to_json() for ch in checks]}))
    else:
        _print_checks(checks, frame)
    return 1 if failed else 0


def _time_camera(cam: cv2.VideoCapture, n: int) -> tuple[np.ndarray | None, float, float]:
    """The last of ``n`` frames, the frame rate over them and the median time a read waited for its frame (ms)."""
    frame = _grab(cam)
    waits = []
    t0 = time.perf_counter()
    for _ in range(n):
        t = time.perf_counter()
        ok, got = cam.read()
        waits.append((time.perf_counter() - t) * 1000)
        frame = got if ok else frame
    return frame, n / max(time.perf_counter() - t0, 1e-6), float(np.median(waits))


def _print_checks(checks: list[Check], frame: np.ndarray) -> None:
    print(f"camera check on a {frame.shape[1]}x{frame.shape[0]} picture:")
    for ch in checks:
        value = "-" if ch.value is None else f"{ch.value:.0f} {ch.unit}".strip()
        verdict = {True: "pass", False: "FAIL", None: "n/a"}[ch.ok]
        print(f"  {ch.name:26} {value:>14}  need {ch.need:10} {verdict}")
    for ch in checks:
        if ch.ok is not True:
            print(f"  {'!' if ch.ok is False else '-'} {ch.name}: {ch.fix}")
    print("all checks pass" if all(ch.ok is not False for ch in checks) else "fix the failures, then check again")
