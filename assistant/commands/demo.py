"""``mahj demo``: the whole assistant on the bundled table recording, with the simulated board.

Prints events and rulings as they happen with the board's LEDs, serves the display (URL printed; ``--open`` also
opens a browser), and writes the journal, the annotated video and a summary into ``--out``. Works offline.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import webbrowser
from dataclasses import replace
from pathlib import Path
from typing import Any

from assistant.commands.watch import add_output_options, fail, options_from
from assistant.profile import ProfileError, load_profile
from assistant.sources import FrameSource, SourceError
from assistant.wiring import SetupError

#: Said only when the bundled recording is missing: a person's own file that is not there needs no reinstall.
_REINSTALL = " (the demo recording ships with mahj; reinstall with `pip install -e .`)"
#: The recording ``mahj demo`` plays: the last turns and the Mah Jongg of one of the referee's seeded games,
#: rendered by our video generator (datasets/video/fixtures.py).
DEMO_RECORDING = Path(__file__).resolve().parents[2] / "datasets" / "video" / "fixtures" / "demo.mp4"


#: The journal of the game before the demo recording's first frame, shipped beside the code: the recording
#: joins one of the referee's seeded games near its end (see its .meta.json ``source``).
GAME_BEFORE = Path(__file__).resolve().parents[1] / "demo" / "demo-before-recording.jsonl"


def game_before(video: Path) -> list[dict] | None:
    """Journal records of the game before ``video`` starts, or None when the recording starts a game.

    The shipped ``GAME_BEFORE`` is used when it was written for this recording (same referee seed and start
    event); otherwise the game is rebuilt from the referee's seeded player (engine.referee.scripted), which
    gives the same events as long as that player has not changed since the recording was rendered.
    """
    from assistant.journal import read_journal
    from vision.recording import meta_for

    source = (meta_for(video) or {}).get("source") or {}
    if "referee_seed" not in source or not source.get("start_event"):
        return None
    wanted = {"referee_seed": source["referee_seed"], "start_event": source["start_event"]}
    if GAME_BEFORE.exists():
        records = list(read_journal(GAME_BEFORE))
        if records and records[0].get("recording") == wanted:
            return records
    return rebuild_game_before(int(source["referee_seed"]), int(source["start_event"]))


def rebuild_game_before(seed: int, start_event: int) -> list[dict]:
    """The first ``start_event`` events of the referee's seeded game ``seed`` (sample card, NMJL scoring: what
    the video generator plays) as journal records, rulings included."""
    from assistant.journal import header_record
    from assistant.profile import Profile
    from assistant.wiring import card_and_scoring_texts, load_game_card, load_scoring
    from engine.referee import Referee
    from engine.referee import events as rev
    from engine.referee.scripted import scripted_game

    profile = Profile()
    card, scoring = load_game_card(profile), load_scoring(profile)
    game = scripted_game(card, scoring, seed=seed)
    referee = Referee(card, scoring)
    records = [header_record(*card_and_scoring_texts(profile), players=4)
               | {"recording": {"referee_seed": seed, "start_event": start_event}}]
    for event in game.events[:start_event]:
        records.append({"kind": "event", "source": "before the recording", "frame": -1, "event": rev.to_json(event)})
        records.append({"kind": "rulings", "rulings": [r.to_json() for r in referee.apply(event)]})
    return records


def oracle_for(video: Path) -> Any:
    """The recording's true tile boxes served as a detector (vision.oracle), or None if it has none."""
    from vision.oracle import OracleDetector
    from vision.recording import meta_for

    boxes = video.with_suffix(".boxes.npz")
    if not boxes.exists():
        return None
    return OracleDetector.load(boxes, (meta_for(video) or {}).get("frames"))


def prime_journal(journal: Path, video: Path) -> int:
    """Start the demo's journal with the game so far, so the watch resumes it exactly as ``mahj watch --journal``
    resumes after a crash. Returns how many events that is (0: the recording starts a game)."""
    from assistant.journal import Journal

    records = game_before(video)
    if not records:
        return 0
    with Journal(journal) as j:
        for rec in records:
            j.append(rec)
    return sum(r.get("kind") == "event" for r in records)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run the whole assistant on the bundled recording with a simulated board")
    p.add_argument("--out", type=Path, default=Path("mahj-demo"), help="output folder (default: mahj-demo)")
    p.add_argument("--video", type=Path, default=DEMO_RECORDING, help="another recording to play")
    p.add_argument("--detector", choices=("model", "oracle"), default="model",
                   help="how tiles are found: the shipped tile model (default) or the recording's true tile boxes "
                        "(the renderer's labels: the rest of the chain without the model's errors)")
    p.add_argument("--open", action="store_true", help="open the display in a web browser")
    p.add_argument("--wav", action="store_true", help="write announcements as WAV files into OUT/speech")
    p.add_argument("--linger", type=float, default=None, metavar="S",
                   help="keep the display up S seconds after the game (default: until Ctrl-C when run at a "
                        "terminal, so its link stays alive; 0 when run from a script)")
    add_output_options(p)
    p.set_defaults(func=run, board=None)


