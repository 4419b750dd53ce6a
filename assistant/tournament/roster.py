"""Reading the players file: a CSV with a ``name`` column, and optionally ``table`` and ``seat`` columns to seat
round 1 as given (else it is drawn at random). Without a header row, the first column holds the names.

Every problem is reported as ``file:line: ...`` (a duplicate also names the line of the first one), and nothing
is created until the whole file is good.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path


class RosterError(ValueError):
    """Problems in the players file, one ``file:line: message`` per line of the message."""


@dataclass(frozen=True)
class Roster:
    names: list[str]
    seating: dict[str, tuple[int, str]] | None  # round 1 as given, or None to draw it


def _clean(name: str) -> str:
    return " ".join(name.split())


def read_roster(path: Path) -> Roster:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise RosterError(f"{path}: cannot read the players file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RosterError(f"{path}: not UTF-8 text (save the players file as UTF-8 CSV)") from None
    rows = [(n, row) for n, row in enumerate(csv.reader(io.StringIO(text)), start=1) if any(c.strip() for c in row)]
    if not rows:
        raise RosterError(f"{path}:1: no players (one name per line, or a CSV with a 'name' column)")
    header = [c.strip().lower() for c in rows[0][1]]
    cols = {"name": 0}
    if "name" in header:
        cols = {k: header.index(k) for k in ("name", "table", "seat") if k in header}
        rows = rows[1:]
    given = "table" in cols or "seat" in cols
    if given and not ("table" in cols and "seat" in cols):
        raise RosterError(f"{path}:1: give both 'table' and 'seat' columns to seat round 1, or neither")
    errors: list[str] = []
    names: list[str] = []
    seating: dict[str, tuple[int, str]] = {}
    first: dict[str, int] = {}
    for line, row in rows:
        cell = row[cols["name"]] if len(row) > cols["name"] else ""
        name = _clean(cell)
        if not name:
            errors.append(f"{path}:{line}: missing name")
            continue
        key = name.casefold()
        if key in first:
            errors.append(f"{path}:{line}: duplicate name {name!r} (first on line {first[key]}); make each name "
                          "unique, e.g. add an initial")
            continue
        first[key] = line
        names.append(name)
        if given:
            table = row[cols["table"]].strip() if len(row) > cols["table"] else ""
            seat = row[cols["seat"]].strip().upper() if len(row) > cols["seat"] else ""
            if not table.isdigit() or seat not in ("A", "B", "C", "D"):
                errors.append(f"{path}:{line}: {name}: table must be a number and seat one of A, B, C, D "
                              f"(got {table!r}, {seat!r})")
                continue
            seating[name] = (int(table), seat)
    if errors:
        raise RosterError("\n".join(errors))
    if not names:
        raise RosterError(f"{path}: no players")
    return Roster(names, seating if given else None)
