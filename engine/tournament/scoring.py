"""The points one reported game scores at a tournament table (MahjCon, rules text 003), per seat letter.

A report says how the game ended, not what each player scored: the points follow from the scoring profile
through engine.referee.settle, the same code that settles a refereed game, so a table scored on paper and one
watched by a camera can never disagree. Outcomes:

- ``mahjong``: the winner scores the hand's value plus the self-pick and jokerless bonuses; the player who
  threw the winning tile loses the discard penalty for the winner's exposures (or for a misnamed discard).
- ``wall_game``: every player still in the game scores the wall-game points.
- ``time``: the game was not finished in the time allowed: nobody scores.
- ``last_survivor``: all the others went out (Mah Jongg in error, dead hands, thrown in): the one intact hand
  scores the survivor points.
- ``all_out``: nobody is left with an intact hand: nobody scores.

Players in ``dead`` or ``in_error`` score nothing for the game in every outcome. ``penalties`` are the ones a
report adds by hand (a peek at a blind pass); their points come from the profile's ``[penalties]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.referee.profile import ScoringProfile
from engine.referee.rotation import LETTERS
from engine.referee.settle import Win, discard_penalty, settle_wall_game, settle_win

OUTCOMES = ("mahjong", "wall_game", "time", "last_survivor", "all_out")
#: Penalties a report names itself; the discard penalties follow from the win and are never given by hand.
REPORTED_PENALTIES = ("blind_pass_peek",)


class ResultError(ValueError):
    """A game report that cannot be scored; the message names the field and what it may hold."""


@dataclass(frozen=True)
class GameResult:
    """How one game at one table ended, seats given by letter (A-D)."""

    outcome: str
    winner: str | None = None
    value: int = 0
    self_picked: bool = False
    discarder: str | None = None
    jokerless: bool = False
    singles_and_pairs: bool = False
    exposures: int = 0
    quint_exposed: bool = False
    misnamed: bool = False
    dead: tuple[str, ...] = ()
    in_error: tuple[str, ...] = ()
    survivor: str | None = None
    penalties: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def out(self) -> set[str]:
        """Players who score nothing for this game (dead hands, Mah Jongg in error)."""
        return set(self.dead) | set(self.in_error)


def check_result(result: GameResult, letters: Sequence[str]) -> None:
    """Raise ResultError unless ``result`` can happen at a table seating ``letters``."""
    present = set(letters)

    def seat(name: str, value: str | None, needed: bool) -> None:
        if value is None:
            if needed:
                raise ResultError(f"{name}: say which seat ({', '.join(sorted(present))})")
        elif value not in present:
            raise ResultError(f"{name}: {value!r} is not a seat at this table ({', '.join(sorted(present))})")

    if result.outcome not in OUTCOMES:
        raise ResultError(f"outcome must be one of {', '.join(OUTCOMES)}, not {result.outcome!r}")
    for name, group in (("dead", result.dead), ("in_error", result.in_error)):
        for x in group:
            seat(name, x, True)
    if set(result.dead) & set(result.in_error):
        raise ResultError("a player is either dead or in error, not both")
    win = result.outcome == "mahjong"
    seat("winner", result.winner, win)
    if not win and result.winner is not None:
        raise ResultError(f"winner: a game that ended by {result.outcome} has no winner")
    if win:
        if result.winner in result.out():
            raise ResultError("winner: a dead hand or a Mah Jongg in error cannot win")
        if result.value <= 0:
            raise ResultError("value: a winning hand has a positive value")
        seat("discarder", result.discarder, not result.self_picked)
        if result.self_picked and result.discarder is not None:
            raise ResultError("discarder: a self-picked win has no discarder")
        if result.discarder is not None and (result.discarder == result.winner or result.discarder in result.out()):
            raise ResultError("discarder: must be another player still in the game")
        if not 0 <= result.exposures <= 4:
            raise ResultError("exposures: 0 to 4")
        if result.misnamed and result.discarder is None:
            raise ResultError("misnamed: a misnamed discard needs its discarder")
    seat("survivor", result.survivor, result.outcome == "last_survivor")
    if result.outcome == "last_survivor" and result.survivor in result.out():
        raise ResultError("survivor: the survivor's hand is intact, not dead or in error")
    if result.outcome != "last_survivor" and result.survivor is not None:
        raise ResultError("survivor: only a last_survivor game has one")
    for who, kind in result.penalties:
        seat("penalties", who, True)
        if kind not in REPORTED_PENALTIES:
            raise ResultError(f"penalties: {kind!r} is not one to report ({', '.join(REPORTED_PENALTIES)}; the "
                              "discard penalties follow from the win)")


def game_points(profile: ScoringProfile, result: GameResult, letters: Sequence[str]) -> dict[str, int]:
    """Points per seat letter at a table seating ``letters`` (3 or 4 of A-D); raises ResultError on a result
    that cannot happen there. Needs a points-mode profile (a tournament scores points, not payments)."""
    if profile.mode != "points" or profile.points is None or profile.penalties is None:
        raise ResultError(f"scoring profile {profile.name!r} pays money; a tournament needs a points profile")
    check_result(result, letters)
    order = [x for x in LETTERS if x in letters]
    index = {x: i for i, x in enumerate(order)}
    seats = range(len(order))
    live = [index[x] for x in order if x not in result.out()]
    if result.outcome == "mahjong":
        amounts = settle_win(profile, _win(result, index), seats)
    elif result.outcome == "wall_game":
        amounts = settle_wall_game(profile, seats, live)
    elif result.outcome == "last_survivor":
        assert result.survivor is not None
        amounts = {s: profile.points.throw_in_survivor if s == index[result.survivor] else 0 for s in seats}
    else:
        amounts = {s: 0 for s in seats}
    points = {x: amounts[index[x]] for x in order}
    for x in result.out():
        points[x] = profile.points.mahjong_in_error if x in result.in_error else profile.points.dead
    for who, kind in result.penalties:
        points[who] += getattr(profile.penalties, kind)
    return points


def penalty_points(profile: ScoringProfile, result: GameResult, letters: Sequence[str]) -> dict[str, int]:
    """Every penalty each seat took in the game, as the (negative) points the profile gives it: the reported
    ones (a peek at a blind pass) and the discard penalties of a win. Counted even where other points hide it in
    the game's total (a peek in a wall game: -10 and +10). Seats without a penalty are left out."""
    assert profile.penalties is not None
    out: dict[str, int] = {}
    for who, kind in result.penalties:
        out[who] = out.get(who, 0) + getattr(profile.penalties, kind)
    if result.outcome == "mahjong" and result.discarder is not None:
        index = {x: i for i, x in enumerate(x for x in LETTERS if x in letters)}
        thrown = discard_penalty(profile, _win(result, index))
        if thrown:
            out[result.discarder] = out.get(result.discarder, 0) + thrown
    return out


def _win(result: GameResult, index: dict[str, int]) -> Win:
    """A won game as settlement sees it, seats by their index at the table."""
    assert result.winner is not None
    return Win(winner=index[result.winner], value=result.value,
               discarder=None if result.discarder is None else index[result.discarder],
               jokerless=result.jokerless, singles_and_pairs=result.singles_and_pairs,
               exposures=result.exposures, quint_exposed=result.quint_exposed, misnamed=result.misnamed)
