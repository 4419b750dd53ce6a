"""``mahj suggest TILES...``: which card lines this hand is closest to, what each still needs, which are dead."""

from __future__ import annotations

import argparse
import json

from assistant.commands.card import InputError, add_card_option, guarded, load_or_fail, parse_exposed, parse_hand
from engine.card import Suggestion
from engine.card.card import exposure_problem

DEFAULT_TOP = 10


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("suggest", help="rank card lines for a 13- or 14-tile hand: tiles missing, dead lines")
    add_card_option(p)
    p.add_argument("tiles", nargs="+", metavar="TILES", help="the concealed tiles")
    p.add_argument("--seen", action="append", default=[], metavar="TILES",
                   help='tiles visible elsewhere (discards, other players\' exposures), e.g. "2B 2B 7D"; repeatable')
    p.add_argument("--top", type=int, default=None,
                   help=f"show this many live lines (text default {DEFAULT_TOP}; JSON default all; 0 = all)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


@guarded
def run(args: argparse.Namespace) -> int:
    card = load_or_fail(args.card)
    tiles = parse_hand(args.tiles)
    exposed = parse_exposed(args.exposed)
    seen = parse_hand(args.seen, "--seen")
    bad = exposure_problem(exposed)
    if bad:  # otherwise every line would just show as "ruled out by exposures"
        raise InputError(f"--exposed: {bad}")
    if args.top is not None and args.top < 0:
        raise InputError("--top must be 0 (all) or more")
    total = len(tiles) + sum(len(g) for g in exposed)
    if total not in (13, 14):
        raise InputError(f"{total} tiles; suggest needs a 13- or 14-tile hand (concealed plus exposed)")
    ranked = card.suggest(tiles, exposed, seen)
    live = [s for s in ranked if not s.dead]
    dead = [s for s in ranked if s.dead]
    top = args.top if args.top is not None else (0 if args.json else DEFAULT_TOP)
    shown = live[:top] if top > 0 else live
    if args.json:
        print(json.dumps({"tiles": tiles, "exposed": exposed, "seen": seen, "live": len(live), "dead": len(dead),
                          "suggestions": [s.to_json() for s in shown + dead]}))
        return 0
    for rank, s in enumerate(shown, start=1):
        print(_describe(rank, s))
    if len(live) > len(shown):
        print(f"... {len(live) - len(shown)} more live lines (--top 0 shows all)")
    if dead:
        ruled = sum(s.missing is None for s in dead)
        plural = "s" if len(dead) != 1 else ""
        print(f"dead: {len(dead)} line{plural} ({ruled} ruled out by exposures, {len(dead) - ruled} not completable "
              "from unseen tiles)")
    return 0


def _describe(rank: int, s: Suggestion) -> str:
    need = ", ".join(f"{m.count}x {m.tile} ({'joker ok' if m.joker_ok else 'no joker'}, {m.unseen} unseen)"
                     for m in s.need) or "nothing: Mah Jongg"
    target = " | ".join(" ".join(g) for g in s.target)
    return (f"{rank:2}. {s.line.section} #{s.line.number} ({s.line.value}) missing {s.missing}: {need}\n"
            f"      {s.line.text}\n      target: {target}")
