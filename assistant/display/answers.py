"""Answers to what a blind player asks at the table: say that again, whose turn is it, which wind is each seat,
how many of a tile are out. Players of Blind Mahjong apps and kobalab/Majiang issue 89 ask for these first: a
sighted player glances at the table for them.

Answered from the table view alone (no referee call, nothing journaled), so the keyboard at ``mahj watch`` can
speak them and the display can show them to a screen reader from the snapshot it already has.
"""

from __future__ import annotations

from typing import Any

from engine.tiles import SET_COUNTS, TILES, name_or_code


def ask(view: Any, question: str, tile: str | None = None, seat: int | None = None) -> str:
    """The answer to one question by name: repeat, turn, wind (all seats, or ``seat``), out (``tile``)."""
    if question == "repeat":
        return repeat(view)
    if question == "turn":
        return whose_turn(view)
    if question == "wind":
        return seat_winds(view, seat)
    return tiles_out(view, tile or "")


def repeat(view: Any) -> str:
    return view.last_announcement or "Nothing has been said yet."


def whose_turn(view: Any) -> str:
    if view.turn is None:
        return "It is nobody's turn now." if view.window == "over" else "Whose turn it is is not known yet."
    return f"It is {view.name(view.turn)}'s turn ({view.seats[view.turn]['wind']})."


def seat_winds(view: Any, seat: int | None = None) -> str:
    """Every seat's wind, or one seat's ("Bob sits South")."""
    seats = [view.seats[seat]] if seat is not None else [s for s in view.seats if s["in_play"]]
    return " ".join(f"{s['name']} sits {s['wind']}." for s in seats)


def tiles_out(view: Any, tile: str) -> str:
    """How many of ``tile`` can be seen: on the discard floor and in exposures (a joker in an exposure stands
    for a tile that is still hidden, so only real tiles count)."""
    floor = view.floor.get(tile, 0)
    exposed = sum(1 for s in view.seats for group in s["exposures"] for t in group if t.get("tile") == tile)
    name, total = name_or_code(tile), SET_COUNTS.get(tile, 4)
    seen = floor + exposed
    if seen == 0:
        return f"No {name}s are out yet (there are {total})."
    verb = "is" if seen == 1 else "are"
    return f"{seen} {name}{'s' if seen != 1 else ''} {verb} out of {total}: {floor} discarded, {exposed} exposed."


def all_answers(view: Any) -> dict[str, Any]:
    """What the display's Ask buttons read, computed with each snapshot (a few kilobytes at most)."""
    return {"repeat": repeat(view), "turn": whose_turn(view), "winds": seat_winds(view),
            "out": {t: tiles_out(view, t) for t in TILES}}
