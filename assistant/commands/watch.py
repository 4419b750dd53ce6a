"""``mahj watch --camera N | --video FILE | --frames DIR``: run the assistant on a table and print as it goes."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from assistant.arguments import seat_arg
from assistant.console import report_error
from assistant.profile import Profile, ProfileError, load_profile
from assistant.sources import FrameSource, SourceError
from assistant.wiring import KEY_HELP, Options, SetupError


def add_output_options(p: argparse.ArgumentParser) -> None:
    """Options shared with ``mahj demo``."""
    p.add_argument("--profile", type=Path, help="profile TOML (see `mahj init`); default: built-in defaults")
    p.add_argument("--board", metavar="PORT", help='board port: sim, simavr, a device, auto or none')
    p.add_argument("--no-speech", action="store_true", help="do not speak")
    p.add_argument("--no-display", action="store_true", help="do not serve the web display")
    p.add_argument("--paced", action="store_true", help="play a recording at its real speed (as if live)")
    p.add_argument("--json", action="store_true", help="JSON Lines: one object per event, ruling and board change")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch", help="watch a table: camera -> referee -> board, display, speech, journal",
                       description=f"Watch a table and rule as the game goes. {KEY_HELP}")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", type=int, metavar="N", help="camera index (default: the profile's camera)")
    src.add_argument("--video", type=Path, metavar="FILE", help="a recorded video instead of a camera")
    src.add_argument("--frames", type=Path, metavar="DIR", help="a folder of frames (sorted by name)")
    p.add_argument("--journal", type=Path, help="journal file; if it exists, the game resumes from it")
    p.add_argument("--resume", action="store_true", help="resume the latest unfinished journal in journal_dir")
    p.add_argument("--annotate", type=Path, metavar="MP4", help="also write an annotated video")
    p.add_argument("--no-set", action="store_true",
                   help="read tiles with the shipped model, not the profile's learned set (camera.tile_set)")
    p.add_argument("--join", action="store_true",
                   help="the game is already in progress: mahj asks who is East, whose turn it is and how many wall "
                        "tiles are left (or take them from --east, --turn, --wall)")
    p.add_argument("--east", type=seat_arg, metavar="SEAT",
                   help="with --join: who is East (east/south/west/north or 0-3)")
    p.add_argument("--turn", type=seat_arg, metavar="SEAT", help="with --join: whose turn it is (to pick)")
    p.add_argument("--wall", type=wall_arg, metavar="N", help="with --join: about how many wall tiles are left")
    p.add_argument("--tournament", metavar="URL", help="report each finished game to this tournament server "
                                                       "(mahj tournament serve); offline, reports queue and resend")
    p.add_argument("--table", type=int, metavar="N", help="with --tournament: this table's number")
    p.add_argument("--token", metavar="T", help="with --tournament: the token on this table's card")
    p.add_argument("--round", type=int, metavar="R", help="with --tournament: the round (default: the server's)")
    p.add_argument("--game", type=int, metavar="G", help="with --tournament: the first game's number (default: the "
                                                         "next one the server has not counted)")
    add_output_options(p)
    p.set_defaults(func=run)


def latest_unfinished(journal_dir: Path) -> Path | None:
    """The newest journal in ``journal_dir`` whose game has not ended (the one to resume)."""
    for path in sorted(journal_dir.glob("game-*.jsonl"), key=lambda q: q.stat().st_mtime, reverse=True):
        text = path.read_text(encoding="utf-8", errors="replace")
        if '"game_over"' not in text:
            return path
    return None


def wall_arg(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 99:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of wall tiles (0-99)")
    return int(text)


def options_from(args: argparse.Namespace, profile: Profile) -> Options:
    told = {k: getattr(args, k, None) for k in ("east", "turn", "wall")}
    joining = getattr(args, "join", False) or any(v is not None for v in told.values())
    return Options(as_json=args.json, speech=not args.no_speech, display=not args.no_display,
                   board_port=args.board, join=told if joining else None)


def tournament_options(args: argparse.Namespace, journal: Path) -> dict | None:
    """``--tournament URL --table N --token T``: where finished games go; the queue lies next to the journal."""
    url = getattr(args, "tournament", None)
    if url is None:
        if any(getattr(args, k, None) is not None for k in ("table", "token", "round", "game")):
            raise SetupError("--table, --token, --round and --game go with --tournament URL")
        return None
    if not url.startswith(("http://", "https://")):
        raise SetupError(f"--tournament {url!r}: give the server's address, e.g. http://director.local:8780")
    if args.table is None or not args.token:
        raise SetupError("--tournament needs --table N and --token T (both on the table card)")
    if args.table < 1 or (args.round is not None and args.round < 1) or (args.game is not None and args.game < 1):
        raise SetupError("--table, --round and --game count from 1")
    return {"url": url, "table": args.table, "token": args.token, "round": args.round, "game": args.game,
            "queue": journal.parent / "tournament-queue.jsonl"}


def fail(args: argparse.Namespace, message: str) -> int:
    """The error as a line of the ``--json`` stream (``mahj watch``, ``mahj demo``): every line there has a
    ``type`` its readers go by, so this one says ``"type": "error"`` beside the message."""
    return report_error(message, json_mode=args.json, type="error")


def run(args: argparse.Namespace) -> int:
    from assistant.journal import JournalError
    from assistant.session import watch

    try:
        profile = load_profile(args.profile)
    except ProfileError as exc:
        return fail(args, str(exc))
    if args.no_set:
        profile = replace(profile, camera=replace(profile.camera, tile_set=""))
    spec = args.camera if args.camera is not None else args.video or args.frames or profile.camera.source
    journal = args.journal
    if journal is None and args.resume:
        journal = latest_unfinished(profile.journal_dir)
        if journal is None:
            return fail(args, f"no unfinished journal in {profile.journal_dir}")
    if journal is None:
        journal = profile.journal_dir / time.strftime("game-%Y%m%d-%H%M%S.jsonl")
    try:
        opts = options_from(args, profile)
        opts.tournament = tournament_options(args, journal)
        is_dir = not isinstance(spec, int) and Path(spec).is_dir()  # a video file knows its own frame rate
        source = FrameSource(spec, fps=profile.camera.fps if is_dir else None, paced=args.paced,
                             width=profile.camera.width, height=profile.camera.height)
        journal.parent.mkdir(parents=True, exist_ok=True)
        result = watch(profile, opts, source, journal, annotate=args.annotate)
    except (SourceError, SetupError, JournalError) as exc:
        return fail(args, str(exc))
    summary = {"type": "summary", "journal": str(result.journal), "frames": result.frames,
               "interrupted": result.interrupted, "mahjong": result.mahjong, "settlement": result.settlement}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"journal: {result.journal} ({result.frames} frames)")
    return 130 if result.interrupted else 0
