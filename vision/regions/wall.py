"""The walls: which tiles gone from a wall are picks, by whom, and from which end."""

from __future__ import annotations

import numpy as np

from vision import events as ev
from vision.calibration import table_to_seat
from vision.regions.state import CHANGED_UNDER, Region, TableState
from vision.tracker import Diff

#: Tile widths within which two wall tiles are neighbours (a run's end; a tile beside a covered one).
NEAR_TILES = 1.5


class WallRules:
    """Turns a wall's committed changes into picks."""

    def __init__(self, table: TableState) -> None:
        self.table = table

    def observe(self, r: Region, diff: Diff, idx: int, t: float, t_action: float) -> list[ev.Observation]:
        """The picks that region ``r``'s committed ``diff`` means, confirmed at frame ``idx`` (time ``t``),
        begun at ``t_action``."""
        turns = self.table.turns
        out: list[ev.Observation] = []
        # A player picks one tile at a time. Several gone in one reading were hidden (a sleeve the colour of
        # the felt lying still over the wall while its hand works at a far rack) or lost by the model: no picks,
        # unless the picture tells the one taken (below). (Ten HD bench games no rule had been tuned on, seeds
        # 950-959, with the model: picks 89.5 -> 100 % precision, 4 invented -> 0.)
        # Among several gone at once, the one whose place in the wall's picture changed is the pick, and the
        # others are tiles the model lost (rendered HD game 913: a pick and two dark backs on a dark felt in one
        # reading). A single tile gone is not judged by the picture: a back the colour of the felt changes
        # none of it (game 917, every pick).
        # A wall's tiles stand face down: a tile gone right beside backs read as faces in the same reading lies
        # under whatever covers them (a dark sleeve, still, while its hand picks from another wall: HD game 906,
        # where a classifier read two "faces" on it and lost the third back), so it is no pick. Only beside them:
        # a set whose backs look like blank Soaps has backs read as Soaps now and then anywhere (game 901).
        size, tile_w = self.table.cal.layout.size_mm, self.table.cal.layout.tile_w_mm
        covered = [tr for old, tr in diff.recoded if old is None and tr.face == "up"]
        gone = [tr for tr in diff.removed
                if not any(np.hypot(tr.x - c.x, tr.y - c.y) <= NEAR_TILES * tile_w for c in covered)]
        if len(gone) > 1:
            changed = self.table.changed_pixels(r, r.before)
            gone = [tr for tr in gone if self.table.share_under(r, tr, changed) >= CHANGED_UNDER]
        rest = [table_to_seat(r.seat, tr.x, tr.y, size)[0] for tr in r.tracks.tracks
                + [tr for tr in diff.removed if tr not in gone]]
        picked = gone if len(gone) == 1 else []
        for tr in picked:
            u = table_to_seat(r.seat, tr.x, tr.y, size)[0]
            end = wall_end(u, rest, tile_w)
            seat = turns.actor(t_action, t)
            out.append(ev.Picked(t, idx, 0.9, seat=seat, wall_seat=r.seat, end=end, t_action=t_action))
            if seat >= 0:
                turns.turn = seat
                turns.slope_at_pick[seat] = self.table.watch.views[f"slope{seat}"].ref
        return out


def wall_end(u: float, rest: list[float], tile_w: float) -> str:
    """Which end of its run of wall a tile taken at ``u`` (mm along the wall, as its owner sees it) came from:
    "left", "right", or "middle" when tiles still stand right beside it on both sides. A broken wall is two runs,
    each with its own ends, so the neighbours decide, not the wall's middle."""
    near = NEAR_TILES * tile_w
    left = any(u - near <= v < u for v in rest)
    right = any(u < v <= u + near for v in rest)
    if left and right:
        return "middle"
    if left or right:
        return "right" if left else "left"
    return "left" if not rest or u <= float(np.mean(rest)) else "right"   # a run's last tile
