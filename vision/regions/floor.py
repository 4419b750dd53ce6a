"""The discard floor: which changes there are discards, and when a discard's tile must be asked about."""

from __future__ import annotations

from vision import events as ev
from vision.regions.state import CHANGED_UNDER, Region, TableState
from vision.tracker import ALTS, Diff

DISCARD_SURE = 0.75       # a discard read less surely is also asked about: a wrong tile means a wrong claim
                          # (every wrong discard tile the model read in the eight HD bench games scored under it)
SURE_CODE = 0.8           # a floor tile's code this sure that reading another there means a tile thrown onto it


class FloorRules:
    """Turns the floor's committed changes into discards (and the questions a doubtful one calls for)."""

    def __init__(self, table: TableState) -> None:
        self.table = table

    def observe(self, r: Region, diff: Diff, idx: int, t: float, t_action: float) -> list[ev.Observation]:
        """The discards (and questions about them) that region ``r``'s committed ``diff`` means, confirmed at
        frame ``idx`` (time ``t``), begun at ``t_action``."""
        turns = self.table.turns
        kw = {"t_action": t_action}
        out: list[ev.Observation] = []
        if any(tr.face == "up" for tr in diff.removed):
            # Whose arms were out then: the taker is among them (a caller and the next player reach at once).
            turns.floor_taken = (t, set(turns.arms(t_action, t)) or {turns.actor(t_action, t)})
            for seat in turns.floor_taken[1]:        # a tile taken off the floor is a move of its taker
                turns.last_move.pop(seat, None)
        out += self._recoded(diff, idx, t)
        # (A tile seen as a back before and read face up now is the same tile read better: no throw.)
        thrown_onto = [tr for old, tr in diff.recoded
                       if old and tr.was_confidence >= SURE_CODE and r.touched and tr.face == "up" and tr.tile]
        # A discard lands where there was felt: the floor's picture changed under it since its tiles last
        # changed. A tile the model sees only now (a blank Soap it took for a back, one it kept missing or
        # lost for a reading) was there all along. The changed pixels are worked out once for all of them.
        new = [tr for tr in diff.added + thrown_onto if tr.face == "up" and tr.tile]
        changed = self.table.changed_pixels(r, r.before) if new else None
        for tr in new:
            if self.table.share_under(r, tr, changed) < CHANGED_UNDER:
                continue
            seat = turns.actor(t_action, t)
            turns.last_discard = (tr.id, seat)
            out.append(ev.DiscardDown(t, idx, round(tr.confidence, 3), seat=seat, tile=tr.tile, **kw))
            turns.explain_removal(seat)
            if tr.confidence < DISCARD_SURE:
                out.append(ev.AskHuman(t, idx, tr.confidence, question="Which tile was just discarded?",
                                       seat=seat, choices=tr.alts or (tr.tile,)))
            if seat >= 0:
                turns.turn = (seat + 1) % 4
        return out

    def _recoded(self, diff: Diff, idx: int, t: float) -> list[ev.Observation]:
        """Floor tiles re-read as another kind where they lay. A sure code replaced is a tile thrown onto (or
        pushed over) the old one if someone reached over the floor meanwhile (``observe`` reports it as a
        discard); without that (a re-read after a bump or a light change) the picture changed, not the tile. A
        shaky code corrected is asked about only for the latest discard, the one a claim can be made on: older
        floor tiles decide no ruling, and a question per flicker of the classifier would drown the real ones."""
        out: list[ev.Observation] = []
        last_id, last_seat = self.table.turns.last_discard or (None, -1)
        for old, tr in diff.recoded:
            if tr.face == "up" and tr.tile and tr.was_confidence < SURE_CODE and tr.id == last_id:
                out.append(ev.AskHuman(t, idx, tr.confidence, question="Which tile was discarded here?",
                                       seat=last_seat,
                                       choices=tuple(dict.fromkeys(c for c in (tr.tile, old, *tr.alts) if c))[:ALTS]))
        return out
