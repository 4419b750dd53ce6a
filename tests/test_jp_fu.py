"""Every row of the rules text's fu tables (sets, pairs, bonus patterns), and rounding up to 10."""

import pytest
from jp_util import fu_parts, jp

# The rest of the test hand: chows, a pair of 9s (no fu), a concealed red dragon pung (the yaku, 8 fu).
REST = "234p678s99s777z"


@pytest.mark.parametrize(
    ("tiles", "meld", "fu", "reason"),
    [
        ("555m", "pon", 2, "melded pung of simples (5m)"),
        ("555m", None, 4, "concealed pung of simples (5m)"),
        ("111m", "pon", 4, "melded pung of terminals (1m)"),
        ("999p", None, 8, "concealed pung of terminals (9p)"),
        ("333z", "pon", 4, "melded pung of winds (3z)"),
        ("444z", None, 8, "concealed pung of winds (4z)"),
        ("666z", "pon", 4, "melded pung of dragons (6z)"),
        ("555z", None, 8, "concealed pung of dragons (5z)"),
        ("5555m", "minkan", 8, "melded kong of simples (5m)"),
        ("5555m", "ankan", 16, "concealed kong of simples (5m)"),
        ("1111s", "kakan", 16, "melded kong of terminals (1s)"),
        ("9999m", "ankan", 32, "concealed kong of terminals (9m)"),
        ("3333z", "minkan", 16, "melded kong of winds (3z)"),
        ("4444z", "ankan", 32, "concealed kong of winds (4z)"),
        ("6666z", "minkan", 16, "melded kong of dragons (6z)"),
        ("5555z", "ankan", 32, "concealed kong of dragons (5z)"),
    ],
)
def test_set_fu(tiles, meld, fu, reason):
    if meld is None:
        result = jp(tiles + REST, "2p")
    else:
        result = jp(REST, "2p", melds=((meld, tiles),))
    assert (fu, reason) in fu_parts(result)
    assert (8, "concealed pung of dragons (7z)") in fu_parts(result)


@pytest.mark.parametrize(
    ("pair", "seat", "rnd", "fu"),
    [
        ("22z", "S", "E", 2),  # own wind
        ("11z", "S", "E", 2),  # wind of the round
        ("55z", "S", "E", 2),  # dragons
        ("11z", "E", "E", 4),  # both: 2 fu for each role
        ("33z", "S", "E", 0),  # any other wind: nothing
        ("55m", "S", "E", 0),
    ],
)
def test_pair_fu(pair, seat, rnd, fu):
    result = jp("234m678p345s777z" + pair, "2m", seat=seat, rnd=rnd)
    pair_fu = [f for f, why in fu_parts(result) if why.startswith("pair")]
    assert sum(pair_fu) == fu


def test_double_wind_pair_is_a_preset_field():
    from dataclasses import replace

    from engine.japanese import REFERENCE
    from engine.japanese.scoring import Situation, score

    counts = [0] * 34
    for k in (1, 2, 3, 11, 12, 13, 21, 22, 23, 33, 33, 33, 27, 27):
        counts[k] += 1
    counts = tuple(counts)
    sit = Situation(tsumo=False, seat_wind=27, round_wind=27)
    as_two = score(counts, (), 1, 0, sit, replace(REFERENCE, double_wind_pair_fu=2))
    as_four = score(counts, (), 1, 0, sit, REFERENCE)
    assert (2, "pair of own wind that is also the round wind") in as_two.fu_details()
    assert (4, "pair of own wind that is also the round wind") in as_four.fu_details()


def test_winning_and_concealed_ron():
    # riichi, all chows, ryanmen, ron: 20 + 10 = 30 (pinfu)
    result = jp("123m456p789s23455s", "2s", riichi=True)
    assert fu_parts(result) == [(20, "winning"), (10, "concealed hand, out on a discard")]
    assert result["fu"] == 30


def test_open_no_points_hand_gets_10():
    # open all-chows all-simples hand won on a discard with a two-sided wait: 20 + 10
    result = jp("234m456p23455s", "2s", melds=(("chi", "678p"),))
    assert fu_parts(result) == [(20, "winning"), (10, "no-points hand with melds")]
    assert result["fu"] == 30


def test_self_drawn_last_tile():
    # not pinfu (kanchan 4-6 on 5m), tsumo: 20 + 2 (kanchan) + 2 (self-draw) = 24 -> 30
    result = jp("456m234p678s22255s", "5m", tsumo=True, riichi=True)
    assert (2, "self-drawn last tile") in fu_parts(result)


def test_pinfu_self_draw_zeroes_the_tsumo_fu():
    result = jp("123m456p789s23455s", "2s", tsumo=True)
    assert fu_parts(result) == [(20, "winning")]
    assert result["fu"] == 20
    assert result["han"] == 2  # pinfu + fully concealed self-draw


@pytest.mark.parametrize(
    ("chow", "win", "reason"),
    [
        ("345m", "4m", "out on a one-chance chow (middle tile)"),
        ("123m", "3m", "out on a one-chance chow (edge)"),
        ("789m", "7m", "out on a one-chance chow (edge)"),
    ],
)
def test_one_chance_chow(chow, win, reason):
    result = jp(chow + "456p789s11s777z", win)
    assert (2, reason) in fu_parts(result)


def test_out_on_a_pair():
    result = jp("234m456p789s11s777z", "1s")
    assert (2, "out on a pair") in fu_parts(result)


def test_two_sided_chow_earns_nothing():
    result = jp("234m456p789s11s777z", "2m")
    assert not [why for _, why in fu_parts(result) if why.startswith("out on")]
def test_fu_round_up_to_ten():
    # 20 + 10 (concealed ron) + 8 (concealed dragon pung) + 4 (5m pung) = 42 -> 50
    result = jp("555m234p678s99s777z", "2p")
    assert sum(f for f, _ in fu_parts(result)) == 42
    assert result["fu"] == 50


def test_only_a_concealed_kong_keeps_the_hand_concealed():
    concealed = jp(REST, "2p", melds=(("ankan", "5555m"),))
    assert (10, "concealed hand, out on a discard") in fu_parts(concealed)
    melded = jp(REST, "2p", melds=(("minkan", "5555m"),))
    assert (10, "concealed hand, out on a discard") not in fu_parts(melded)
