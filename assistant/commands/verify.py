"""``mahj verify TILES...``: is this hand Mah Jongg on the card, on which lines, for how much; or how far off.

``--photo PHOTO`` reads the concealed tiles from a photo of the rack, as ``mahj hand`` does (the verdict alone).

``--batch`` reads JSON Lines (``{"tiles": "1B 1B ...", "exposed": ["3B 3B J", ...]}``) on stdin and writes one
verdict object per input line, in order, so a tournament desk can check a whole session's claims at once.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from assistant.commands.card import InputError, add_card_option, guarded, load_or_fail, parse_exposed, parse_hand
from assistant.commands.hand import add_photo_options, photo_hand
from engine.card import Card, Verdict
from engine.tiles import TileError, parse_tiles


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check a 14-tile hand (concealed TILES plus --exposed) against the card")
    add_card_option(p)
    p.add_argument("tiles", nargs="*", metavar="TILES", help="the concealed tiles, e.g. 1B 1B 2B ... or '3 bam'")
    p.add_argument("--batch", action="store_true", help="read JSON Lines hands on stdin, write one verdict per line")
    p.add_argument("--photo", type=Path, metavar="PHOTO",
                   help="read the concealed tiles from a photo of the rack (as `mahj hand` does) instead of TILES")
    add_photo_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


@guarded
def run(args: argparse.Namespace) -> int:
    card = load_or_fail(args.card)
    if args.batch:
        if args.tiles or args.exposed or args.photo:
            raise InputError("--batch reads every hand from stdin: give no TILES, --exposed or --photo with it")
        return _batch(card, sys.stdin, sys.stdout)
    if args.photo is not None:
        if args.tiles:
            raise InputError("give TILES or --photo, not both")
        return _from_photo(card, args)
    if not args.tiles:
        raise InputError("no tiles given (or use --photo or --batch)")
    concealed = parse_hand(args.tiles)
    exposed = parse_exposed(args.exposed)
    verdict = card.verify(concealed, exposed)
    if args.json:
        print(json.dumps(verdict.to_json()))
    else:
        print(describe(verdict))
    return 0 if verdict.mahjong else 1


def _from_photo(card: Card, args: argparse.Namespace) -> int:
    """The verdict for the rack in a photo plus ``--exposed``. A doubtful tile is named with the verdict, and
    a Mah Jongg that rests on one exits 1 like a miss: the player checks the tile before declaring."""
    exposed = parse_exposed(args.exposed)
    hand = photo_hand(args, args.photo, None)
    if isinstance(hand, int):
        return hand
    verdict = card.verify(hand.tiles, exposed)
    doubts = [f"tile {place} read as {t.tile} ({t.score:.0%} sure"
              + (f", or perhaps {' / '.join(t.alts)})" if t.alts else ")") for place, t in hand.doubtful]
    sure = verdict.mahjong and not doubts
    if args.json:
        print(json.dumps(verdict.to_json() | {"tiles": hand.tiles, "read": hand.photo_json(), "sure": sure}))
    else:
        print(f"{args.photo}: {' '.join(t.tile + ('?' if t.doubtful else '') for t in hand.reading.tiles)}")
        print(describe(verdict))
        for d in doubts:
            print(f"  doubtful: {d}" + (": Mah Jongg only if it is read right" if verdict.mahjong else ""))
        for n in hand.notes:
            print(f"  note: {n}")
    return 0 if sure else 1


def describe(verdict: Verdict) -> str:
    if verdict.reason:
        return f"Not Mah Jongg: {verdict.reason}"
    if verdict.mahjong:
        best = verdict.lines[0]
        kind = "singles and pairs" if verdict.singles_and_pairs else ("jokerless" if verdict.jokerless else
                                                                      "with jokers")
        out = [f"Mah Jongg: {best.section} #{best.number}, value {verdict.value} ({kind})", f"  {best.text}"]
        out += [f"  also matches {ln.section} #{ln.number} ({ln.value}): {ln.text}" for ln in verdict.lines[1:]]
        return "\n".join(out)
    out = ["Not Mah Jongg. Nearest lines:"]
    for s in verdict.nearest:
        need = ", ".join(f"{m.count}x {m.tile}{' (joker ok)' if m.joker_ok else ''}" for m in s.need)
        out.append(f"  {s.line.section} #{s.line.number} ({s.line.value}): {s.missing} missing: {need}")
        out.append(f"      {s.line.text}")
    return "\n".join(out)


def _tile_list(value: object, what: str) -> str | list[str]:
    """A JSON value that should hold tiles: a string ("1B 1B 2B") or a list of codes; anything else is bad input."""
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(t, str) for t in value)):
        return value
    raise ValueError(f'{what} must be a string of tiles like "1B 1B 2B" or a list of tile codes, got {value!r}')


def _group(value: object, n: int) -> list[str]:
    """Exposed group ``n`` (1-based) of a batch line; a bad tile is named by its group and place in it."""
    what = f'"exposed" group {n}'
    try:
        return parse_tiles(_tile_list(value, what))
    except TileError as exc:
        raise TileError(f"{what}, {exc}", exc.position) from None


def _batch(card: Card, stdin, stdout) -> int:
    """One output object per non-blank input line; a bad line gets {"error": ...} and the rest go on."""
    for lineno, raw in enumerate(stdin, start=1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw.rstrip("\r\n"))  # positions then stay on this line
            if not isinstance(item, dict) or "tiles" not in item:
                raise ValueError('expected an object with "tiles"')
            tiles = parse_tiles(_tile_list(item["tiles"], '"tiles"'))
            exposed = item.get("exposed") or []
            if not isinstance(exposed, list):
                raise ValueError('"exposed" must be a list of groups')
            groups = [_group(g, n) for n, g in enumerate(exposed, start=1)]
            out = card.verify(tiles, groups).to_json()
        except json.JSONDecodeError as exc:  # the same stdin:LINE:COL as every other message here
            out = {"error": f"stdin:{lineno}:{exc.colno}: not JSON ({exc.msg})"}
        except (ValueError, TileError) as exc:
            out = {"error": f"stdin:{lineno}: {exc}"}
        except RecursionError:
            out = {"error": f"stdin:{lineno}: JSON nested too deeply"}
        stdout.write(json.dumps(out) + "\n")
        stdout.flush()
    return 0
