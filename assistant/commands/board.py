"""``mahj board check`` and ``mahj board signal``: the signal board from the command line."""

from __future__ import annotations

import argparse
import json
import logging
import time
from types import SimpleNamespace

from assistant.arguments import seat_arg
from assistant.console import report_error
from hardware.check import run_check
from hardware.driver import BoardIncompatible, open_board, port_problem
from hardware.pins import render
from hardware.rig import RigUnavailable
from hardware.signals import SIGNALS

PORT_HELP = ("sim (Python emulator), simavr (the firmware in simavr), a device, pty or socket:// URL; "
             "default: find the board by USB id")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("board", help="the LED/buzzer signal board: check it, fire a signal")
    bsub = p.add_subparsers(dest="board_command", metavar="ACTION")
    check = bsub.add_parser("check", help="run every command and fault case, print versions and latency")
    check.add_argument("--port", default=None, help=PORT_HELP)
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.set_defaults(func=run_check_command)
    signal = bsub.add_parser("signal", help="fire one signal by hand")
    signal.add_argument("event", choices=sorted(SIGNALS), help="ruling kind")
    signal.add_argument("--seat", type=seat_arg, default=0, help="east, south, west, north or chair 0-3")
    signal.add_argument("--port", default=None, help=PORT_HELP)
    signal.add_argument("--json", action="store_true", help="print one JSON object")
    signal.set_defaults(func=run_signal)
    p.set_defaults(func=lambda args: p.print_help() or 2)


def run_check_command(args: argparse.Namespace) -> int:
    if not args.json:
        logging.basicConfig(level=logging.WARNING, format="  log: %(message)s")
    try:
        report = run_check(args.port, progress=lambda name: None if args.json else print(f"  checking {name} ..."))
    except (RigUnavailable, BoardIncompatible) as exc:
        return report_error(str(exc), json_mode=args.json, ok=False)  # ok: the key a check's report is read by
    if args.json:
        print(json.dumps(report.to_json()))
        return 0 if report.ok else 1
    b = report.board
    print(f"board on {report.port}: " + (f"{b['name']} firmware {b['firmware']}, protocol {b['protocol']}" if b
                                         else "no answer"))
    if report.avr_size:
        print("firmware size: " + " | ".join(line.strip() for line in report.avr_size.splitlines()
                                             if line.startswith(("Program", "Data"))))
    for c in report.checks:
        mark = {True: "pass", False: "FAIL", None: "skip"}[c.ok]
        print(f"  [{mark}] {c.name}: {c.detail}")
    if report.latency_ms:
        lat = report.latency_ms
        print(f"command-to-pin latency over {lat['n']} commands: median {lat['median']:.3f} ms, "
              f"p95 {lat['p95']:.3f} ms, max {lat['max']:.3f} ms")
    print(f"recoveries ({len(report.recoveries)}):")
    for r in report.recoveries:
        print(f"  {r}")
    print("OK" if report.ok else "FAILED")
    return 0 if report.ok else 1


def run_signal(args: argparse.Namespace) -> int:
    problem = port_problem(args.port)
    if problem:
        return report_error(problem, json_mode=args.json, code=1)
    board = open_board(args.port)
    try:
        try:
            ready = board.wait_ready(8)
        except BoardIncompatible as exc:
            return report_error(str(exc), json_mode=args.json)
        if not ready:
            return report_error(f"no board answered on {board.port}", json_mode=args.json, code=1)
        board.signal(SimpleNamespace(kind=args.event, seat=args.seat, data={}))
        applied = board.wait_applied(2)
        time.sleep(0.05)
        levels = board.pin_levels()
        pins = render(levels) if levels is not None else None
        state = board.state()
        if args.json:
            print(json.dumps({"event": args.event, "seat": args.seat, "applied": applied, "window": state.window,
                              "window_mode": state.window_mode, "seats": "".join(state.seats), "pins": pins}))
        else:
            print(f"{args.event} (seat {args.seat}) -> window {state.window} mode {state.window_mode}, "
                  f"seats {''.join(state.seats)}" + ("" if applied else " (NOT acknowledged)"))
            if pins:
                print(f"pins: {pins}")
        return 0 if applied else 1
    finally:
        board.close()
