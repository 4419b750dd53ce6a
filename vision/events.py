"""What the camera saw, as typed observations: vision's own event types and their JSON Lines log.

These are *observations* ("a tile went face up on the floor in front of West"), not rulings: vision may only
import ``engine.tiles`` (tests/test_layering.py), so the assistant converts them to referee events. Every
observation carries the frame number and table time of the frame that confirmed it (``frame``, ``t``), the
estimated moment the action happened (``t_action``, earlier than ``t`` by the stability wait) and a confidence,
so the referee side can weigh a shaky read and a latency measurement can use the confirm time honestly.

The JSON form is one flat object with a ``"type"`` key; the generator of ground-truth videos
(datasets/video) writes its truth logs in the same shape, so one reader compares both.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, TextIO

from engine.tiles import INDEX


class EventLogError(ValueError):
    """A bad line in an event log; the message names ``file:line``."""


@dataclass(frozen=True)
class Observation:
    """Common fields. ``t`` = table time of the confirming frame, ``t_action`` = when it most likely happened."""

    t: float
    frame: int
    confidence: float
    t_action: float | None = field(default=None, kw_only=True)
    type: ClassVar[str] = "observation"

    def to_json(self) -> dict[str, Any]:
        d = {"type": self.type}
        d.update(asdict(self))
        return d


@dataclass(frozen=True)
class DiscardDown(Observation):
    """A tile came to rest face up on the discard floor. ``seat`` = whose side it was thrown from (or the
    seat whose turn it was when the camera could not tell)."""

    seat: int = -1
    tile: str = ""
    type: ClassVar[str] = "discard_down"


@dataclass(frozen=True)
class Picked(Observation):
    """A tile left the wall. ``seat`` = who picked (the turn holder), ``wall_seat`` = whose wall segment it
    came from, ``end`` = "left" or "right" end of its run of wall as the wall's owner sees it, or "middle" (tiles
    still stand on both sides); the assistant learns which end is live."""

    seat: int = -1
    wall_seat: int = -1
    end: str = "left"
    type: ClassVar[str] = "picked"


@dataclass(frozen=True)
class Racked(Observation):
    """A seat's standing tiles grew by ``count`` (a picked or claimed tile went into the hand)."""

    seat: int = -1
    count: int = 1
    type: ClassVar[str] = "racked"


@dataclass(frozen=True)
class ExposurePlaced(Observation):
    """A group of face-up tiles appeared on a seat's rack top."""

    seat: int = -1
    tiles: tuple[str, ...] = ()
    type: ClassVar[str] = "exposure_placed"


@dataclass(frozen=True)
class JokerExchanged(Observation):
    """A Joker in an exposure was replaced by the real tile. ``seat`` = who exchanged (turn holder),
    ``exposure_seat``/``exposure_index`` = whose exposure and which one, ``tile`` = the tile given."""

    seat: int = -1
    exposure_seat: int = -1
    exposure_index: int = 0
    tile: str = ""
    type: ClassVar[str] = "joker_exchanged"


@dataclass(frozen=True)
class HandDisplayed(Observation):
    """A seat laid its hand face up (a Mah Jongg claim): ``tiles`` = all face-up tiles of that seat, exposures
    included, in table order (left to right as the seat sees them)."""

    seat: int = -1
    tiles: tuple[str, ...] = ()
    type: ClassVar[str] = "hand_displayed"


@dataclass(frozen=True)
class TileCountMismatch(Observation):
    """What the camera counts differs from what the referee expects (``where``: "rack", "wall", "floor")."""

    seat: int = -1
    where: str = "rack"
    seen: int = 0
    expected: int = 0
    type: ClassVar[str] = "tile_count"


@dataclass(frozen=True)
class CameraProblem(Observation):
    """``problem``: "dark", "bumped", "frozen", "frames_dropped", "markers_lost"; ``resolved`` marks the end of
    a problem (light back, recalibrated after a bump)."""

    problem: str = ""
    detail: str = ""
    resolved: bool = False
    type: ClassVar[str] = "camera_problem"


@dataclass(frozen=True)
class AskHuman(Observation):
    """The camera cannot decide: something for the assistant to show and speak (``question``), with the
    candidate answers it considered."""

    question: str = ""
    seat: int = -1
    choices: tuple[str, ...] = ()
    type: ClassVar[str] = "ask_human"


EVENT_TYPES: dict[str, type[Observation]] = {
    cls.type: cls
    for cls in (DiscardDown, Picked, Racked, ExposurePlaced, JokerExchanged, HandDisplayed, TileCountMismatch,
                CameraProblem, AskHuman)
}
#: The types that describe a move at the table (what the truth logs contain and the bench scores).
MOVE_TYPES = ("discard_down", "picked", "racked", "exposure_placed", "joker_exchanged", "hand_displayed")


def from_json(d: dict[str, Any], where: str = "<event>") -> Observation:
    """Rebuild an observation from its JSON dict; errors name ``where`` and the offending key."""
    if not isinstance(d, dict) or "type" not in d:
        raise EventLogError(f"{where}: not an event object with a 'type'")
    cls = EVENT_TYPES.get(d["type"])
    if cls is None:
        raise EventLogError(f"{where}: unknown event type {d['type']!r}")
    names = {f.name for f in fields(cls)}
    extra = set(d) - names - {"type"}
    if extra:
        raise EventLogError(f"{where}: unknown field(s) {sorted(extra)} for {d['type']}")
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items() if k != "type"}
    for key in ("t", "frame", "confidence"):
        if key not in kwargs:
            raise EventLogError(f"{where}: {d['type']} lacks {key!r}")
    for tile in (kwargs.get("tile"), *kwargs.get("tiles", ())):
        if tile and tile not in INDEX:
            raise EventLogError(f"{where}: unknown tile code {tile!r}")
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise EventLogError(f"{where}: {exc}") from None


class EventLog:
    """Append-only JSON Lines writer: one object per line, flushed per event so a crash loses at most the
    line being written (fsync is left to the assistant's journal, which owns durability of the game)."""

    def __init__(self, path: str | os.PathLike[str] | TextIO) -> None:
        if hasattr(path, "write"):
            self._f, self._own = path, False
        else:
            self._f, self._own = open(path, "a", encoding="utf-8"), True  # noqa: SIM115 -- closed in close()

    def write(self, event: Observation | dict[str, Any]) -> None:
        d = event.to_json() if isinstance(event, Observation) else event
        self._f.write(json.dumps(d, separators=(",", ":")) + "\n")
        self._f.flush()

    def write_all(self, events: Iterable[Observation | dict[str, Any]]) -> None:
        for ev in events:
            self.write(ev)

    def close(self) -> None:
        if self._own:
            self._f.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_log(path: str | os.PathLike[str]) -> Iterator[Observation]:
    """Read an event log back. A corrupt line raises ``EventLogError`` naming ``file:line``; a truncated last
    line (a crash while writing) is reported the same way, never silently skipped."""
    p = Path(path)
    with p.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError as exc:
                raise EventLogError(f"{p}:{n}:{exc.colno}: not JSON: {exc.msg}") from None
            yield from_json(d, f"{p}:{n}")
