"""The advice on a seat's private page (issue 44), from ``engine.card.advice``: the nearest card lines with the
tiles each still needs and how many are live, where Jokers may stand, dead lines, whether the hand is still
possible, the Charleston pass, and at 14 tiles whether it is Mah Jongg. This module only turns the engine's
answer into the page's JSON and the words the page shows and speaks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assistant.display.state import line_text
from engine.card.advice import PASSES, advise
from engine.tiles import JOKER, name_or_code

#: Dead lines the page names (the rest are counted).
SHOWN_DEAD = 3
#: The Charleston's passes as the page offers them, in order.
PASS_WORDS = {"first-right": "First pass, right", "first-across": "First pass, across",
              "first-left": "First pass, left (blind allowed)", "second-left": "Second Charleston, left",
              "second-across": "Second Charleston, across", "last-right": "Last pass, right (blind allowed)",
              "courtesy": "Courtesy pass, across"}
assert tuple(PASS_WORDS) == PASSES


#: Tile codes the engine's sentences use that read badly aloud ("3B"): numbered tiles and dragons. Winds stay
#: letters there (a lone "E" may be a word), which the screen says and the voice spells.
_CODE = re.compile(r"\b([1-9][BCD]|RD|GD|WD)\b")


def spoken_codes(text: str) -> str:
    """The engine's sentence with its tile codes in words: "Pass 3B 5B 7D" -> "Pass Three Bam, Five Bam, Seven
    Dot"."""
    words = _CODE.sub(lambda m: name_or_code(m.group(1)) + "\x00", text)
    return words.replace("\x00 ", ", ").replace("\x00", "")


def _names(tiles: Sequence[str]) -> list[str]:
    return [name_or_code(t) for t in tiles]


def _line(s: Any, joker_groups: Sequence[Sequence[str]] = ()) -> dict[str, Any]:
    line = s.line.to_json()
    return {"line": line_text(line), "value": line.get("value"), "missing": s.missing, "dead": s.dead,
            "reason": s.reason or "",
            "need": [{"tile": m.tile, "name": name_or_code(m.tile), "count": m.count, "live": m.unseen,
                      "joker_ok": m.joker_ok} for m in s.need],
            "joker_groups": [", ".join(_names(g)) for g in joker_groups]}


def hand_advice(card: Any, rack: Sequence[str], exposed: Sequence[Sequence[str]] = (), seen: Sequence[str] = (),
                charleston: str | None = None, courtesy: int | None = None) -> dict[str, Any]:
    """The page's advice for ``rack`` (her concealed tiles) with her ``exposed`` groups, against ``seen``
    (tiles face up elsewhere: the floor, the others' exposures); ``charleston``: the pass she is about to make
    (one of ``PASSES``; ignored once she has exposed, with a note)."""
    notes = []
    if charleston is not None and exposed:
        notes.append("The Charleston is over once tiles are exposed: no pass advice.")
        charleston = None
    a = advise(card, list(rack), [list(g) for g in exposed], list(seen), charleston=charleston, courtesy=courtesy)
    if a.total < 13:     # more than 14 is among the counts no set can show (count_problems)
        notes.append(f"{a.total} tiles{' with your exposures' if exposed else ''}: a hand holds 13, or 14 after a "
                     "pick. Add the missing tiles or take the photo again; the advice below is for the tiles as "
                     "they are.")
    if not a.possible:
        notes.append("No line on the card can still be made with these tiles and what is out: your hand is dead.")
    c = a.charleston
    return {
        "tiles": a.total, "jokers": sum(t == JOKER for t in rack), "possible": a.possible, "notes": notes,
        "lines": [_line(x.suggestion, x.joker_groups) | {"jokers_used": x.jokers_used} for x in a.nearest],
        "dead": len(a.dead), "dead_lines": [_line(s) for s in a.dead[:SHOWN_DEAD]],
        "pass": None if c is None else {
            "which": c.which, "words": PASS_WORDS[c.which], "tiles": _names(c.tiles), "blind": c.blind,
            "reason": spoken_codes(c.reason), "alternatives": [", ".join(_names(t)) for t in c.alternatives],
            "by_count": {str(n): ", ".join(_names(t)) for n, t in c.by_count.items()}},
        "verdict": None if a.verdict is None else {
            "mahjong": bool(a.verdict.mahjong), "value": a.verdict.value,
            "lines": [line_text(x.to_json()) for x in a.verdict.lines][:3], "reason": a.verdict.reason or ""},
    }
