"""What mahj prints on the console: every command's errors (``report_error``), and for ``mahj watch`` and
``mahj demo`` the events and rulings as they happen, and the board's LEDs.

Text for people (one line per event or ruling, the board's lights drawn after each change, in colour on a
terminal), or JSON Lines with ``--json`` (one object per line: ``{"type": "event"|"ruling"|"observation"|
"board", ...}``) for machines.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from assistant.profile import SEAT_NAMES as WINDS
from assistant.questions import question_text
from engine.referee import events as rev
from engine.tiles import TileError, spoken_name

_ANSI = {"green": "\033[42;30m", "red": "\033[41;97m", "amber": "\033[43;30m", "blue": "\033[44;97m",
         "off": "\033[40;97m"}
_RESET = "\033[0m"


def report_error(message: str, *, json_mode: bool, code: int = 2, **extra: Any) -> int:
    """Say that a command failed, where its reader looks, and return ``code`` (its exit status).

    A person reads ``error: MESSAGE`` on stderr, away from the output they may be piping on. A program that asked
    for ``--json`` reads stdout only, so it gets one object ``{"error": MESSAGE, **extra}`` there instead of an
    empty stdout and a text it cannot parse. ``extra`` adds a command's own keys to that object (``"type":
    "error"`` for a JSON Lines stream, ``"ok": false`` where the command's answer has ``ok``); it never replaces
    the message. The commands print their errors through here, so the shape is the same for all of them."""
    if json_mode:
        print(json.dumps({**extra, "error": message}), flush=True)
    else:
        print(f"error: {message}", file=sys.stderr, flush=True)
    return code


def command_error(args: argparse.Namespace, message: str, code: int = 2, **extra: Any) -> int:
    """``report_error`` for a command whose subcommands have ``--json`` or not: JSON where it was asked for."""
    return report_error(message, json_mode=getattr(args, "json", False), code=code, **extra)


def _tile(code: Any) -> str:
    try:
        return f"{code} ({spoken_name(str(code))})"
    except TileError:
        return str(code)


def _value(key: str, value: Any) -> str:
    """A field as a person reads it: tiles with their names, lists spaced, mappings as "key value"."""
    if key in ("tile", "named") and isinstance(value, str):
        return _tile(value)
    if isinstance(value, (list, tuple)):
        return " ".join(_value("", v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value(k, v)}" for k, v in value.items())
    return str(value)


def fields_text(d: dict[str, Any], skip: tuple[str, ...]) -> str:
    """``key=value`` pairs for the fields worth printing: no Python ``None``, raw dicts or lists in text output
    (a field that is not set is left out)."""
    return " ".join(f"{k}={_value(k, v)}" for k, v in d.items() if k not in skip and v is not None)


def describe_ruling(r: Any, name: Any) -> str:
    """One readable line for a ruling (or notice)."""
    d = r.data or {}
    who = name(r.seat) if r.seat is not None else ""
    k = r.kind
    if k == "window_opened":
        return f"window OPEN on {_tile(d.get('tile'))} from {who}"
    if k == "window_closed":
        return f"window CLOSED ({d.get('reason', '')})"
    if k == "mahjong_verified":
        lines = "; ".join(f"{x.get('section')} #{x.get('line', x.get('number'))} {x.get('text')}"
                          for x in d.get("lines") or [])
        flags = ", jokerless" if d.get("jokerless") else ""
        flags += ", self-picked" if d.get("self_picked") else f", on {name(d.get('discarder'))}'s discard"
        return f"MAH JONGG verified: {who}, {d.get('value')} points{flags} [{lines}]"
    if k == "settlement":
        pays = ", ".join(f"{name(int(s))} {v:+d}" for s, v in (d.get("payments") or {}).items())
        return f"settlement: {pays}"
    if k in ("dead_hand", "mahjong_in_error", "rejected"):
        return f"{k.replace('_', ' ')}: {who} {d.get('reason', '')}".replace("  ", " ")
    if k in ("correction_preview", "correction_pending", "correction_cancelled"):
        return f"CORRECTION: {d.get('message', '')}"
    if k == "question":
        return f"QUESTION #{d.get('id')}: {question_text(d, name)} [y / n at the keyboard]"
    if k in ("help", "help_cleared"):
        return f"{'HELP: ' + d.get('message', '') if k == 'help' else 'camera OK again'}"
    if k == "exposure_accepted":
        return f"{who} exposes {' '.join(d.get('tiles') or [])}"
    if k in ("claim_pending", "claim_awarded"):
        tile = f" {_tile(d['tile'])}" if d.get("tile") else ""
        return f"{k.replace('_', ' ')}: {who} for {d.get('purpose')}{tile}"
    if k == "turn":
        return f"{who}'s turn"
    if k == "taken_in":
        return str(d.get("message", ""))
    rest = fields_text(d, ("seat", "state"))
    return f"{k.replace('_', ' ')} {who} {rest}".strip()


def board_line(state: Any, colour: bool = False) -> str:
    """The board's lights: window colour and mode, and each seat's LED (* lit, ~ blinking, . off)."""
    mode = {"0": "", "1": "", "B": " blinking", "F": " flashing"}.get(state.window_mode, "")
    win = f" {state.window.upper()}{mode} "
    if colour:
        win = f"{_ANSI.get(state.window, '')}{win}{_RESET}"
    seats = " ".join(f"{w[0]}{ {'0': '.', '1': '*'}.get(m, '~') }" for w, m in zip(WINDS, state.seats, strict=False))
    return f"board: window{win}| seats {seats}"


class Console:
    def __init__(self, name: Any, as_json: bool = False, stream: TextIO | None = None, quiet: bool = False,
                 show_board: bool = True) -> None:
        self.name = name
        self.json = as_json
        self.out = stream or sys.stdout
        self.quiet = quiet
        self.show_board = show_board
        self.colour = not as_json and hasattr(self.out, "isatty") and self.out.isatty()
        self._board_state: Any = None
        self._t = 0.0

    def _emit(self, obj: dict, text: str | None) -> None:
        if self.json:
            print(json.dumps(obj, separators=(",", ":")), file=self.out, flush=True)
        elif text is not None and not self.quiet:
            print(text, file=self.out, flush=True)

    def observation(self, obs: Any) -> None:
        if self.json:
            self._emit({"type": "observation"} | obs.to_json() | {"kind": obs.type}, None)

    def event(self, event: Any, source: str) -> None:
        d = rev.to_json(event)
        self._t = float(d.get("t", self._t))
        detail = fields_text(d, ("type", "t"))
        self._emit({"type": "event", "source": source, "event": d},
                   f"{self._t:8.2f}s  {source:8} {d['type']:16} {detail}")

    def ruling(self, r: Any, board: Any = None) -> None:
        self._emit({"type": "ruling", "ruling": r.to_json()}, f"{'':10}-> {describe_ruling(r, self.name)}")
        if board is not None and self.show_board:
            state = board.state()
            if state != self._board_state:
                self._board_state = state
                self._emit({"type": "board", "window": state.window, "mode": state.window_mode,
                            "seats": "".join(state.seats)}, f"{'':10}   {board_line(state, self.colour)}")

    def text(self, message: str, **data: Any) -> None:
        self._emit({"type": "info", "message": message} | data, message)
