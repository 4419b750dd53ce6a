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
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from assistant.questions import trusted
from engine.referee import ProfileError, Referee, Ruling, events
from engine.referee.profile import PROFILES_DIR


class JournalError(ValueError):
    """A journal that cannot be read at all (missing, unreadable); the message names the file."""


class JournalRecordError(JournalError):
    """An intact record that cannot be replayed (an event the schema refuses): ``index`` is its position in
    the records given to :func:`replay`, so the caller can name the file line."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


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
        self._f.write(text)
        self._f.flush()
        os.fsync(self._f.fileno())

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as one line and force it to disk before returning."""
        self._write(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")

    def close(self) -> None:
        if not self._f.closed:
            self._f.close()

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
        except ValueError as exc:
            if report is not None:
                report(f"{path}:{number}: damaged line skipped ({exc})")
            continue
        if line_numbers is not None:
            line_numbers.append(number)
        yield record


def header_record(card_text: str, card_name: str, profile_text: str, profile_name: str,
                  players: int) -> dict[str, Any]:
    """The first record of a refereed game: everything needed to rebuild the referee from the journal alone."""
    return {"kind": "header", "version": 1, "card": card_name, "card_text": card_text,
            "profile": profile_name, "profile_text": profile_text, "players": players}


def builtin_profile_text(name: str) -> tuple[str, str]:
    """(text, filename) of a built-in profile ("nmjl", "mahjcon") or of a profile file path; a file that is not
    UTF-8 is a ProfileError (file:line) like any other bad profile."""
    path = PROFILES_DIR / f"{name}.toml" if name in ("nmjl", "mahjcon") else Path(name)
    data = path.read_bytes()
    try:
        return data.decode("utf-8"), str(path)
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
                        players: int | None = None) -> Referee:
    """A fresh referee for a journal: the header's card and profile texts unless overridden."""
    from engine.card import SAMPLE_CARD, load_card, parse_card
    from engine.referee import parse_profile

    if card is None:
        card = (parse_card(header["card_text"], header.get("card", "<journal card>"))
                if header and header.get("card_text") else load_card(SAMPLE_CARD))
    if profile is None:
        if header and header.get("profile_text"):
            profile = parse_profile(header["profile_text"], header.get("profile", "<journal profile>"))
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
