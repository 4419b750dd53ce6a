"""The rack tops, where exposures and a winning hand lie face up: which changes there are exposures, joker
exchanges and a hand shown for Mah Jongg."""

from __future__ import annotations

from vision import events as ev
from vision.calibration import SEAT_NAMES, table_to_seat
from vision.regions.slope import REAPPEAR_S
from vision.regions.state import Region, TableState
from vision.regions.turns import TAKEN_FROM_FLOOR_S
from vision.tracker import Diff, Track

LONGEST_EXPOSURE = 6      # a sextet: a longer run of face-up tiles on a rack top is a hand being shown


class RackTopRules:
    """Turns a rack top's committed changes into exposures, joker exchanges and a hand displayed."""

    def __init__(self, table: TableState) -> None:
        self.table = table

    def observe(self, r: Region, diff: Diff, idx: int, t: float, t_action: float) -> list[ev.Observation]:
        """The exposures, joker exchanges and a hand shown that region ``r``'s committed ``diff`` means, confirmed at
        frame ``idx`` (time ``t``), begun at ``t_action``."""
        turns = self.table.turns
        kw = {"t_action": t_action}
        out: list[ev.Observation] = []
        size = self.table.cal.layout.size_mm
        order = sorted(r.tracks.tracks, key=lambda tr: table_to_seat(r.seat, tr.x, tr.y, size)[0])
        face_up = [tr for tr in order if tr.face == "up" and tr.tile]
        if diff.added and len(face_up) >= 14:
            conf = min(tr.confidence for tr in face_up)
            if self._winning_tile_unseen(r.seat, diff, t):
                # Inferred, not seen: less sure than a rack read off the slope (0.9).
                out.append(ev.Racked(t, idx, 0.7, seat=r.seat, count=1, **kw))
            out.append(ev.HandDisplayed(t, idx, round(conf, 3), seat=r.seat, tiles=tuple(tr.tile for tr in face_up),
                                        **kw))
            turns.explain_removal(r.seat, 14)
            return out
        groups = exposures(order, r.seat, size, self.table.cal.layout.tile_w_mm)
        added = {tr.id for tr in diff.added if tr.face == "up" and tr.tile}
        for g in groups:
            if not added & {tr.id for tr in g}:
                continue
            if len(g) > LONGEST_EXPOSURE:
                # No exposure is that long: a hand laid face up, some of its tiles not read. Ask, never guess.
                out.append(ev.AskHuman(t, idx, 0.5, seat=r.seat, choices=(),
                                       question=f"Is {SEAT_NAMES[r.seat]} showing a Mah Jongg hand? "
                                                f"I can read {len(face_up)} of its tiles."))
            else:
                conf = min(tr.confidence for tr in g)
                out.append(ev.ExposurePlaced(t, idx, round(conf, 3), seat=r.seat,
                                             tiles=tuple(tr.tile for tr in g if tr.tile), **kw))
                turns.explain_removal(r.seat, len(g))
                turns.turn = r.seat
                if {r.seat, -1} & turns.floor_taken[1]:
                    turns.floor_taken = (-1e9, set())   # the tile taken off the floor went into this exposure
        for old, tr in diff.recoded:
            if old == "J" and tr.tile and tr.tile != "J":
                gi = next(i for i, g in enumerate(groups) if tr in g)     # groups count left to right
                seat = turns.actor(t_action, t)
                out.append(ev.JokerExchanged(t, idx, round(tr.confidence, 3), seat=seat, exposure_seat=r.seat,
                                             exposure_index=gi, tile=tr.tile, **kw))
                turns.explain_removal(seat)
        return out

    def _winning_tile_unseen(self, seat: int, diff: Diff, t: float) -> bool:
        """Whether the winning tile (a pick, or the discard called for Mah Jongg) joined the hand just laid face
        up without its rack being seen. A winner typically racks it and lays the hand down without the arm ever
        leaving the rack, so the slope is never still between the two, and the rack can fall in dropped frames
        too; on a far rack the model may not see the standing tiles at all. So: the seat got a tile (its last
        move a pick, or a tile taken off the floor with no move since) and racked none since, or, failing that
        knowledge, the hand holds exactly one tile more than the rack was seen holding standing (the slope's
        committed tiles plus those it lost moments ago without a move: it may commit the hand going down before
        the rack top does). Only exactly one: no other tile joins a hand on the way to Mah Jongg, and any other
        difference is a miscount that must not turn into a move. (Without it the oracle bench missed the winning
        rack in three of its 22 games: racks 80/83 -> 83/83, still 100 % precision.)"""
        turns = self.table.turns
        last = turns.last_move.get(seat)
        taken_t, takers = turns.floor_taken
        if last == ev.Racked.type:
            return False
        if last == ev.Picked.type or (last is None and seat in takers and t - taken_t <= TAKEN_FROM_FLOOR_S):
            return True
        standing = self.table.regions[f"slope{seat}"].tracks.count()
        standing += sum(1 for g in turns.unexplained.get(seat, []) if t - g[0] <= REAPPEAR_S)
        laid = sum(1 for tr in diff.added if tr.face == "up" and tr.tile)
        return laid - standing == 1


def exposures(order: list[Track], seat: int, size: float, tile_w: float) -> list[list[Track]]:
    """Split a rack top's tiles (sorted along the rack) into exposures at gaps wider than half a tile."""
    groups: list[list[Track]] = []
    last_u = None
    for tr in order:
        u = table_to_seat(seat, tr.x, tr.y, size)[0]
        if last_u is None or u - last_u > 1.5 * tile_w:
            groups.append([])
        groups[-1].append(tr)
        last_u = u
    return groups
