"""Did-you-mean for words people type: a tile ("bma"), a command ("tiel"), a seat ("sout"), a profile ("nmj").

One helper so every place that rejects a word offers the same kind of hint, worded the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_words(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The choices that look like ``word`` (case-insensitive), best first; empty when none is close."""
    by_lower = {c.lower(): c for c in choices}
    return [by_lower[c] for c in difflib.get_close_matches(word.lower(), list(by_lower), n=n, cutoff=0.6)]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'bam'?)`` for the closest choices, or "" when nothing is close enough to offer."""
    close = close_words(word, choices)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
