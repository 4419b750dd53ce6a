"""Read the RiichiEnv scored-hands data set (Apache-2.0, Kohei Ozaki) into ``mahj jp score`` requests.

Their hands are in the 136-tile format (tile id // 4 = kind in m, p, s, z order; ids 16, 52, 88 are the red
fives) and their yaku are numbered the Mahjong Soul way; both are converted here so the full set
(``../shared``) and the committed sample (``tests/fixtures/riichienv``) are checked by the same code.
"""

from __future__ import annotations

import json
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "riichienv-scored-hands"
SAMPLE = Path(__file__).resolve().parent / "fixtures" / "riichienv" / "sample.json"

RED_IDS = frozenset((16, 52, 88))
WINDS = "ESWN"
MELD_TYPES = {"chi": "chi", "pon": "pon", "daiminkan": "minkan", "ankan": "ankan", "kakan": "kakan"}

#: Mahjong Soul yaku ids -> our pattern keys (dora counted by id, not by tile).
YAKU_IDS: dict[int, str] = {
    1: "menzen_tsumo", 2: "riichi", 3: "chankan", 4: "rinshan", 5: "haitei", 6: "houtei", 7: "yakuhai_white",
    8: "yakuhai_green", 9: "yakuhai_red", 10: "seat_wind", 11: "round_wind", 12: "tanyao", 13: "iipeikou",
    14: "pinfu", 15: "chanta", 16: "ittsu", 17: "sanshoku", 18: "double_riichi", 19: "sanshoku_doukou",
    20: "sankantsu", 21: "toitoi", 22: "sanankou", 23: "shousangen", 24: "honroutou", 25: "chiitoitsu",
    26: "junchan", 27: "honitsu", 28: "ryanpeikou", 29: "chinitsu", 30: "ippatsu", 31: "dora", 32: "aka_dora",
    33: "ura_dora", 35: "tenhou", 36: "chiihou", 37: "daisangen", 38: "suuankou", 39: "tsuuiisou",
    40: "ryuuiisou", 41: "chinroutou", 42: "kokushi", 43: "shousuushii", 44: "suukantsu", 45: "chuuren",
    47: "junsei_chuuren", 48: "suuankou_tanki", 49: "kokushi_13", 50: "daisuushii",
}


def mpsz(ids136: list[int]) -> str:
    """136-format ids as mpsz text, red fives as 0."""
    groups: dict[str, list[str]] = {"m": [], "p": [], "s": [], "z": []}
    for t in sorted(ids136):
        kind = t // 4
        suit = "mpsz"[kind // 9]
        groups[suit].append("0" if t in RED_IDS else str(kind % 9 + 1))
    return "".join("".join(d) + s for s, d in groups.items() if d)


def to_request(case: dict) -> dict:
    """One agari case as a request in the ``tenhou`` preset."""
    cond = case["conditions"]
    concealed = case["tiles_136"]
    if len(concealed) + 3 * len(case["melds"]) == 13:  # one case lists the winning tile among the 14 already
        concealed = concealed + [case["win_tile_136"]]
    req = {
        "hand": mpsz(concealed),
        "melds": [{"type": MELD_TYPES[m["meld_type"]], "tiles": mpsz(m["tiles"])} for m in case["melds"]],
        "win": mpsz([case["win_tile_136"]]),
        "tsumo": cond["tsumo"],
        "seat_wind": WINDS[cond["player_wind"]],
        "round_wind": WINDS[cond["round_wind"]],
        "dora_indicators": mpsz(case["dora_indicators"]),
        "ura_indicators": mpsz(case["ura_indicators"]),
        "rules": "tenhou",
    }
    for key in ("riichi", "double_riichi", "ippatsu", "haitei", "houtei", "rinshan", "chankan"):
        if cond[key]:
            req[key] = True
    if cond["double_riichi"]:
        req["riichi"] = True
    if cond["tsumo_first_turn"]:
        req["first_turn"] = True
    return req


def expected_names(case: dict) -> set[str]:
    return {YAKU_IDS[i] for i in case["expected"]["yaku"]}


def counts_to_mpsz(counts34: list[int]) -> str:
    """A 34-count vector as mpsz (the negative cases)."""
    return "".join(
        "".join(str(k % 9 + 1) * counts34[k] for k in range(base, base + size)) + suit
        for suit, base, size in (("m", 0, 9), ("p", 9, 9), ("s", 18, 9), ("z", 27, 7))
        if any(counts34[base:base + size])
    )


def load(path: Path) -> tuple[list[dict], list[dict]]:
    """(agari cases, negative cases) from the full data set directory or the committed sample file."""
    if path.is_dir():
        agari = json.loads((path / "agari_4p.json").read_text())["cases"]
        negative = json.loads((path / "hands_negative.json").read_text())["cases"]
        return agari, negative
    data = json.loads(path.read_text())
    return data["agari"], data["negative"]
