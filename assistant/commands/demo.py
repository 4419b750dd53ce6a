"""``mahj demo``: the whole assistant on the bundled table recording, with the simulated board.

Prints events and rulings as they happen with the board's LEDs, serves the display (URL printed; ``--open`` also
opens a browser), and writes the journal, the annotated video and a summary into ``--out``. Works offline.
"""

from __future__ import annotations

import argparse
import json
import webbrowser
from dataclasses import replace
from pathlib import Path

from assistant.commands.watch import add_output_options, fail, options_from
from assistant.profile import ProfileError, load_profile
from assistant.sources import FrameSource, SourceError
from assistant.wiring import SetupError

#: The recording ``mahj demo`` plays: the last turns and the Mah Jongg of one of the referee's seeded games,
#: rendered by our video generator (datasets/video/fixtures.py).
DEMO_RECORDING = Path(__file__).resolve().parents[2] / "datasets" / "video" / "fixtures" / "demo.mp4"


def prime_journal(journal: Path, video: Path) -> int:
    """Write the game so far into a fresh journal when the recording joins a game in progress.

    A generated recording's meta names the referee's seeded game it shows and the event where the video starts
    (``source.referee_seed``, ``source.start_event``); the events before that (deal, Charleston, earlier turns:
    all before the first frame) are journaled, so the watch resumes the game exactly as ``mahj watch --journal``
    resumes after a crash. Returns how many events were written (0: the recording starts a game).
    """
    from assistant.journal import Journal, RecordedReferee, header_record
    from assistant.profile import Profile
    from assistant.wiring import card_and_scoring_texts, load_game_card, load_scoring
    from engine.referee import Referee
    from engine.referee.scripted import scripted_game
    from vision.recording import meta_for

    source = (meta_for(video) or {}).get("source") or {}
    if "referee_seed" not in source or not source.get("start_event"):
        return 0
    profile = Profile()  # the generator plays its games on the bundled sample card with NMJL scoring
    card, scoring = load_game_card(profile), load_scoring(profile)
    game = scripted_game(card, scoring, seed=int(source["referee_seed"]))
    before = game.events[:int(source["start_event"])]
    with Journal(journal) as j:
        j.append(header_record(*card_and_scoring_texts(profile), players=4))
        recorder = RecordedReferee(Referee(card, scoring), j)
        for event in before:
            recorder.apply(event, source="before the recording", frame=-1)
    return len(before)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run the whole assistant on the bundled recording with a simulated board")
    p.add_argument("--out", type=Path, default=Path("mahj-demo"), help="output folder (default: mahj-demo)")
    p.add_argument("--video", type=Path, default=DEMO_RECORDING, help="another recording to play")
    p.add_argument("--open", action="store_true", help="open the display in a web browser")
    p.add_argument("--wav", action="store_true", help="write announcements as WAV files into OUT/speech")
    p.add_argument("--linger", type=float, default=0.0, metavar="S",
                   help="keep the display up S seconds after the game")
    add_output_options(p)
    p.set_defaults(func=run, board=None)


def run(args: argparse.Namespace) -> int:
    from assistant.session import watch

    try:
        profile = load_profile(args.profile)
    except ProfileError as exc:
        return fail(args, str(exc))
    if args.profile is None:  # the demo needs no hardware: simulated board, display on any free port
        profile = replace(profile, board_port="sim", display=replace(profile.display, port=0))
    args.out.mkdir(parents=True, exist_ok=True)
    journal = args.out / "journal.jsonl"
    if journal.exists():
        journal.unlink()  # a demo always starts a fresh game
    try:
        primed = prime_journal(journal, args.video)
    except (OSError, ValueError, RuntimeError) as exc:
        return fail(args, f"{args.video}: cannot rebuild the game before the recording: {exc}")
    opts = options_from(args, profile)
    if args.wav:
        opts.wav_dir = args.out / "speech"
    try:
        source = FrameSource(args.video, paced=args.paced)
    except SourceError as exc:
        return fail(args, f"{exc} (the demo recording ships with mahj; reinstall with `pip install -e .`)")
    if args.open:
        opts.on_display = webbrowser.open
    try:
        result = watch(profile, opts, source, journal, annotate=args.out / "annotated.mp4", keyboard=False,
                       stop_at_game_over=True, linger=args.linger)
    except SetupError as exc:
        return fail(args, str(exc))
    summary = {"type": "summary", "recording": str(args.video), "events_before_recording": primed,
               "frames": result.frames,
               "seconds": round(result.seconds, 2), "journal": str(result.journal),
               "annotated_video": str(result.annotated), "display": result.display_url,
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
    return 0 if result.mahjong else 1
