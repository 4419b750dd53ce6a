"""What the table reader took in when mahj joined a game in progress (``mahj watch --join``).

Joining, the reader adopts what already lies on the table without a move (it did not see it happen): the
discards on the floor, each seat's exposures on its rack, the standing tiles and the wall. A person must be able
to check that: it is said once, as a ``taken_in`` notice (the ``--json`` stream, the journal and the display's
floor and exposures), when every region has been read once, or after WAIT_S of table time with the regions not
read yet named (a region under an arm the whole time would otherwise keep it back for good).
"""

from __future__ import annotations

from typing import Any

from engine.tiles import TILES
from vision.calibration import SEAT_NAMES, table_to_seat

#: Table seconds after the join within which every region is expected to have been read once.
WAIT_S = 10.0
#: Tiles on a rack top further apart than this many tile widths belong to two exposures.
EXPOSURE_GAP = 1.5


def taken_in(reader: Any, since: float, t: float) -> dict | None:
    """The reader's committed tiles as a notice's data once every region was read (or WAIT_S passed), else None.

    ``floor``: the face-up discards' codes ("?" where the face was not read) and ``floor_down``; per seat
    (``seats``, keyed "0".."3"): ``exposures`` (the rack top's face-up tiles in runs along the rack), ``rack``
    (tiles standing on it) and ``wall``; ``unread``: regions not read yet; ``message``: the same in words."""
    unread = sorted(name for name, r in reader.regions.items() if r.committed_at < 0)
    if unread and t - since < WAIT_S:
        return None
    layout = reader.cal.layout
    floor = reader.tiles("floor") if "floor" in reader.regions else []
    up = sorted((tr.tile or "?" for tr in floor if tr.face == "up"), key=_order)
    seats: dict[str, dict] = {}
    for seat in range(4):
        if f"rack_top{seat}" not in reader.regions:
            continue
        on_top = [(table_to_seat(seat, tr.x, tr.y, layout.size_mm)[0], tr.tile or "?")
                  for tr in reader.tiles(f"rack_top{seat}") if tr.face == "up"]
        seats[str(seat)] = {"exposures": _runs(sorted(on_top), EXPOSURE_GAP * layout.tile_w_mm),
                            "rack": len(reader.tiles(f"slope{seat}")), "wall": len(reader.tiles(f"wall{seat}"))}
    data = {"floor": up, "floor_down": len(floor) - len(up), "seats": seats, "unread": unread}
    return data | {"message": describe(data)}


def _order(code: str) -> int:
    return TILES.index(code) if code in TILES else len(TILES)


def _runs(along: list[tuple[float, str]], gap: float) -> list[list[str]]:
    """Tiles (position along the rack, code), in order, cut into runs wherever two lie more than ``gap`` apart."""
    runs: list[list[str]] = []
    last = None
    for u, code in along:
        if last is None or u - last > gap:
            runs.append([])
        runs[-1].append(code)
        last = u
    return runs


def describe(data: dict) -> str:
    """The notice in words: 'mahj took in the table: floor 12 face up (...); East: exposures 5B 5B 5B, ...'."""
    floor = f"floor {len(data['floor'])} face up" + (f" ({' '.join(data['floor'])})" if data["floor"] else "")
    if data["floor_down"]:
        floor += f", {data['floor_down']} face down"
    parts = [floor]
    for seat, s in data["seats"].items():
        shown = "; ".join(" ".join(run) for run in s["exposures"]) or "no exposures"
        parts.append(f"{SEAT_NAMES[int(seat)]}: {shown}, {s['rack']} on the rack, wall {s['wall']}")
    text = "mahj took in the table: " + "; ".join(parts)
    if data["unread"]:
        text += f" (not read yet: {', '.join(data['unread'])})"
    return text + ". Correct what is wrong (keys or the display)."
