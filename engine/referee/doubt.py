"""The camera alone never penalises: when a penalty rests on what the camera read, the referee asks a person.

A misread tile, a tile the camera lost sight of, a seat it took for another: each looks exactly like a fault (an
invalid exposure, a discard out of turn, a Mah Jongg that does not verify), and a referee that punishes a player
for its own misreading is worse than none. So every penalty the referee can give (a dead hand, Mah Jongg in
error, paying for the table, a redeal) passes through ``_penalty_stands``, here and nowhere else:

* an event a person gave (keyboard, display, board, a scripted or journaled game: ``apply(event, trusted=True)``,
  the default) is trusted: the penalty applies at once, as the rules say;
* an event the camera read (``trusted=False``) only *asks*: a ``question`` ruling names the seat, the penalty and
  why, and the referee goes on as if the camera had misread (each call site says what that means for it: an
  exposure of other tiles than the one called counts as that tile, a discard out of turn means mahj lost track of
  the turn, ...). A person's ``answer`` event confirms (the game is replayed with that event trusted, so the
  penalty applies at the moment it happened, with all it entails) or denies it.

A question is dropped, and can no longer be confirmed, when ``QUESTION_SECONDS`` pass, when play goes on (another
player discards) or when the next game is dealt. Questions are numbered by the event that raised them (its index
among the game events), which stays valid across replays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.referee import events as ev
from engine.referee.rulings import Ruling
from engine.referee.state import Rejected

#: How long a question may be answered (table seconds). Long enough to look at the rack, short enough that an
#: answer still belongs to the moment it is about.
QUESTION_SECONDS = 30.0

#: The rulings a confirmed question brings back for the display and speech: the penalty, and what it changed
#: afterwards (a win on a discard at fault is paid by the discarder alone), replayed from the confirmed event on.
PENALTY_RULINGS = ("dead_hand", "mahjong_in_error", "redeal", "discard_at_fault", "game_over", "settlement")


@dataclass(frozen=True)
class Question:
    """A penalty the camera's evidence would give, waiting for a person. ``index``: the event that raised it."""

    index: int
    t: float
    seat: int | None
    penalty: str  # "dead_hand", "mahjong_in_error", "pays_for_table" or "redeal"
    reason: str

    @property
    def until(self) -> float:
        return self.t + QUESTION_SECONDS

    def to_json(self) -> dict[str, Any]:
        return {"id": self.index, "seat": self.seat, "penalty": self.penalty, "reason": self.reason,
                "until": self.until}


class Doubt:
    """A mixin of :class:`engine.referee.referee.Referee`: the questions and their answers."""

    def _penalty_stands(self, t: float, seat: int | None, penalty: str, reason: str, out: list[Ruling]) -> bool:
        """Whether a penalty applies now. If the event being ruled on is the camera's, the penalty is put to the
        table as a question (appended to ``out``, unless that question was already answered no) and the caller
        goes on as if it were a misreading."""
        if self.trusting:
            return True
        index = len(self.events)
        if index not in self.dismissed:
            question = Question(index, t, seat, penalty, reason)
            self.questions.append(question)
            out.append(Ruling("question", t, seat, question.to_json()))
        self.doubted.add((seat, reason))
        return False

    def _exposures_doubted(self, seat: int) -> bool:
        """Whether the camera's picture of ``seat``'s exposures was already put to the table this game (an
        invalid exposure, a hand no line allows): a hand impossible because of it is not asked about again."""
        return any(s == seat and r.startswith(("invalid exposure", "impossible hand")) for s, r in self.doubted)

    def open_questions(self, t: float) -> list[Question]:
        """The questions a person may still answer at table time ``t``."""
        return [q for q in self.questions if t <= q.until]

    def _lapse(self, e: ev.Event, index: int) -> list[Ruling]:
        """Drop the questions that ``e`` (accepted as event number ``index``) leaves behind: too old, or play went
        on (another player discarded)."""
        out, keep = [], []
        for q in self.questions:
            if e.t > q.until:
                out.append(Ruling("question_dropped", e.t, q.seat, {"id": q.index, "reason": "nobody answered"}))
            elif isinstance(e, ev.Discard) and q.index < index and e.seat != q.seat:
                out.append(Ruling("question_dropped", e.t, q.seat, {"id": q.index, "reason": "play went on"}))
            else:
                keep.append(q)
        self.questions = keep
        return out

    def _answer(self, e: ev.Answer) -> list[Ruling]:
        """Yes: replay the game with that event trusted, so its penalty lands when it happened and everything
        after follows from it. No: the question is gone for good (kept in ``dismissed`` across replays)."""
        asked = [q for q in self.questions if q.index == e.index]
        if not asked or not isinstance(e.t, int | float) or e.t > asked[0].until:
            raise Rejected(f"no open question {e.index} (answered, or dropped once play went on or time ran out)")
        before = (list(self.events), list(self.trusted), set(self.dismissed))
        self.questions = [q for q in self.questions if q.index != e.index]
        seat = asked[0].seat
        if not e.confirmed:
            self._remember(*before)
            self.dismissed.add(e.index)
            return [Ruling("question_dropped", e.t, seat, {"id": e.index, "reason": "answered no"})]
        trusted = list(self.trusted)
        trusted[e.index] = True
        replayed = self._replay(list(self.events), trusted)
        self._remember(*before)
        penalties = [r for rulings in replayed[e.index:] for r in rulings if r.kind in PENALTY_RULINGS]
        return ([Ruling("confirmed", e.t, seat, {"id": e.index, "penalties": [q.penalty for q in asked],
                                                 "state": self.snapshot()})]
                + penalties + [Ruling("turn", e.t, self.turn, {"seat": self.turn})])
