"""The scoring request as a dict (the JSON object of ``mahj jp score``) and its answer as a dict.

Other tools feed this, so bad input is answered, never guessed at: ``{"ok": false, "field": ..., "error": ...}``
names the field and the problem. A hand that is fine as input but does not win (wrong shape, no yaku) is
``{"ok": true, "win": false, "reason": ...}``. Field list and meanings: ``docs/japanese.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.japanese.points import payments
from engine.japanese.rules import PRESETS, Rules
from engine.japanese.scoring import YAKU_NAMES, Meld, Situation, score
from engine.japanese.tiles import WIND_INDEX, MpszError, parse_mpsz, to_mpsz

_FLAGS = ("riichi", "double_riichi", "ippatsu", "haitei", "houtei", "rinshan", "chankan", "tenhou", "chiihou",
          "renhou", "first_turn")
_KNOWN = frozenset(("hand", "melds", "win", "tsumo", "seat_wind", "round_wind", "dora_indicators",
                    "ura_indicators", "rules", "id") + _FLAGS)
_MELD_TYPES = ("chi", "pon", "minkan", "ankan", "kakan")


class RequestError(ValueError):
    """Bad input; ``field`` is the request field at fault (``melds[1].tiles`` style)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _tiles(request: Mapping[str, Any], key: str, default: str | None = None) -> tuple[list[int], int]:
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
    if value not in WIND_INDEX:
        raise RequestError(key, f"must be one of \"E\", \"S\", \"W\", \"N\", got {value!r}")
    return WIND_INDEX[value]


def _meld(i: int, raw: Any) -> tuple[Meld, list[int], int]:
    where = f"melds[{i}]"
    if not isinstance(raw, Mapping):
        raise RequestError(where, "must be an object {\"type\": ..., \"tiles\": ...}")
    extra = set(raw) - {"type", "tiles"}
    if extra:
        raise RequestError(f"{where}.{sorted(extra)[0]}", "unknown field (a meld has type and tiles)")
    kind = raw.get("type")
    if kind not in _MELD_TYPES:
        raise RequestError(f"{where}.type", f"must be one of {', '.join(_MELD_TYPES)}, got {kind!r}")
    tiles, red = _tiles(raw, "tiles") if "tiles" in raw else (None, 0)
    if tiles is None:
        raise RequestError(f"{where}.tiles", "missing")
    tiles.sort()
    first = tiles[0] if tiles else -1
    if kind == "chi":
        ok = len(tiles) == 3 and first < 27 and first % 9 <= 6 and tiles == [first, first + 1, first + 2]
        need = "three consecutive tiles of one suit"
    else:
        size = 3 if kind == "pon" else 4
        ok = len(tiles) == size and tiles.count(first) == size
        need = f"{size} identical tiles"
    if not ok:
        raise RequestError(f"{where}.tiles", f"a {kind} needs {need}, got {to_mpsz(tiles, red)!r}")
    return Meld(kind, first), tiles, red


