"""``mahj referee``: keep a refereed game in a journal and replay it.

    mahj referee new JOURNAL [--card FILE] [--profile nmjl|mahjcon|FILE] [--players 3|4]
    mahj referee apply JOURNAL [EVENT_JSON ...]     (no EVENT_JSON: JSON Lines on stdin)
    mahj referee replay JOURNAL [--json]
    mahj referee script JOURNAL [--seed N] [--players 3|4] [--outcome mahjong|wall_game]

``apply`` resumes the game from the journal (replaying it) before ruling on the new events, so it can be
called once per event from a shell script, or after a crash, with nothing lost.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assistant.arguments import scoring_profile_arg
from assistant.console import command_error
from assistant.journal import (
    Journal,
    JournalError,
    JournalRecordError,
    RecordedReferee,
    builtin_profile_text,
    header_record,
    read_journal,
    referee_from_header,
    replay,
)
from assistant.profile import SEAT_NAMES
from engine.referee import ProfileError, Referee, Ruling, events


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("referee", help="referee a game into a journal, replay a journal")
    rsub = p.add_subparsers(dest="referee_command", metavar="ACTION")

    new = rsub.add_parser("new", help="start a journal: card, scoring profile and table size")
    new.add_argument("journal", type=Path)
    _setup_args(new)
    new.add_argument("--json", action="store_true", help="print one JSON object")
    new.set_defaults(func=run_new)

    ap = rsub.add_parser("apply", help="rule on events (JSON objects) and append them to the journal")
    ap.add_argument("journal", type=Path)
    ap.add_argument("events", nargs="*", help="event JSON objects; none: read JSON Lines from stdin")
    ap.add_argument("--json", action="store_true", help="print one JSON object per event")
    ap.set_defaults(func=run_apply)

    rp = rsub.add_parser("replay", help="rebuild the game from a journal and check the rulings match")
    rp.add_argument("journal", type=Path)
    rp.add_argument("--json", action="store_true", help="print one JSON object")
    rp.add_argument("--rulings", action="store_true", help="also list every ruling (text mode)")
    rp.set_defaults(func=run_replay)

    sc = rsub.add_parser("script", help="write a seeded, legal, scripted game into a new journal")
    sc.add_argument("journal", type=Path)
    _setup_args(sc)
    sc.add_argument("--seed", type=int, default=0)
    sc.add_argument("--outcome", choices=("mahjong", "wall_game"), default=None)
    sc.add_argument("--json", action="store_true", help="print one JSON object")
    sc.set_defaults(func=run_script)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _setup_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--card", type=Path, default=None, help="card file (default: the bundled sample card)")
    p.add_argument("--profile", default="nmjl", type=scoring_profile_arg,
                   help="scoring profile: nmjl, mahjcon or a TOML file")
    p.add_argument("--players", type=int, choices=(3, 4), default=4)


def _header(args: argparse.Namespace) -> dict[str, Any]:
    """The journal header for these options; a card or profile that cannot be used is a ValueError naming it."""
    from engine.card import SAMPLE_CARD, load_card

    card_path = Path(args.card or SAMPLE_CARD)
    try:
        load_card(card_path)  # its errors come as file:line:col, before anything is written
        card_text = card_path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ValueError(f"{card_path}: cannot read the card: {exc.strerror or exc}") from None
    try:
        profile_text, profile_name = builtin_profile_text(args.profile)
    except OSError as exc:
        raise ValueError(f"{args.profile}: cannot read the profile: {exc.strerror or exc}") from None
    return header_record(card_text, str(card_path), profile_text, profile_name, args.players)


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _replayed(path: Path, report: Callable[[str], None] = _warn) -> tuple[list[dict[str, Any]], Referee,
                                                                        list[Ruling], list[dict[str, Any]]]:
    """Read a journal and replay it: (records, referee, rulings, mismatches). Damaged lines and a missing header
    go to ``report``; an event record that cannot be replayed is a JournalError naming its file line."""
    lines: list[int] = []
    records = list(read_journal(path, report=report, line_numbers=lines))
    header = next((r for r in records if r.get("kind") == "header"), None)
    if header is None and not any(r.get("kind") == "event" for r in records):
        raise JournalError(f"{path}: not a game journal: no header and no event records (journals are written by "
                           "`mahj referee new`, `mahj watch` and `mahj demo`)")
    if header is None:
        report(f"{path}: no header record: replaying with the sample card and the nmjl profile")
    referee = referee_from_header(header)
    try:
        rulings, mismatches = replay(records, referee)
    except JournalRecordError as exc:
        raise JournalError(f"{path}:{lines[exc.index]}: {exc}") from None
    for m in mismatches:
        m["line"] = lines[m["record"] - 1]  # the event's line in the file, for people
    return records, referee, rulings, mismatches


def balances_text(balances: dict[str, int]) -> str:
    """Balances by seat name ("East +50, South -25"), not as the snapshot's dict."""
    return ", ".join(f"{SEAT_NAMES[int(seat)]} {amount:+d}" for seat, amount in balances.items())


