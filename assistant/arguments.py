"""Argument types for what people type on the command line: seats ("south", "w", 1), scoring profiles
("nmjl", "mahjcon", a file) and counts.

A wrong name is an argparse error that says what is accepted and offers the closest spelling, so ``mahj pay
--winner sout`` answers "did you mean 'south'?" instead of a traceback or a bare "invalid int value".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from assistant.profile import SCORING_PROFILES
from assistant.wiring import seat_number
from engine.spelling import did_you_mean

_SEAT_WORDS = ("east", "south", "west", "north")


def seat_arg(text: str) -> int:
    """A seat as a wind word, its letter or its chair number 0-3 (East = 0)."""
    seat = seat_number(text)
    if seat is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a seat{did_you_mean(text, _SEAT_WORDS)}: say east, south, west, north or 0-3")
    return seat


def count_arg(text: str) -> int:
    """A whole number of at least 1 (processes, workers)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def scoring_profile_arg(text: str) -> str:
    """A built-in scoring profile's name or a profile file; a bare word that is neither lists the built-in ones.
    Anything that looks like a path (a folder in it, or .toml) is left for the command to read, so a missing or
    unreadable file is named with the reason."""
    path = Path(text)
    if text in SCORING_PROFILES or path.exists() or len(path.parts) > 1 or path.suffix == ".toml":
        return text
    built_in = ", ".join(SCORING_PROFILES)
    raise argparse.ArgumentTypeError(
        f"{text!r} is neither a built-in profile ({built_in}) nor a file{did_you_mean(text, SCORING_PROFILES)}")
