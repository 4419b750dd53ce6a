"""``mahj setup tiles``: teach mahj a player's own tiles, laid one in each box of the printed mat (issue 32).

    mahj setup tiles --photo F [F ...] | --camera N [--captures 3] [--set NAME] [--profile mahj.toml]
                     [--display | --no-display] [--json]
    mahj setup tiles --list

Each capture is read (``vision.enroll.read_capture``) and what lies in each box is shown in the terminal and on
the table display (``assistant.display.setup_view``); with ``--camera`` the player is asked to turn the mat or
change the light between captures, and a capture refused or doubted is taken again. The set is then learned and
stored (``vision.enroll.learn``); ``--profile`` points the profile's ``camera.tile_set`` at it.
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

from assistant.camera import grab, open_camera
from assistant.console import report_error
from assistant.display.setup_view import cell_json, setup_snapshot
from assistant.profile import DisplaySettings, ProfileError, load_profile, write_default
from vision.enroll import Capture, EnrolError, alike_advice, learn, read_capture
from vision.image_file import ImageFileError, read_image
from vision.mat import MatError, label
from vision.tile_model import SET_FILE, TileModel, TileModelError, sets_dir

#: How each cell state is shown in the terminal and drawn on the capture's overlay (BGR).
_SHOWN = {"tile": ("ok", (0, 170, 0)), "empty": ("EMPTY", (0, 140, 255)), "two tiles": ("TWO", (0, 0, 220)),
          "face down": ("DOWN", (200, 0, 200)), "off centre": ("OFF", (0, 0, 220)),
          "unclear": ("??", (0, 0, 220))}
#: What the player is asked before each capture with --camera.
HINTS = ("lay one tile in each box of the mat", "turn the mat a quarter turn",
         "change the light (a lamp on or off, curtains) or move the mat")
#: Tries per capture with --camera: a capture refused (no mat) or doubted (steep, small, blurred) is taken again.
TRIES = 3


def register_tiles(ssub: argparse._SubParsersAction) -> None:
    t = ssub.add_parser("tiles", help="teach mahj your own tiles: one in each box of the mat, two or three captures")
    src = t.add_mutually_exclusive_group()
    src.add_argument("--photo", type=Path, nargs="+", metavar="F", help="photos of the mat with the tiles on it")
    src.add_argument("--camera", metavar="N", help="take the captures with this camera (index, device path or a "
                                                   "video file)")
    src.add_argument("--list", action="store_true", help="list the sets learned so far")
    t.add_argument("--set", dest="set_name", default="my-set", help="a name for your set (default: my-set)")
    t.add_argument("--captures", type=int, default=3, help="how many captures to take with --camera (default: 3)")
    t.add_argument("--profile", type=Path, help="profile to read with the set from now on (`mahj watch` and `mahj "
                                                "detect` with --profile); its [display] settings are used too; "
                                                "written with the defaults if it is not there yet")
    t.add_argument("--display", action=argparse.BooleanOptionalAction, default=None,
                   help="show each box's state on the table display (default: on with --camera, off with --photo)")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.set_defaults(func=run_tiles)


class Screen:
    """The table display during set-up (or nothing, when it is off or cannot start): each capture's boxes and
    then the report, published as whole snapshots like a game's."""

    def __init__(self, args: argparse.Namespace, settings: DisplaySettings) -> None:
        self.name = args.set_name
        self.server = None
        self.url = ""
        self.problem = ""
        if not (args.display if args.display is not None else args.camera is not None) or not settings.enabled:
            return
        from assistant.display import DisplayServer

        server = DisplayServer(settings.host, settings.port, settings.token, settings.text_size,
                               initial=setup_snapshot(self.name, "waiting for the first capture"))
        try:
            self.server = server.start()
            self.url = server.url
        except OSError as exc:
            self.problem = f"display: {exc}; going on without it"

    def show(self, step: str, capture: Capture | None = None, report: dict | None = None, error: str = "") -> None:
        if self.server is not None:
            self.server.publish(setup_snapshot(self.name, step, display_capture(capture) if capture else None,
                                               report, error))

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()


