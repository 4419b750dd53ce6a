"""The Charleston part of the referee: the six passes, stopping after the first left, the courtesy across.

A mixin of :class:`engine.referee.referee.Referee` (it reads and writes the referee's state: ``step``,
``passed``, ``stopped``, ``courtesy``, ``charleston_begun``), kept apart because it is a self-contained phase of
the game that ends at East's first discard.
"""

from __future__ import annotations

from engine.referee import events as ev
from engine.referee.rulings import Ruling
from engine.referee.state import BLIND_STEPS, CHARLESTON_STEPS, Rejected, Stage
from engine.tiles import JOKER


class CharlestonRules:
    """Passes right, across, left (compulsory), then left, across, right unless stopped; 3 tiles each, blind
    only on the first left and the last right, never a joker; then the smaller of two courtesy offers."""

    def _charleston_open(self) -> None:
        if self.players == 3:
            raise Rejected("no Charleston at a 3-player table")
        if self.stage is not Stage.CHARLESTON:
            raise Rejected("the Charleston is over")

    def _on_charleston_pass(self, e: ev.CharlestonPass) -> list[Ruling]:
        self._charleston_open()
        if self.step >= len(CHARLESTON_STEPS) or (self.stopped and self.step >= 3):
            raise Rejected("no more Charleston passes (only the courtesy across)")
        want = CHARLESTON_STEPS[self.step]
        if e.direction != want:
            raise Rejected(f"the pass now is {want} (pass {self.step + 1} of 6)")
        if e.seat in self.passed:
            raise Rejected("this player already passed")
        if e.count != 3:
            raise Rejected("a Charleston pass is 3 tiles (blind tiles included)")
        if not isinstance(e.blind, int) or not 0 <= e.blind <= 3:
            raise Rejected("blind must be 0..3")
        if e.blind and self.step not in BLIND_STEPS:
            raise Rejected("a blind pass is allowed only on the first left and the last right")
        if JOKER in e.tiles:
            raise Rejected("jokers may not be passed in the Charleston")
        if e.tiles and len(e.tiles) != e.count:
            raise Rejected("tiles listed do not match the count")
        self.charleston_begun = True
        self.passed.add(e.seat)
        out = [Ruling("charleston_passed", e.t, e.seat, {"direction": want, "pass": self.step + 1,
                                                        "blind": e.blind})]
        if len(self.passed) == self.players:
            self.step += 1
            self.passed = set()
            out.append(Ruling("charleston_step_done", e.t, None, {"direction": want, "pass": self.step,
                                                                  "may_stop": self.step == 3}))
        return out

    def _on_charleston_stop(self, e: ev.CharlestonStop) -> list[Ruling]:
        self._charleston_open()
        if self.step != 3 or self.passed or self.stopped:
            raise Rejected("the Charleston may be stopped only after the first left and before the second left")
        self.stopped = True
        return [Ruling("charleston_stopped", e.t, e.seat, {"seat": e.seat})]

    def _on_courtesy_pass(self, e: ev.CourtesyPass) -> list[Ruling]:
        self._charleston_open()
        if not (self.step == 6 or (self.stopped and self.step == 3)):
            raise Rejected("the courtesy pass comes after the Charleston")
        if not isinstance(e.count, int) or not 0 <= e.count <= 3:
            raise Rejected("a courtesy offer is 0 to 3 tiles")
        if JOKER in e.tiles:
            raise Rejected("jokers may not be passed in the Charleston")
        if e.seat in self.courtesy:
            raise Rejected("this player already made a courtesy offer")
        self.courtesy[e.seat] = e.count
        across = (e.seat + 2) % 4
        out = [Ruling("courtesy_offered", e.t, e.seat, {"count": e.count})]
        if across in self.courtesy:
            out.append(Ruling("courtesy_agreed", e.t, None, {"seats": sorted((e.seat, across)),
                                                             "count": min(e.count, self.courtesy[across])}))
        return out

    def _charleston_finished(self) -> bool:
        return self.players == 3 or self.step == len(CHARLESTON_STEPS) or (self.stopped and self.step == 3)
