"""What can be observed at a table, as frozen event records the referee consumes.

Every event carries ``t`` (table time in seconds) and is plain data, so a journal can store it as one JSON
object and a replay rebuilds the same game. ``from_json`` is strict: an unknown ``type``, a missing or unknown
field or a value of the wrong type raises :class:`EventError` naming the field, because a journal or a camera
feed that drifts from this schema must be noticed, not half-understood. Whether an event is *legal* (right
seat, real tile, the right moment) is the referee's business: it answers a ``rejected`` ruling.

Seats are chairs 0..3 (0 = the first East), counterclockwise in turn order.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass
from typing import Any

from engine.spelling import did_you_mean


class EventError(ValueError):
    """A dict that is not a valid event; the message names the offending field."""


@dataclass(frozen=True)
class Deal:
    """Tiles are dealt: East ends with 14, the others 13. ``east`` = the dealing chair (None: the expected one)."""

    t: float
    east: int | None = None


@dataclass(frozen=True)
class Dice:
    """East rolls the dice to break the wall (recorded, no ruling)."""

    t: float
    seat: int
    total: int


@dataclass(frozen=True)
class CharlestonPass:
    """One player's Charleston pass. ``blind``: how many of the passed tiles came unseen from the incoming pass.

    ``tiles`` is optional (passes are face down); when known, a joker among them is refused.
    """

    t: float
    seat: int
    direction: str  # "right" | "across" | "left"
    count: int = 3
    blind: int = 0
    tiles: tuple[str, ...] = ()


@dataclass(frozen=True)
class CourtesyPass:
    """A player's courtesy offer to the player across: 0-3 tiles; the smaller offer of the two is exchanged."""

    t: float
    seat: int
    count: int
    tiles: tuple[str, ...] = ()


@dataclass(frozen=True)
class CharlestonStop:
    """A player stops the Charleston after the first left pass (before the second left)."""

    t: float
    seat: int


@dataclass(frozen=True)
class Pick:
    """A tile taken from the wall. ``end``: "normal", "wrong_end" or "wrong_wall". ``tile`` if it was seen."""

    t: float
    seat: int
    end: str = "normal"
    tile: str | None = None


@dataclass(frozen=True)
class Rack:
    """The picked tile is placed among the player's tiles (closes the window of opportunity)."""

    t: float
    seat: int


@dataclass(frozen=True)
class Discard:
    """A tile goes down. ``named``: the spoken name as a code (may be wrong), ``touching``: it touched the floor."""

    t: float
    seat: int
    tile: str
    named: str | None = None
    touching: bool = True


@dataclass(frozen=True)
class Claim:
    """A spoken call for the live discard. ``purpose``: "mahjong" or "exposure"."""

    t: float
    seat: int
    purpose: str


@dataclass(frozen=True)
class Exposure:
    """Tiles placed face up on top of the rack (jokers as "J")."""

    t: float
    seat: int
    tiles: tuple[str, ...]


@dataclass(frozen=True)
class JokerExchangeAnnounced:
    """A player says they will redeem a joker (closes the window like the exchange itself)."""

    t: float
    seat: int


@dataclass(frozen=True)
class JokerExchange:
    """``seat`` gives ``tile`` for a joker in exposure number ``exposure_index`` (0-based) of ``from_seat``."""

    t: float
    seat: int
    from_seat: int
    exposure_index: int
    tile: str


@dataclass(frozen=True)
class MahjongDeclared:
    """A player shows a hand: ``tiles`` = all 14 as displayed (exposures included), or only the concealed part."""

    t: float
    seat: int
    tiles: tuple[str, ...]
    self_picked: bool = False


@dataclass(frozen=True)
class DeadChallenge:
    """``seat`` calls ``target`` dead. ``upheld``: the table's finding when known (None: the referee judges)."""

    t: float
    seat: int
    target: int
    upheld: bool | None = None


@dataclass(frozen=True)
class TileCount:
    """The number of tiles a player holds (rack plus exposures), as counted by a person or the camera."""

    t: float
    seat: int
    count: int


@dataclass(frozen=True)
class ThrowIn:
    """A player throws in (exposes) the hand, e.g. believing a Mah Jongg that turns out wrong; they are out."""

    t: float
    seat: int


@dataclass(frozen=True)
class AttemptedHand:
    """The value of the hand a player was attempting (needed for the three-dead survivor payment)."""

    t: float
    seat: int
    value: int


@dataclass(frozen=True)
class Penalty:
    """A penalty the table observed that the camera cannot (e.g. "blind_pass_peek"); amounts come from the profile."""

    t: float
    seat: int
    kind: str


@dataclass(frozen=True)
class WallExhausted:
    """The last wall tile is gone and the last discard's window has passed."""

    t: float


@dataclass(frozen=True)
class WallDestroyed:
    """A player pushes the wall in (ends the game), e.g. before a Mah Jongg turned out to be in error."""

    t: float
    seat: int


@dataclass(frozen=True)
class TimeCalled:
    """A tournament round's time ran out before the game was completed."""

    t: float


