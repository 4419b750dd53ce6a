"""Tournament table rotation by seat letter (MahjCon): after each round players move between tables.

Seat letters A-D are the chairs East, South, West, North of the first game at each table. After a round the
A player stays, B moves down one table, C down two, D up one ("down" = the next higher table number), wrapping
around the room, and everyone keeps their letter. A 3-player table's empty seat travels like a player would,
so the room stays consistent without special cases.
"""

from __future__ import annotations

LETTERS = ("A", "B", "C", "D")
#: Tables moved per round for each seat letter (positive = down = higher table number).
MOVES: dict[str, int] = {"A": 0, "B": 1, "C": 2, "D": -1}


def next_seat(table: int, letter: str, tables: int) -> tuple[int, str]:
    """Where the player at ``table`` (1-based) in seat ``letter`` sits next round, among ``tables`` tables."""
    if letter not in MOVES:
        raise ValueError(f"seat letter must be one of {', '.join(LETTERS)}, not {letter!r}")
    if tables < 1 or not 1 <= table <= tables:
        raise ValueError(f"table must be 1..{tables}")
    return (table - 1 + MOVES[letter]) % tables + 1, letter


def rotate(seating: dict[str, tuple[int, str]], tables: int) -> dict[str, tuple[int, str]]:
    """Next round's seating for every player name; raises ValueError if two players would share a seat."""
    out = {name: next_seat(table, letter, tables) for name, (table, letter) in seating.items()}
    taken: dict[tuple[int, str], str] = {}
    for name, seat in out.items():
        if seat in taken:
            raise ValueError(f"{name} and {taken[seat]} would both sit at table {seat[0]} seat {seat[1]}")
        taken[seat] = name
    return out
