"""``mahj jp score``: score Japanese-rules hands, JSON Lines in, one JSON line out per input line.

The JSON Lines contract (fields in ``docs/japanese.md``) is the default because other tools pipe into it; a
person can ask for ``--text`` to get a short readable summary per hand instead. Input is read line by line
and every answer is flushed at once, so a tool can hold a pipe open and ask one hand at a time.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, BinaryIO, TextIO

from engine.japanese import score_request
from engine.japanese.rules import PRESETS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("jp", help="Japanese-rules (riichi) scoring")
    jp_sub = p.add_subparsers(dest="jp_command", metavar="COMMAND")
    s = jp_sub.add_parser("score", help="score hands: JSON Lines on stdin, one JSON line per hand on stdout")
    s.add_argument("file", nargs="?", help="read this JSON Lines file instead of stdin")
    out = s.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="JSON Lines out (the default)")
    out.add_argument("--text", action="store_true", help="a readable summary per hand instead of JSON")
    s.add_argument("--rules", choices=("reference", "tenhou"),
                   help="preset for requests that do not name one in their \"rules\" field")
    s.set_defaults(func=run_score)
    p.set_defaults(func=lambda args: p.print_help() or 2)


def answer(line: str, default_rules: str | None) -> dict[str, Any]:
    """The answer to one input line (bad JSON is answered like any other bad input)."""
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"ok": False, "field": "request", "error": f"request: not JSON ({exc.msg} at column {exc.colno})"}
    except RecursionError:
        return {"ok": False, "field": "request", "error": "request: JSON nested too deeply"}
    if default_rules and isinstance(request, dict) and "rules" not in request:
        request["rules"] = default_rules
    result = score_request(request)
    rules = PRESETS.get(str(result.get("rules")))
    if result.get("ok") and rules is not None and not rules.red_fives and "0" in str(request.get("hand", "")):
        # A red five in the hand that these rules ignore: say so, or the missing dora looks like a bug.
        result["notes"] = [f"red fives (0) count as plain fives under the {rules.name} rules; "
                           '"rules": "tenhou" counts each as one dora']
    return result


def describe(result: dict[str, Any], line_no: int) -> str:
    """A readable summary of one answer."""
    if not result["ok"]:
        return f"line {line_no}: error: {result['error']}"
    if not result["win"]:
        return f"line {line_no}: no win: {result['reason']}"
    yaku = ", ".join(f"{y['english']} {'x' + str(y['limit']) + ' limit' if 'limit' in y else str(y['han'])}"
                     for y in result["yaku"])
    pay = result["payments"]
    if pay["discarder"] is not None:
        paid = f"discarder pays {pay['discarder']}"
    elif pay["dealer"] is not None:
        paid = f"dealer pays {pay['dealer']}, others {pay['non_dealer']} each"
    else:
        paid = f"each pays {pay['non_dealer']}"
    level = f" ({result['limit_name']})" if result["limit_name"] else ""
    fu = f", {result['fu']} fu" if result["fu"] else ""
    notes = "".join(f"\n    note: {n}" for n in result.get("notes", []))
    return (f"line {line_no}: {result['han']} han{fu}{level}: {result['basic_points']} basic points; {paid} "
            f"(total {pay['total']}), {result['rules']} rules\n    {yaku}{notes}")


def _lines(args: argparse.Namespace) -> BinaryIO | TextIO:
    """Bytes, so a line that is not UTF-8 is named by its number (a text stream fails a whole chunk at once)."""
    return open(args.file, "rb") if args.file else getattr(sys.stdin, "buffer", sys.stdin)


def run_score(args: argparse.Namespace) -> int:
    """Answer every line; a bad request is answered and counted (exit 1), input that cannot be read at all (a
    missing file, a folder, a line that is not UTF-8) stops with its place (exit 2)."""
    bad = 0
    where = args.file or "<stdin>"
    try:
        with _lines(args) as stream:
            for line_no, raw in enumerate(stream, 1):
                try:
                    line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
                except UnicodeDecodeError as exc:
                    print(f"error: {where}:{line_no}:{exc.start + 1}: not UTF-8 text", file=sys.stderr)
                    return 2
                if not line.strip():
                    continue
                result = answer(line, args.rules)
                bad += not result["ok"]
                print(describe(result, line_no) if args.text else json.dumps(result), flush=True)
    except OSError as exc:
        print(f"error: {where}: cannot read it: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 1 if bad else 0