def linger_for(args: argparse.Namespace) -> float:
    """How long the display outlives the game: as asked, else until Ctrl-C for a person at a terminal (a link
    that dies seconds after it is printed is no use), else not at all (scripts and tests must end)."""
    if args.linger is not None:
        return max(0.0, args.linger)
    at_terminal = sys.stdin.isatty() and sys.stdout.isatty() and not args.json and not args.no_display
    return math.inf if at_terminal else 0.0


def display_lifetime(linger: float) -> str:
    """How long the display's link will answer, said before the demo starts: run from a script, the link dies
    with the demo, and a person who opens it then must know why it stopped answering."""
    if math.isinf(linger):
        return "stays up after the game until you press Ctrl-C"
    if linger > 0:
        return f"stays up {linger:g} s after the game"
    return "stops when the demo ends (run from a script); --linger S keeps it up S seconds after the game"


def run(args: argparse.Namespace) -> int:
    from assistant.journal import JournalError
    from assistant.session import watch

    try:
        profile = load_profile(args.profile)
    except ProfileError as exc:
        return fail(args, str(exc))
    if args.profile is None:  # the demo needs no hardware: simulated board, display on any free port
        profile = replace(profile, board_port="sim", display=replace(profile.display, port=0))
    if not args.video.exists():
        return fail(args, f"{args.video}: no such video file or frames folder"
                          f"{_REINSTALL if args.video == DEMO_RECORDING else ''}")
    args.out.mkdir(parents=True, exist_ok=True)
    journal = args.out / "journal.jsonl"
    if journal.exists():
        journal.unlink()  # a demo always starts a fresh game
    try:
        primed = prime_journal(journal, args.video)
    except (OSError, ValueError, RuntimeError) as exc:
        return fail(args, f"{args.video}: cannot load the game before the recording: {exc}")
    detector = None
    if args.detector == "oracle":
        detector = oracle_for(args.video)
        if detector is None:
            return fail(args, f"{args.video}: no true tile boxes (.boxes.npz) beside it; use --detector model")
    if not args.json:
        joined = f"; it joins a game in progress: {primed} earlier events loaded into the journal" if primed else ""
        print(f"mahj demo: {args.video.name} with a simulated signal board{joined}. Output in {args.out}/",
              flush=True)
        print("tiles: " + ("the recording's true tile boxes (--detector oracle)" if detector is not None else
                           "read by the shipped tile model (models/README.md)"), flush=True)
    opts = options_from(args, profile)
    if args.wav:
        opts.wav_dir = args.out / "speech"
    try:
        source = FrameSource(args.video, paced=args.paced)
    except SourceError as exc:
        return fail(args, f"{exc}{_REINSTALL if args.video == DEMO_RECORDING else ''}")
    if args.open:
        opts.on_display = webbrowser.open
    linger = linger_for(args)
    if not args.json and not args.no_display:
        print(f"display: {display_lifetime(linger)}", flush=True)
    try:
        result = watch(profile, opts, source, journal, annotate=args.out / "annotated.mp4",
                       stop_at_game_over=True, linger=linger, detector=detector)
    except (SetupError, JournalError) as exc:
        return fail(args, str(exc))
    summary = {"type": "summary", "recording": str(args.video), "detector": args.detector,
               "events_before_recording": primed,
               "frames": result.frames,
               "seconds": round(result.seconds, 2), "journal": str(result.journal),
               "annotated_video": str(result.annotated), "display": result.display_url,
               "display_stops": "with the demo" if linger == 0 else "at Ctrl-C" if math.isinf(linger)
               else f"{linger:g} s after the game",
               "mahjong": result.mahjong, "settlement": result.settlement}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"\nrecording: {args.video} ({result.frames} frames in {result.seconds:.1f} s)")
        if result.mahjong:
            d = result.mahjong["data"]
            print(f"Mah Jongg: {profile.player(d['seat'])}, {d['value']} points, verified on "
                  + "; ".join(f"{x['section']} #{x.get('line', x.get('number'))} {x['text']}" for x in d["lines"]))
        else:
            print("no verified Mah Jongg in this recording")
        if result.settlement:
            pays = result.settlement["data"]["payments"]
            print("settlement: " + ", ".join(f"{profile.player(int(s))} {v:+d}" for s, v in pays.items()))
        print(f"wrote {result.journal}, {result.annotated}, {args.out / 'summary.json'}")
        if result.display_url and linger == 0:
            print(f"display: stopped ({result.display_url} no longer answers: the demo has ended; --linger S "
                  "keeps it up S seconds after the game)")
    return 0 if result.mahjong else 1
