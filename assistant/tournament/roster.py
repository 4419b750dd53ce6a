"""Reading the players file: a CSV with a ``name`` column, and optionally ``table`` and ``seat`` columns to seat
round 1 as given (else it is drawn at random). Without a header row, the first column holds the names.

Every problem is reported as ``file:line: ...`` (a duplicate also names the line of the first one), and nothing
is created until the whole file is good. Names are kept in Unicode's composed form (NFC), so a name typed with a
combining accent and the same name typed with the accented letter are one name; two names that differ only in
case, width or such compatibility forms are duplicates. A name may not hold characters nobody can see or type
on purpose (control and format characters such as NUL or a zero-width space, private-use or unassigned code
points): they make look-alike names and break the database or the printing. The zero-width joiner is allowed
between two symbols, where it joins an emoji sequence. A blank row between players is reported (a deleted name
or a shifted paste); blank rows after the last player are not.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass
from pathlib import Path


class RosterError(ValueError):
    """Problems in the players file, one ``file:line: message`` per line of the message."""


@dataclass(frozen=True)
class Roster:
    names: list[str]
    seating: dict[str, tuple[int, str]] | None  # round 1 as given, or None to draw it


#: The longest name the database holds (players.name).
MAX_NAME = 200
#: Invisible or non-characters, by Unicode category.
_HIDDEN = {"Cc": "a control character", "Cf": "an invisible formatting character", "Cs": "a lone surrogate",
           "Co": "a private-use character", "Cn": "an unassigned code point"}
_ZWJ = "\u200d"


def _hidden_character(name: str) -> str | None:
    """The first character of ``name`` that has no business in a name, described, or None."""
    for i, ch in enumerate(name):
        if unicodedata.category(ch) not in _HIDDEN:
            continue
        if ch == _ZWJ and 0 < i < len(name) - 1 and _symbol(name[i - 1]) and _symbol(name[i + 1]):
            continue  # joins an emoji sequence (a family, a profession with a skin tone)
        named = unicodedata.name(ch, "")
        return f"U+{ord(ch):04X}{f' {named}' if named else ''} ({_HIDDEN[unicodedata.category(ch)]})"
    return None


def _symbol(ch: str) -> bool:
    """A symbol or the variation selector / skin-tone modifier that ends an emoji."""
    return unicodedata.category(ch) in ("So", "Sk") or ch == "\ufe0f"


def _clean(cell: str) -> str:
    """The name in a cell: spaces collapsed, composed form (NFC)."""
    return unicodedata.normalize("NFC", " ".join(cell.split()))


def _key(name: str) -> str:
    """What makes two names the same player: case, width and compatibility forms aside."""
    return unicodedata.normalize("NFKC", name).casefold()


def _csv_problem(exc: csv.Error) -> str:
    text = str(exc)
    if "field limit" in text:
        return (f"a cell longer than {csv.field_size_limit():,} characters: is this the players file? (one name "
                "per line, or a CSV with a 'name' column)")
    if "end of data" in text:
        return 'a quote (") opened on this line is never closed: close it, or remove it'
    return f"not valid CSV ({text}): a cell with a quote or a comma in it must be quoted, its quotes doubled"


def _rows(path: Path, text: str) -> list[tuple[int, list[str]]]:
    """(line, cells) of every row, with the line each row starts on; blank rows after the last player dropped."""
    reader = csv.reader(io.StringIO(text), strict=True)
    rows: list[tuple[int, list[str]]] = []
    while True:
        line = reader.line_num + 1
        try:
            rows.append((line, next(reader)))
        except StopIteration:
            break
        except csv.Error as exc:
            raise RosterError(f"{path}:{line}: {_csv_problem(exc)}") from None
    while rows and not any(c.strip() for c in rows[-1][1]):
        rows.pop()
    return rows


def _name_problem(cell: str, name: str) -> str | None:
    if "\n" in cell or "\r" in cell:
        return "a line break inside a name: a quote (\") left open here?"
    hidden = _hidden_character(name)
    if hidden:
        return f"{name!r} holds {hidden}: retype the name without it"
    if len(name) > MAX_NAME:
        return f"a name of {len(name):,} characters: at most {MAX_NAME}"
    return None


def read_roster(path: Path) -> Roster:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise RosterError(f"{path}: cannot read the players file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RosterError(f"{path}: not UTF-8 text (save the players file as UTF-8 CSV)") from None
    rows = _rows(path, text)
    while rows and not any(c.strip() for c in rows[0][1]):
        rows.pop(0)  # blank lines before the first row
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
        if not any(c.strip() for c in row):
            errors.append(f"{path}:{line}: blank row between players: delete it, or fill in the player")
            continue
        cell = row[cols["name"]] if len(row) > cols["name"] else ""
        name = _clean(cell)
        if not name:
            errors.append(f"{path}:{line}: missing name")
            continue
        problem = _name_problem(cell, name)
        if problem:
            errors.append(f"{path}:{line}: {problem}")
            continue
        key = _key(name)
        if key in first:
            how = " (its accent typed as a separate mark)" if name != " ".join(cell.split()) else ""
            errors.append(f"{path}:{line}: duplicate name {name!r}{how} (first on line {first[key]}); make each "
                          "name unique, e.g. add an initial")
            continue
        first[key] = line
        names.append(name)
        if given:
            table = row[cols["table"]].strip() if len(row) > cols["table"] else ""
            seat = row[cols["seat"]].strip().upper() if len(row) > cols["seat"] else ""
            if not (table.isascii() and table.isdigit()) or seat not in ("A", "B", "C", "D"):
                errors.append(f"{path}:{line}: {name}: table must be a number and seat one of A, B, C, D "
                              f"(got {table!r}, {seat!r})")
                continue
            seating[name] = (int(table), seat)
    if errors:
        raise RosterError("\n".join(errors))
    if not names:
        raise RosterError(f"{path}: no players")
    return Roster(names, seating if given else None)
