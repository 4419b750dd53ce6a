"""The game journal: an append-only JSON Lines file, one record per line, flushed and fsynced per record.

A record is a JSON object with a ``kind``: ``header`` (card and scoring profile texts, so a journal replays on
its own), ``event`` (``{"event": {...}}`` as ``engine.referee.events.to_json`` writes it), ``rulings`` (the
referee's answer to the event before it), and whatever else the pipeline logs (observations, notices); readers
skip kinds they do not know. Because every record is on disk before the next event is applied, a crash loses
at most the line being written: such a torn line is reported with ``file:line`` and skipped, and the next
append starts on a fresh line, so nothing already written is ever lost or rewritten.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from assistant.questions import trusted
from engine.referee import ProfileError, Referee, Ruling, events
from engine.referee.profile import PROFILES_DIR
from vision import events as vision_events


class JournalError(ValueError):
    """A journal that cannot be read at all (missing, unreadable); the message names the file."""


class JournalRecordError(JournalError):
    """An intact record that cannot be replayed (an event the schema refuses): ``index`` is its position in
    the records given to :func:`replay`, so the caller can name the file line."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


class ResumeError(JournalError):
    """A journal a resumed game cannot continue: the message names the file line and says what to do."""


def _stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


class Journal:
    """Append records to ``path`` (created with its folder if missing). Use as a context manager."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torn = self.path.exists() and self.path.stat().st_size > 0 and not self._ends_with_newline()
        self._f: IO[str] = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        if torn:
            self._write("\n")  # a crash left a partial line: never glue the next record onto it

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"

    def _write(self, text: str) -> None:
        try:
            self._f.write(text)
            self._f.flush()
            os.fsync(self._f.fileno())
        except OSError as exc:  # a full disk, a vanished USB stick: one clear error, not a chain of tracebacks
            raise JournalError(f"{self.path}: cannot write the journal: {exc.strerror or exc}; every record "
                               "before this one is on disk, so the same command resumes once there is room") from None

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as one line and force it to disk before returning."""
        self._write(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")

    def close(self) -> None:
        if not self._f.closed:
            try:
                self._f.close()
            except OSError:
                pass  # what could not be written was already reported by the append that failed

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_journal(path: str | Path, report: Callable[[str], None] | None = _stderr,
                 line_numbers: list[int] | None = None) -> Iterator[dict[str, Any]]:
    """Yield the records of a journal in order (``line_numbers``, if given, receives each one's file line).

    A line that is not a JSON object is a record torn by a crash mid-write (events are journaled before they
    are applied, so a torn event was never ruled on): it is reported through ``report`` as ``file:line: ...``
    and skipped, never silently. After a resume such a line sits between intact records, which is why it is
    not only the last line that may be torn.
    """
    path = Path(path)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("a record must be a JSON object")
        except RecursionError:
            if report is not None:
                report(f"{path}:{number}: damaged line skipped (JSON nested too deeply)")
            continue
        except ValueError as exc:
            if report is not None:
                report(f"{path}:{number}: damaged line skipped ({exc})")
            continue
        if line_numbers is not None:
            line_numbers.append(number)
        yield record


def header_record(card_text: str, card_name: str, profile_text: str, profile_name: str,
                  players: int) -> dict[str, Any]:
    """The first record of a refereed game: everything needed to rebuild the referee from the journal alone.

    The card and profile are named by their file names only: the texts travel in the record, and a journal is
    shared, so a folder on the machine that wrote it would mean nothing (and say too much) elsewhere."""
    return {"kind": "header", "version": 1, "card": Path(card_name).name, "card_text": card_text,
            "profile": Path(profile_name).name, "profile_text": profile_text, "players": players}


def builtin_profile_text(name: str) -> tuple[str, str]:
    """(text, filename) of a built-in profile ("nmjl", "mahjcon") or of a profile file path; a file that is not
    UTF-8 is a ProfileError (file:line) like any other bad profile."""
    path = PROFILES_DIR / f"{name}.toml" if name in ("nmjl", "mahjcon") else Path(name)
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig"), str(path)
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ProfileError([f"{path}:{line}: not UTF-8 text"]) from None


class RecordedReferee:
    """A referee whose every event and ruling goes to a journal first (event before applying, fsynced)."""

    def __init__(self, referee: Referee, journal: Journal) -> None:
        self.referee = referee
        self.journal = journal

    def apply(self, event: events.Event, **extra: Any) -> list[Ruling]:
        self.journal.append({"kind": "event", **extra, "event": events.to_json(event)})
        rulings = self.referee.apply(event)
        self.journal.append({"kind": "rulings", "rulings": [r.to_json() for r in rulings]})
        return rulings


def referee_from_header(header: dict[str, Any] | None, card: Any = None, profile: Any = None,
                        players: int | None = None, where: str = "") -> Referee:
    """A fresh referee for a journal: the header's card and profile texts unless overridden. ``where`` (the
    journal's ``file:line``) names those texts in errors: they live in the journal, not in the files the
    header remembers."""
    from engine.card import SAMPLE_CARD, load_card, parse_card
    from engine.referee import parse_profile

    if card is None:
        card = (parse_card(header["card_text"], f"{where} card" if where else header.get("card", "<journal card>"))
                if header and header.get("card_text") else load_card(SAMPLE_CARD))
    if profile is None:
        if header and header.get("profile_text"):
            profile = parse_profile(header["profile_text"],
                                    f"{where} profile" if where else header.get("profile", "<journal profile>"))
        else:
            profile = parse_profile(*builtin_profile_text("nmjl"))
    count = players or (header or {}).get("players") or 4
    return Referee(card, profile, int(count))


def replay(records: list[dict[str, Any]], referee: Referee) -> tuple[list[Ruling], list[dict[str, Any]]]:
    """Apply every journaled event to ``referee``; returns (all rulings, mismatches with the journaled ones).

    A mismatch names the event's record number and both ruling lists, so a changed rule (or a tampered
    journal) shows exactly where the replayed game departs from the recorded one. An event record the schema
    refuses raises :class:`JournalRecordError`: guessing past it would rule on a different game.
    """
    rulings: list[Ruling] = []
    mismatches: list[dict[str, Any]] = []
    for i, rec in enumerate(records):
        if rec.get("kind") != "event":
            continue
        try:
            event = events.from_json(rec.get("event"))
        except events.EventError as exc:
            raise JournalRecordError(i, f"event record cannot be replayed: {exc}") from None
        out = referee.apply(event, trusted=trusted(rec.get("source")))
        rulings += out
        nxt = records[i + 1] if i + 1 < len(records) else None
        if nxt is not None and nxt.get("kind") == "rulings":
            now = [r.to_json() for r in out]
            if json.loads(json.dumps(now)) != nxt["rulings"]:
                mismatches.append({"record": i + 1, "event": rec["event"], "journal": nxt["rulings"],
                                   "replay": now})
    return rulings, mismatches


def check_record(record: dict[str, Any]) -> str | None:
    """Why an intact record cannot be resumed from (a missing or mistyped field), or None when it can.

    A resume trusts a journal only this far: a record that fails here would otherwise be a traceback halfway
    through rebuilding the game.
    """
    kind = record.get("kind")
    if not isinstance(kind, str):
        return "a record needs a \"kind\" string"
    frame = record.get("frame", -1)
    if isinstance(frame, bool) or not isinstance(frame, int):
        return f"\"frame\" must be a whole number, not {json.dumps(frame)[:40]}"
    if kind == "header":
        for key in ("card_text", "profile_text", "card", "profile"):
            if key in record and not isinstance(record[key], str):
                return f"header \"{key}\" must be a string"
        players = record.get("players", 4)
        if isinstance(players, bool) or players not in (3, 4):
            return "header \"players\" must be 3 or 4"
    elif kind == "event":
        try:
            events.from_json(record.get("event"))
        except events.EventError as exc:
            return f"event record cannot be replayed: {exc}"
        if not isinstance(record.get("source", "camera"), str):
            return "\"source\" must be a string"
    elif kind == "rulings" and not isinstance(record.get("rulings"), list):
        return "a rulings record needs a \"rulings\" list"
    elif kind in ("observation", "notice") and not isinstance(record.get(kind), dict):
        return f"a record of kind \"{kind}\" needs an object under \"{kind}\""
    elif kind == "observation":
        try:
            vision_events.from_json(record["observation"])
        except vision_events.EventLogError as exc:
            return f"observation record cannot be replayed: {exc}"
    return None


class CatchUp:
    """The journal of a resumed game while the game is rebuilt: records the journal already holds are checked
    against it instead of being written again, and writing starts with the first record it lacks.

    A resumed recording is played again from its first frame through a fresh referee, so every record it
    produces up to the crash is one the journal already holds (the reader and the referee are deterministic);
    the record in flight at the crash and the rest of its frame then follow exactly as in a run that never
    stopped. A record that differs is a :class:`ResumeError` naming its line: the journal was altered, or it
    was made with another recording, card, profile or tile model, and going on would rule on another game.
    """

    def __init__(self, journal: Any, records: list[dict[str, Any]], lines: list[int], path: str | Path) -> None:
        self.journal = journal
        self.pending = deque(zip(records, lines, strict=True))
        self.path = path

    def peek(self) -> dict[str, Any] | None:
        """The next record the journal already holds, or None once everything after it is new."""
        return self.pending[0][0] if self.pending else None

    def pop(self) -> dict[str, Any]:
        return self.pending.popleft()[0]

    def append(self, record: dict[str, Any]) -> None:
        """Check ``record`` against the next journaled one, or write it once the journal holds no more."""
        if not self.pending:
            if self.journal is not None:
                self.journal.append(record)
            return
        held, line = self.pending[0]
        if record.get("kind") == "rulings" and held.get("kind") != "rulings":
            return  # an older version lost this rulings record to a crash; the append-only file cannot take it
        self.pending.popleft()
        got, inside = json.loads(json.dumps(record)), ""
        if held.get("kind") == "rulings" == got.get("kind"):  # the rulings only: a game before a recording has no frame
            held, got, inside = held.get("rulings"), got["rulings"], "rulings"
        differs = _difference(held, got, inside)
        if differs is not None:
            where, held, got = differs
            raise ResumeError(
                f"{self.path}:{line}: the resumed game departs from the journal here: at {where or 'the record'} "
                f"the journal holds {_brief(held)}, the game now gives {_brief(got)}. The journal was altered, or "
                "it was made with "
                f"another recording, card, profile or tile model (`mahj referee replay {self.path}` lists every "
                "difference); start a new journal to go on")


#: Numbers a resumed game may give a little differently from the journal: a tile model's scores on another
#: machine (other threads, other CPU kernels) differ in their last digits, which is not another game.
FLOAT_TOLERANCE = 1e-3


def _difference(a: Any, b: Any, where: str = "") -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ, as (dotted path, value in ``a``, value in ``b``), or None when they
    are the same (floats within FLOAT_TOLERANCE)."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [*a, *(k for k in b if k not in a)]
        return next((d for k in keys if (d := _difference(a.get(k), b.get(k), f"{where}.{k}" if where else str(k)))
                     is not None), None)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return next((d for i, (x, y) in enumerate(zip(a, b, strict=True))
                     if (d := _difference(x, y, f"{where}[{i}]")) is not None), None)
    if isinstance(a, float | int) and isinstance(b, float | int) and float in (type(a), type(b)):
        same = math.isclose(a, b, rel_tol=0, abs_tol=FLOAT_TOLERANCE)
    else:
        same = a == b and type(a) is type(b)
    return None if same else (where, a, b)


def _brief(record: Any) -> str:
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."
