"""The racks' slopes, where a seat's concealed tiles stand: which changes there are racks, and whether a rack's
count of standing tiles disagrees with the referee's."""

from __future__ import annotations

import cv2
import numpy as np

from vision import events as ev
from vision.change import MM_PER_PX
from vision.regions.state import Region, TableState
from vision.tracker import Diff

REAPPEAR_S = 5.0          # standing tiles gone without a move and back within this long were only hidden
REAPPEAR_IDLE_S = 60.0    # the same at a seat not in turn, which racks nothing: the model may lose a tile for long
ROW_CHANGED = 0.05        # share of a tile's footprint that must differ for a row of standing tiles to have changed
                          # at all (dark backs on a dark rack differ from it little: 0.08 was the least a real
                          # rack changed over the 20 HD games)
RACK_PICTURED = 0.4       # share of a tile-sized square of a slope changed since its seat's pick: a tile racked
                          # (real racks 0.73-1.0 over the HD games, a hand hovering near the rack up to 0.2; with
                          # it the 20 HD games with the model read racks 100/100 %, 92.8 % recall before)
COUNT_PATIENCE_S = 3.0    # a standing-tile count must differ from the referee's this long to be reported


class SlopeRules:
    """Turns a slope's committed changes into racks."""

    def __init__(self, table: TableState) -> None:
        self.table = table

    def observe(self, r: Region, diff: Diff, idx: int, t: float, t_action: float) -> list[ev.Observation]:
        """The racks that region ``r``'s committed ``diff`` means, confirmed at frame ``idx`` (time ``t``),
        begun at ``t_action``."""
        turns = self.table.turns
        out: list[ev.Observation] = []
        # Tiles found and lost in one reading are the same tiles boxed elsewhere (or a tile moved within
        # the row), not a rack: a rack leaves the row one tile longer.
        # Nor is a second one before the seat moves again (a pick, a discard, a call, a joker exchange, a
        # tile taken off the floor): one pick, one rack. It is the model finding a standing tile it lost
        # while reading the first (under the hand that racked it, or an arm resting near). (With it, 8 HD bench
        # games with the model read every event type at 100 % precision and recall, nothing invented.)
        # Nor is a row found longer whose picture did not change: the tile was standing there all along.
        grown = len(diff.added) - self._reappeared(r, diff, t) - len(diff.removed)
        again = turns.last_move.get(r.seat) == ev.Racked.type
        if grown > 0 and not again and turns.may_rack(r.seat, t) and self._row_changed(r):
            out.append(ev.Racked(t, idx, 0.9, seat=r.seat, count=grown, t_action=t_action))
            turns.turn = r.seat
        elif self._racked_unseen(r):
            out.append(ev.Racked(t, idx, 0.6, seat=r.seat, count=1, t_action=t_action))
            r.pictured = self.table.watch.views[r.name].ref
        return out

    def _racked_unseen(self, r: Region) -> bool:
        """Whether the seat in turn, having picked and racked nothing yet, has put a tile on its rack that the
        tile model does not see. Standing tiles show a few pixels of edge from above, and on a far or side rack of
        a tilted camera the model can miss most of a row (dark backs on a dark rack the worst). The pixels still
        tell: somewhere on the slope a tile-sized patch differs from the slope's picture when the pick was seen.
        Between a pick and a rack nothing else changes a slope for good (an arm passing leaves it as it was; a
        picked tile discarded at once never touches it), and the seat's next move ends the wait."""
        turns = self.table.turns
        seat = r.seat
        if turns.last_move.get(seat) != ev.Picked.type or seat != turns.turn or seat not in turns.slope_at_pick:
            return False
        old = turns.slope_at_pick[seat]
        if old is None:                 # a disturbance since the pick: compare with the slope as read after it
            turns.slope_at_pick[seat] = self.table.watch.views[r.name].ref
            return False
        changed = self.table.changed_pixels(r, old)
        if changed is None:
            return False
        side = max(1, round(self.table.cal.layout.tile_w_mm / MM_PER_PX))
        share = cv2.blur(changed.astype(np.float32), (side, side), borderType=cv2.BORDER_CONSTANT)
        return float(share.max()) >= RACK_PICTURED

    def _row_changed(self, r: Region) -> bool:
        """Whether the picture changed under any tile of a row of standing tiles since the row last changed. A
        rack puts a tile where there was none (at the row's end, or in a gap the player opens by pushing the
        others along), so somewhere under the new row the picture differs; a standing tile the model missed
        and now finds leaves the picture as it was. The check is over the whole row rather than the track the
        tracker calls new, because a tile pushed in mid-row can leave the tracker matching old tiles to new
        places. A standing tile shows little of itself from above, and a dark back on a dark rack differs from
        it by little, hence the low share (``ROW_CHANGED``): a row the model merely read better shows none."""
        changed = self.table.changed_pixels(r, r.before)
        return any(self.table.share_under(r, tr, changed) >= ROW_CHANGED for tr in r.tracks.tracks)

    def _reappeared(self, r: Region, diff: Diff, t: float) -> int:
        """How many of the standing tiles just added are tiles that went missing moments ago for no reason: a
        hand resting at the table's edge over a rack can hide standing tiles without the arm reaching far
        enough to be seen as one, and the model can miss a standing tile in one reading and see it in the next;
        their coming back is no rack. A removal is explained by a move of that seat (discard, exposure, joker
        exchange, hand shown) and forgotten after ``REAPPEAR_S``."""
        turns = self.table.turns
        in_turn = r.seat == turns.turn
        memory = REAPPEAR_S if in_turn else REAPPEAR_IDLE_S
        gone = [g for g in turns.unexplained.get(r.seat, []) if t - g[0] <= memory]
        gone += [(t, tr.x, tr.y, len(diff.removed)) for tr in diff.removed]
        back = 0
        tol = 0.5 * self.table.cal.layout.tile_w_mm
        for tr in diff.added:
            # A tile lost by an earlier reading and found again where it stood. Several at once: a hand over the
            # row. One, at a seat not in turn: the tile model missed it for a reading (standing tiles are the
            # hardest to see from above); only the player in turn racks (a rack seen elsewhere while a discard
            # is live would be taken for a Mah Jongg call). The player in turn may really take one tile and
            # rack another where it stood (a joker exchange closes up the row), so there it takes several.
            hit = next((g for g in gone if (g[3] >= 2 or not in_turn) and g[0] < t
                        and abs(g[1] - tr.x) + abs(g[2] - tr.y) <= 2 * tol), None)
            if hit is not None:
                gone.remove(hit)
                back += 1
        turns.unexplained[r.seat] = gone
        return back


