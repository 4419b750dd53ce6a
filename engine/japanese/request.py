"""The scoring request as a dict (the JSON object of ``mahj jp score``) and its answer as a dict.

Other tools feed this, so bad input is answered, never guessed at: ``{"ok": false, "field": ..., "error": ...}``
names the field and the problem. A hand that is fine as input but does not win (wrong shape, no yaku) is
``{"ok": true, "win": false, "reason": ...}``. Field list and meanings: ``docs/japanese.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from engine.japanese.points import payments
from engine.japanese.rules import PRESETS, Rules
from engine.japanese.scoring import YAKU_NAMES, Meld, Situation, score
from engine.japanese.tiles import KIND_NAMES, WIND_INDEX, MpszError, parse_mpsz

_FLAGS = frozenset(("riichi", "double_riichi", "ippatsu", "haitei", "houtei", "rinshan", "chankan", "tenhou",
                    "chiihou", "renhou", "first_turn"))
_KNOWN = frozenset(("hand", "melds", "win", "tsumo", "seat_wind", "round_wind", "dora_indicators",
                    "ura_indicators", "rules", "id")) | _FLAGS
_MELD_TYPES = ("chi", "pon", "minkan", "ankan", "kakan")


class RequestError(ValueError):
    """Bad input; ``field`` is the request field at fault (``melds[1].tiles`` style)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _tiles(request: Mapping[str, Any], key: str, default: str | None = None) -> tuple[tuple[int, ...], int]:
    value = request.get(key, default)
    if value is None:
        raise RequestError(key, "missing (mpsz tiles, e.g. \"123m406p789s1122z\")")
    try:
        return parse_mpsz(value)
    except MpszError as exc:
        raise RequestError(key, str(exc)) from None


def _flag(request: Mapping[str, Any], key: str) -> bool:
    value = request.get(key, False)
    if value is not True and value is not False:
        raise RequestError(key, f"must be true or false, got {value!r}")
    return value


def _wind(request: Mapping[str, Any], key: str) -> int:
    value = request.get(key)
    if type(value) is not str or value not in WIND_INDEX:
        raise RequestError(key, f"must be one of \"E\", \"S\", \"W\", \"N\", got {value!r}")
    return WIND_INDEX[value]


_MELD_KEYS = frozenset(("type", "tiles"))


def _meld(i: int, raw: Any) -> tuple[Meld, tuple[int, ...], int]:
    where = f"melds[{i}]"
    if type(raw) is not dict and not isinstance(raw, Mapping):
        raise RequestError(where, "must be an object {\"type\": ..., \"tiles\": ...}")
    if not _MELD_KEYS.issuperset(raw):
        raise RequestError(f"{where}.{sorted(set(raw) - _MELD_KEYS)[0]}", "unknown field (a meld has type and tiles)")
    kind, text = raw.get("type"), raw.get("tiles")
    if type(kind) is not str or kind not in _MELD_TYPES:
        raise RequestError(f"{where}.type", f"must be one of {', '.join(_MELD_TYPES)}, got {kind!r}")
    if type(text) is not str:
        raise RequestError(f"{where}.tiles", "missing" if text is None else f"must be mpsz text, got {text!r}")
    try:
        return _meld_of(kind, text)
    except RequestError as exc:
        raise RequestError(f"{where}.{exc.field}", str(exc).split(": ", 1)[1]) from None


@lru_cache(maxsize=2048)
def _meld_of(kind: str, text: str) -> tuple[Meld, tuple[int, ...], int]:
    """A meld from its type and mpsz tiles (few distinct melds exist, so each is checked once and kept)."""
    try:
        tiles, red = parse_mpsz(text)
    except MpszError as exc:
        raise RequestError("tiles", str(exc)) from None
    tiles = tuple(sorted(tiles))
    first = tiles[0] if tiles else -1
    if kind == "chi":
        ok = len(tiles) == 3 and first < 27 and first % 9 <= 6 and tiles == (first, first + 1, first + 2)
        need = "three consecutive tiles of one suit"
    else:
        size = 3 if kind == "pon" else 4
        ok = len(tiles) == size and tiles.count(first) == size
        need = f"{size} identical tiles"
    if not ok:
        raise RequestError("tiles", f"a {kind} needs {need}, got {text!r}")
    return Meld(kind, first), tiles, red


