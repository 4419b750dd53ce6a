"""``mahj pay``: what everyone pays (home play) or scores (tournament) for a verified Mah Jongg.

    mahj pay --profile nmjl --value 25 --discarder 2 --winner 0 [--jokerless] [--json]
    mahj pay --profile mahjcon --value 30 --self-pick

Uses the same settlement code as the referee (engine.referee.settle), so the two never disagree.
"""

from __future__ import annotations

import argparse
import json

from assistant.arguments import scoring_profile_arg, seat_arg
from assistant.console import report_error
from assistant.journal import builtin_profile_text
from assistant.profile import SEAT_NAMES
from engine.referee import ProfileError, parse_profile
from engine.referee.settle import Win, jokerless_counts, settle_win


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pay", help="settle a verified Mah Jongg under a scoring profile (nmjl, mahjcon, file)")
    p.add_argument("--profile", default="nmjl", type=scoring_profile_arg,
                   help="nmjl, mahjcon or a profile TOML file (default nmjl)")
    p.add_argument("--value", type=int, required=True, help="the hand's value on the card")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--self-pick", action="store_true", help="won on a tile picked from the wall (or by exchange)")
    how.add_argument("--discarder", type=seat_arg, metavar="SEAT",
                     help="seat that threw the winning tile: east, south, west, north or chair 0-3")
    p.add_argument("--winner", type=seat_arg, default=0, metavar="SEAT", help="winner's seat (default east = 0)")
    p.add_argument("--players", type=int, choices=(3, 4), default=4)
    p.add_argument("--jokerless", action="store_true", help="no joker in the hand at declaration")
    p.add_argument("--singles-and-pairs", action="store_true", help="a Singles and Pairs line (no jokerless bonus)")
    p.add_argument("--pays-for-table", type=seat_arg, metavar="SEAT",
                   help="this chair alone pays (misnamed discard, out-of-turn or wrong-wall play)")
    p.add_argument("--exposures", type=int, default=0, help="winner's exposures (tournament discard penalties)")
    p.add_argument("--quint", action="store_true", help="one of those exposures is a quint or larger")
    p.add_argument("--misnamed", action="store_true",
                   help="the win came on the named tile of a misnamed discard (the discarder pays for the table)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        text, name = builtin_profile_text(args.profile)
        profile = parse_profile(text, name)
    except OSError as exc:
        return report_error(f"{args.profile}: cannot read the profile: {exc.strerror or exc}", json_mode=args.json)
    except ProfileError as exc:
        return report_error(str(exc), json_mode=args.json)
    seats = range(args.players)
    for label, seat in (("--winner", args.winner), ("--discarder", args.discarder),
                        ("--pays-for-table", args.pays_for_table)):
        if seat is not None and seat not in seats:
            return report_error(f"{label} must be a chair 0..{args.players - 1}", json_mode=args.json)
    if args.discarder is not None and args.discarder == args.winner:
        return report_error("the winner cannot be the discarder", json_mode=args.json)
    if args.pays_for_table is not None and args.pays_for_table == args.winner:
        return report_error("the winner cannot pay for the table", json_mode=args.json)
    if args.value <= 0:
        return report_error("--value must be positive", json_mode=args.json)
    if not 0 <= args.exposures <= 4:
        return report_error("--exposures must be 0..4", json_mode=args.json)
    if args.quint and args.exposures < 1:
        return report_error("--quint needs --exposures (one of them is the quint)", json_mode=args.json)
    pays_for_table = args.pays_for_table
    if args.misnamed:
        # The misnamer is the discarder, and a win on the named tile makes her pay for the table (NMJL).
        if args.self_pick:
            return report_error("--misnamed is a win on a discard: give --discarder, not --self-pick",
                                json_mode=args.json)
        if pays_for_table not in (None, args.discarder):
            return report_error("--misnamed: the discarder (the misnamer) is the one who pays for the table",
                                json_mode=args.json)
        pays_for_table = args.discarder
    win = Win(winner=args.winner, value=args.value, discarder=None if args.self_pick else args.discarder,
              jokerless=args.jokerless, singles_and_pairs=args.singles_and_pairs,
              pays_for_table=pays_for_table, exposures=args.exposures, quint_exposed=args.quint,
              misnamed=args.misnamed)
    amounts = settle_win(profile, win, seats)
    result = {"profile": profile.name, "mode": profile.mode, "value": args.value, "winner": args.winner,
              "self_picked": args.self_pick, "discarder": args.discarder,
              "jokerless_bonus": jokerless_counts(profile, win), "pays_for_table": pays_for_table,
              "payments": {str(s): amounts[s] for s in seats}}
    if args.json:
        print(json.dumps(result))
        return 0
    unit = "points" if profile.mode == "points" else "paid (-) / received (+)"
    how = "self-picked" if args.self_pick else f"discard by chair {args.discarder}"
    bonus = ", jokerless bonus" if result["jokerless_bonus"] else ""
    table = "" if pays_for_table is None or profile.mode == "points" else f", chair {pays_for_table} pays for the table"
    print(f"{profile.name}: hand {args.value}, {how}{bonus}{table} -- {unit}")
    for s in seats:
        mark = "  winner" if s == args.winner else ""
        print(f"  chair {s} ({SEAT_NAMES[s]:5}) {amounts[s]:+6d}{mark}")
    return 0
