"""``mahj init [PATH]``: write a commented profile to edit, so a table is set up once, not on every command."""

from __future__ import annotations

import argparse
import json

from assistant.console import report_error
from assistant.profile import ProfileError, load_profile, write_default


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="write a commented profile (camera, card, seats, board, speech, display)")
    p.add_argument("path", nargs="?", default="mahj.toml", help="where to write it (default: mahj.toml)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        path = write_default(args.path, overwrite=args.force)
        load_profile(path)  # the file we ship must read back cleanly
    except ProfileError as exc:
        return report_error(str(exc), json_mode=args.json)
    if args.json:
        print(json.dumps({"profile": str(path)}))
    else:
        print(f"wrote {path}: edit it, then run `mahj watch --profile {path}`")
    return 0
