"""``mahj card lint FILE`` and ``mahj card show FILE``: check a typed card, or print it like the printed one.

Also holds what ``verify`` and ``suggest`` share: the ``--card`` option, reading a card with readable errors,
and reading ``--exposed`` groups. JSON fields are documented in docs/card.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
from pathlib import Path

from assistant.console import report_error
from engine.card import SAMPLE_CARD, Card, CardError, CardLine, Diagnostic, load_card
from engine.card.model import NUMBERS
from engine.tiles import TileError, parse_tiles

#: Printed cards colour suits (not which suit: only "same" or "different"); we use the same three inks.
_TAG_COLOUR = {"a": "32", "b": "31", "c": "34", None: "32"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


class InputError(Exception):
    """Bad command-line input; the message is printed as ``error: ...`` and the command exits with 2."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("card", help="check a .card file or show it like the printed card")
    card_sub = p.add_subparsers(dest="card_command", metavar="ACTION", required=True)
    lint = card_sub.add_parser("lint", help="report every error in a card file as file:line:col: message")
    lint.add_argument("file", type=Path)
    lint.add_argument("--json", action="store_true", help="print one JSON object")
    lint.set_defaults(func=run_lint)
    show = card_sub.add_parser("show", help="print the card by section with suit colours and variation counts")
    show.add_argument("file", type=Path, nargs="?", default=SAMPLE_CARD, help="card file (default: sample card)")
    show.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                      help="suit colours: auto = only on a terminal")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(func=run_show)


# --- shared with verify and suggest -------------------------------------------------------------------------

def add_card_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--card", type=Path, default=SAMPLE_CARD,
                   help="card file (default: the bundled sample card, our own invented lines)")
    p.add_argument("--exposed", action="append", default=[], metavar="GROUPS",
                   help='exposed groups split by ";", e.g. "3B 3B J; N N N N" (a joker stands for its group\'s tile);'
                        " may be repeated")


def read_card(path: Path) -> tuple[Card | None, list[Diagnostic]]:
    """(card, diagnostics): problems in the file are diagnostics; a file that cannot be read is an InputError."""
    try:
        return load_card(path), []
    except CardError as exc:
        return None, exc.errors
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None


def load_or_fail(path: Path) -> Card:
    card, errors = read_card(path)
    if card is None:
        raise InputError(f"{path} has errors (run: mahj card lint {path})\n" + "\n".join(map(str, errors)))
    return card


def parse_exposed(parts: list[str]) -> list[list[str]]:
    groups = []
    for n, text in enumerate(";".join(parts).split(";"), start=1):
        if text.strip():
            try:
                groups.append(parse_tiles(text))
            except TileError as exc:
                raise InputError(f"--exposed group {n}: {exc}") from None
    return groups


def parse_hand(parts: list[str], what: str = "tiles") -> list[str]:
    try:
        return parse_tiles(" ".join(parts))
    except TileError as exc:
        raise InputError(f"{what}: {exc}") from None


def guarded(func):
    """Run a command body, turning ``InputError`` into ``error: ...`` (stderr, or JSON) and exit code 2."""

    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except InputError as exc:
            return report_error(str(exc), json_mode=getattr(args, "json", False))

    return run


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


# --- card lint ----------------------------------------------------------------------------------------------

@guarded
def run_lint(args: argparse.Namespace) -> int:
    card, errors = read_card(args.file)
    if args.json:
        print(json.dumps({
            "file": str(args.file), "ok": card is not None, "errors": [e.to_json() for e in errors],
            "lines": len(card.lines) if card else None, "variations": card.variation_count if card else None,
        }))
    elif card is None:
        for e in errors:
            print(e)
        print(f"{len(errors)} error{'s' if len(errors) != 1 else ''}", file=sys.stderr)
    else:
        print(f"{args.file}: ok, {_count(len(card.lines), 'line')}, "
              f"{_count(card.variation_count, 'concrete variation')}")
    return 0 if card is not None else 1


# --- card show ----------------------------------------------------------------------------------------------

