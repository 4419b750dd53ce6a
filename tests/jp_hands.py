"""Random winning Japanese hands (seeded) and their translation for the ``mahjong`` package.

Used by the differential test and ``bench/bench_jp.py`` so both score the same kind of hands. A hand is built
from four sets and a pair (some seven pairs and thirteen orphans), sets are melded at random, and the way of
going out (tsumo, winds, riichi, dora, red fives, last tile, supplement tile) is drawn to match what is
possible for that hand. Not every hand has a yaku: those must come back ``win: false`` from both scorers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

WINDS = "ESWN"
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
RED_KINDS = (4, 13, 22)  # 5m 5p 5s


@dataclass
class GenHand:
    """One generated hand: the request dict for us and the 136-format pieces for the ``mahjong`` package."""

    request: dict
    tiles136: list[int]  # all 14+ tiles, melds included
    win136: int
    melds136: list[tuple[str, list[int], bool]]  # (type, ids, opened)
    dora136: list[int]


def _mpsz(kinds_red: list[tuple[int, bool]]) -> str:
    out = []
    for suit, base, size in (("m", 0, 9), ("p", 9, 9), ("s", 18, 9), ("z", 27, 7)):
        digits = sorted("0" if red else str(k - base + 1) for k, red in kinds_red if base <= k < base + size)
        if digits:
            out.append("".join(digits) + suit)
    return "".join(out)


def _random_groups(rng: random.Random) -> list[tuple[str, int]]:
    """Four sets and a pair drawn freely, sometimes kept to one suit (+ honours) or to simples."""
    style = rng.random()
    suits = [rng.randrange(3)] if style < 0.25 else [0, 1, 2]
    honours = style < 0.15 or rng.random() < 0.6
    simples_only = 0.25 <= style < 0.45

    def pick_kind() -> int:
        if honours and rng.random() < 0.3:
            return 27 + rng.randrange(7)
        lo, hi = (1, 7) if simples_only else (0, 8)
        return rng.choice(suits) * 9 + rng.randint(lo, hi)

    groups: list[tuple[str, int]] = []
    for _ in range(4):
        if rng.random() < 0.6:
            lo, hi = (1, 5) if simples_only else (0, 6)
            groups.append(("chow", rng.choice(suits) * 9 + rng.randint(lo, hi)))
        else:
            groups.append(("pung", pick_kind()))
    return groups + [("pair", pick_kind())]


def _themed_groups(rng: random.Random) -> list[tuple[str, int]]:
    """Hands built around a rarer pattern (three-suit chows or pungs, straight, outside hands, dragons,
    winds) so those patterns are compared often, not once in a thousand hands."""
    theme = rng.choice(("sanshoku", "doukou", "ittsu", "outside", "dragons", "winds", "green", "terminals"))
    suit = rng.randrange(3) * 9
    any_kind = rng.randrange(34)
    if theme == "sanshoku":
        r = rng.randint(0, 6)
        core = [("chow", r), ("chow", r + 9), ("chow", r + 18)]
    elif theme == "doukou":
        r = rng.randint(0, 8)
        core = [("pung", r), ("pung", r + 9), ("pung", r + 18)]
    elif theme == "ittsu":
        core = [("chow", suit), ("chow", suit + 3), ("chow", suit + 6)]
    elif theme == "outside":  # every set and the pair hold a terminal or an honour
        outside = [("chow", rng.randrange(3) * 9 + rng.choice((0, 6))) for _ in range(2)]
        ends = [k for k in (0, 8, 9, 17, 18, 26)] + ([] if rng.random() < 0.5 else list(range(27, 34)))
        core = outside + [("pung", rng.choice(ends))]
        return core + [rng.choice((("chow", rng.randrange(3) * 9 + 6), ("pung", rng.choice(ends)))),
                       ("pair", rng.choice(ends))]
    elif theme == "dragons":
        dragons = rng.sample((31, 32, 33), 3)
        core = [("pung", dragons[0]), ("pung", dragons[1])]
        core.append(("pair", dragons[2]) if rng.random() < 0.6 else ("pung", dragons[2]))
    elif theme in ("green", "terminals"):
        kinds = (19, 20, 21, 23, 25, 32) if theme == "green" else (0, 8, 9, 17, 18, 26, 27)
        picks = rng.sample(kinds, 5)
        core = [("pung", k) for k in picks[:4]] + [("pair", picks[4])]
        if theme == "green" and rng.random() < 0.5:
            core[0] = ("chow", 19)  # 2-3-4 of Bams
        return core
    else:
        winds = rng.sample((27, 28, 29, 30), 4)
        core = [("pung", w) for w in winds[:3]]
        core.append(("pair", winds[3]) if rng.random() < 0.6 else ("pung", winds[3]))
    while len(core) < 5:
        has_pair = any(g == "pair" for g, _ in core)
        if len(core) == 4 and not has_pair:
            core.append(("pair", any_kind))
        elif rng.random() < 0.5 or any_kind >= 27:
            core.append(("pung", rng.randrange(34)))
        else:
            core.append(("chow", rng.randrange(3) * 9 + rng.randint(0, 6)))
    return core


def _sets(rng: random.Random) -> list[tuple[str, int]] | None:
    """Four sets and a pair as (kind of group, first tile kind); None when the counts overflow."""
    groups = _themed_groups(rng) if rng.random() < 0.3 else _random_groups(rng)
    counts = [0] * 34
    for kind, k in groups:
        if kind == "chow":
            counts[k] += 1
            counts[k + 1] += 1
            counts[k + 2] += 1
        else:
            counts[k] += 3 if kind == "pung" else 2
    pairs = sum(1 for kind, _ in groups if kind == "pair")
    return groups if max(counts) <= 4 and pairs == 1 and len(groups) == 5 else None


def generate(rng: random.Random) -> GenHand:
    """One random winning hand (retrying until the tile counts are possible)."""
    while True:
        hand = _try(rng)
        if hand is not None:
            return hand


def _try(rng: random.Random) -> GenHand | None:
    shape = rng.random()
    melds: list[tuple[str, list[int]]] = []  # (our meld type, kinds)
    concealed: list[int] = []
    if shape < 0.06:
        pairs = rng.sample(range(34), 7)
        concealed = [k for k in pairs for _ in range(2)]
    elif shape < 0.08:
        concealed = list(ORPHANS) + [rng.choice(ORPHANS)]
    else:
        groups = _sets(rng)
        if groups is None:
            return None
        openness = rng.choice((0.0, 0.0, 0.3, 0.6))
        for kind, k in groups:
            if kind == "pair":
                concealed += [k, k]
            elif kind == "chow":
                if rng.random() < openness:
                    melds.append(("chi", [k, k + 1, k + 2]))
                else:
                    concealed += [k, k + 1, k + 2]
            else:
                r = rng.random()
                if r < openness:
                    melds.append(("pon", [k] * 3) if rng.random() < 0.8 else
                                 (rng.choice(("minkan", "kakan")), [k] * 4))
                elif r < openness + 0.06:
                    melds.append(("ankan", [k] * 4))
                else:
                    concealed += [k] * 3
    counts = [0] * 34
    for k in concealed + [k for _, ks in melds for k in ks]:
        counts[k] += 1
    if max(counts) > 4:
        return None

    # 136 ids: copy 0 of a five is the red one; it is handed out first or last as the hand wants red fives
    avail = [[0, 1, 2, 3] if k in RED_KINDS and rng.random() < 0.5 else [1, 2, 3, 0] for k in range(34)]

    def take(k: int) -> tuple[int, bool]:
        copy = avail[k].pop(0)
        return k * 4 + copy, k in RED_KINDS and copy == 0

    conc_ids = [take(k) for k in concealed]
    meld_ids = [[take(k) for k in ks] for _, ks in melds]
    win_idx = rng.randrange(len(conc_ids))
    win136, win_red = conc_ids[win_idx]
    win_kind = win136 // 4

    opened = any(t != "ankan" for t, _ in melds)
    has_kong = any(t in ("minkan", "kakan", "ankan") for t, _ in melds)
    tsumo = rng.random() < 0.5
    req: dict = {
        "hand": _mpsz([(i // 4, red) for i, red in conc_ids]),
        "melds": [{"type": t, "tiles": _mpsz([(i // 4, red) for i, red in mi])}
                  for (t, _), mi in zip(melds, meld_ids, strict=True)],
        "win": _mpsz([(win_kind, win_red)]),
        "tsumo": tsumo,
        "seat_wind": rng.choice(WINDS),
        "round_wind": rng.choice("EESSW"),
        "rules": "tenhou",
    }
    if not opened and rng.random() < 0.5:
        req["double_riichi" if rng.random() < 0.05 else "riichi"] = True
        if rng.random() < 0.2:
            req["ippatsu"] = True
    special = rng.random()
    if tsumo and has_kong and special < 0.15:
        req["rinshan"] = True
    elif tsumo and special < 0.05:
        req["haitei"] = True
    elif not tsumo and special < 0.05:
        req["houtei"] = True
    dora136 = [take(k)[0] for k in (rng.randrange(34) for _ in range(rng.choice((1, 1, 1, 2)))) if avail[k]]
    dora = [i // 4 for i in dora136]
    req["dora_indicators"] = _mpsz([(k, False) for k in dora])  # a red indicator is just a five
    all136 = [i for i, _ in conc_ids] + [i for mi in meld_ids for i, _ in mi]
    melds136 = [(t, [i for i, _ in mi], t != "ankan") for (t, _), mi in zip(melds, meld_ids, strict=True)]
    return GenHand(req, all136, win136, melds136, dora136)


@cache
def _package():
    """The ``mahjong`` package's classes and our ``tenhou`` preset in its terms, made once (as our presets are;
    the package is a test-only dependency)."""
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld

    kinds = {"chi": Meld.CHI, "pon": Meld.PON, "minkan": Meld.KAN, "ankan": Meld.KAN, "kakan": Meld.SHOUMINKAN}
    options = OptionalRules(has_open_tanyao=True, has_aka_dora=True, has_double_yakuman=True)
    return EAST, HandCalculator, HandConfig, options, Meld, kinds


def mahjong_package_score(hand: GenHand):
    """Score a generated hand with the ``mahjong`` package in the settings that match our ``tenhou`` preset."""
    east, calculator, hand_config, options, meld, kinds = _package()
    melds = [meld(meld_type=kinds[t], tiles=ids, opened=opened) for t, ids, opened in hand.melds136]
    req = hand.request
    config = hand_config(
        is_tsumo=req["tsumo"],
        is_riichi=bool(req.get("riichi")),
        is_daburu_riichi=bool(req.get("double_riichi")),
        is_ippatsu=bool(req.get("ippatsu")),
        is_rinshan=bool(req.get("rinshan")),
        is_haitei=bool(req.get("haitei")),
        is_houtei=bool(req.get("houtei")),
        player_wind=east + WINDS.index(req["seat_wind"]),
        round_wind=east + WINDS.index(req["round_wind"]),
        options=options,
    )
    return calculator.estimate_hand_value(hand.tiles136, hand.win136, melds=melds,
                                          dora_indicators=hand.dora136, config=config)