def run_tiles(args: argparse.Namespace) -> int:
    root = sets_dir()
    if args.list:
        names = sorted(p.name for p in root.iterdir() if (p / SET_FILE).exists() and not p.name.startswith(".")
                       ) if root.is_dir() else []
        print(json.dumps({"sets_dir": str(root), "sets": names}) if args.json
              else "\n".join(names) or f"no sets in {root}")
        return 0
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args.set_name):
        return report_error(f"--set {args.set_name!r}: give a plain name of letters, digits, '-', '_' or '.', "
                            "e.g. --set grandmas-set", json_mode=args.json, code=2)
    if not args.photo and args.camera is None:
        return report_error("give --photo FILE... (pictures of the mat with your tiles on it) or --camera N",
                            json_mode=args.json, code=2)
    try:
        # A profile named but not there yet is written (the defaults, as `mahj init` writes them) once the set is
        # learned: the player asked to read with the set from now on, not to make a profile first.
        profile = load_profile(args.profile if args.profile is None or args.profile.exists() else None)
    except ProfileError as exc:
        return report_error(str(exc), json_mode=args.json, code=2)
    try:
        model = TileModel.load()
    except TileModelError as exc:
        return report_error(str(exc), json_mode=args.json, code=2)
    screen = Screen(args, profile.display)
    if not args.json and (screen.url or screen.problem):
        print(f"display: {screen.url}" if screen.url else screen.problem, flush=True)
    try:
        return _teach(args, model, root / args.set_name, screen)
    finally:
        screen.close()


def _teach(args: argparse.Namespace, model: TileModel, folder: Path, screen: Screen) -> int:
    if args.photo:
        captures, refused = _from_photos(args, model, screen)
        if captures is None:
            return 1
    else:
        captures, refused = _from_camera(args, model, screen)
        if captures is None:
            return 2
    if not captures:
        message = ("nothing learned: every capture was refused (" + "; ".join(refused) + ")" if refused
                   else "nothing learned: no capture was taken")
        screen.show("nothing learned", error=message)
        report_error(message, json_mode=args.json, refused=refused, captures=[])
        _linger(args, screen)
        return 1
    screen.show("learning your set", captures[-1])
    try:
        summary = learn(model, captures, folder, args.set_name)
    except (EnrolError, OSError) as exc:
        for k, cap in enumerate(captures):     # beside the set learned before (if any), to see what went wrong
            _overlay(cap, folder / f"capture-{k + 1}.png")
        screen.show("nothing learned", captures[-1] if captures else None, error=str(exc))
        report_error(str(exc), json_mode=args.json, refused=refused, captures=[_capture_json(c) for c in captures])
        _linger(args, screen)
        return 1
    for k, cap in enumerate(captures):
        _overlay(cap, folder / f"capture-{k + 1}.png")
    if args.profile is not None:
        _use_in_profile(args.profile, args.set_name)
    screen.show("done", captures[-1], report=display_report(summary))
    if args.json:
        print(json.dumps(summary | {"name": args.set_name, "refused": refused, "display": screen.url or None,
                                    "profile": str(args.profile) if args.profile else None,
                                    "captures_seen": [_capture_json(c) for c in captures]}))
        return 0
    _print_report(summary, args)
    _linger(args, screen)
    return 0


def _linger(args: argparse.Namespace, screen: Screen) -> None:
    """At a terminal, keep the display up until the player has read it."""
    if screen.server is not None and not args.json and sys.stdin.isatty():
        input(f"the display shows it at {screen.url}; press Enter to close it ")


def _from_photos(args: argparse.Namespace, model: TileModel, screen: Screen
                 ) -> tuple[list[Capture] | None, list[str]]:
    """Read every photo; a photo that is no image stops here (exit 1), one without the mat is refused and said."""
    captures, refused = [], []
    for k, path in enumerate(args.photo):
        try:
            img = read_image(path)
        except ImageFileError as exc:
            report_error(str(exc), json_mode=args.json)
            return None, refused
        if not args.json:
            print(f"reading {path} ...", flush=True)
        step = f"photo {k + 1} of {len(args.photo)}"
        cap = _read(args, model, img, str(path), step, screen, refused)
        if cap is not None:
            captures.append(cap)
    return captures, refused