def _render_line(line: CardLine, colour: bool) -> str:
    """Groups as on the printed card: with colour, tags become inks (and disappear); without, tags stay."""
    if not colour:
        return " ".join(str(slot) for slot in line.slots)
    out = []
    for slot in line.slots:
        alts = []
        for g in slot.alternatives:
            ink = f"\033[{_TAG_COLOUR[g.tag]}m"
            runs = itertools.groupby(g.symbols, key=lambda ch: ink if ch in NUMBERS or ch == "D" else _BOLD)
            alts.append("".join(f"{style}{''.join(chars)}{_RESET}" for style, chars in runs))
        out.append(f"{_DIM}|{_RESET}".join(alts))
    return " ".join(out)


def _shift_text(line: CardLine) -> str:
    if not line.shifted:
        return ""
    return "shift any" if line.shifts is None else "shift " + ",".join(str(s) for s in line.shifts)


def _visible_len(text: str) -> int:
    return len(re.sub(r"\033\[[0-9;]*m", "", text))


def _show_marked(path: Path, errors: list[Diagnostic]) -> None:
    """A card that does not load, shown as typed with each error under its line and a caret at its column, so
    the person sees the mistake where it is rather than only as file:line:col."""
    by_line: dict[int, list[Diagnostic]] = {}
    for e in errors:
        by_line.setdefault(e.line, []).append(e)
    text = path.read_text(encoding="utf-8-sig", errors="replace").removesuffix("\n").split("\n")
    for n, raw in enumerate(text, start=1):
        raw = raw.removesuffix("\r")
        print(f"{'>>' if n in by_line else '  '} {n:3}  {raw}")
        for e in by_line.get(n, []):
            print(f"         {' ' * (e.col - 1)}^ {e.message}")
    for e in by_line.get(0, []):
        print(f"   {e.message}")
    print(f"{_count(len(errors), 'error')}: fix them, then `mahj card lint {path}` says ok", file=sys.stderr)


@guarded
def run_show(args: argparse.Namespace) -> int:
    card, errors = read_card(args.file)
    if card is None:
        if args.json:
            print(json.dumps({"file": str(args.file), "ok": False, "errors": [e.to_json() for e in errors]}))
        else:
            _show_marked(args.file, errors)
        return 1
    if args.json:
        print(json.dumps(card_json(card)))
        return 0
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    print(f"{_BOLD}{card.name}{_RESET}" if colour else card.name)
    if card.publisher:
        print(f"publisher: {card.publisher}")
    if colour:
        print(f"{_DIM}inks mean suits: \033[32mgreen{_RESET}{_DIM}, \033[31mred{_RESET}{_DIM}, \033[34mblue"
              f"{_RESET}{_DIM} = three different suits (any); same ink = same suit{_RESET}")
    else:
        print("tags a, b, c mark suits: same tag = same suit, different tags = different suits (any)")
    for section in card.sections:
        lines = [ln for ln in card.lines if ln.section == section]
        print()
        print(f"{_BOLD}{section.upper()}{_RESET}" if colour else section.upper())
        for ln in lines:
            groups = _render_line(ln, colour)
            pad = " " * max(1, 40 - _visible_len(groups))
            value = f"{'C' if ln.concealed else 'X'}{ln.value}"
            extras = "  ".join(x for x in (_shift_text(ln), ln.note) if x)
            count = len(card.variations(ln))
            print(f"{ln.number:3}. {groups}{pad}{value:>4}  {extras}{'  ' if extras else ''}"
                  f"({count} variation{'s' if count != 1 else ''})")
    print()
    print(f"{_count(len(card.lines), 'line')}, {_count(card.variation_count, 'concrete variation')}, "
          f"cheapest hand {card.cheapest_value}")
    return 0


def card_json(card: Card) -> dict:
    return {
        "name": card.name, "year": card.year, "publisher": card.publisher, "file": card.filename,
        "sections": card.sections, "line_count": len(card.lines), "variation_count": card.variation_count,
        "cheapest_value": card.cheapest_value,
        "lines": [ln.to_json() | {
            "groups": [str(s) for s in ln.slots], "shift": _shift_text(ln) or None, "note": ln.note or None,
            "singles_and_pairs": ln.singles_and_pairs, "variations": len(card.variations(ln)),
        } for ln in card.lines],
    }
