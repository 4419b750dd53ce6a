"""Every row of the rules text's han tables: yakuhai sets, patterns (open / concealed), ways of going out, dora.

Each test names the hand it uses; open versions meld one chow or pung that does not change the pattern.
Values checked are the text's (``reference``) and, where the ``tenhou`` preset differs, that preset's.
"""

import pytest
from jp_util import jp, yaku


@pytest.mark.parametrize(
    ("hand", "win", "melds", "seat", "rnd", "name"),
    [
        ("234m456p789s11s555z", "2m", (), "S", "E", "yakuhai_white"),
        ("234m456p789s11s", "2m", (("ankan", "6666z"),), "S", "E", "yakuhai_green"),
        ("234m456p789s11s777z", "2m", (), "S", "E", "yakuhai_red"),
        ("234m456p789s11s222z", "2m", (), "S", "E", "seat_wind"),
        ("234m456p789s11s", "2m", (("minkan", "2222z"),), "S", "E", "seat_wind"),
        ("234m456p789s11s111z", "2m", (), "S", "E", "round_wind"),
        ("234m456p789s11s", "2m", (("kakan", "1111z"),), "S", "E", "round_wind"),
    ],
)
def test_pung_or_kong_of_dragons_and_winds(hand, win, melds, seat, rnd, name):
    assert yaku(jp(hand, win, melds=melds, seat=seat, rnd=rnd))[name] == 1


def test_double_wind_pung_counts_both():
    got = yaku(jp("234m456p789s11s111z", "2m", seat="E", rnd="E"))
    assert got["seat_wind"] == 1 and got["round_wind"] == 1


# (pattern, concealed hand, win, open hand, its meld, open han, concealed han) in the reference preset
PATTERNS = [
    ("sanshoku", "123m123p123s456m99p", "4m", "123m123p456m99p", ("chi", "123s"), 1, 2),
    ("iipeikou", "112233m456p789s55p", "4p", None, None, 0, 1),
    ("ittsu", "123456789m456p99s", "4p", "123456m456p99s", ("chi", "789m"), 1, 2),
    ("sanshoku_doukou", "222m222p222s456m99p", "4m", "222p222s456m99p", ("pon", "222m"), 2, 2),
    ("sanankou", "111m333p555s234s99m", "2s", None, None, 2, 2),
    ("toitoi", None, "3p", "333p555s777s99m", ("pon", "111m"), 2, 2),
    ("tanyao", "234m456p678s23455s", "2s", "456p678s23455s", ("chi", "234m"), 1, 1),
    ("chanta", "123m789p111s789s11z", "7s", "789p111s789s11z", ("chi", "123m"), 1, 2),
    ("junchan", "123m789p111s789s99m", "7s", "789p111s789s99m", ("chi", "123m"), 2, 3),
    ("honitsu", "123456m789m111z22z", "4m", "456m789m111z22z", ("chi", "123m"), 2, 3),
    ("chinitsu", "123456m789m11155m", "4m", "456m789m11155m", ("chi", "123m"), 5, 6),
    ("pinfu", "123m456p789s23455s", "2s", None, None, 0, 1),
]


@pytest.mark.parametrize(("name", "closed", "win", "opened", "meld", "open_han", "closed_han"), PATTERNS)
def test_pattern_han(name, closed, win, opened, meld, open_han, closed_han):
    if closed is not None:
        assert yaku(jp(closed, win, riichi=True)).get(name) == closed_han
    if opened is not None:
        result = jp(opened, win, melds=(meld,), seat="N", rnd="E")
        if open_han:
            assert yaku(result).get(name) == open_han
        else:
            assert not result["win"] or name not in yaku(result)


def test_iipeikou_needs_a_concealed_hand():
    result = jp("123m456p789s55p", "4p", melds=(("chi", "123m"),), rnd="E")
    assert not result["win"]  # open, no yaku: the two 1-2-3 chows are one melded and one concealed


def test_sankantsu():
    got = yaku(jp("234m55p", "2m", melds=(("minkan", "1111s"), ("ankan", "3333p"), ("kakan", "8888m"))))
    assert got["sankantsu"] == 2


def test_honroutou_reference_and_tenhou():
    hand, melds = "111m999p111z99s", (("pon", "111s"),)
    assert yaku(jp(hand, "9s", melds=melds))["honroutou"] == 1
    assert yaku(jp(hand, "9s", melds=melds, rules="tenhou"))["honroutou"] == 2
    # concealed (seven pairs): 3 in the text, 2 in tenhou
    pairs = "1199m1199p11s1122z"
    assert yaku(jp(pairs, "2z"))["honroutou"] == 3
    assert yaku(jp(pairs, "2z", rules="tenhou"))["honroutou"] == 2


def test_little_three_dragons():
    hand = "234m456p55z666z777z"
    ref = yaku(jp(hand, "2m"))
    assert ref["shousangen"] == 4
    assert "yakuhai_green" not in ref and "yakuhai_red" not in ref  # the 4 han include the dragon pungs
    ten = yaku(jp(hand, "2m", rules="tenhou"))
    assert ten["shousangen"] == 2 and ten["yakuhai_green"] == 1 and ten["yakuhai_red"] == 1


