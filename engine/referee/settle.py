"""Settling up a finished game under a scoring profile: who pays whom (home play) or who scores what (tournament).

Pure functions over a :class:`Win` summary, shared by the referee and ``mahj pay`` so the command line and a
refereed game can never disagree about an amount. Results map seat -> signed amount for this game: in
"payments" mode they sum to zero (the winner receives what the others pay); in "points" mode they are the
points each seat scores.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.referee.profile import ScoringProfile


@dataclass(frozen=True)
class Win:
    """A verified Mah Jongg as settlement sees it.

    ``discarder`` None means self-picked (Heavenly/Earthly hands and wins by joker exchange count as self-picked).
    ``pays_for_table``: the seat that alone pays (misnamed discard, out-of-turn or wrong-wall play).
    ``exposures``/``quint_exposed``: the winner's exposures before declaring (tournament discard penalties).
    ``misnamed``: the win came on a misnamed discard (tournament penalty for the misnamer).
    """

    winner: int
    value: int
    discarder: int | None
    jokerless: bool = False
    singles_and_pairs: bool = False
    pays_for_table: int | None = None
    exposures: int = 0
    quint_exposed: bool = False
    misnamed: bool = False


def jokerless_counts(profile: ScoringProfile, win: Win) -> bool:
    """Jokerless earns its bonus unless the hand is Singles and Pairs (no jokers possible there)."""
    return win.jokerless and (not win.singles_and_pairs or profile.rules.jokerless_in_singles_and_pairs)


def discard_penalty(profile: ScoringProfile, win: Win) -> int:
    """The points (0 or negative) a points profile takes from whoever threw the winning tile: for a misnamed
    discard, or for feeding a hand with two or more exposures. None on a self-picked win (no thrower)."""
    pen = profile.penalties
    assert pen is not None
    if win.discarder is None:
        return 0
    if win.misnamed:
        return pen.misnamed_discard_mahjong
    if win.exposures >= 3:
        return pen.discard_to_three_exposures
    if win.exposures == 2:
        return pen.discard_to_quint_and_exposure if win.quint_exposed else pen.discard_to_two_exposures
    return 0


def settle_win(profile: ScoringProfile, win: Win, seats: Iterable[int]) -> dict[int, int]:
    """Per-seat amounts for a verified win among ``seats`` (all players of the game, dead ones included)."""
    seats = list(seats)
    out = {s: 0 for s in seats}
    if profile.mode == "points":
        pts = profile.points
        assert pts is not None
        out[win.winner] = win.value + (pts.self_pick_bonus if win.discarder is None else 0)
        out[win.winner] += pts.jokerless_bonus if jokerless_counts(profile, win) else 0
        if win.discarder is not None and win.discarder != win.winner:
            out[win.discarder] += discard_penalty(profile, win)
        return out
    pay = profile.payments
    assert pay is not None
    unit = win.value * (pay.jokerless if jokerless_counts(profile, win) else 1)
    if win.pays_for_table is not None and win.pays_for_table != win.winner:
        dues = {win.pays_for_table: pay.pay_for_table * unit}
    elif win.discarder is None:
        dues = {s: pay.self_pick * unit for s in seats if s != win.winner}
    else:
        dues = {s: (pay.discarder if s == win.discarder else pay.others_on_discard) * unit
                for s in seats if s != win.winner}
    for s, amount in dues.items():
        out[s] -= amount
        out[win.winner] += amount
    return out


def settle_wall_game(profile: ScoringProfile, seats: Iterable[int], live: Iterable[int]) -> dict[int, int]:
    """Nobody pays in home play; in a tournament every live player scores the wall-game points."""
    out = {s: 0 for s in seats}
    if profile.mode == "points":
        assert profile.points is not None
        for s in live:
            out[s] = profile.points.wall_game
    return out


def transfer(seats: Iterable[int], payer: int, payee: int, amount: int) -> dict[int, int]:
    """A single payment as per-seat amounts."""
    out = {s: 0 for s in seats}
    out[payer] -= amount
    out[payee] += amount
    return out