def _read(args: argparse.Namespace, model: TileModel, img: np.ndarray, name: str, step: str, screen: Screen,
          refused: list[str]) -> Capture | None:
    """One capture read, shown in the terminal and on the display; None (and said why) if it has no mat."""
    try:
        cap = read_capture(model, img, name)
    except MatError as exc:
        refused.append(str(exc))
        if not args.json:
            print(f"  refused: {exc}")
        screen.show(f"{step}: refused", error=str(exc))
        return None
    if not args.json:
        _print_capture(cap)
    screen.show(step, cap)
    return cap


def _from_camera(args: argparse.Namespace, model: TileModel, screen: Screen
                 ) -> tuple[list[Capture] | None, list[str]]:
    """Take ``--captures`` pictures, asking the player (at a terminal) to turn the mat or change the light between
    them; a capture that is refused or doubted is taken again, up to TRIES times (then a doubted one is kept, and
    teaches nothing). Without a terminal, captures are taken 2 s apart."""
    cam = open_camera(args.camera)
    if cam is None:
        report_error(f"camera {args.camera}: cannot open it (is it plugged in, or used by another program?)",
                     json_mode=args.json)
        return None, []
    interactive = sys.stdin.isatty() and not args.json
    captures: list[Capture] = []
    refused: list[str] = []
    try:
        for k in range(args.captures):
            for attempt in range(TRIES):
                step = f"capture {k + 1} of {args.captures}" + (f", try {attempt + 1} of {TRIES}" if attempt else "")
                hint = HINTS[min(k, len(HINTS) - 1)] if not attempt else "fix what is said, then take it again"
                screen.show(f"{step}: {hint}", captures[-1] if captures else None)
                if interactive:
                    input(f"{step}: {hint}, then press Enter ")
                elif k or attempt:
                    time.sleep(2.0)
                frame = grab(cam)
                if frame is None:
                    report_error(f"camera {args.camera}: no picture came (try another --camera)", json_mode=args.json)
                    return None, refused
                cap = _read(args, model, frame, f"capture {k + 1}", step, screen, refused)
                if cap is not None and (cap.usable or attempt == TRIES - 1):
                    captures.append(cap)
                    break
    finally:
        cam.release()
    return captures, refused


def display_capture(cap: Capture) -> dict:
    """A capture for the display: its boxes row by row as printed on each sheet, what to fix, and its doubts."""
    sheets = []
    for v in cap.views:
        rows: dict[float, list[dict]] = {}
        for c in cap.cells:
            if c.cell.sheet == v.sheet:
                rows.setdefault(c.cell.zone[1], []).append(cell_json(label(c.cell.code), c.cell.name, c.state))
        sheets.append({"sheet": v.sheet + 1, "rows": list(rows.values())})
    return {"name": cap.name, "sheets": sheets, "problems": cap.problems(),
            "doubts": [f"nothing learned from this capture: {d}" for d in cap.doubts]}


def display_report(summary: dict) -> dict:
    """The end of the set-up for the display: per level of sureness the kinds, and the look-alike advice."""
    levels = {sure: [label(k) for k, v in summary["kinds"].items() if v["sure"] == sure]
              for sure in ("sure", "fairly sure", "unsure")}
    return {"tiles": summary["tiles"], "captures": summary["captures"], "seconds": summary["seconds"],
            "checked": summary["checked"], "sure": levels, "alike": [alike_advice(p) for p in summary["alike"]]}


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
        for sure, kinds in display_report(summary)["sure"].items():
            if kinds:
                print(f"  {sure}: {', '.join(kinds)}")
        for pair in summary["alike"]:
            print(f"  {alike_advice(pair)}")
    if args.profile is not None:
        print(f"{args.profile} now reads with it (camera.tile_set = \"{args.set_name}\"): `mahj watch --profile "
              f"{args.profile}` and `mahj detect --profile {args.profile} photo.jpg` (--no-set: the shipped model)")
    else:
        print(f"use it: `mahj detect --set {args.set_name} photo.jpg`, or set camera.tile_set = "
              f"\"{args.set_name}\" in your profile (or give --profile) for `mahj watch` and `mahj detect`")


def _use_in_profile(path: Path, name: str) -> None:
    """Point the profile's ``camera.tile_set`` at the set, keeping the rest of the file (and its comments) as is;
    a profile not there yet is written first with the defaults."""
    if not path.exists():
        write_default(path)
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
