"""``mahj display --journal FILE [--follow]``: serve the table display from a game journal.

For a second screen fed by another machine's ``mahj watch --no-display`` over a shared folder, or for a
tournament director looking back at a finished game. Read-only: corrections go through the ``mahj watch`` that
owns the game. Each seat's private page (docs/my-hand.md) is served here too, advising from what the journal
shows in public and the card its header holds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assistant.console import report_error
from assistant.display import DisplayServer, TableView
from assistant.display.seats import SeatPages, tell_links
from assistant.profile import ProfileError, load_profile
from assistant.wiring import seat_model
from engine.card import CardError
from engine.referee import ProfileError as ScoringError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("display", help="serve the large-print table display from a game journal")
    p.add_argument("--journal", type=Path, required=True, help="the game journal (JSON Lines)")
    p.add_argument("--follow", action="store_true", help="keep reading the journal as it grows")
    p.add_argument("--profile", type=Path, help="profile TOML: players' names and display settings")
    p.add_argument("--port", type=int, help="override display.port")
    p.add_argument("--json", action="store_true", help="print one JSON object with the URL")
    p.set_defaults(func=run)


def fold(view: TableView, records: list[dict], where: list[str] | None = None,
         report: Callable[[str], None] | None = None) -> int:
    """Apply the rulings and notices of journal records to the view; returns how many changed it. A declared
    Mah Jongg's tiles come from its event record (the rulings on it do not repeat them).

    A record the display cannot show (``where``: each record's ``file:line``) goes to ``report`` and is skipped:
    a display following a journal must not die on one crafted or damaged record."""
    changed = 0
    for i, rec in enumerate(records):
        try:
            event = rec.get("event", {}) if rec.get("kind") == "event" else {}
            if event.get("type") == "mahjong_declared":
                view.declare(event["seat"], event["tiles"])
            items = rec.get("rulings", []) if rec.get("kind") == "rulings" else (
                [rec["notice"]] if rec.get("kind") == "notice" else [])
            changed += sum(view.apply(r) for r in items)
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            if report is not None:
                report(f"{where[i] if where else f'record {i + 1}'}: record not shown ({exc})")
    return changed


def game_card(records: list[dict], lines: list[int], journal: Path) -> Any:
    """The card the journal's game is played with (its header holds the card's text), for the seat pages'
    advice; the sample card for a journal without one."""
    from assistant.journal import referee_from_header

    for record, line in zip(records, lines, strict=False):
        if record.get("kind") == "header":
            return referee_from_header(record, where=f"{journal}:{line}").card
    return referee_from_header(None).card


def run(args: argparse.Namespace) -> int:
    from assistant.journal import JournalError, read_journal

    try:
        profile = load_profile(args.profile)
    except ProfileError as exc:
        return report_error(str(exc), json_mode=args.json)
    if not args.journal.exists():
        return report_error(f"{args.journal}: no such journal", json_mode=args.json)
    view = TableView(profile.players)

    def warn(message: str) -> None:
        print(f"warning: {message}", file=sys.stderr)

    lines: list[int] = []
    try:
        seen = list(read_journal(args.journal, line_numbers=lines))
    except JournalError as exc:
        return report_error(str(exc), json_mode=args.json)
    if not seen and args.journal.stat().st_size > 0:  # text, but not one record mahj wrote: not a journal
        return report_error(f"{args.journal}: not a game journal (journals are written by `mahj watch`, `mahj demo` "
                            "and `mahj referee new`)", json_mode=args.json)
    fold(view, seen, [f"{args.journal}:{n}" for n in lines], warn)
    d = profile.display
    try:
        card = game_card(seen, lines, args.journal)
    except (CardError, ScoringError) as exc:
        return report_error("\n".join(exc.diagnostics), json_mode=args.json)
    seats = SeatPages(profile.players, model=lambda: seat_model(profile), card=lambda: card)
    try:
        server = DisplayServer(d.host, d.port if args.port is None else args.port, d.token, d.text_size,
                               initial=view.snapshot(), seats=seats).start()
    except OSError as exc:  # the port is taken or not ours to use: say which and how to pick another
        return report_error(f"{exc}; or pass --port N (0 = any free port)", json_mode=args.json)
    links = {"seats": [{"seat": s, "url": seats.link(s)} for s in range(4)]}
    print(json.dumps({"url": server.url} | links) if args.json else f"display: {server.url}  (Ctrl-C to stop)",
          flush=True)
    if not args.json:
        tell_links(seats, lambda text, **_: print(text, flush=True), server.host)
    try:
        while args.follow:
            time.sleep(0.2)
            lines = []
            records = list(read_journal(args.journal, report=None, line_numbers=lines))
            if fold(view, records[len(seen):], [f"{args.journal}:{n}" for n in lines[len(seen):]], warn):
                server.publish(view.snapshot())
            seen = records
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
