"""``mahj calibrate``: print the corner markers, find the table in the camera picture, save the calibration.

    mahj calibrate markers [--out markers]            # markers.png + markers.pdf (print at 100 %)
    mahj calibrate table --camera 0 | --video F | --image F [--corners "x,y x,y x,y x,y" [--at-markers]]
                         [--table-mm 900] [--out calibration.json]
    mahj calibrate show calibration.json --image F --out overlay.png      # draw the regions to check them

The calibration JSON holds the table->image homography, which seat sits where, and the regions (per seat: rack
slope, rack top, wall; the discard floor) in table millimetres; the regions can be edited by hand (see
docs/vision.md). Point the profile's ``[calibration] file`` at it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from assistant.camera import open_camera
from assistant.console import report_error
from vision.calibration import (
    SEAT_NAMES,
    Calibration,
    CalibrationError,
    TableLayout,
    calibrate_from_corners,
    calibrate_from_points,
    detect_markers,
    marker_page,
    parse_corners,
    write_pdf,
)
from vision.image_file import ImageFileError, check_image_name, read_image, write_image


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="corner markers, table homography, seats and regions")
    csub = p.add_subparsers(dest="calibrate_command", metavar="STEP")

    m = csub.add_parser("markers", help="write the printable page of corner markers (PNG and PDF)")
    m.add_argument("--out", default="markers", help="file name without extension (default: markers)")
    m.add_argument("--dpi", type=int, default=300)
    m.add_argument("--marker-mm", type=float, default=TableLayout.marker_mm)
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=run_markers)

    t = csub.add_parser("table", help="find the table in the camera picture and save the calibration")
    src = t.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", type=int, help="camera index")
    src.add_argument("--video", type=Path, help="a video file")
    src.add_argument("--image", type=Path, help="a still image")
    t.add_argument("--corners", help='no markers: image points "x,y x,y x,y x,y" of the table\'s own corners, the '
                                     "one to the right of East, then South, West, North (the table's edge, as you "
                                     "would click it)")
    t.add_argument("--at-markers", action="store_true",
                   help="--corners are where the markers' centres would be, 50 mm in from each edge (what --corners "
                        "meant before 2026-11-28)")
    t.add_argument("--table-mm", type=float, default=TableLayout.size_mm,
                   help="table side in mm (the playing surface the corners bound); marker centres sit 50 mm in")
    t.add_argument("--frames", type=int, default=60, help="how many frames to try for markers (camera/video)")
    t.add_argument("--out", type=Path, default=Path("calibration.json"))
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=run_table)

    s = csub.add_parser("show", help="draw a calibration's regions over an image")
    s.add_argument("calibration", type=Path)
    s.add_argument("--image", type=Path, required=True)
    s.add_argument("--out", type=Path, default=Path("regions.png"))
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run_show)
    p.set_defaults(func=lambda _args: (p.print_help(), 2)[1])


def run_markers(args: argparse.Namespace) -> int:
    layout = TableLayout(marker_mm=args.marker_mm)
    page = marker_page(layout, dpi=args.dpi)
    png, pdf = Path(f"{args.out}.png"), Path(f"{args.out}.pdf")
    if not cv2.imwrite(str(png), page):
        return report_error(f"{png}: cannot write", json_mode=args.json, code=1)
    write_pdf(page, pdf, args.dpi)
    if args.json:
        print(json.dumps({"png": str(png), "pdf": str(pdf), "marker_mm": layout.marker_mm}))
    else:
        print(f"wrote {png} and {pdf}: print at 100 % (no 'fit to page'); each square is {layout.marker_mm:.0f} mm.")
        print("Cut out the four markers and tape each in the table corner to the right of the seat it names,")
        print(f"with its centre about {layout.marker_inset_mm:.0f} mm in from both edges.")
    return 0


def _grab_frames(args: argparse.Namespace):
    if args.image:
        try:
            img = read_image(args.image)
        except ImageFileError as exc:
            raise CalibrationError(str(exc)) from exc
        yield img
        return
    cap = open_camera(args.camera if args.camera is not None else str(args.video))
    if cap is None:
        what = f"camera {args.camera}" if args.camera is not None else str(args.video)
        raise CalibrationError(f"{what}: cannot open")
    try:
        for _ in range(args.frames):
            ok, frame = cap.read()
            if not ok:
                break
            yield frame
    finally:
        cap.release()


def run_table(args: argparse.Namespace) -> int:
    layout = TableLayout(size_mm=args.table_mm)
    if args.at_markers and not args.corners:
        return report_error("--at-markers says what --corners' points are: give --corners too", json_mode=args.json)
    try:
        cal = None
        seen: dict[int, np.ndarray] = {}
        last = None
        for n, frame in enumerate(_grab_frames(args)):
            last = frame
            h, w = frame.shape[:2]
            if args.corners:
                points = parse_corners(args.corners)
                cal = (calibrate_from_points(points, (w, h), layout, source="manual") if args.at_markers
                       else calibrate_from_corners(points, (w, h), layout))
                break
            seen.update(detect_markers(frame))
            if len(seen) == 4:
                cal = calibrate_from_points(seen, (w, h), layout)
                break
            if n == 0 and not args.json:
                print(f"looking for markers: found {sorted(seen)} so far")
        if last is None:
            raise CalibrationError("no frame could be read")
        if cal is None:
            cal = calibrate_from_points(seen, (last.shape[1], last.shape[0]), layout)
    except CalibrationError as exc:
        return report_error(str(exc), json_mode=args.json)
    cal.save(args.out)
    if args.json:
        print(json.dumps({"file": str(args.out), "source": cal.source,
                          "markers": {SEAT_NAMES[i]: list(map(float, p)) for i, p in cal.marker_image.items()}}))
    else:
        print(f"calibrated from {cal.source}; wrote {args.out}")
        where = "marker" if cal.source == "markers" or args.at_markers else "table corner"
        for i, p in (cal.marker_image if where == "marker" else parse_corners(args.corners)).items():
            print(f"  {where} right of {SEAT_NAMES[i]:5}: image ({p[0]:.0f}, {p[1]:.0f})")
        print("Regions are fitted to the tiles when watching starts; check them with `mahj calibrate show`.")
        print(f'Set in your profile: [calibration] file = "{args.out}"')
    return 0


_KIND_COLOURS = {"slope": (0, 200, 255), "rack_top": (255, 120, 0), "wall": (200, 0, 200), "floor": (0, 255, 0)}


def draw_regions(img: np.ndarray, cal: Calibration) -> np.ndarray:
    """The regions and seat names drawn over ``img`` (a copy)."""
    out = img.copy()
    for b in cal.bands:
        poly = cal.to_image(b.polygon(cal.layout.size_mm)).astype(np.int32)
        cv2.polylines(out, [poly], True, _KIND_COLOURS.get(b.kind, (255, 255, 255)), 2, cv2.LINE_AA)
        x, y = poly.min(axis=0)
        cv2.putText(out, b.name, (int(x) + 3, int(y) + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    _KIND_COLOURS.get(b.kind, (255, 255, 255)), 1, cv2.LINE_AA)
    return out


def run_show(args: argparse.Namespace) -> int:
    try:
        cal = Calibration.load(args.calibration)
    except (OSError, CalibrationError) as exc:
        return report_error(str(exc), json_mode=args.json)
    try:
        check_image_name(args.out)
        write_image(args.out, draw_regions(read_image(args.image), cal))
    except ImageFileError as exc:
        return report_error(str(exc), json_mode=args.json, code=1)
    if args.json:
        print(json.dumps({"out": str(args.out), "regions": [b.name for b in cal.bands]}))
    else:
        print(f"wrote {args.out} with {len(cal.bands)} regions")
    return 0
