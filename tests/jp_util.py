"""Small helpers for the Japanese scoring tests: build a request with defaults, look things up in answers."""

from __future__ import annotations

from dataclasses import replace

from engine.japanese import PRESETS, score_request


def jp(hand: str, win: str, tsumo: bool = False, melds: tuple[tuple[str, str], ...] = (), seat: str = "S",
       rnd: str = "E", rules: str = "reference", custom: dict | None = None, **flags) -> dict:
    """Score a hand (non-dealer South in the East round unless told) and insist the input was valid.

    ``custom``: fields to change in the named preset (the request then uses that changed ruleset).
    """
    request = {"hand": hand, "win": win, "tsumo": tsumo, "seat_wind": seat, "round_wind": rnd, "rules": rules,
               "melds": [{"type": t, "tiles": tiles} for t, tiles in melds]} | flags
    presets = PRESETS if not custom else {rules: replace(PRESETS[rules], **custom)}
    result = score_request(request, presets)
    assert result["ok"], result
    return result


def yaku(result: dict) -> dict[str, int]:
    """name -> han of a winning answer."""
    assert result["win"], result
    return {y["name"]: y["han"] for y in result["yaku"]}


def fu_parts(result: dict) -> list[tuple[int, str]]:
    assert result["win"], result
    return [(p["fu"], p["reason"]) for p in result["fu_details"]]
