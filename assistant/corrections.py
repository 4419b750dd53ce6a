"""Corrections a person can trust: each says what it will change before it applies, and one that would end or
restart a game waits for a person's ok.

A correction replays the game (engine.referee), so its effect can reach far: taking back a discard may undo a
call, a dead hand or a Mah Jongg. ``what_changes`` compares the referee's snapshot before and after (the referee's
``preview`` computes the after without applying anything) and says it in words for the display, speech and the
terminal; ``ends_or_restarts`` is the test for what needs the ok.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.tiles import name_or_code

#: Seconds a correction that waits for an ok stays pending.
PENDING_SECONDS = 30.0


def _ended(state: dict[str, Any]) -> bool:
    return state.get("stage") in ("over", "idle")


def ends_or_restarts(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether going from ``before`` to ``after`` ends a game in play, puts an ended one back in play (taking
    back its Mah Jongg and settlement) or undoes a deal."""
    return _ended(before) != _ended(after) or before.get("game") != after.get("game")


def _event_words(event: dict[str, Any] | None, name: Callable[[Any], str]) -> str:
    if not event:
        return "the last correction"
    who = f"{name(event['seat'])}'s " if "seat" in event else ""
    tile = f" of {name_or_code(event['tile'])}" if event.get("tile") else ""
    what = "hand shown" if event.get("type") == "mahjong_declared" else event.get("type", "event").replace("_", " ")
    return f"{who}{what}{tile}"


def what_changes(action: str, changed: dict[str, Any] | None, before: dict[str, Any], after: dict[str, Any],
                 name: Callable[[Any], str]) -> str:
    """One sentence: what the correction does, then what it changes at the table (or that nothing else does)."""
    head = {"undo": f"Undo takes back {_event_words(changed, name)}",
            "fix": f"The correction makes it {_event_words(changed, name)}",
            "revert": "Undo takes back the last correction"}.get(action, "The correction")
    parts: list[str] = []
    if before.get("game") != after.get("game"):
        parts.append(f"game {before.get('game')} is undone")
    elif _ended(before) != _ended(after):
        parts.append("the game ends" if _ended(after) else "the game is back in play")
    for i, (b, a) in enumerate(zip(before.get("seats") or [], after.get("seats") or [], strict=False)):
        if (b.get("out") is None) != (a.get("out") is None):
            out = f"out ({a.get('out_reason') or a.get('out')})" if a.get("out") else "back in the game"
            parts.append(f"{name(i)} is {out}")
        if b.get("exposures") != a.get("exposures"):
            shown = "; ".join(" ".join(e) for e in a.get("exposures") or []) or "none"
            parts.append(f"{name(i)}'s exposures become {shown}")
    wb, wa = before.get("window"), after.get("window")
    if (wb or {}).get("tile") != (wa or {}).get("tile") or (wb is None) != (wa is None):
        parts.append(f"the live discard is {name_or_code(wa['tile'])}" if wa else "no discard is live")
    if before.get("balances") != after.get("balances"):
        balances = (after.get("balances") or {}).items()
        parts.append("balances " + ", ".join(f"{name(int(s))} {v:+d}" for s, v in balances))
    if before.get("turn") != after.get("turn"):
        parts.append(f"it is {name(after.get('turn'))}'s turn")
    return f"{head}: " + ("; ".join(parts) if parts else "nothing else changes") + "."
