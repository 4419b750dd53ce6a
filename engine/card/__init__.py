"""The yearly card as a typed text file, compiled for fast Mah Jongg verification, suggestions and dead hands.

Notation and JSON fields: docs/card.md. Public API (docs/contracts): ``load_card``, ``parse_card``, ``Card``,
``CardLine``, ``Verdict``, ``Suggestion``, ``CardError``, ``SAMPLE_CARD``.
"""

from __future__ import annotations

from pathlib import Path

from engine.card.card import Card
from engine.card.compiled import CompiledCard, ConcreteGroup, Variation
from engine.card.model import CardError, CardLine, Diagnostic
from engine.card.parser import parse_text
from engine.card.results import MissingTile, Suggestion, Verdict

#: Our own invented sample card (no League lines), shipped as package data.
SAMPLE_CARD: Path = Path(__file__).resolve().parent.parent / "cards" / "sample-2026.card"

__all__ = [
    "SAMPLE_CARD", "Card", "CardError", "CardLine", "ConcreteGroup", "Diagnostic", "MissingTile", "Suggestion",
    "Variation", "Verdict", "load_card", "parse_card", "compile_card",
]


def compile_card(text: str, filename: str = "<card>") -> tuple[Card | None, list[Diagnostic]]:
    """Parse and compile, returning the card (None if there were errors) and every problem found."""
    parsed = parse_text(text, filename)
    compiled = CompiledCard(parsed.lines, filename)
    errors = sorted(parsed.errors + compiled.errors, key=lambda d: (d.line, d.col))
    if errors:
        return None, errors
    card = Card(parsed.headers["card"], parsed.lines, compiled, filename=filename, year=parsed.headers.get("year"),
                publisher=parsed.headers.get("publisher"), sections=parsed.sections)
    return card, []


def parse_card(text: str, filename: str = "<card>") -> Card:
    """Parse card text; raises ``CardError`` listing every problem as ``file:line:col: message``."""
    card, errors = compile_card(text, filename)
    if card is None:
        raise CardError(errors)
    return card


#: A card file larger than this is refused before it is read whole (a typed card is a few kilobytes; this
#: bounds what `--card /dev/zero` or a wrong path to a video can cost).
MAX_CARD_BYTES = 4 << 20


def load_card(path: str | Path) -> Card:
    """Read and parse a ``.card`` file (UTF-8). The engine's one file read: a card is the engine's input data."""
    path = Path(path)
    with open(path, "rb") as f:
        data = f.read(MAX_CARD_BYTES + 1)
    if len(data) > MAX_CARD_BYTES:
        raise CardError([Diagnostic(str(path), 1, 1, f"larger than {MAX_CARD_BYTES:,} bytes: not a card file")])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CardError([Diagnostic(str(path), line, col, "not UTF-8 text")]) from None
    return parse_card(text, str(path))
