"""``mahj setup``: get a table ready before the first game (issue 32).

    mahj setup mat [--paper letter|a4] [--out mat.pdf]          # print the set-up mat (PDF, and a PNG a sheet)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from vision.mat import PAPERS, SHEETS, TILE_MM
from vision.mat_print import sheet_image, write_pdf


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