def parse_request(request: Mapping[str, Any], presets: Mapping[str, Rules] = PRESETS
                  ) -> tuple[list[int], tuple[Meld, ...], int, int, Situation, Rules]:
    """Check a request and turn it into the scorer's arguments (counts, melds, win, red fives, situation, rules).

    ``presets`` are the rulesets the ``rules`` field may name (a table's own ruleset can be added there).
    Raises :class:`RequestError` naming the first field at fault.
    """
    if not isinstance(request, Mapping):
        raise RequestError("request", "must be a JSON object")
    unknown = set(request) - _KNOWN
    if unknown:
        raise RequestError(sorted(unknown)[0], "unknown field")
    rules_name = request.get("rules", "reference")
    rules = presets.get(rules_name) if isinstance(rules_name, str) else None
    if rules is None:
        raise RequestError("rules", f"must be one of {', '.join(presets)}, got {rules_name!r}")

    kinds, red = _tiles(request, "hand")
    raw_melds = request.get("melds", [])
    if not isinstance(raw_melds, list) or len(raw_melds) > 4:
        raise RequestError("melds", "must be a list of at most 4 melds")
    melds: list[Meld] = []
    counts = [0] * 34
    for k in kinds:
        counts[k] += 1
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
    over = next((k for k in range(34) if all_counts[k] > 4), None)
    if over is not None:
        raise RequestError("hand", f"{all_counts[over]} of {to_mpsz([over])} in hand and melds (a set has 4)")

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
    flags = {key: _flag(request, key) for key in _FLAGS if key in request}
    dora, _ = _tiles(request, "dora_indicators", "")
    ura, _ = _tiles(request, "ura_indicators", "")
    for key, ind in (("dora_indicators", dora), ("ura_indicators", ura)):
        if len(ind) > 5:
            raise RequestError(key, f"at most 5 indicators (1 + 4 kongs), got {len(ind)}")
    sit = Situation(tsumo=tsumo, seat_wind=seat, round_wind=rnd, dora_indicators=tuple(dora),
                    ura_indicators=tuple(ura), **flags)
    _check_situation(sit, melds, rules)
    return counts, tuple(melds), win, red, sit, rules


def _check_situation(sit: Situation, melds: list[Meld], rules: Rules) -> None:
    """Reject ways of going out that cannot happen with this hand (each names its flag)."""
    opened = any(m.kind != "ankan" for m in melds)
    earthly_tsumo = rules.earthly_hand == "first_self_draw"
    need = {
        "riichi": (not opened, "an open hand cannot declare riichi"),
        "double_riichi": (not opened, "an open hand cannot declare riichi"),
        "ippatsu": (sit.riichi or sit.double_riichi, "needs riichi or double_riichi"),
        "haitei": (sit.tsumo and not sit.rinshan, "is a self-drawn last tile of the wall (not a supplement tile)"),
        "houtei": (not sit.tsumo, "is a win on the last discard (tsumo must be false)"),
        "rinshan": (sit.tsumo and any(m.kong for m in melds), "needs tsumo and a kong among the melds"),
        "chankan": (not sit.tsumo, "robbing a kong is a win on a claimed tile (tsumo must be false)"),
        "tenhou": (sit.dealer and sit.tsumo and not melds, "is the dealer's self-drawn win with the dealt hand"),
        "chiihou": (not sit.dealer and not melds and sit.tsumo == earthly_tsumo,
                    f"in the {rules.name} rules is a non-dealer's win, no melds, "
                    + ("self-drawn on his first turn" if earthly_tsumo else "on the dealer's first discard")),
        "renhou": (not sit.dealer and not sit.tsumo and not melds, "is a non-dealer's win on a discard before "
                                                                    "his first turn, no melds"),
        "first_turn": (not melds and (sit.tsumo or not sit.dealer), "needs no melds (and a dealer can only win "
                                                                     "his first turn by self-draw)"),
    }
    for key, (ok, why) in need.items():
        if getattr(sit, key) and not ok:
            raise RequestError(key, why)


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
    out = {"ok": True, "win": result.win}
    if "id" in request:
        out["id"] = request["id"]
    if not result.win:
        out["reason"] = result.reason
        return out
    yaku = []
    for key, han, limits in result.yaku:
        item: dict[str, Any] = {"name": key, "han": han, "english": YAKU_NAMES[key]}
        if limits > 0:
            item["limit"] = limits
        yaku.append(item)
    out.update(
        han=result.han,
        fu=result.fu,
        fu_details=[{"fu": fu, "reason": why} for fu, why in result.fu_parts],
        yaku=yaku,
        basic_points=result.basic,
        limit_name=result.limit_name,
        dealer=sit.dealer,
        payments=payments(result.basic, sit.dealer, sit.tsumo),
        rules=rules.name,
    )
    return out