def format_ruling(r: Ruling) -> str:
    """One readable line per ruling."""
    seat = "" if r.seat is None else f" chair {r.seat}"
    detail = " ".join(f"{k}={json.dumps(v)}" for k, v in r.data.items() if k not in ("event", "state", "lines"))
    return f"{r.t:9.2f}  {r.kind}{seat}  {detail}".rstrip()


def run_new(args: argparse.Namespace) -> int:
    if args.journal.exists() and args.journal.stat().st_size > 0:
        return command_error(args, f"{args.journal}: already exists (use `mahj referee apply` to continue it)")
    try:
        header = _header(args)
        referee_from_header(header)  # check card and profile before writing anything
    except (OSError, ProfileError, ValueError) as exc:
        return command_error(args, str(exc))
    with Journal(args.journal) as journal:
        journal.append(header)
    if args.json:
        print(json.dumps({"journal": str(args.journal), "card": header["card"], "profile": header["profile"],
                          "players": header["players"]}))
    else:
        print(f"{args.journal}: new game journal ({header['profile']}, {header['players']} players)")
    return 0


def run_apply(args: argparse.Namespace) -> int:
    if not args.journal.exists():
        return command_error(args, f"{args.journal}: no such journal (start one with `mahj referee new`)")
    try:
        _, referee, _, mismatches = _replayed(args.journal)
    except (JournalError, ProfileError, ValueError) as exc:
        return command_error(args, str(exc))
    if mismatches:  # resuming is still right (the rules now in force decide), but the change must be seen
        _warn(f"{args.journal}:{mismatches[0]['line']}: {len(mismatches)} journaled ruling(s) differ on replay "
              "from here on (see `mahj referee replay`)")
    texts = args.events or [line for line in sys.stdin.read().splitlines() if line.strip()]
    recorder = RecordedReferee(referee, Journal(args.journal))
    code = 0
    try:
        for n, text in enumerate(texts, start=1):
            where = f"event {n}" if args.events else f"<stdin>:{n}"
            try:
                event = events.from_json(json.loads(text))
            except (ValueError, events.EventError) as exc:
                code = command_error(args, f"{where}: {exc}")
                continue
            except RecursionError:
                code = command_error(args, f"{where}: JSON nested too deeply")
                continue
            rulings = recorder.apply(event, source="cli")
            if args.json:
                print(json.dumps({"event": events.to_json(event), "rulings": [r.to_json() for r in rulings]}))
            else:
                for r in rulings:
                    print(format_ruling(r))
    finally:
        recorder.journal.close()
    return code


def run_replay(args: argparse.Namespace) -> int:
    if not args.journal.exists():
        return command_error(args, f"{args.journal}: no such journal")
    problems: list[str] = []
    try:
        records, referee, rulings, mismatches = _replayed(args.journal, problems.append)  # reported below
    except (JournalError, ProfileError, ValueError) as exc:
        return command_error(args, str(exc))
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    n_events = sum(1 for r in records if r.get("kind") == "event")
    if args.json:
        print(json.dumps({"journal": str(args.journal), "events": n_events, "rulings": [r.to_json() for r in rulings],
                          "mismatches": mismatches, "problems": problems, "state": referee.snapshot()}))
    else:
        if args.rulings:
            for r in rulings:
                print(format_ruling(r))
        state = referee.snapshot()
        print(f"{args.journal}: {n_events} events, {len(rulings)} rulings, game {state['game']} "
              f"({state['stage']}), balances {balances_text(state['balances'])}")
        for m in mismatches:
            print(f"mismatch at {args.journal}:{m['line']} (record {m['record']}): journal {len(m['journal'])} "
                  f"rulings, replay {len(m['replay'])}")
        print("replay matches the journal" if not mismatches else f"{len(mismatches)} mismatches")
    return 1 if mismatches else 0


def run_script(args: argparse.Namespace) -> int:
    from engine.referee.scripted import scripted_game

    if args.journal.exists() and args.journal.stat().st_size > 0:
        return command_error(args, f"{args.journal}: already exists")
    try:
        header = _header(args)
        referee = referee_from_header(header)
    except (OSError, ProfileError, ValueError) as exc:
        return command_error(args, str(exc))
    game = scripted_game(referee.card, referee.profile, seed=args.seed, players=args.players, outcome=args.outcome)
    with Journal(args.journal) as journal:
        journal.append(header)
        recorder = RecordedReferee(referee, journal)
        for event in game.events:
            recorder.apply(event, source="script")
    summary = {"journal": str(args.journal), "seed": args.seed, "events": len(game.events),
               "outcome": game.outcome, "winner": game.winner, "balances": referee.snapshot()["balances"]}
    print(json.dumps(summary) if args.json else
          f"{args.journal}: {len(game.events)} events, {game.outcome}"
          + ("" if game.winner is None else f" by chair {game.winner}"))
    return 0