def parse_request(request: Mapping[str, Any], presets: Mapping[str, Rules] = PRESETS
                  ) -> tuple[tuple[int, ...], tuple[Meld, ...], int, int, Situation, Rules]:
    """Check a request and turn it into the scorer's arguments (counts, melds, win, red fives, situation, rules).

    ``presets`` are the rulesets the ``rules`` field may name (a table's own ruleset can be added there).
    Raises :class:`RequestError` naming the first field at fault.
    """
    if type(request) is not dict and not isinstance(request, Mapping):
        raise RequestError("request", "must be a JSON object")
    if not _KNOWN.issuperset(request):
        raise RequestError(sorted(set(request) - _KNOWN)[0], "unknown field")
    rules_name = request.get("rules", "reference")
    rules = presets.get(rules_name) if isinstance(rules_name, str) else None
    if rules is None:
        raise RequestError("rules", f"must be one of {', '.join(presets)}, got {rules_name!r}")

    kinds, red = _tiles(request, "hand")
    counts = [0] * 34
    for k in kinds:
        counts[k] += 1
    raw_melds = request.get("melds") or ()
    if not isinstance(raw_melds, (list, tuple)) or len(raw_melds) > 4:
        raise RequestError("melds", "must be a list of at most 4 melds")
    melds: list[Meld] = []
    all_counts = counts
    if raw_melds:
        all_counts = counts[:]
        for i, raw in enumerate(raw_melds):
            meld, tiles, meld_red = _meld(i, raw)
            melds.append(meld)
            red += meld_red
            for k in tiles:
                all_counts[k] += 1
    expected = 14 - 3 * len(melds)
    if len(kinds) != expected:
        raise RequestError("hand", f"{len(kinds)} concealed tiles with {len(melds)} melds; a winning hand has "
                                   f"{expected} (the winning tile included)")
    if max(all_counts) > 4:
        over = all_counts.index(max(all_counts))
        raise RequestError("hand", f"{all_counts[over]} of {KIND_NAMES[over]} in hand and melds (a set has 4)")

    win_tiles, win_red = _tiles(request, "win")
    if len(win_tiles) != 1:
        raise RequestError("win", f"must be exactly one tile, got {len(win_tiles)}")
    win = win_tiles[0]
    if not counts[win]:
        raise RequestError("win", f"{request['win']} is not among the concealed tiles of hand")
    if win_red and not red:
        raise RequestError("win", "a red five but hand holds no red five")

    if "tsumo" not in request:
        raise RequestError("tsumo", "missing (true: self-drawn, false: on a discard)")
    tsumo = _flag(request, "tsumo")
    seat, rnd = _wind(request, "seat_wind"), _wind(request, "round_wind")
    named = _FLAGS.intersection(request)
    flags = {key: _flag(request, key) for key in named} if named else {}
    dora = _indicators(request, "dora_indicators") if "dora_indicators" in request else ()
    ura = _indicators(request, "ura_indicators") if "ura_indicators" in request else ()
    sit = Situation(tsumo, seat, rnd, dora_indicators=dora, ura_indicators=ura, **flags)
    for key, value in flags.items():
        if value:
            possible, why = _POSSIBLE[key]
            if not possible(sit, melds, rules):
                raise RequestError(key, why)
    return tuple(counts), tuple(melds), win, red, sit, rules


def _indicators(request: Mapping[str, Any], key: str) -> tuple[int, ...]:
    kinds, _ = _tiles(request, key)
    if len(kinds) > 5:
        raise RequestError(key, f"at most 5 indicators (1 + 4 kongs), got {len(kinds)}")
    return tuple(kinds)


#: Each way of going out -> (is it possible for this hand?, why not). Checked only for flags that are set.
_POSSIBLE = {
    "riichi": (lambda sit, melds, rules: not _opened(melds), "an open hand cannot declare riichi"),
    "double_riichi": (lambda sit, melds, rules: not _opened(melds), "an open hand cannot declare riichi"),
    "ippatsu": (lambda sit, melds, rules: sit.riichi or sit.double_riichi, "needs riichi or double_riichi"),
    "haitei": (lambda sit, melds, rules: sit.tsumo and not sit.rinshan,
               "is a self-drawn last tile of the wall (not a supplement tile)"),
    "houtei": (lambda sit, melds, rules: not sit.tsumo, "is a win on the last discard (tsumo must be false)"),
    "rinshan": (lambda sit, melds, rules: sit.tsumo and any(m.kind not in ("chi", "pon") for m in melds),
                "needs tsumo and a kong among the melds"),
    "chankan": (lambda sit, melds, rules: not sit.tsumo,
                "robbing a kong is a win on a claimed tile (tsumo must be false)"),
    "tenhou": (lambda sit, melds, rules: sit.dealer and sit.tsumo and not melds,
               "is the dealer's self-drawn win with the dealt hand, no melds"),
    "chiihou": (lambda sit, melds, rules: not sit.dealer and not melds
                and sit.tsumo == (rules.earthly_hand == "first_self_draw"),
                "is a non-dealer's win with no melds: self-drawn on his first turn (earthly_hand "
                "first_self_draw, the tenhou preset) or on the dealer's first discard (the reference preset)"),
    "renhou": (lambda sit, melds, rules: not sit.dealer and not sit.tsumo and not melds,
               "is a non-dealer's win on a discard before his first turn, no melds"),
    "first_turn": (lambda sit, melds, rules: not melds and (sit.tsumo or not sit.dealer),
                   "needs no melds (and a dealer can only win his first turn by self-draw)"),
}


def _opened(melds: list[Meld]) -> bool:
    return any(m.kind != "ankan" for m in melds)


def score_request(request: Mapping[str, Any], presets: Mapping[str, Rules] = PRESETS) -> dict[str, Any]:
    """Score one request dict; always returns the answer dict (never raises for bad input)."""
    try:
        counts, melds, win, red, sit, rules = parse_request(request, presets)
    except RequestError as exc:
        out: dict[str, Any] = {"ok": False, "field": exc.field, "error": str(exc)}
        if isinstance(request, Mapping) and "id" in request:
            out["id"] = request["id"]
        return out
    result = score(counts, melds, win, red, sit, rules)
    if not result.win:
        out = {"ok": True, "win": False, "reason": result.reason}
    else:
        dealer = sit.dealer
        out = {
            "ok": True,
            "win": True,
            "han": result.han,
            "fu": result.fu,
            "fu_details": [{"fu": fu, "reason": reason} for fu, reason in result.fu_details()],
            "yaku": [{"name": key, "han": han, "english": YAKU_NAMES[key], "limit": limits} if limits > 0 else
                     {"name": key, "han": han, "english": YAKU_NAMES[key]} for key, han, limits in result.yaku],
            "basic_points": result.basic,
            "limit_name": result.limit_name,
            "dealer": dealer,
            "payments": payments(result.basic, dealer, sit.tsumo),
            "rules": rules.name,
        }
    if "id" in request:
        out["id"] = request["id"]
    return out
