"""Scoring profiles: how a table settles up, as a TOML text users can edit (engine/profiles/*.toml).

Every number that differs between home play (NMJL payments) and a tournament (MahjCon points) lives in the
profile, so a club with its own table rules edits a copy instead of the code. Parsing is strict and every error
names ``file:line``: a typo in a key would otherwise silently fall back to a default and pay the wrong amount.
The engine does no I/O: the caller reads the file and passes its text and name.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

#: Folder of the built-in profiles (package data). Reading them is the caller's job (engine has no I/O).
PROFILES_DIR = Path(__file__).resolve().parent.parent / "profiles"
BUILTIN = ("nmjl", "mahjcon")


class ProfileError(ValueError):
    """A bad profile; ``diagnostics`` holds one ``file:line: message`` per problem."""

    def __init__(self, diagnostics: list[str]) -> None:
        super().__init__("\n".join(diagnostics))
        self.diagnostics = diagnostics


@dataclass(frozen=True)
class Rules:
    """Rule switches that differ between home play and tournaments."""

    starting_balance: int
    retract_max_exposures: int  # Mah Jongg in error may be retracted with at most this many exposures; -1: never
    erroneous_challenge_kills_challenger: bool
    claimed_tile_in_rack_kills: bool  # a claimed discard put in the rack instead of exposed
    jokerless_in_singles_and_pairs: bool


@dataclass(frozen=True)
class Payments:
    """Home play: players pay the winner multiples of the hand value (zero-sum, running balances)."""

    discarder: int
    others_on_discard: int
    self_pick: int
    jokerless: int
    pay_for_table: int
    erroneous_death_challenge: int  # times the card's cheapest hand, paid by the wrong challenger to the challenged
    survivor: int  # times the hand value, paid to the survivor when three went dead through a Mah Jongg in error
    wall_destroyer: int  # times the card's cheapest hand, paid by a player who destroyed the wall to each live player


@dataclass(frozen=True)
class Points:
    """Tournament: points for the winner and bonuses; others score nothing (penalties aside)."""

    self_pick_bonus: int
    jokerless_bonus: int
    wall_game: int
    dead: int
    mahjong_in_error: int
    throw_in_survivor: int


@dataclass(frozen=True)
class Penalties:
    """Tournament penalties (negative points)."""

    blind_pass_peek: int
    discard_to_two_exposures: int
    discard_to_three_exposures: int
    discard_to_quint_and_exposure: int
    misnamed_discard_mahjong: int


@dataclass(frozen=True)
class ScoringProfile:
    """A parsed profile. ``mode`` "payments" uses ``payments``; "points" uses ``points`` and ``penalties``."""

    name: str
    description: str
    mode: str
    rules: Rules
    payments: Payments | None
    points: Points | None
    penalties: Penalties | None
    source: str = "<profile>"


_SECTIONS: dict[str, type] = {"rules": Rules, "payments": Payments, "points": Points, "penalties": Penalties}
_NEEDED = {"payments": ("rules", "payments"), "points": ("rules", "points", "penalties")}
_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")
_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def _key_lines(text: str) -> dict[tuple[str, str], int]:
    """Map (section, key) -> 1-based line, section "" for top level; also (section, "") for headers."""
    where: dict[tuple[str, str], int] = {}
    section = ""
    for i, line in enumerate(text.splitlines(), start=1):
        if m := _HEADER.match(line):
            section = m.group(1)
            where.setdefault((section, ""), i)
        elif m := _KEY.match(line):
            where.setdefault((section, m.group(1)), i)
    return where


def parse_profile(text: str, filename: str = "<profile>") -> ScoringProfile:
    """Parse and check a profile; raises ProfileError listing every problem as ``file:line: message``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_POS.search(str(exc))
        msg = _TOML_POS.sub("", str(exc)).strip()
        pos = f"{m.group(1)}:{m.group(2)}" if m else "1"
        raise ProfileError([f"{filename}:{pos}: {msg}"]) from None
    lines = _key_lines(text)
    errors: list[str] = []

    def err(section: str, key: str, msg: str) -> None:
        line = lines.get((section, key)) or lines.get((section, "")) or 1
        errors.append(f"{filename}:{line}: {msg}")

    top: dict[str, Any] = {}
    for key in ("name", "description", "mode"):
        value = data.get(key)
        if not isinstance(value, str):
            err("", key, f"'{key}' must be a string" if key in data else f"missing top-level '{key}'")
        top[key] = value
    mode = top["mode"]
    if isinstance(mode, str) and mode not in _NEEDED:
        err("", "mode", f"mode must be \"payments\" or \"points\", not {mode!r}")
    for key, value in data.items():
        if key not in top and not (isinstance(value, dict) and key in _SECTIONS):
            where = (key, "") if isinstance(value, dict) else ("", key)  # a [section] is found by its header line
            err(*where, f"unknown key or section '{key}' (known sections: {', '.join(_SECTIONS)})")

    built: dict[str, Any] = {}
    needed = _NEEDED.get(mode, ("rules",)) if isinstance(mode, str) else ("rules",)
    for section, cls in _SECTIONS.items():
        table = data.get(section)
        if table is None:
            if section in needed:
                errors.append(f"{filename}:1: missing section [{section}]"
                              + (f" (mode {mode!r} needs it)" if isinstance(mode, str) else ""))
            built[section] = None
            continue
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in table:
                err(section, "", f"[{section}] lacks '{f.name}'")
                continue
            value = table[f.name]
            want_bool = f.type == "bool"
            if want_bool and not isinstance(value, bool):
                err(section, f.name, f"'{f.name}' must be true or false, got {value!r}")
            elif not want_bool and (isinstance(value, bool) or not isinstance(value, int)):
                err(section, f.name, f"'{f.name}' must be a whole number, got {value!r}")
            elif cls is Payments and value < 0:  # a negative multiple would pay the wrong way round
                err(section, f.name, f"'{f.name}' is a multiple of the hand value: 0 or more, got {value}")
            else:
                values[f.name] = value
        for key in table:
            if key not in {f.name for f in fields(cls)}:
                err(section, key, f"unknown key '{key}' in [{section}]")
        built[section] = cls(**values) if len(values) == len(fields(cls)) else None
    if errors:
        raise ProfileError(sorted(errors, key=lambda d: int(d[len(filename) + 1:].split(":", 1)[0])))
    return ScoringProfile(
        name=top["name"], description=top["description"], mode=mode, rules=built["rules"],
        payments=built["payments"], points=built["points"], penalties=built["penalties"], source=filename,
    )
