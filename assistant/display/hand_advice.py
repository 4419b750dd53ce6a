"""What the private seat page advises (issue 44): the nearest card lines, the tiles each still needs and how many
are live, dead lines, and whether the hand is Mah Jongg. The card in play answers (``engine.card``); this module
only turns its answers into the page's JSON and words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.display.state import line_text
from engine.tiles import JOKER, name_or_code

#: Lines the page lists (the nearest live ones); dead lines are counted, and the nearest few named.
SHOWN_LINES = 5
SHOWN_DEAD = 3


def _line_json(s: Any) -> dict[str, Any]:
    line = s.line.to_json()
    return {"line": line_text(line), "value": line.get("value"), "missing": s.missing, "dead": s.dead,
            "reason": s.reason or "",
            "need": [{"tile": m.tile, "name": name_or_code(m.tile), "count": m.count, "live": m.unseen,
                      "joker_ok": m.joker_ok} for m in s.need]}


def advise(card: Any, rack: Sequence[str], exposed: Sequence[Sequence[str]] = (),
           seen: Sequence[str] = ()) -> dict[str, Any]:
    """The advice for ``rack`` (her concealed tiles) with her ``exposed`` groups, against ``seen`` (tiles face up
    elsewhere: the floor, the others' exposures)."""
    total = len(rack) + sum(len(g) for g in exposed)
    out: dict[str, Any] = {"tiles": total, "lines": [], "dead": 0, "dead_lines": [], "verdict": None,
                           "jokers": sum(t == JOKER for t in rack)}
    if total not in (13, 14):
        out["note"] = (f"{total} tiles: the advice needs 13 or 14 (your rack and your exposures). "
                       "Photograph the whole rack, or add the tiles missing.")
        return out
    ranked = card.suggest(list(rack), [list(g) for g in exposed], list(seen))
    live = [s for s in ranked if not s.dead]
    dead = [s for s in ranked if s.dead]
    out["lines"] = [_line_json(s) for s in live[:SHOWN_LINES]]
    out["dead"] = len(dead)
    out["dead_lines"] = [_line_json(s) for s in dead if s.missing is not None][:SHOWN_DEAD]
    if total == 14:
        v = card.verify(list(rack), [list(g) for g in exposed])
        out["verdict"] = {"mahjong": bool(v.mahjong), "value": v.value,
                          "lines": [line_text(x.to_json()) for x in (v.lines or [])][:3],
                          "reason": v.reason or ""}
    return out
