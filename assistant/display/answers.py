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


def _named(seat: dict) -> bool:
    """Whether the seat has a player's name (not just its wind, which is what an unnamed seat is called)."""
    return seat["name"] != seat["wind"]


def whose_turn(view: Any) -> str:
    """The seat first and nothing before it ("Cy's turn (West)."): heard, the answer is over sooner and a discard
    behind it waits less ("It is the West player's turn." took espeak-ng 1.6 s, "West player's turn." 1.1 s)."""
    if view.turn is None:
        return "Nobody's turn now." if view.window == "over" else "Whose turn it is is not known yet."
    seat = view.seats[view.turn]
    if _named(seat):
        return f"{seat['name']}'s turn ({seat['wind']})."
    return f"{seat['wind']} player's turn."


def seat_winds(view: Any, seat: int | None = None) -> str:
    """Every named seat's wind ("Bob sits South."), or one seat's. A seat without a player's name is called by
    its wind, so "East sits East" would say nothing: those are said as such."""
    seats = [view.seats[seat]] if seat is not None else [s for s in view.seats if s["in_play"]]
    named = [f"{s['name']} sits {s['wind']}." for s in seats if _named(s)]
    unnamed = [s["wind"] for s in seats if not _named(s)]
    if unnamed and seat is not None:
        return f"The {unnamed[0]} seat has no player's name set: it is called the {unnamed[0]} player."
    if unnamed:
        winds = ", ".join(unnamed[:-1]) + (" and " if len(unnamed) > 1 else "") + unnamed[-1]
        one = len(unnamed) == 1
        named.append(f"{'The' if named else 'No names are set: the'} {winds} seat{'' if one else 's'} "
                     f"{'is' if one else 'are'} called by {'its' if one else 'their'} wind.")
    return " ".join(named)


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