@dataclass(frozen=True)
class SeatChange:
    """The players in chairs ``seat`` and ``with_seat`` swap places (their balances go with them)."""

    t: float
    seat: int
    with_seat: int


@dataclass(frozen=True)
class Correction:
    """Fix the record. ``action``: "undo" (drop the last game event), "fix" (replace event number ``index``,
    0-based among the game events, with ``event``) or "revert" (take back the last correction or answer, when
    no game event came after it); the referee replays from the start."""

    t: float
    action: str
    index: int | None = None
    event: dict[str, Any] | None = None


@dataclass(frozen=True)
class Join:
    """mahj joins a game in progress that it did not see from the deal: chair ``east`` dealt, it is ``turn``'s turn
    (to pick), about ``wall`` tiles are left; None where nobody said. Again during play, the fields a person gives
    correct those (who is East, whose turn it is, the wall)."""

    t: float
    east: int | None = None
    turn: int | None = None
    wall: int | None = None


@dataclass(frozen=True)
class Answer:
    """A person's answer to the question the camera's evidence raised: event number ``index`` (0-based among the
    game events) was read right (``confirmed``: its penalties apply, at the moment it happened) or not (they are
    dropped). The camera alone never penalises; see engine/referee/doubt.py."""

    t: float
    index: int
    confirmed: bool = True


Event = (
    Deal | Dice | CharlestonPass | CourtesyPass | CharlestonStop | Pick | Rack | Discard | Claim | Exposure
    | JokerExchangeAnnounced | JokerExchange | MahjongDeclared | DeadChallenge | TileCount | ThrowIn
    | AttemptedHand | Penalty | WallExhausted | WallDestroyed | TimeCalled | SeatChange | Correction
    | Join | Answer
)

#: snake_case type name -> class; the "type" field of the JSON form.
TYPES: dict[str, type] = {
    "deal": Deal, "dice": Dice, "charleston_pass": CharlestonPass, "courtesy_pass": CourtesyPass,
    "charleston_stop": CharlestonStop, "pick": Pick, "rack": Rack, "discard": Discard, "claim": Claim,
    "exposure": Exposure, "joker_exchange_announced": JokerExchangeAnnounced, "joker_exchange": JokerExchange,
    "mahjong_declared": MahjongDeclared, "dead_challenge": DeadChallenge, "tile_count": TileCount,
    "throw_in": ThrowIn, "attempted_hand": AttemptedHand, "penalty": Penalty, "wall_exhausted": WallExhausted,
    "wall_destroyed": WallDestroyed, "time_called": TimeCalled, "seat_change": SeatChange, "correction": Correction,
    "join": Join, "answer": Answer,
}
_NAME_OF: dict[type, str] = {cls: name for name, cls in TYPES.items()}


def type_name(event: object) -> str:
    """The snake_case type of an event object ("?" for something that is not an event)."""
    return _NAME_OF.get(type(event), "?")


def to_json(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready dict with its ``type``; tuples become lists."""
    out: dict[str, Any] = {"type": type_name(event)}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """Resolved field types of an event class, resolved once: every journal line and camera event is parsed."""
    return typing.get_type_hints(cls)


def _check(value: Any, hint: Any, where: str) -> Any:
    """Return ``value`` converted to ``hint`` (lists to tuples), or raise EventError naming ``where``."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is type(None):
                continue
            try:
                return _check(value, option, where)
            except EventError:
                continue
        raise EventError(f"{where}: expected {_describe(hint)}, got {value!r}")
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise EventError(f"{where}: expected a list of tile codes, got {value!r}")
        return tuple(_check(v, str, f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict or hint is dict:
        if not isinstance(value, dict):
            raise EventError(f"{where}: expected an object, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EventError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise EventError(f"{where}: expected an integer, got {value!r}")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise EventError(f"{where}: expected true or false, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise EventError(f"{where}: expected a string, got {value!r}")
        return value
    return value


def _describe(hint: Any) -> str:
    return " or ".join("null" if a is type(None) else getattr(a, "__name__", str(a)) for a in typing.get_args(hint))


def from_json(d: Any) -> Event:
    """Build an event from its JSON dict; raises EventError with the field at fault."""
    if not isinstance(d, dict):
        raise EventError(f"an event must be a JSON object, got {type(d).__name__}")
    kind = d.get("type")
    if kind not in TYPES:
        raise EventError(f"type: unknown event type {kind!r}{did_you_mean(str(kind), TYPES)} "
                         f"(known: {', '.join(TYPES)})")
    cls = TYPES[kind]
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(d) - set(fields) - {"type"})
    if unknown:
        raise EventError(f"{kind}: unknown field(s) {', '.join(unknown)}")
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in d:
            if f.default is dataclasses.MISSING:
                raise EventError(f"{kind}.{name}: missing")
            continue
        kwargs[name] = _check(d[name], hints[name], f"{kind}.{name}")
    return cls(**kwargs)
