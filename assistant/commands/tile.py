"""``mahj tile NAME...``: read tile names the way people type them and print codes and spoken names."""

from __future__ import annotations

import argparse
import json

from assistant.console import report_error
from engine.tiles import TileError, parse_tiles, spoken_name


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tile", help="normalise tile names (\"3 bam\", \"soap\") to codes and spoken names")
    p.add_argument("names", nargs="+", help="tile names or codes")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        codes = parse_tiles(" ".join(args.names))
    except TileError as exc:
        return report_error(str(exc), json_mode=args.json)
    if args.json:
        print(json.dumps({"tiles": [{"code": c, "name": spoken_name(c)} for c in codes]}))
    else:
        for c in codes:
            print(f"{c:3} {spoken_name(c)}")
    return 0
