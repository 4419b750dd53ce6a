"""Who sits where: round 1 drawn at random (or as the director gave it), later rounds by MahjCon's rotation.

A seat is (table, letter); the letters A-D are the chairs East, South, West, North of the first game. With fewer
than four players per table some tables seat three: their empty seat is a D seat at round 1 and then travels
as a D player would (engine.referee.rotation), so every round keeps the same number of 3-player tables and
nobody ever shares a chair.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.referee.rotation import LETTERS, rotate

Seating = dict[str, tuple[int, str]]


class SeatingError(ValueError):
    """Players and tables that cannot be seated; the message says what to change."""


def check_room(players: int, tables: int) -> None:
    """Every table needs three or four players."""
    if tables < 1:
        raise SeatingError("a tournament needs at least one table")
    if not 3 * tables <= players <= 4 * tables:
        raise SeatingError(f"{players} players cannot sit at {tables} tables of 3 or 4: "
                           f"use {-(-players // 4)} to {players // 3} tables" if players >= 3 else
                           f"{players} players: a table needs at least 3")


def first_round(names: Sequence[str], tables: int, seed: int | None = None) -> Seating:
    """Round 1 at random (``seed`` makes the draw repeatable). Tables fill A, B, C first; the first
    ``players - 3 * tables`` tables also get a D player, the rest play with three."""
    check_room(len(names), tables)
    order = list(names)
    random.Random(seed).shuffle(order)
    fours = len(order) - 3 * tables
    seats = [(t, letter) for t in range(1, tables + 1) for letter in LETTERS if letter != "D" or t <= fours]
    return dict(zip(order, seats, strict=True))


def check_given(seating: Mapping[str, tuple[int, str]], tables: int) -> None:
    """A round-1 seating typed by the director: real tables and letters, no shared chair, 3 or 4 at each table."""
    check_room(len(seating), tables)
    taken: dict[tuple[int, str], str] = {}
    for name, (table, letter) in seating.items():
        if not 1 <= table <= tables or letter not in LETTERS:
            raise SeatingError(f"{name}: table {table} seat {letter} is not a seat (tables 1..{tables}, seats A-D)")
        if (table, letter) in taken:
            raise SeatingError(f"{name} and {taken[table, letter]} both sit at table {table} seat {letter}")
        taken[table, letter] = name
    for t in range(1, tables + 1):
        here = [letter for (table, letter) in taken if table == t]
        if len(here) < 3:
            raise SeatingError(f"table {t} has {len(here)} players; every table needs 3 or 4")


def round_seating(first: Mapping[str, tuple[int, str]], round_no: int, tables: int) -> Seating:
    """Where everyone sits in round ``round_no`` (1-based): the rotation applied after each earlier round."""
    if round_no < 1:
        raise SeatingError("rounds are numbered from 1")
    seating = dict(first)
    for _ in range(round_no - 1):
        seating = rotate(seating, tables)
    return seating


def east_of_game(game: int, letters: Sequence[str], dice_east: str | None = None) -> str:
    """Who is East in game ``game`` (1-based) of a round at a table seating ``letters``.

    East passes to the right each game, so at a full table games 1-4 have A, B, C, D as East. At a 3-player
    table the three take East in turn for three games and then the dice decide (``dice_east``: the high roller).
    """
    present = [x for x in LETTERS if x in letters]
    if game < 1:
        raise SeatingError("games are numbered from 1")
    if len(present) == 4:
        return present[(game - 1) % 4]
    if game <= len(present):
        return present[game - 1]
    if dice_east is None:
        raise SeatingError(f"game {game} at a 3-player table: East is the high roller of the dice; say who")
    if dice_east not in present:
        raise SeatingError(f"East by dice must be one of the seats at this table ({', '.join(present)})")
    return dice_east
