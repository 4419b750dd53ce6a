"""Whose evidence the referee may penalise on, and how its questions are put to people.

The referee never penalises on the camera's evidence alone (engine/referee/doubt.py): it asks. Here is what the
assistant adds to that: which journal sources are a person's word (``trusted``), the one sentence a question is
shown, spoken and printed as (``question_text``), and which question a person's answer is about
(``question_for``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Sources whose events are not a person's word: what the camera read, and what mahj assumed it could not see.
UNTRUSTED_SOURCES = frozenset({"camera", "assumed"})

#: The consequence each penalty would have, for the question put to the table.
_PENALTY_WORDS = {
    "dead_hand": "{who}'s hand is dead",
    "mahjong_in_error": "{who}'s Mah Jongg is in error",
    "pays_for_table": "{who} pays for the table if someone wins on that tile",
    "redeal": "the hand is thrown in and dealt again",
}


def trusted(source: str | None) -> bool:
    """Whether an event from ``source`` is a person's evidence (keyboard, display, board, a scripted or older
    journal without sources), on which the referee may penalise at once."""
    return source not in UNTRUSTED_SOURCES


def question_text(data: dict[str, Any], name: Callable[[Any], str]) -> str:
    """The question as people read and hear it: what the camera saw and what it would cost, yes or no."""
    who = name(data.get("seat")) if data.get("seat") is not None else "the table"
    cost = _PENALTY_WORDS.get(str(data.get("penalty")), "a penalty applies").format(who=who)
    return f"The camera saw: {data.get('reason', 'a fault')}. If that is so, {cost}. Is it so? (yes / no)"


def question_for(open_questions: list[Any], seat: int | None = None, index: int | None = None) -> Any:
    """The open question an answer is about: number ``index``, else the newest one about ``seat`` (a board
    button answers for its own seat; a question about no seat is East's), else the newest; None if none."""
    if index is not None:
        return next((q for q in open_questions if q.index == index), None)
    if seat is not None:
        return next((q for q in reversed(open_questions) if (q.seat if q.seat is not None else 0) == seat), None)
    return open_questions[-1] if open_questions else None
