"""Rule presets: every question the rules text leaves open is a field here, so a table can name its rules.

Two presets ship: ``reference`` follows the rules text (``../shared/rules/002_*``) as literally as it can be
read, with its optional items off; ``tenhou`` is the common online ruleset (red fives, stacking and double
limit hands, the usual han values). ``docs/japanese.md`` explains each field and why each preset sets it so.
A custom ruleset is ``dataclasses.replace(PRESETS["tenhou"], ...)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

#: Han of the patterns that depend on whether the hand is concealed: name -> (open, concealed).
#: An open value of 0 means the pattern needs a concealed hand; (0, 0) means it is off. The text's optional
#: patterns (One Out after Ready, three identical chows at 3 han) are (0, 0) in the reference preset.
_REFERENCE_HAN: dict[str, tuple[int, int]] = {
    "riichi": (0, 1), "double_riichi": (0, 1), "ippatsu": (0, 0), "menzen_tsumo": (0, 1),
    "haitei": (1, 1), "houtei": (1, 1), "rinshan": (1, 1), "chankan": (1, 1),
    "yakuhai": (1, 1), "pinfu": (0, 1), "tanyao": (1, 1),
    "iipeikou": (0, 1), "ryanpeikou": (0, 0), "isshoku_sanjun": (0, 0),
    "sanshoku": (1, 2), "ittsu": (1, 2), "sanshoku_doukou": (2, 2),
    "sanankou": (2, 2), "sankantsu": (2, 2), "toitoi": (2, 2), "shousangen": (4, 4),
    "chanta": (1, 2), "junchan": (2, 3), "honroutou": (1, 3),
    "honitsu": (2, 3), "chinitsu": (5, 6), "chiitoitsu": (0, 2),
}
_TENHOU_HAN: dict[str, tuple[int, int]] = _REFERENCE_HAN | {
    "double_riichi": (0, 2), "ippatsu": (0, 1), "ryanpeikou": (0, 3), "shousangen": (2, 2), "honroutou": (2, 2),
}


_YAKUHAI_KEYS = ("yakuhai_white", "yakuhai_green", "yakuhai_red", "seat_wind", "round_wind")


@dataclass(frozen=True)
class Rules:
    """One ruleset. Field names are what the docs and a custom preset use."""

    name: str
    #: han per pattern: name -> (open, concealed); (0, 0) = the pattern is not recognised.
    han: Mapping[str, tuple[int, int]]
    #: 0m/0p/0s are worth one dora each. Off: a red five is an ordinary five.
    red_fives: bool = False
    #: All Simples also counts for a hand with melded sets.
    open_tanyao: bool = True
    #: Different limit hands in one hand add up (400% each); off: the best single one counts.
    limits_stack: bool = False
    #: Limit hands worth two limits (800%): any of kokushi_13, suuankou_tanki, junsei_chuuren, daisuushii.
    double_limits: frozenset[str] = frozenset()
    #: Fu of a pair of a wind that is both the seat and the round wind (2 fu for each role = 4).
    double_wind_pair_fu: int = 4
    #: Optional items of the text (marked #) besides One Out after Ready (``han["ippatsu"]``): ura dora,
    #: kong dora (every indicator after the first), kong ura dora.
    ura_dora: bool = False
    kan_dora: bool = False
    kan_ura_dora: bool = False
    #: Optional patterns of the text: four identical chows (limit) and seven consecutive pairs (limit).
    four_identical_chows: bool = False
    #: None = off; "any" = seven consecutive pairs of one suit anywhere; "2-8" = only 2..8 (Big Wheels).
    consecutive_pairs: str | None = None
    #: Little Three Dragons' han already include the two dragon pungs (the text: "implies scores for Dragons").
    shousangen_includes_dragons: bool = True
    #: Double riichi replaces riichi (its han then include riichi's); off: both are listed.
    double_riichi_replaces_riichi: bool = False
    #: Terminal-or-honour-in-each-set and Terminal-in-each-set need at least one chow.
    chanta_needs_chow: bool = True
    #: Seven pairs of honours count as All Honours (the text defines All Honours with pungs).
    all_honours_seven_pairs: bool = False
    #: Earthly Hand means "dealer_discard" (non-dealer wins on the dealer's first discard)
    #: or "first_self_draw" (non-dealer wins on his first, uninterrupted self-draw).
    earthly_hand: str = "dealer_discard"
    #: Limits (x400%) for out on 1st turn with a discarded tile; 0 = not recognised.
    renhou_limits: int = 1
    #: Limits for out on 1st turn with a self-drawn tile by a non-dealer (when that is not the Earthly Hand).
    first_turn_self_draw_limits: int = 1
    #: 13 han or more pays 400% of the limit (the settling table's last column); off: capped at 300%.
    counted_limit: bool = True
    #: Round 4 han 30 fu and 3 han 60 fu up to the limit (1920 -> 2000). The text's table does not.
    kiriage: bool = False
    #: Fu added to an open hand that earned no fu beyond winning (the text's open no-points hand).
    open_no_points_fu: int = 10

    def han_table(self, concealed: bool) -> dict[str, int]:
        """pattern -> han for a concealed or an open hand, built once per ruleset (the scorer's hot path)."""
        return self._han_tables[concealed]

    @cached_property
    def _han_tables(self) -> tuple[dict[str, int], dict[str, int]]:
        tables = ({k: v[0] for k, v in self.han.items() if v[0]}, {k: v[1] for k, v in self.han.items() if v[1]})
        for table in tables:  # each dragon and wind pung is a yakuhai entry of its own in the answer
            if "yakuhai" in table:
                table.update(dict.fromkeys(_YAKUHAI_KEYS, table["yakuhai"]))
        return tables


REFERENCE = Rules(name="reference", han=MappingProxyType(_REFERENCE_HAN))

TENHOU = Rules(
    name="tenhou",
    han=MappingProxyType(_TENHOU_HAN),
    red_fives=True,
    limits_stack=True,
    double_limits=frozenset({"kokushi_13", "suuankou_tanki", "junsei_chuuren", "daisuushii"}),
    ura_dora=True,
    kan_dora=True,
    kan_ura_dora=True,
    shousangen_includes_dragons=False,
    double_riichi_replaces_riichi=True,
    all_honours_seven_pairs=True,
    earthly_hand="first_self_draw",
    renhou_limits=0,
)

PRESETS: dict[str, Rules] = {r.name: r for r in (REFERENCE, TENHOU)}
