"""The referee: an event-sourced state machine that follows an American Mah Jongg game and rules on it.

``Referee.apply(event)`` takes one observed event and returns the rulings it causes (see docs/referee.md for
every kind and its data). It never raises on a bad event: an event that is illegal at that moment gets a
``rejected`` ruling with the reason, and the state stays as it was. Every accepted event is kept, so a
correction (undo the last one, or replace a misread one) simply replays the game from the start: the state
is always a pure function of the accepted events, which is what makes journals replayable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from engine.referee import events as ev
from engine.referee.charleston import CharlestonRules
from engine.referee.doubt import Doubt
from engine.referee.ending import GameEnding
from engine.referee.profile import ScoringProfile
from engine.referee.rulings import Ruling, seat_keys
from engine.referee.settle import Win, settle_win, transfer
from engine.referee.state import Award, Phase, Rejected, SeatState, Stage, Window
from engine.tiles import INDEX, JOKER, SET_COUNTS

if TYPE_CHECKING:
    from engine.card import Card, CardLine

SET_SIZE = sum(SET_COUNTS.values())
#: What a correction that ends the game repeats from its replay, so the table hears and sees how it ended.
ENDING_RULINGS = ("mahjong_verified", "mahjong_in_error", "wall_game", "settlement", "game_over")
WALL_ENDS = ("normal", "wrong_end", "wrong_wall")


def _line_json(line: CardLine) -> dict[str, Any]:
    return {"section": line.section, "line": line.number, "text": line.text, "value": line.value}


class Referee(CharlestonRules, GameEnding, Doubt):
    """Follows one table through any number of games (balances run across games)."""

    def __init__(self, card: Card, profile: ScoringProfile, players: int = 4) -> None:
        if players not in (3, 4):
            raise ValueError("a table has 3 or 4 players")
        self.card = card
        self.profile = profile
        self.players = players
        self.events: list[ev.Event] = []  # accepted game events (corrections excluded), the replay source
        self.trusted: list[bool] = []  # per event: a person's evidence (True) or the camera's (engine/referee/doubt.py)
        self.trusting = True  # the trust of the event being ruled on
        self.dismissed: set[int] = set()  # events whose question a person answered no
        self.history: list[tuple[list[ev.Event], list[bool], set[int], ev.Event | None]] = []  # before each
        # correction or answer: (events, trusted, dismissed) and the last event after it, for "revert"
        self.balances = {s: profile.rules.starting_balance for s in range(players)}
        self.pivot: int | None = None  # chair of the original East ("Pivot")
        self.next_east = 0
        self.games = 0
        self._new_game_state()
        self.stage = Stage.IDLE

    # --- state ------------------------------------------------------------------------------------------

    def _new_game_state(self) -> None:
        self.stage = Stage.IDLE
        self.seats = [SeatState() for _ in range(self.players)]
        self.east = self.next_east
        self.turn = self.east
        self.phase = Phase.HOLDING
        self.turn_source = "deal"
        self.exchanged = False
        self.wall = 0
        self.window: Window | None = None
        self.award: Award | None = None
        self.claimed: Window | None = None  # the discard taken this turn (for a win on it)
        self.exposed_before_claim = 0  # the claimant's exposures when the discard was thrown (MahjCon penalties)
        self.picked_pending: int | None = None  # seat whose pick goes back if a claim wins
        self.last_rack: tuple[float, Window, int] | None = None  # (t, window, seat): a call at that instant wins
        self.first_discard = False
        self.previous_discard: str | None = None  # a joker may be named as the tile thrown just before ("same")
        self.step = 0
        self.passed: set[int] = set()
        self.stopped = False
        self.courtesy: dict[int, int] = {}
        self.charleston_begun = False
        self.wrong_exchanges: list[tuple[int, int, int]] = []  # (redeemer, owner, exposure index)
        self.outs: list[tuple[int, str]] = []  # (seat, how) in the order players went out
        self.survivor_due: dict[str, int] | None = None  # {payer, survivor, basis}: waits for a hand value
        self.intact_hand: int | None = None  # tournament: the survivor who scored for an intact hand (may throw in)
        self.questions: list = []  # open questions (engine/referee/doubt.py)
        self.doubted: set[tuple[int | None, str]] = set()  # (seat, reason) put to the table as questions this game
        self.challenges: list[tuple[int, int]] = []  # (challenger, target): home-play death challenges to settle
        self.unseen: str | None = None  # a joined game: "turn" (nobody said whose), "order" (not yet seen), "phase"
        self.joined = False  # this game was joined in progress: the tiles each player holds were never counted

    def live(self) -> list[int]:
        """Seats still playing."""
        return [s for s in range(self.players) if self.seats[s].out is None]

    def seen_by(self, seat: int) -> list[str]:
        """Tiles visible to everyone that are not in ``seat``'s own exposures and that ``seat`` cannot get any more:
        the floor (but not the live discard, which ``seat`` may still call) and the other exposures."""
        seen = [tile for s in self.seats for tile in s.discards]
        for other, s in enumerate(self.seats):
            if other != seat:
                seen.extend(tile for e in s.exposures for tile in e)
        w = self.window
        if w is not None and w.discarder != seat and w.tile != JOKER:
            seen.remove(w.tile)  # the live discard may still be called, for Mah Jongg even into a pair
        return seen

    def snapshot(self) -> dict[str, Any]:
        """The observable state as JSON (for the display and ``mahj referee replay``)."""
        w = self.window
        return {
            "stage": self.stage.value, "game": self.games, "east": self.east, "pivot": self.pivot,
            "turn": self.turn, "phase": self.phase.value, "wall": self.wall,
            "window": None if w is None else {
                "discarder": w.discarder, "tile": w.tile, "named": w.named, "opened_at": w.opened_at,
                "claims": {str(s): p for s, (p, _) in sorted(w.claims.items())},
            },
            "seats": [s.to_json() for s in self.seats],
            "balances": seat_keys(self.balances),
            "questions": [q.to_json() for q in self.questions],
        }

    # --- entry point ------------------------------------------------------------------------------------

    def apply(self, event: ev.Event, trusted: bool = True) -> list[Ruling]:
        """Rule on one event. Illegal events get ``rejected``; nothing here raises. ``trusted``: the event is a
        person's evidence; False for what the camera read, whose penalties are only asked (doubt.py)."""
        raw_t = getattr(event, "t", 0.0)
        t = float(raw_t) if isinstance(raw_t, int | float) and not isinstance(raw_t, bool) else 0.0
        if isinstance(event, ev.Correction):
            return self._correct(event)
        if ev.type_name(event) == "?":
            return [Ruling("rejected", t, None, {"reason": "not an event", "event": repr(event)})]
        saved = self._save()
        self.trusting = trusted
        try:
            if isinstance(event, ev.Answer):
                return self._answer(event)
            out = self._dispatch(event)
        except Rejected as exc:
            self._restore(saved)
            return [Ruling("rejected", t, getattr(event, "seat", None),
                           {"reason": str(exc), "event": ev.to_json(event)})]
        except Exception as exc:  # noqa: BLE001 - the referee must keep running; state is rebuilt from the log
            self._restore(saved)
            return [Ruling("rejected", t, None, {"reason": f"internal error: {type(exc).__name__}: {exc}",
                                                 "event": ev.to_json(event)})]
        finally:
            self.trusting = True
        self.events.append(event)
        self.trusted.append(trusted)
        return out + self._lapse(event, len(self.events) - 1)

    def _save(self) -> dict[str, Any]:
        """A copy of the mutable state, restored when an event is rejected (cheaper than a deep copy)."""
        d = {k: v for k, v in self.__dict__.items() if k not in ("card", "profile", "events", "trusted")}
        clones: dict[int, Window] = {}

        def window(w: Window | None) -> Window | None:  # keep the aliasing between window, award and claimed
            return None if w is None else clones.setdefault(id(w), w.clone())

        d["seats"] = [s.clone() for s in self.seats]
        d["window"], d["claimed"] = window(self.window), window(self.claimed)
        d["award"] = None if self.award is None else replace(self.award, window=window(self.award.window))
        d["last_rack"] = None if self.last_rack is None else (self.last_rack[0], window(self.last_rack[1]),
                                                              self.last_rack[2])
        d["passed"], d["courtesy"], d["balances"] = set(self.passed), dict(self.courtesy), dict(self.balances)
        d["wrong_exchanges"], d["outs"] = list(self.wrong_exchanges), list(self.outs)
        d["survivor_due"] = None if self.survivor_due is None else dict(self.survivor_due)
        d["questions"], d["doubted"], d["challenges"] = list(self.questions), set(self.doubted), list(self.challenges)
        d["dismissed"], d["history"] = set(self.dismissed), list(self.history)
        return d

    def _restore(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)

    def _dispatch(self, e: ev.Event) -> list[Ruling]:
        """Apply one checked event. Calls on the live discard wait and are settled together by the next event
        that is not a call, because priority (Mah Jongg first, then the next in turn) is not first come."""
        self._check_common(e)
        handler = getattr(self, f"_on_{ev.type_name(e)}")
        w, seat = self.window, getattr(e, "seat", None)
        if w is None or not w.claims or isinstance(e, ev.Claim | ev.MahjongDeclared):
            out = handler(e)
        elif isinstance(e, ev.Pick) and seat == self.turn and self.phase is Phase.WAIT_PICK:
            # A pick after a call: the call came first, so the picked tile goes straight back to the wall.
            out = handler(e)
            if self.window is not None:  # (unless that pick ended the game)
                out += self._resolve_claims(e.t)
        elif seat == self.picked_pending and isinstance(e, ev.Rack | ev.Discard | ev.JokerExchange
                                                        | ev.JokerExchangeAnnounced):
            raise Rejected("a call for the live discard came first: the picked tile goes back to the wall")
        else:
            # Any other event after calls settles them first: the best call takes the tile.
            out = self._resolve_claims(e.t) + handler(e)
        if not isinstance(e, ev.Rack | ev.Claim):
            self.last_rack = None
        return out

    def _check_common(self, e: ev.Event) -> None:
        if isinstance(e.t, bool) or not isinstance(e.t, int | float) or e.t != e.t:
            raise Rejected("t must be a number")
        for name in ("seat", "from_seat", "target", "with_seat"):
            value = getattr(e, name, 0)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < self.players:
                raise Rejected(f"{name} must be a chair 0..{self.players - 1}")
        for name in ("tile", "named"):
            value = getattr(e, name, "1B")
            if value is not None and value not in INDEX:
                raise Rejected(f"{name}: unknown tile code {value!r}")
        tiles = getattr(e, "tiles", ())
        if not isinstance(tiles, tuple | list) or any(x not in INDEX for x in tiles):
            raise Rejected("tiles: unknown tile code")
        late_throw_in = isinstance(e, ev.ThrowIn) and self.stage is Stage.OVER  # judged by _on_throw_in
        if self.stage in (Stage.IDLE, Stage.OVER) and not late_throw_in and not isinstance(
                e, ev.Deal | ev.Join | ev.SeatChange | ev.Dice | ev.AttemptedHand):
            raise Rejected("no game in progress: deal first" if self.stage is Stage.IDLE
                           else "the game is over: deal the next game")

    # --- corrections ------------------------------------------------------------------------------------

    def preview(self, event: ev.Correction | ev.Answer) -> tuple[list[Ruling], dict[str, Any]]:
        """What a correction or an answer would rule and leave (a snapshot), without applying it: so a person is
        told what it changes before it does."""
        scratch = object.__new__(Referee)
        scratch.__dict__.update(self._save())
        scratch.card, scratch.profile = self.card, self.profile
        scratch.events, scratch.trusted = list(self.events), list(self.trusted)
        return scratch.apply(event), scratch.snapshot()

    def can_revert(self) -> bool:
        """Whether the last thing done was a correction or an answer (no game event since), which "revert"
        takes back."""
        return bool(self.history) and self.history[-1][3] is (self.events[-1] if self.events else None)

    def _remember(self, events: list[ev.Event], trusted: list[bool], dismissed: set[int]) -> None:
        self.history.append((events, trusted, dismissed, self.events[-1] if self.events else None))

    def _correct(self, e: ev.Correction) -> list[Ruling]:
        t = float(e.t) if isinstance(e.t, int | float) else 0.0
        log, trusted = list(self.events), list(self.trusted)
        before = (list(log), list(trusted), set(self.dismissed))
        if e.action == "revert":
            if not self.can_revert():
                return [Ruling("rejected", t, None, {"reason": "no correction to take back (play went on since)",
                                                     "event": ev.to_json(e)})]
            log, trusted, self.dismissed, _ = self.history.pop()
            replayed = self._replay(log, trusted)
            return [Ruling("corrected", t, None, {"action": "revert", "index": None, "event": None,
                                                  "dropped": sum(any(r.kind == "rejected" for r in rs)
                                                                 for rs in replayed),
                                                  "state": self.snapshot()}),
                    Ruling("turn", t, self.turn, {"seat": self.turn})]
        if e.action == "undo":
            if not log:
                return [Ruling("rejected", t, None, {"reason": "nothing to undo", "event": ev.to_json(e)})]
            index, removed = len(log) - 1, log.pop()
            trusted.pop()
            changed = ev.to_json(removed)
        elif e.action == "fix":
            if not isinstance(e.index, int) or not 0 <= e.index < len(log) or not isinstance(e.event, dict):
                return [Ruling("rejected", t, None, {"reason": f"fix needs an index 0..{len(log) - 1} and an event",
                                                     "event": ev.to_json(e)})]
            try:
                replacement = ev.from_json(e.event)
            except ev.EventError as exc:
                return [Ruling("rejected", t, None, {"reason": str(exc), "event": ev.to_json(e)})]
            if isinstance(replacement, ev.Correction):
                return [Ruling("rejected", t, None, {"reason": "a correction cannot replace an event with "
                                                     "another correction", "event": ev.to_json(e)})]
            index = e.index
            changed = ev.to_json(replacement)
            log[index] = replacement
        else:
            return [Ruling("rejected", t, None, {"reason": f"unknown correction {e.action!r} (undo, fix or revert)",
                                                 "event": ev.to_json(e)})]
        was_over = self.stage is Stage.OVER
        replayed = self._replay(log, trusted)
        self._remember(*before)
        dropped = sum(any(r.kind == "rejected" for r in rulings) for rulings in replayed)
        # A correction that ends the game (a misread hand fixed so that it verifies) says how, as the game would.
        ending = [r for rulings in replayed[index:] for r in rulings if r.kind in ENDING_RULINGS] if (
            self.stage is Stage.OVER and not was_over) else []
        return [Ruling("corrected", t, None, {"action": e.action, "index": index, "event": changed,
                                              "dropped": dropped, "state": self.snapshot()})] + ending + [
                Ruling("turn", t, self.turn, {"seat": self.turn})]

    def _replay(self, log: list[ev.Event], trusted: list[bool]) -> list[list[Ruling]]:
        """Rebuild the state from ``log`` (each event with its trust; answers given no stay answered); returns
        the rulings of every event. A fixed event keeps the trust of the one it replaces."""
        fresh = Referee(self.card, self.profile, self.players)
        fresh.dismissed, fresh.history = set(self.dismissed), list(self.history)
        replayed = [fresh.apply(old, trusted=trust) for old, trust in zip(log, trusted, strict=True)]
        self.__dict__.update({k: v for k, v in fresh.__dict__.items() if k not in ("card", "profile")})
        return replayed

    # --- dealing and the Charleston -------------------------------------------------------------------

    def _on_deal(self, e: ev.Deal) -> list[Ruling]:
        if self.stage in (Stage.CHARLESTON, Stage.PLAY):
            raise Rejected("a game is in progress")
        east = self.next_east if e.east is None else e.east
        if not isinstance(east, int) or isinstance(east, bool) or not 0 <= east < self.players:
            raise Rejected(f"east must be a chair 0..{self.players - 1}")
        if self.games and east != self.next_east and self.players == 4:
            raise Rejected(f"East this game is chair {self.next_east}")
        self.next_east = east
        self._new_game_state()
        if self.pivot is None:
            self.pivot = east
        self.games += 1
        for s, seat in enumerate(self.seats):
            seat.concealed = 14 if s == east else 13
        self.wall = SET_SIZE - 14 - 13 * (self.players - 1)
        self.turn, self.phase = east, Phase.HOLDING
        out = [Ruling("dealt", e.t, east, {"east": east, "game": self.games, "wall": self.wall})]
        if self.players == 3:
            self.stage = Stage.PLAY
            out.append(Ruling("charleston_skipped", e.t, None, {"reason": "no Charleston at a 3-player table"}))
        else:
            self.stage = Stage.CHARLESTON
        return out

    def _on_join(self, e: ev.Join) -> list[Ruling]:
        """A game joined in progress. Nothing before it was seen: every player holds 13 (the exposures she already
        has among them), the floor is empty, nobody is at fault, and the turn is followed from the play itself
        until it has been seen in order (``_seen_move``), so no ruling rests on history mahj did not see."""
        most = SET_SIZE - 14 - 13 * (self.players - 1)
        for name in ("east", "turn"):
            value = getattr(e, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or not 0 <= value < self.players):
                raise Rejected(f"{name} must be a chair 0..{self.players - 1}")
        if e.wall is not None and (not isinstance(e.wall, int) or isinstance(e.wall, bool) or not 0 <= e.wall <= most):
            raise Rejected(f"wall must be 0..{most} tiles")
        out: list[Ruling] = []
        if self.stage in (Stage.IDLE, Stage.OVER):
            self.next_east = self.next_east if e.east is None else e.east
            self._new_game_state()
            if self.pivot is None:
                self.pivot = self.east
            self.games += 1
            for seat in self.seats:
                seat.concealed = 13
            self.wall, self.stage, self.first_discard, self.charleston_begun = most, Stage.PLAY, True, True
            self.turn, self.phase, self.unseen, self.joined = self.east, Phase.WAIT_PICK, "turn", True
            # The wall said (``--wall 40``), not the most a joined game could have left.
            out.append(Ruling("dealt", e.t, self.east, {"east": self.east, "game": self.games,
                                                        "wall": most if e.wall is None else e.wall, "joined": True}))
        elif e.east is not None:
            self.east = e.east
            if self.games == 1:
                self.pivot = e.east
        if e.wall is not None:
            self.wall = e.wall
        if e.turn is not None:
            self.turn, self.phase, self.picked_pending, self.unseen = e.turn, Phase.WAIT_PICK, None, "phase"
        return out + [Ruling("turn", e.t, self.turn, {"seat": self.turn})]

    def _seen_move(self, seat: int, phase: Phase, discard: bool = False) -> None:
        """In a joined game, follow the play until the turn order has been seen: a discard from the seat that was
        expected. Before that, the player who moves is taken to be in turn (``phase``: picking or holding), with
        no question; a turn a person gave holds, but whether she had picked was not seen."""
        if self.unseen is None or self.seats[seat].out is not None:
            return
        if self.unseen == "phase":
            if seat == self.turn:
                self._joined(seat, phase)
                self.unseen = None
            return
        expected = seat == self.turn and (self.phase is not Phase.WAIT_PICK or phase is Phase.WAIT_PICK)
        if not expected:
            self._joined(seat, phase)
        if discard:
            self.unseen = None if expected and self.unseen == "order" else "order"

    def _on_dice(self, e: ev.Dice) -> list[Ruling]:
        if not isinstance(e.total, int) or not 2 <= e.total <= 12:
            raise Rejected("dice total must be 2..12")
        return []

    # --- turn helpers -----------------------------------------------------------------------------------

    def _next_live(self, seat: int) -> int:
        for k in range(1, self.players + 1):
            s = (seat + k) % self.players
            if self.seats[s].out is None:
                return s
        return seat

    def _close_window(self, t: float, reason: str) -> list[Ruling]:
        w = self.window
        if w is None:
            return []
        self.window = None
        self.picked_pending = None
        return [Ruling("window_closed", t, w.discarder, {"reason": reason, "opened_at": w.opened_at,
                                                         "closed_at": t, "tile": w.tile})]

    def _start_turn(self, t: float, seat: int) -> list[Ruling]:
        self.turn, self.phase, self.turn_source, self.exchanged = seat, Phase.WAIT_PICK, "pick", False
        self.award = self.claimed = None
        return [Ruling("turn", t, seat, {"seat": seat})]

    def _kill(self, t: float, seat: int, reason: str, how: str = "dead",
              lines: Sequence[CardLine] | None = None) -> list[Ruling]:
        """Put a player out of the game (dead hands still pay in home play), unless the evidence is the camera's:
        then the table is asked and she plays on (the caller checks ``seats[seat].out`` to know which)."""
        st = self.seats[seat]
        if st.out is not None:
            return []
        out: list[Ruling] = []
        if not self._penalty_stands(t, seat, "dead_hand" if how == "dead" else how, reason, out):
            return out
        st.out, st.out_reason = how, reason
        self.outs.append((seat, how))
        if how != "mahjong_in_error":
            data: dict[str, Any] = {"seat": seat, "reason": reason}
            if lines is not None:
                data["lines"] = [_line_json(x) for x in lines]
            out.append(Ruling("dead_hand", t, seat, data))
        return out

    def _after_out(self, t: float, seat: int) -> list[Ruling]:
        """Keep play moving once ``seat`` went out; end the game when one player is left."""
        if self.seats[seat].out is None:  # her penalty was only asked about: she plays on
            return []
        if len(self.live()) <= 1:
            return self._last_survivor(t)
        if self.award is not None and self.award.seat == seat:
            self.award = None
        if self.turn == seat:
            return self._start_turn(t, self._next_live(seat))
        return []

    def _check_impossible(self, t: float) -> list[Ruling]:
        """A hand whose exposures no card line can still complete, given what is visible, is dead."""
        out: list[Ruling] = []
        pending = {owner for _, owner, _ in self.wrong_exchanges}  # judged when the redeemer discards
        for s in self.live():
            st = self.seats[s]
            if not st.exposures or s in pending or self._exposures_doubted(s):  # asked once: not again
                continue
            if not self.card.lines_allowing(st.exposures, self.seen_by(s)):
                before = self.card.lines_allowing(st.exposures, ())
                out += self._kill(t, s, "impossible hand: the tiles still needed are all visible", lines=before)
                out += self._after_out(t, s)
        return out

    # --- play -------------------------------------------------------------------------------------------

    def _begin_play(self) -> None:
        if self.stage is Stage.CHARLESTON:
            if not self._charleston_finished():
                raise Rejected("the Charleston is not finished")
            self.stage = Stage.PLAY

    def _redeal(self, t: float, reason: str) -> list[Ruling]:
        """End the game without a winner, unless the evidence is the camera's (then only asked: the caller checks
        ``stage`` and goes on as a game joined in progress, see ``_joined``)."""
        out: list[Ruling] = []
        if not self._penalty_stands(t, None, "redeal", reason, out):
            return out
        self.stage = Stage.OVER
        return [Ruling("redeal", t, None, {"reason": reason}), Ruling("game_over", t, None,
                                                                      {"reason": "redeal", "winner": None})]

    def _joined(self, seat: int, phase: Phase) -> None:
        """Follow the table where mahj lost track of the turn (a game joined in progress, a move it did not see):
        reached only when the camera's evidence for a fault was put to the table as a question, so ``seat``, who
        plays now, is taken to be in turn. A player about to discard without the 14th tile had one mahj missed."""
        self.first_discard = True
        if self.stage is Stage.CHARLESTON:
            self.stage = Stage.PLAY
        self.turn, self.phase, self.picked_pending = seat, phase, None
        st = self.seats[seat]
        if phase is Phase.HOLDING and st.total < 14 and self.wall > 0:
            st.concealed += 1
            self.wall -= 1

    def _on_pick(self, e: ev.Pick) -> list[Ruling]:
        if e.end not in WALL_ENDS:
            raise Rejected(f"end must be one of {', '.join(WALL_ENDS)}")
        if self.stage is Stage.CHARLESTON and not self._charleston_finished():
            raise Rejected("no picking during the Charleston")
        st = self.seats[e.seat]
        if st.out is not None:
            raise Rejected("this player is out of the game")
        if self.wall <= 0:
            raise Rejected("the wall is exhausted")
        self._seen_move(e.seat, Phase.WAIT_PICK)
        out: list[Ruling] = []
        if not self.first_discard:
            self.stage = Stage.PLAY
            out += self._redeal(e.t, "a tile was picked before East's first discard")
            if self.stage is Stage.OVER:
                return out
            self._joined(e.seat, Phase.WAIT_PICK)
        if e.seat != self.turn or self.phase is not Phase.WAIT_PICK:
            ahead = e.seat == self._next_live(self.turn) and self.phase is not Phase.WAIT_PICK
            out += self._kill(e.t, e.seat, "picking ahead" if ahead else "picking out of turn")
            if st.out is not None:
                self.wall -= 1
                st.concealed += 1
                st.fault = "out_of_turn"  # should she still throw a tile and someone win on it, she pays for the table
                return out + self._after_out(e.t, e.seat)
            self._joined(e.seat, Phase.WAIT_PICK)  # only asked: mahj lost track of the turn, the table did not
        self.wall -= 1
        st.concealed += 1
        if e.end != "normal":
            out += self._kill(e.t, e.seat, f"picking from the {e.end.replace('_', ' ')}")
            if st.out is not None:
                st.fault = e.end
            if len(self.live()) <= 1:
                return out + self._last_survivor(e.t)
        self.turn_source = "pick"
        if self.window is not None:
            self.phase, self.picked_pending = Phase.PICKED, e.seat
        else:
            self.phase = Phase.HOLDING
        out.append(Ruling("picked", e.t, e.seat, {"seat": e.seat, "wall": self.wall}))
        return out

    def _on_rack(self, e: ev.Rack) -> list[Ruling]:
        if e.seat == self.turn and self.phase is Phase.PICKED:
            self.phase = Phase.HOLDING
            w = self.window
            out = self._close_window(e.t, "racked")
            if w is not None:
                self.last_rack = (e.t, w, e.seat)
            return out + self._check_impossible(e.t)  # the discard is dead now: it counts as seen
        if e.seat == self.turn and self.phase is Phase.CLAIMED:
            if self.profile.rules.claimed_tile_in_rack_kills:
                out = self._kill(e.t, e.seat, "claimed tile placed in the rack")
                if self.seats[e.seat].out is not None:
                    return out + self._after_out(e.t, e.seat)
                return out
            return [Ruling("warning", e.t, e.seat, {"reason": "a claimed tile belongs on top of the rack"})]
        if e.seat == self.turn and self.phase is Phase.HOLDING:
            return []
        raise Rejected("nothing to rack: this player has not picked")

    def _on_discard(self, e: ev.Discard) -> list[Ruling]:
        if e.named is None and not e.touching:
            raise Rejected("a discard is down only when named or touching the floor")
        st = self.seats[e.seat]
        if e.seat == self.turn and self.phase is Phase.CLAIMED:
            raise Rejected("expose the claimed tile (or declare Mah Jongg) before discarding")
        self._seen_move(e.seat, Phase.HOLDING if e.seat != self.turn or self.phase is Phase.WAIT_PICK
                        else self.phase, discard=True)
        out: list[Ruling] = []
        if not self.first_discard:
            if e.seat != self.east:
                self.stage = Stage.PLAY
                out += self._redeal(e.t, "East must make the first discard")
                if self.stage is Stage.OVER:
                    return out
                self._joined(e.seat, Phase.HOLDING)
            self._begin_play()
        own_turn = e.seat == self.turn and self.phase in (Phase.PICKED, Phase.HOLDING)
        fault = st.fault
        if not own_turn:
            if st.out is None and e.seat == self.turn and self.phase is Phase.WAIT_PICK:
                out += self._kill(e.t, e.seat, "discarding before picking")
            elif st.out is None:
                # Out of turn: the tile is down and live all the same, and a win on it makes her pay for the table.
                out += self._kill(e.t, e.seat, "discarding out of turn")
                if st.out is not None:
                    fault = st.fault = "out_of_turn"
            elif self._penalty_stands(e.t, e.seat, "pays_for_table", "a player already out discards", out):
                fault = st.fault = "out_of_turn"  # she has no turn: a win on her tile makes her pay for the table
            if st.out is None:  # only asked: the table played on, so it was her turn, with a pick mahj missed
                self._joined(e.seat, Phase.HOLDING)
                own_turn = True
        prev = self.window
        if prev is not None:
            reason = "discarded" if own_turn and self.phase is Phase.PICKED else "covered"
            out += self._close_window(e.t, reason)
        fault_seat = None if fault is None else e.seat
        if st.concealed < 1:
            raise Rejected("this player holds no tile to discard")
        st.concealed -= 1
        st.discards.append(e.tile)
        self.first_discard = True
        self.last_rack = None
        for redeemer, owner, index in list(self.wrong_exchanges):
            if redeemer == e.seat:
                self.wrong_exchanges.remove((redeemer, owner, index))
                out += self._kill(e.t, owner, f"exposure {index + 1} holds a wrong tile after a joker exchange")
        same = e.tile == JOKER and e.named is not None and e.named == self.previous_discard
        self.previous_discard = e.tile
        named = None if same else e.named
        self.window = Window(e.seat, e.tile, named, e.t, fault_seat)
        out.append(Ruling("window_opened", e.t, e.seat, {"seat": e.seat, "tile": e.tile, "named": e.named}))
        if self.window.misnamed:
            out.append(Ruling("misnamed_discard", e.t, e.seat, {"seat": e.seat, "tile": e.tile,
                                                                "named": e.named}))
        if fault_seat is not None:
            out.append(Ruling("discard_at_fault", e.t, e.seat, {"seat": e.seat, "tile": e.tile, "fault": fault}))
        if own_turn or (e.seat == self.turn and self.phase is Phase.WAIT_PICK):
            out += self._start_turn(e.t, self._next_live(e.seat))
        out += self._check_impossible(e.t)
        if self.stage is Stage.PLAY and len(self.live()) <= 1 and self.survivor_due is None:
            out += self._last_survivor(e.t)
        return out

    # --- claims -----------------------------------------------------------------------------------------

    def _on_claim(self, e: ev.Claim) -> list[Ruling]:
        if e.purpose not in ("mahjong", "exposure"):
            raise Rejected("purpose must be mahjong or exposure")
        w = self.window
        if w is None and self.last_rack is not None and e.t <= self.last_rack[0]:
            # A call at the same instant as the rack goes to the caller: undo the rack.
            _, w, racker = self.last_rack
            self.window, self.picked_pending, self.phase, self.last_rack = w, racker, Phase.PICKED, None
        if w is None:
            raise Rejected("no live discard: the window of opportunity is closed")
        if e.seat == w.discarder:
            raise Rejected("a player cannot claim their own discard")
        if self.seats[e.seat].out is not None:
            raise Rejected("this player is out of the game")
        if w.tile == JOKER and not (e.purpose == "mahjong" and w.wins_as_named):
            raise Rejected("discarded jokers are dead")
        if self.picked_pending == e.seat:
            raise Rejected("this player already picked from the wall")
        old = w.claims.get(e.seat)
        purpose = "mahjong" if old and old[0] == "mahjong" else e.purpose
        w.claims[e.seat] = (purpose, e.t)
        return [Ruling("claim_pending", e.t, e.seat, {"seat": e.seat, "purpose": purpose})]

    def _claim_rank(self, w: Window, seat: int, purpose: str) -> tuple[int, int]:
        # Mah Jongg beats exposure; between equal claims the next in turn after the discarder wins.
        return (0 if purpose == "mahjong" else 1, (seat - w.discarder) % self.players)

    def _resolve_claims(self, t: float) -> list[Ruling]:
        w = self.window
        assert w is not None
        ranked = sorted(w.claims.items(), key=lambda kv: self._claim_rank(w, kv[0], kv[1][0]))
        winner, (purpose, _) = ranked[0]
        out = []
        returned = self.picked_pending
        out += self._close_window(t, "claimed")
        if returned is not None:
            self.seats[returned].concealed -= 1
            self.wall += 1
            out.append(Ruling("pick_returned", t, returned, {"seat": returned,
                                                             "reason": "a claim came before the window closed"}))
        for seat, (p, _) in ranked[1:]:
            out.append(Ruling("claim_denied", t, seat, {"seat": seat, "purpose": p, "to": winner}))
        w.claims.clear()
        floor = self.seats[w.discarder].discards
        if floor and floor[-1] == w.tile:
            floor.pop()
        self.seats[winner].concealed += 1
        resume = Phase.WAIT_PICK if self.phase is Phase.PICKED else self.phase  # a returned pick is undone
        self.award = Award(winner, purpose, w, (self.turn, resume, self.turn_source))
        self.claimed = w
        self.exposed_before_claim = len(self.seats[winner].exposures)
        self.turn, self.phase, self.turn_source, self.exchanged = winner, Phase.CLAIMED, "claim", False
        self.last_rack = None
        tile = w.named if purpose == "mahjong" and w.wins_as_named else w.tile
        out.append(Ruling("claim_awarded", t, winner, {"seat": winner, "purpose": purpose, "tile": tile}))
        out.append(Ruling("turn", t, winner, {"seat": winner}))
        return out

    # --- exposures and jokers ---------------------------------------------------------------------------

    def _on_exposure(self, e: ev.Exposure) -> list[Ruling]:
        a = self.award
        if a is None or e.seat != a.seat or self.phase is not Phase.CLAIMED or self.turn != e.seat:
            if e.seat == self.turn and self.phase is Phase.HOLDING and self.turn_source == "claim" and not (
                    self.exchanged or self.award is not None):
                return self._add_to_exposure(e)
            if e.seat == self.turn and self.phase in (Phase.PICKED, Phase.HOLDING):
                raise Rejected("no exposure from a wall tile unless declaring Mah Jongg")
            raise Rejected("an exposure needs a claimed discard (placed before the discard, never added later)")
        if a.purpose == "mahjong":
            raise Rejected("this tile was claimed for Mah Jongg: show the hand")
        st = self.seats[e.seat]
        tiles = list(e.tiles)
        naturals = {x for x in tiles if x != JOKER}
        claimed = a.window.tile
        if self._misled_by_name(a.window, tiles, st.concealed):
            return self._withdraw_claim(e.t, a, f"the discard is {claimed}, not {a.window.named} as named")
        out: list[Ruling] = []
        problem = None
        if not 3 <= len(tiles) <= 6:
            problem = "an exposure is a pung, kong, quint or sextet (3 to 6 tiles)"
        elif naturals != {claimed}:
            problem = f"an exposure must be identical tiles of the claimed {claimed} (jokers allowed)"
        elif len(tiles) > st.concealed:
            problem = "more tiles exposed than the player holds"
        if problem is None and tiles.count(claimed) > SET_COUNTS[claimed]:  # a misread: no set has that many
            problem = f"{tiles.count(claimed)} x {claimed}, but a set holds {SET_COUNTS[claimed]}"
        before = self.card.lines_allowing(st.exposures, ()) if st.exposures else None
        if problem is not None:
            out += self._kill(e.t, e.seat, f"invalid exposure: {problem}", lines=before)
            if st.out is None:  # only asked: the tiles read otherwise than the one called count as misread
                tiles, problem = self._as_called(tiles, claimed, st.concealed), None
        st.exposures.append(tiles)
        st.exposure_tiles.append(claimed)
        st.concealed -= min(len(tiles), st.concealed)  # the claimed tile was counted in at the award
        self.award = None
        self.phase = Phase.HOLDING
        if problem is not None:
            return out + self._after_out(e.t, e.seat)
        out.append(Ruling("exposure_accepted", e.t, e.seat, {"seat": e.seat, "tiles": tiles}))
        return out + self._exposures_allowed(e.t, e.seat, before) + self._check_impossible(e.t)

    def _exposures_allowed(self, t: float, seat: int, before: Sequence[CardLine] | None) -> list[Ruling]:
        """A hand whose exposures no exposed (X) line of the card allows is dead (``before``: the lines its
        earlier exposures allowed, shown with the ruling)."""
        st = self.seats[seat]
        if self.card.lines_allowing(st.exposures, ()):
            return []
        out = self._kill(t, seat, "invalid exposure: no exposed (X) line on the card allows "
                         + "; ".join(" ".join(x) for x in st.exposures), lines=before or [])
        return out + self._after_out(t, seat)

    @staticmethod
    def _as_called(tiles: list[str], claimed: str, held: int) -> list[str]:
        """An exposure the camera read with other tiles than the one called, as it most likely is: the called tile
        where a natural tile was read (jokers kept), at most as many as a set holds, 3 to 6 tiles if held."""
        size = min(max(len(tiles), 3), 6, max(held, 1))
        shown = [x if x == JOKER else claimed for x in tiles[:size]] + [claimed] * (size - len(tiles))
        extra = max(0, shown.count(claimed) - SET_COUNTS[claimed])
        return [JOKER] * extra + [x for x in shown if x == JOKER] + [claimed] * (shown.count(claimed) - extra)

    def _add_to_exposure(self, e: ev.Exposure) -> list[Ruling]:
        """Rules 004: a player may add tiles to the exposure she just made, until she redeems a joker or
        discards (the same tile, or jokers)."""
        st = self.seats[e.seat]
        index = len(st.exposures) - 1
        tile = st.exposure_tiles[index]
        grown = st.exposures[index] + list(e.tiles)
        if {x for x in e.tiles if x != JOKER} - {tile} or not e.tiles:
            raise Rejected(f"tiles added to an exposure of {tile} must be {tile} or jokers")
        if len(grown) > 6 or grown.count(tile) > SET_COUNTS[tile] or len(e.tiles) > st.concealed:
            raise Rejected(f"an exposure of {tile} holds at most 6 tiles, {SET_COUNTS[tile]} of them {tile}, "
                           "from the tiles the player holds")
        before = self.card.lines_allowing(st.exposures, ())
        st.exposures[index] = grown
        st.concealed -= len(e.tiles)
        out = [Ruling("exposure_extended", e.t, e.seat, {"seat": e.seat, "index": index, "tiles": grown,
                                                         "added": list(e.tiles)})]
        return out + self._exposures_allowed(e.t, e.seat, before) + self._check_impossible(e.t)

    @staticmethod
    def _misled_by_name(w: Window, tiles: list[str], held: int) -> bool:
        """An exposure of the tile the discarder *named* (with jokers, and perhaps the thrown tile itself, picked
        up before the caller saw what it was): the caller was misled, not wrong. A misnamed discard cannot be
        called for exposure as the named tile, so the call is withdrawn instead of killing the hand."""
        named = w.named
        if named is None or not w.wins_as_named:
            return False
        naturals = Counter(x for x in tiles if x != JOKER)
        thrown = naturals.pop(w.tile, 0)
        return (set(naturals) == {named} and thrown <= 1 and 3 <= len(tiles) <= min(6, held)
                and naturals[named] <= SET_COUNTS[named])

    def _withdraw_claim(self, t: float, a: Award, reason: str) -> list[Ruling]:
        """Undo an award: the caller's tiles go back to her rack, the discard back to the floor under its correct
        name, the window reopens for it and the interrupted turn resumes. Nobody is penalised."""
        w = a.window
        self.seats[a.seat].concealed -= 1
        self.seats[w.discarder].discards.append(w.tile)
        self.award = self.claimed = None
        self.turn, self.phase, self.turn_source = a.resume
        self.exchanged = False
        self.window = Window(w.discarder, w.tile, w.tile, t, w.fault_seat)  # the name corrected
        return [Ruling("claim_withdrawn", t, a.seat, {"seat": a.seat, "reason": reason, "tile": w.tile,
                                                      "named": w.named}),
                Ruling("window_opened", t, w.discarder, {"seat": w.discarder, "tile": w.tile, "named": w.tile,
                                                         "reopened": True}),
                Ruling("turn", t, self.turn, {"seat": self.turn})]

    def _exchange_allowed(self, e: ev.Event) -> list[Ruling]:
        """Joker exchanges happen in one's own turn once the 14th tile is in; closing the window if open."""
        self._seen_move(e.seat, Phase.HOLDING)
        if e.seat != self.turn:
            raise Rejected("joker exchanges only in one's own turn")
        if self.seats[e.seat].out is not None:
            raise Rejected("this player is out of the game")
        if self.phase is Phase.WAIT_PICK:
            out = self._kill(e.t, e.seat, "exchanging a joker before picking")
            if self.seats[e.seat].out is not None:
                return out
            window = self.window  # only asked: she picked, unseen, and that closed the window
            self._joined(e.seat, Phase.HOLDING)
            return out + (self._close_window(e.t, "joker_exchange") if window is not None else [])
        if self.phase is Phase.CLAIMED:
            raise Rejected("complete the exposure before exchanging a joker")
        if self.phase is Phase.PICKED:
            self.phase = Phase.HOLDING
            return self._close_window(e.t, "joker_exchange")
        return []

    def _on_joker_exchange_announced(self, e: ev.JokerExchangeAnnounced) -> list[Ruling]:
        out = self._exchange_allowed(e)
        if self.seats[e.seat].out is not None:
            return out + self._after_out(e.t, e.seat)
        return out + [Ruling("joker_exchange_announced", e.t, e.seat, {"seat": e.seat})]

    def _on_joker_exchange(self, e: ev.JokerExchange) -> list[Ruling]:
        if e.tile == JOKER:
            raise Rejected("no reverse exchange: a joker cannot be given for a natural tile")
        owner = self.seats[e.from_seat]
        if not isinstance(e.exposure_index, int) or not 0 <= e.exposure_index < len(owner.exposures):
            raise Rejected(f"chair {e.from_seat} has no exposure {e.exposure_index}")
        exposure = owner.exposures[e.exposure_index]
        if JOKER not in exposure:
            raise Rejected("that exposure holds no joker")
        if self.seats[e.seat].concealed < 1:
            raise Rejected("the redeemer holds no tile to give")
        out = self._exchange_allowed(e)
        if self.seats[e.seat].out is not None:
            return out + self._after_out(e.t, e.seat)
        exposure[exposure.index(JOKER)] = e.tile
        self.exchanged = True
        data = {"seat": e.seat, "from_seat": e.from_seat, "exposure_index": e.exposure_index, "tile": e.tile}
        if e.tile != owner.exposure_tiles[e.exposure_index]:
            self.wrong_exchanges.append((e.seat, e.from_seat, e.exposure_index))
            data["expected"] = owner.exposure_tiles[e.exposure_index]
            out.append(Ruling("joker_exchange_wrong_tile", e.t, e.seat, data))
        else:
            out.append(Ruling("joker_exchanged", e.t, e.seat, data))
        return out + self._check_impossible(e.t)

    # --- Mah Jongg --------------------------------------------------------------------------------------

    def _on_mahjong_declared(self, e: ev.MahjongDeclared) -> list[Ruling]:
        st = self.seats[e.seat]
        if st.out is not None:
            raise Rejected("this player is out of the game")
        out: list[Ruling] = []
        special = None
        if self.stage is Stage.CHARLESTON and self.charleston_begun and not self._charleston_finished():
            raise Rejected("Mah Jongg cannot be declared during the Charleston")
        if not self.first_discard:
            if e.seat != self.east:
                raise Rejected("only East holds 14 tiles before the first discard")
            special = "earthly" if self.charleston_begun else "heavenly"
        w = self.window
        if special is None and w is not None:
            if e.seat != w.discarder and not (e.seat == self.turn and self.phase is Phase.PICKED):
                # Declaring on the live discard is a call for it, weighed against the other calls.
                w.claims[e.seat] = ("mahjong", e.t)
            if w.claims:
                out += self._resolve_claims(e.t)
                if self.award is None or self.award.seat != e.seat:
                    return out  # her call lost to a better one: claim_denied says so
        if special is None and not (e.seat == self.turn and self.phase in (Phase.PICKED, Phase.HOLDING,
                                                                           Phase.CLAIMED)):
            raise Rejected("not this player's turn and no discard to claim")
        if self.phase is Phase.PICKED and e.seat == self.turn:
            out += self._close_window(e.t, "mahjong")
            self.phase = Phase.HOLDING
        on_discard = special is None and self.turn_source == "claim" and not self.exchanged
        self_picked = not on_discard
        return out + self._verify_win(e, self_picked, self.claimed if on_discard else None, special)

    def _split_declared(self, seat: int, tiles: Sequence[str]) -> list[str] | None:
        """The concealed part of a declared hand: all 14 shown minus the exposures, or the concealed part alone."""
        st = self.seats[seat]
        if len(tiles) == st.concealed:
            return list(tiles)
        rest = Counter(tiles)
        rest.subtract(Counter(x for e in st.exposures for x in e))
        if any(v < 0 for v in rest.values()) or sum(rest.values()) != st.concealed:
            return None
        return list(rest.elements())

    def _verify_win(self, e: ev.MahjongDeclared, self_picked: bool, won_on: Window | None,
                    special: str | None) -> list[Ruling]:
        st = self.seats[e.seat]
        concealed = self._split_declared(e.seat, e.tiles)
        if st.total != 14:
            return self._mahjong_error(e, f"the player holds {st.total} tiles, not 14")
        if concealed is None:
            return self._mahjong_error(e, "the tiles shown do not match the tiles held with the exposures")
        made_with_it = [x for group in st.exposures[self.exposed_before_claim:] for x in group]
        if won_on is not None and won_on.tile not in concealed + made_with_it:  # rules 004: it is in the hand
            return self._mahjong_error(e, f"the discard claimed for Mah Jongg ({won_on.tile}) is not in the hand "
                                          "shown")
        verdict = self.card.verify(concealed, st.exposures)
        pays_for_table = None
        misnamed = False
        joker_thrown = won_on is not None and won_on.tile == JOKER  # dead as a joker: only its spoken name wins
        if ((joker_thrown or not verdict.mahjong) and won_on is not None and won_on.wins_as_named
                and won_on.tile in concealed):
            swapped = list(concealed)
            swapped[swapped.index(won_on.tile)] = won_on.named  # type: ignore[assignment]
            alt = self.card.verify(swapped, st.exposures)
            if alt.mahjong or joker_thrown:
                verdict, misnamed, pays_for_table = alt, alt.mahjong, won_on.discarder if alt.mahjong else None
            if joker_thrown:
                verdict = replace(verdict, jokerless=False)  # the joker still lies in the hand shown
        if not verdict.mahjong:
            return self._mahjong_error(e, verdict.reason or "no line on the card matches this hand", verdict)
        if won_on is not None and won_on.fault_seat is not None:
            pays_for_table = won_on.fault_seat
        self.award = None
        value = int(verdict.value or 0)
        lines = [_line_json(x) for x in verdict.lines]
        data = {"seat": e.seat, "value": value, "jokerless": bool(verdict.jokerless),
                "singles_and_pairs": bool(verdict.singles_and_pairs), "lines": lines, "self_picked": self_picked,
                "discarder": None if won_on is None else won_on.discarder, "special": special,
                "exchange": self.exchanged, "misnamed": misnamed, "pays_for_table": pays_for_table}
        if e.self_picked != self_picked:
            data["said_self_picked"] = e.self_picked
        # Tournament discard penalties look at the exposures the discarder saw, not one made with the winning tile.
        seen_exposures = st.exposures if won_on is None else st.exposures[:self.exposed_before_claim]
        win = Win(winner=e.seat, value=value, discarder=None if self_picked or won_on is None else won_on.discarder,
                  # A Singles and Pairs hand holds no joker: whether that earns the bonus is the profile's call.
                  jokerless=bool(verdict.jokerless or verdict.singles_and_pairs),
                  singles_and_pairs=bool(verdict.singles_and_pairs),
                  pays_for_table=pays_for_table, exposures=len(seen_exposures),
                  quint_exposed=any(len(x) >= 5 for x in seen_exposures), misnamed=misnamed)
        out = [Ruling("mahjong_verified", e.t, e.seat, data)]
        amounts = settle_win(self.profile, win, range(self.players))
        out.append(self._settle(e.t, self._with_out_points(amounts, e.seat), "mahjong"))
        return out + self._game_over(e.t, "mahjong", e.seat)

    def _mahjong_error(self, e: ev.MahjongDeclared, reason: str, verdict: Any = None) -> list[Ruling]:
        st = self.seats[e.seat]
        asked: list[Ruling] = []
        if not self._penalty_stands(e.t, e.seat, "mahjong_in_error", reason, asked):
            self.award, self.phase = None, Phase.HOLDING  # only asked: the hand stays in play, as if retracted
            return asked
        retract = self.profile.rules.retract_max_exposures
        data: dict[str, Any] = {"seat": e.seat, "reason": reason, "retracted": False}
        nearest = getattr(verdict, "nearest", None) or []
        if nearest:
            data["nearest"] = [_line_json(getattr(x, "line", x)) for x in nearest[:3]
                               if hasattr(getattr(x, "line", x), "section")]
        self.award = None
        if len(st.exposures) <= retract:
            data["retracted"] = True
            self.phase = Phase.HOLDING
            return [Ruling("mahjong_in_error", e.t, e.seat, data)]
        out = [Ruling("mahjong_in_error", e.t, e.seat, data)]
        out += self._kill(e.t, e.seat, reason, how="mahjong_in_error")
        if len(self.live()) <= 1:
            return out + self._last_survivor(e.t)
        return out + self._start_turn(e.t, self._next_live(e.seat))

    # --- challenges, counts, throw-ins, penalties, seats ------------------------------------------------

    def _on_dead_challenge(self, e: ev.DeadChallenge) -> list[Ruling]:
        target = self.seats[e.target]
        if e.seat == e.target:
            raise Rejected("a player does not call their own hand dead")
        if self.seats[e.seat].out is not None:
            raise Rejected("the challenger is out of the game")
        if target.out is not None:
            return [Ruling("challenge_upheld", e.t, e.target, {"seat": e.target, "challenger": e.seat,
                                                               "already": True})]
        upheld = e.upheld
        lines: list[CardLine] | None = None
        if upheld is None and self.profile.mode == "payments":
            # Rules 004: home play settles a death challenge when the hand ends, from what the hands then show.
            self.challenges.append((e.seat, e.target))
            return [Ruling("challenge_pending", e.t, e.target, {"seat": e.target, "challenger": e.seat})]
        if upheld is None:
            lines = self.card.lines_allowing(target.exposures, self.seen_by(e.target)) if target.exposures else None
            upheld = lines is not None and not lines
        if upheld:
            out = [Ruling("challenge_upheld", e.t, e.target, {"seat": e.target, "challenger": e.seat})]
            out += self._kill(e.t, e.target, f"called dead by chair {e.seat}", lines=lines)
            return out + self._after_out(e.t, e.target)
        out = [Ruling("challenge_failed", e.t, e.seat, {"seat": e.seat, "target": e.target})]
        if self.profile.mode == "payments":
            pay = self.profile.payments
            assert pay is not None
            amount = pay.erroneous_death_challenge * int(self.card.cheapest_value)
            out.append(self._settle(e.t, transfer(range(self.players), e.seat, e.target, amount),
                                    "erroneous_death_challenge"))
        if self.profile.rules.erroneous_challenge_kills_challenger:
            out += self._kill(e.t, e.seat, "declared another player's hand dead in error")
            out += self._after_out(e.t, e.seat)
        return out

    def _on_tile_count(self, e: ev.TileCount) -> list[Ruling]:
        st = self.seats[e.seat]
        if not isinstance(e.count, int) or isinstance(e.count, bool) or e.count < 0:
            raise Rejected("count must be a whole number")
        if st.out is not None or e.count == st.total:
            return []
        if not self.first_discard:
            if (self._charleston_finished() and e.seat == self._next_live(self.east) and e.count == 12
                    and st.total == 13):
                st.concealed -= 1  # she holds 12: she takes a 13th from the wall (NMJL exception)
                return [Ruling("take_tile", e.t, e.seat, {"seat": e.seat, "reason": "12 tiles after the "
                                                          "Charleston: take one more from the wall"})]
            return self._redeal(e.t, f"chair {e.seat} holds {e.count} tiles, not {st.total}, before play began")
        return (self._kill(e.t, e.seat, f"wrong tile count: {e.count} instead of {st.total}")
                + self._after_out(e.t, e.seat))

    def _on_throw_in(self, e: ev.ThrowIn) -> list[Ruling]:
        if self.stage is Stage.OVER:
            # MahjCon: when all three others expose their hands, nobody scores; the last of them to do so may come
            # after the game already ended on the other two, so her intact-hand points are taken back.
            if e.seat != self.intact_hand or self.profile.points is None:
                raise Rejected("the game is over: deal the next game")
            self.intact_hand = None
            amounts = {s: (-self.profile.points.throw_in_survivor if s == e.seat else 0) for s in range(self.players)}
            return [Ruling("threw_in", e.t, e.seat, {"seat": e.seat}),
                    self._settle(e.t, amounts, "no_intact_hand")]
        if self.seats[e.seat].out is not None:
            raise Rejected("this player is already out")
        out = [Ruling("threw_in", e.t, e.seat, {"seat": e.seat})]
        self._kill(e.t, e.seat, "threw in the hand", how="threw_in")
        return out + self._after_out(e.t, e.seat)

    def _on_penalty(self, e: ev.Penalty) -> list[Ruling]:
        pen = self.profile.penalties
        if pen is None or not hasattr(pen, str(e.kind)) or str(e.kind).startswith("_"):
            raise Rejected(f"profile {self.profile.name!r} has no penalty {e.kind!r}")
        amount = int(getattr(pen, e.kind))
        amounts = {s: (amount if s == e.seat else 0) for s in range(self.players)}
        return [Ruling("penalty", e.t, e.seat, {"seat": e.seat, "kind": e.kind, "points": amount}),
                self._settle(e.t, amounts, f"penalty:{e.kind}")]

    def _on_seat_change(self, e: ev.SeatChange) -> list[Ruling]:
        if self.stage in (Stage.CHARLESTON, Stage.PLAY):
            raise Rejected("players change seats between games")
        a, b = e.seat, e.with_seat
        self.balances[a], self.balances[b] = self.balances[b], self.balances[a]
        if self.pivot in (a, b):
            self.pivot = b if self.pivot == a else a
        return [Ruling("seats_changed", e.t, None, {"seat": a, "with_seat": b,
                                                    "balances": seat_keys(self.balances)})]
