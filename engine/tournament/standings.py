"""Totals and places from scored games.

A player's penalties are every penalty they took, as points (a peek at a blind pass -10, feeding a hand with
three exposures -25), counted even in a game whose total hides them. Ties: more points first, then more games
won, then fewer penalty points, then the name (so the order is the same on every screen and sheet; 003 says
nothing about ties, the director breaks them for prizes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Standing:
    place: int
    name: str
    points: int
    games: int
    wins: int
    penalties: int

    def to_json(self) -> dict:
        return {"place": self.place, "name": self.name, "points": self.points, "games": self.games,
                "wins": self.wins, "penalties": self.penalties}


@dataclass(frozen=True)
class ScoredGame:
    """One counted game: who sat in each letter, the points per letter, the winner's letter, and the penalty
    points each letter took (negative, as the profile gives them; see scoring.penalty_points)."""

    names: Mapping[str, str]
    points: Mapping[str, int]
    winner: str | None = None
    penalised: Mapping[str, int] | None = None


def standings(players: Iterable[str], games: Iterable[ScoredGame]) -> list[Standing]:
    """Every player (those yet to play too) with totals, in place order; equal keys share a place."""
    points = {p: 0 for p in players}
    played, wins, pen = dict.fromkeys(points, 0), dict.fromkeys(points, 0), dict.fromkeys(points, 0)
    for g in games:
        for letter, name in g.names.items():
            points[name] += g.points.get(letter, 0)
            played[name] += 1
            wins[name] += letter == g.winner
            pen[name] += (g.penalised or {}).get(letter, 0)
    order = sorted(points, key=lambda p: (-points[p], -wins[p], -pen[p], p))
    out: list[Standing] = []
    for i, name in enumerate(order):
        key = (points[name], wins[name], pen[name])
        prev = out[-1] if out else None
        place = prev.place if prev and (prev.points, prev.wins, prev.penalties) == key else i + 1
        out.append(Standing(place, name, points[name], played[name], wins[name], pen[name]))
    return out