class RackCounts:
    """Standing tiles against the referee's concealed counts. Reported only after a difference has lasted
    ``COUNT_PATIENCE_S`` (the camera and the referee see a move at slightly different moments: a rack read
    before the pick is ruled), and once until the counts agree again, unless it turns from fewer tiles seen
    than expected to more or back: a rack whose standing tiles the model keeps losing and finding (a far rack,
    dark backs) would otherwise be reported at every new count, while the person told once already knows."""

    def __init__(self, table: TableState) -> None:
        self.table = table
        self._reported: dict[int, bool] = {}   # seat -> the miscount reported was more tiles seen than expected
        self._since: dict[int, tuple[float, int, int]] = {}

    def check(self, rack_counts: dict[int, int] | None, idx: int, t: float) -> list[ev.Observation]:
        """The miscounts to report at frame ``idx``, given the referee's concealed count per seat."""
        out: list[ev.Observation] = []
        for seat, want in (rack_counts or {}).items():
            r = self.table.regions.get(f"slope{seat}")
            if r is None or r.needs_read or r.silent:
                self._since.pop(seat, None)
                continue
            seen = r.tracks.count()
            if seen == want:
                self._since.pop(seat, None)
                self._reported.pop(seat, None)
                continue
            since = self._since.setdefault(seat, (t, seen, want))
            if since[1:] != (seen, want):
                self._since[seat] = (t, seen, want)
            elif t - since[0] >= COUNT_PATIENCE_S and self._reported.get(seat) != (seen > want):
                self._reported[seat] = seen > want
                out.append(ev.TileCountMismatch(t, idx, 0.7, seat=seat, where="rack", seen=seen, expected=want))
        return out
