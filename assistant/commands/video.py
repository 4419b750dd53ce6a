"""``mahj video``: ground-truth table videos and reading them (the camera side of the product, on its own).

    mahj video generate OUT_DIR [--games N] [--seed S] [--turns T] [--size 1280x720] [--no-disturb]
    mahj video read VIDEO [--calibration FILE] [--oracle | --model PATH] [--log events.jsonl] [--json]
    mahj video eval VIDEO... [--oracle | --model PATH] [--json]

``read`` prints the observations (vision.events) as the reader confirms them; ``--json`` prints them as JSON
Lines. ``eval`` compares them with the recording's ``.truth.jsonl`` (precision/recall per event type, latency,
events invented during occlusions, light changes and bumps). ``--oracle`` reads with the renderer's true boxes
instead of the tile model, to tell reading errors from model errors.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from assistant.console import report_error
from vision.calibration import Calibration, CalibrationError
from vision.events import EventLog, Observation
from vision.recording import RecordingError, meta_for


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("video", help="generate ground-truth table videos, read and score them")
    vsub = p.add_subparsers(dest="video_command", metavar="STEP")

    g = vsub.add_parser("generate", help="render scripted games as overhead videos with their true event logs")
    g.add_argument("out", type=Path)
    g.add_argument("--games", type=int, default=1)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--turns", type=int, default=6, help="discards before the Mah Jongg")
    g.add_argument("--size", default="640x360", help="WIDTHxHEIGHT (default 640x360)")
    g.add_argument("--no-disturb", action="store_true", help="no resting arms, bump, light change, dropped frames")
    g.add_argument("--own-script", action="store_true",
                   help="the small own game script (has calls made after the next player picked) instead of the "
                        "referee's scripted games")
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=run_generate)

    for name, helptext in (("read", "print what the camera sees in a video, as events"),
                           ("eval", "score the reader against recordings' true event logs")):
        r = vsub.add_parser(name, help=helptext)
        r.add_argument("video", type=Path, nargs="+" if name == "eval" else None)
        r.add_argument("--calibration", type=Path, help="calibration JSON (default: from the markers)")
        det = r.add_mutually_exclusive_group()
        det.add_argument("--oracle", action="store_true", help="use the recording's true boxes (NAME.boxes.npz)")
        det.add_argument("--model", help="tile model path (default: the shipped model)")
        r.add_argument("--json", action="store_true")
        if name == "read":
            r.add_argument("--log", type=Path, help="also append the events to this JSON Lines file")
        r.set_defaults(func=run_read if name == "read" else run_eval)
    p.set_defaults(func=lambda _args: (p.print_help(), 2)[1])


def run_generate(args: argparse.Namespace) -> int:
    try:
        from datasets.video.generate import generate_game
    except ModuleNotFoundError as exc:  # the renderer is a development tool with its own extra
        return report_error(f"the video generator needs {exc.name}: pip install -e '.[synth]'",
                            json_mode=args.json)

    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        return report_error(f"--size {args.size!r}: expected WIDTHxHEIGHT", json_mode=args.json)
    for k in range(args.games):
        seed = args.seed + k
        out = args.out / f"game{seed:04d}"
        meta = generate_game(out, seed, turns=args.turns, size=(w, h), disturb=not args.no_disturb,
                             progress=not args.json, own=args.own_script)
        if args.json:
            print(json.dumps({"video": str(out.with_suffix(".mp4")), "frames": len(meta["frames"]), "seed": seed}))
        else:
            print(f"{out.with_suffix('.mp4')}: {len(meta['frames'])} frames, truth in {out.name}.truth.jsonl")
    return 0


def _detector(args: argparse.Namespace, video: Path):
    if args.oracle:
        from vision.oracle import OracleDetector

        boxes = video.with_suffix(".boxes.npz")
        if not boxes.exists():
            raise RecordingError(f"{boxes}: no true boxes beside the video (only generated recordings have them)")
        meta = meta_for(video) or {}
        return OracleDetector.load(boxes, meta.get("frames"))
    try:
        from vision.tile_model import TileModel, TileModelError
    except ImportError as exc:
        raise RecordingError(f"the tile model is not available ({exc}); use --oracle on generated videos") from None
    try:
        return TileModel.load(args.model)
    except TileModelError as exc:
        raise RecordingError(f"tile model: {exc}") from None


def _read(args: argparse.Namespace, video: Path, on_event=None):
    from vision.replay import read_video

    cal = Calibration.load(args.calibration) if args.calibration else None
    return read_video(video, _detector(args, video), cal, on_event=on_event)


def _describe(ev: Observation) -> str:
    d = ev.to_json()
    extra = " ".join(f"{k}={v}" for k, v in d.items() if k not in ("type", "t", "frame", "confidence", "t_action"))
    return f"{ev.t:8.2f}s  frame {ev.frame:6d}  {ev.type:16} {extra}  (conf {ev.confidence:.2f})"


def run_read(args: argparse.Namespace) -> int:
    log = EventLog(args.log) if args.log else None

    def show(ev: Observation) -> None:
        print(json.dumps(ev.to_json()) if args.json else _describe(ev), flush=True)
        if log:
            log.write(ev)

    try:
        res = _read(args, args.video, show)
    except (RecordingError, CalibrationError) as exc:
        return report_error(str(exc), json_mode=args.json)
    finally:
        if log:
            log.close()
    if not args.json:
        print(f"{len(res.frame_ms)} frames, median {statistics.median(res.frame_ms):.1f} ms per frame, "
              f"{res.stats['detector_calls']} detector calls")
    return 0


def run_eval(args: argparse.Namespace) -> int:
    from vision.events import read_log
    from vision.scoring import Score, score

    total = Score()
    for video in args.video:
        truth_path = video.with_suffix(".truth.jsonl")
        if not truth_path.exists():
            return report_error(f"{truth_path}: no true event log beside the video", json_mode=args.json)
        try:
            res = _read(args, video)
        except (RecordingError, CalibrationError) as exc:
            return report_error(str(exc), json_mode=args.json)
        truth = [e.to_json() for e in read_log(truth_path)]
        meta = meta_for(video) or {}
        total.add(score([e.to_json() for e in res.events], truth, meta.get("disturbances", [])))
    table = total.table()
    if args.json:
        print(json.dumps({"videos": len(args.video), "per_type": table,
                          "invented_in_disturbance": len(total.invented_in_disturbance),
                          "discards_wrong_tile": total.discard_seen_wrong_tile}))
        return 0
    print(f"{'event':28} {'true':>5} {'seen':>5} {'prec':>6} {'recall':>6} {'p95 ms':>7}")
    for kind, row in table.items():
        def pct(x: float | None) -> str:
            return "   -  " if x is None else f"{100 * x:5.1f}%"
        p95 = "-" if row["latency_p95_ms"] is None else f"{row['latency_p95_ms']:.0f}"
        print(f"{kind:28} {row['true']:5d} {row['seen']:5d} {pct(row['precision'])} {pct(row['recall'])} {p95:>7}")
    print(f"invented during occlusion/light/bump: {len(total.invented_in_disturbance)}")
    return 0
