"""From what the camera saw (vision.events observations) to what the referee rules on (engine.referee events).

Vision reports physical facts; the referee needs table events. Most map one to one. The exceptions, and why:

* A player cannot be heard by the camera, so a *claim* is inferred when a seat other than the discarder puts an
  exposure on its rack top while a discard is live (that only happens after a call). A tile going into the rack
  of a player out of turn is only asked about (a standing tile the camera lost and found looks the same); the
  hand laid face up then declares the Mah Jongg. A claim made by a button or the keyboard first is not
  duplicated. A rack by the player in turn with no pick seen supplies the missed pick. A pick seen out of
  turn is put to a person rather than ruled: a tile the camera lost sight of looks the same, and the ruling
  (a dead hand) is too heavy to rest on that. So is a pick from the wrong end of the wall (``WallEnds`` learns
  which end is live from the picks seen): it is ruled a normal pick, and the table is asked.
* A hand laid face up is a Mah Jongg declaration; the referee itself decides whether it was self-picked or a
  call on the live discard, so ``self_picked`` only says what the table looked like (the turn holder had picked).
* Camera trouble, tile-count mismatches and the reader's own questions are not game events: they become
  ``help`` notices that the display shows and speech says, so a person can look.

Event times use the observation's ``t_action`` (when the action most likely happened) where known: the rule that a
call at the same instant as the rack goes to the caller needs the moment of the rack, not when the camera was
sure of it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from assistant.profile import SEAT_NAMES as SEATS
from engine.referee import events as rev
from engine.referee.rulings import Ruling
from engine.tiles import name_or_code


class WallEnds:
    """Which end of the wall is live, learnt from the picks the camera sees. Play goes round the table one way,
    so every wall is picked from the same end as its owner sees it; the first picks of a game say which. A side
    counts as live once two picks came from it and more than from the other, so one misread pick neither sets
    the side nor turns every later pick into a fault. A tile taken from between two standing tiles is never from
    the live end. One per game (``Assistant.start_game``)."""

    def __init__(self) -> None:
        self.sides: Counter[str] = Counter()

    def wrong(self, end: str | None) -> bool:
        """Whether a pick from ``end`` ("left", "right", "middle") came from a wrong end; learns it if not."""
        if end == "middle":
            return True
        if end not in ("left", "right"):
            return False
        other = self.sides["right" if end == "left" else "left"]
        if other >= 2 and other > self.sides[end]:
            return True
        self.sides[end] += 1
        return False


def _seat(x: Any, fallback: Any) -> Any:
    return x if isinstance(x, int) and 0 <= x < 4 else fallback


def convert(obs: Any, referee: Any, ends: WallEnds | None = None) -> list[rev.Event | Ruling]:
    """The referee events (and notices) one vision observation stands for, given the referee's current state
    (and, for picks, the live end of the wall learnt so far)."""
    kind = getattr(obs, "type", "")
    t = obs.t_action if getattr(obs, "t_action", None) is not None else obs.t
    turn = referee.turn
    seat = _seat(getattr(obs, "seat", -1), turn)
    window = referee.window
    if kind == "discard_down":
        return [rev.Discard(t, seat, obs.tile, named=None, touching=True)]
    if kind == "picked":
        phase = getattr(getattr(referee, "phase", None), "value", "")
        stage = getattr(getattr(referee, "stage", None), "value", "play")
        if stage != "play" or (seat == turn and phase == "wait_pick"):
            if stage == "play" and ends is not None and ends.wrong(getattr(obs, "end", None)):
                # A wrong-end pick kills the hand: ruled a normal pick, and put to the table.
                return [rev.Pick(t, seat), Ruling("help", obs.t, seat, {
                    "message": f"Did {SEATS[seat]} take from the wrong end of the wall? If so her hand is dead.",
                    "source": "reader"})]
            return [rev.Pick(t, seat)]
        # A wall tile gone out of turn (or a second pick) would be a dead hand, but a tile the camera lost sight
        # of looks just the same: a person decides, and corrects with the keyboard or the display if it was so.
        return [Ruling("help", obs.t, seat, {
            "message": f"Did {SEATS[seat]} take a tile from the wall? It is {SEATS[turn]}'s turn"
                       + ("" if phase == "wait_pick" else f" and {SEATS[turn]} has picked") + ".",
            "source": "reader"})]
    if kind == "racked":
        phase = getattr(getattr(referee, "phase", None), "value", "")
        if seat == turn and phase == "wait_pick":
            # The player whose turn it is racked without a pick being seen: the pick was missed (an arm over
            # the wall), which is far likelier than a call, so the pick is supplied.
            return [rev.Pick(t, seat), rev.Rack(t, seat)]
        if window is not None and seat not in (window.discarder, turn) and seat not in window.claims:
            # A tile into the rack of someone out of turn while a discard is live: only a Mah Jongg call takes
            # it there, but a standing tile the camera lost and found again looks the same, and a claim would
            # hold up the game. The hand laid face up declares the Mah Jongg (the referee takes an out-of-turn
            # declaration as the call); until then a person is asked.
            return [Ruling("help", obs.t, seat, {
                "message": f"Did {SEATS[seat]} take the {name_or_code(window.tile)} for Mah Jongg? "
                           "Press the call button to claim it.", "source": "reader"})]
        return [rev.Rack(t, seat)]
    if kind == "exposure_placed":
        out: list[rev.Event | Ruling] = []
        award = getattr(referee, "award", None)
        already = award is not None and award.seat == seat
        if window is not None and seat != window.discarder and seat not in window.claims and not already:
            out.append(rev.Claim(t, seat, "exposure"))
        return out + [rev.Exposure(t, seat, tuple(obs.tiles))]
    if kind == "joker_exchanged":
        return [rev.JokerExchange(t, seat, _seat(obs.exposure_seat, seat), int(obs.exposure_index), obs.tile)]
    if kind == "hand_displayed":
        phase = getattr(getattr(referee, "phase", None), "value", "")
        self_picked = seat == turn and phase in ("picked", "holding") and window is None
        return [rev.MahjongDeclared(t, seat, tuple(obs.tiles), self_picked=self_picked)]
    if kind == "tile_count":
        where = {"rack": f"{SEATS[seat]}'s rack", "wall": f"{SEATS[seat]}'s wall", "floor": "the discards"}
        return [Ruling("help", obs.t, seat, {"message": f"I count {obs.seen} tiles on "
                                                        f"{where.get(obs.where, obs.where)}, expected {obs.expected}",
                                             "source": "tile_count"})]
    if kind == "camera_problem":
        if obs.resolved:
            return [Ruling("help_cleared", obs.t, None, {"problem": obs.problem})]
        text = {"dark": "the table is too dark to read", "bumped": "the camera was bumped; recalibrating",
                "frozen": "the camera picture is frozen", "frames_dropped": "the camera is dropping frames",
                "markers_lost": "the corner markers are hidden"}.get(obs.problem, obs.problem)
        return [Ruling("help", obs.t, None, {"message": text + (f" ({obs.detail})" if obs.detail else ""),
                                             "source": "camera", "problem": obs.problem})]
    if kind == "ask_human":
        choices = ", ".join(name_or_code(c) for c in obs.choices)
        return [Ruling("help", obs.t, _seat(obs.seat, None), {
            "message": obs.question + (f" ({choices}?)" if choices else ""), "source": "reader"})]
    return []