def test_ryanpeikou_is_tenhou_only():
    hand = "223344m556677p88s"
    assert yaku(jp(hand, "2m", rules="tenhou"))["ryanpeikou"] == 3
    ref = yaku(jp(hand, "2m"))
    assert "ryanpeikou" not in ref and ref["iipeikou"] == 1


def test_three_identical_chows_is_optional():
    hand = "123123123m456p99s"
    assert "isshoku_sanjun" not in yaku(jp(hand, "4p"))
    on = yaku(jp(hand, "4p", custom={"han": {"isshoku_sanjun": (0, 3), "iipeikou": (0, 1), "pinfu": (0, 1)}}))
    assert on.get("isshoku_sanjun") == 3 and "iipeikou" not in on


def test_fully_concealed_self_draw():
    assert yaku(jp("123m456p789s22255s", "2s", tsumo=True))["menzen_tsumo"] == 1
    open_tsumo = jp("456p789s22255s", "2s", tsumo=True, melds=(("chi", "123m"),))
    assert not open_tsumo["win"]


def test_seven_pairs_25_fu_2_han():
    result = jp("1133m5577p2288s66z", "6z")
    assert result["fu"] == 25 and yaku(result) == {"chiitoitsu": 2}
    assert result["fu_details"] == [{"fu": 25, "reason": "seven pairs (fixed)"}]
    assert result["basic_points"] == 25 * 2 ** 4


def test_seven_pairs_may_not_repeat_a_pair():
    result = jp("11113355m77p2288s", "8s", riichi=True)
    assert not result["win"] and result["reason"].startswith("not a winning shape")


# --- special ways of going out ------------------------------------------------------------------------------

BASE = "123m456p789s22255s"  # concealed, no yaku of its own on a discard


@pytest.mark.parametrize(
    ("flags", "tsumo", "melds", "name"),
    [
        ({"haitei": True}, True, (), "haitei"),
        ({"houtei": True}, False, (), "houtei"),
        ({"chankan": True}, False, (), "chankan"),
        ({"riichi": True}, False, (), "riichi"),
    ],
)
def test_ways_of_going_out(flags, tsumo, melds, name):
    assert yaku(jp(BASE, "2s", tsumo=tsumo, **flags))[name] == 1


def test_out_on_a_supplement_tile():
    got = yaku(jp("123m456p22255s", "2s", tsumo=True, melds=(("minkan", "7777s"),), rinshan=True))
    assert got["rinshan"] == 1


def test_ippatsu_is_optional():
    assert "ippatsu" not in yaku(jp(BASE, "2s", riichi=True, ippatsu=True))
    assert yaku(jp(BASE, "2s", riichi=True, ippatsu=True, rules="tenhou"))["ippatsu"] == 1


def test_double_riichi():
    ref = yaku(jp(BASE, "2s", double_riichi=True))
    assert ref["riichi"] == 1 and ref["double_riichi"] == 1  # the text: ready declaration is needed too
    ten = yaku(jp(BASE, "2s", double_riichi=True, rules="tenhou"))
    assert ten["double_riichi"] == 2 and "riichi" not in ten


def test_dora_counts_every_tile_but_is_no_yaku():
    got = yaku(jp(BASE, "2s", riichi=True, dora_indicators="1s"))  # 2s is dora: three of them
    assert got["dora"] == 3
    assert not jp(BASE, "2s", dora_indicators="1s")["win"]


def test_dora_wraps_around():
    assert yaku(jp("999m456p789s222s11z", "2s", riichi=True, dora_indicators="8m"))["dora"] == 3
    assert yaku(jp("111m456p789s222s11z", "2s", riichi=True, dora_indicators="9m"))["dora"] == 3
    assert yaku(jp("123m456p789s222s11z", "2s", riichi=True, dora_indicators="4z"))["dora"] == 2  # N -> E
    assert yaku(jp("123m456p789s222s55z", "2s", riichi=True, dora_indicators="7z"))["dora"] == 2  # Red -> White


def test_kong_dora_ura_and_kong_ura_are_optional():
    kw = {"riichi": True, "dora_indicators": "1p1s", "ura_indicators": "3p1s"}
    ref = yaku(jp(BASE, "2s", **kw))
    assert ref.get("dora") is None  # 2p is not in hand; the kong dora indicator (1s) is off
    assert "ura_dora" not in ref
    ten = yaku(jp(BASE, "2s", rules="tenhou", **kw))
    assert ten["dora"] == 3 and ten["ura_dora"] == 1 + 3  # 4p once, 2s three times


def test_red_fives():
    assert "aka_dora" not in yaku(jp("123m406p789s22255s", "2s", riichi=True))
    assert yaku(jp("123m406p789s22205s", "2s", riichi=True, rules="tenhou"))["aka_dora"] == 2
