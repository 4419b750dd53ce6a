"""A game report as sent by a scorer's phone, a camera table or the director, checked and turned into an
``engine.tournament.GameResult``.

The winning hand comes either as tiles (verified on the tournament's card, as a camera table's referee does:
the value, jokerless and Singles and Pairs come from the card, not from the sender) or as a card line (section
and number: the value comes from the card, the scorer says whether it was jokerless). Every problem is a
ReportError whose message names the field.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from typing import Any

from engine.card import Card
from engine.tiles import TileError, parse_tiles
from engine.tournament import GameResult

SOURCES = ("scorer", "camera", "director")


class ReportError(ValueError):
    """A report that cannot be taken; ``status`` is the HTTP status it is answered with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _letter(body: dict, key: str) -> str | None:
    value = body.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.upper() not in ("A", "B", "C", "D"):
        raise ReportError(f"{key}: a seat letter A-D, not {value!r}")
    return value.upper()


def _letters(body: dict, key: str) -> tuple[str, ...]:
    value = body.get(key) or []
    if not isinstance(value, list):
        raise ReportError(f"{key}: a list of seat letters")
    return tuple(sorted({_letter({key: v}, key) for v in value}))  # type: ignore[misc]


def _flag(body: dict, key: str) -> bool:
    value = body.get(key, False)
    if not isinstance(value, bool):
        raise ReportError(f"{key}: true or false")
    return value


def _int(body: dict, key: str, low: int, high: int, default: int | None = None) -> int:
    value = body.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ReportError(f"{key}: a whole number {low}..{high}")
    return value


def _penalties(body: dict) -> tuple[tuple[str, str], ...]:
    value = body.get("penalties") or []
    if not isinstance(value, list) or not all(isinstance(p, dict) for p in value):
        raise ReportError('penalties: a list of {"seat": LETTER, "kind": KIND}')
    return tuple(sorted((_letter(p, "seat") or "", str(p.get("kind", ""))) for p in value))


def _hand(card: Card, body: dict) -> dict[str, Any]:
    """Value, jokerless, Singles and Pairs and exposures of the winning hand, from its tiles or its card line."""
    hand, line = body.get("hand"), body.get("line")
    if hand is not None:
        if not isinstance(hand, dict):
            raise ReportError('hand: {"concealed": "1B 1B ...", "exposed": ["3B 3B 3B", ...]}')
        try:
            concealed = parse_tiles(hand.get("concealed", ""))
            exposed = [parse_tiles(g) for g in hand.get("exposed") or []]
        except (TileError, TypeError) as exc:
            raise ReportError(f"hand: {exc}") from None
        verdict = card.verify(concealed, exposed)
        if not verdict.mahjong:
            near = "; ".join(f"{s.line.section} #{s.line.number} needs {s.missing} more" for s in verdict.nearest[:2])
            why = verdict.reason or (f"nearest: {near}" if near else "no line matches")
            raise ReportError(f"hand: not Mah Jongg on the card {card.name!r} ({why})", status=422)
        best = verdict.lines[0]
        return {"value": int(verdict.value or 0), "jokerless": verdict.jokerless,
                "singles_and_pairs": verdict.singles_and_pairs,
                "exposures": _int(body, "exposures", 0, 4, len(exposed)),
                "quint_exposed": _flag(body, "quint") or any(len(g) >= 5 for g in exposed),
                "line": {"section": best.section, "number": best.number},
                "tiles": {"concealed": concealed, "exposed": exposed}}
    if not isinstance(line, dict):
        raise ReportError("a win needs the hand: as tiles (hand) or as a card line (line: section and number)")
    try:
        found = card.line(str(line.get("section")), int(line.get("number")))
    except (KeyError, TypeError, ValueError):
        raise ReportError(f"line: no line {line.get('section')} #{line.get('number')} on the card {card.name!r}",
                          status=422) from None
    return {"value": found.value, "jokerless": _flag(body, "jokerless") and not found.singles_and_pairs,
            "singles_and_pairs": found.singles_and_pairs, "exposures": _int(body, "exposures", 0, 4, 0),
            "quint_exposed": _flag(body, "quint"), "line": {"section": found.section, "number": found.number}}


def read_report(card: Card, body: Any) -> tuple[GameResult, dict[str, Any]]:
    """(the result to score, what is kept of the report: the result plus the hand as given and East)."""
    if not isinstance(body, dict):
        raise ReportError("a report is a JSON object")
    outcome = body.get("outcome")
    extra: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    if outcome == "mahjong":
        extra = _hand(card, body)
        fields = {k: extra.pop(k) for k in ("value", "jokerless", "singles_and_pairs", "exposures", "quint_exposed")}
        fields |= {"winner": _letter(body, "winner"), "self_picked": _flag(body, "self_picked"),
                   "discarder": _letter(body, "discarder"), "misnamed": _flag(body, "misnamed")}
    elif outcome == "last_survivor":
        fields["survivor"] = _letter(body, "survivor")
    result = GameResult(outcome=str(outcome), dead=_letters(body, "dead"), in_error=_letters(body, "in_error"),
                        penalties=_penalties(body), **fields)
    extra["east"] = _letter(body, "east")
    return result, extra


_FIELDS = fields(GameResult)


def fields_of(result: GameResult) -> dict[str, Any]:
    """The result's fields by name: what ``dataclasses.asdict`` gives for this flat record, without its deep
    copies (a quarter of a report's own time)."""
    return {f.name: getattr(result, f.name) for f in _FIELDS}


def stored_body(result: GameResult, extra: dict[str, Any]) -> str:
    """What the database keeps of a report: the result, and the hand as given and East."""
    return json.dumps({"result": fields_of(result), **extra}, sort_keys=True)


def canonical(result: GameResult) -> str:
    """The result as sorted JSON: two reports of one game agree exactly when these texts are equal."""
    return json.dumps(fields_of(result), sort_keys=True, separators=(",", ":"))


def digest(result: GameResult) -> str:
    return hashlib.sha256(canonical(result).encode()).hexdigest()


def result_of(body_json: str) -> GameResult:
    """A stored report body back to its result."""
    data = json.loads(body_json)["result"]
    data["dead"], data["in_error"] = tuple(data["dead"]), tuple(data["in_error"])
    data["penalties"] = tuple(tuple(p) for p in data["penalties"])
    return GameResult(**data)
