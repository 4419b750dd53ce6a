"""Each limit hand of the rules text, double limits and stacking per preset, and the optional ones."""

import pytest
from jp_util import jp, yaku


def limits(result: dict) -> dict[str, int]:
    assert result["win"], result
    return {y["name"]: y["limit"] for y in result["yaku"] if "limit" in y}


@pytest.mark.parametrize(
    ("hand", "win", "melds", "name"),
    [
        ("234s666s888s66z", "6z", (("chi", "234s"),), "ryuuiisou"),  # melds allowed
        ("22s", "2s", (("minkan", "1111m"), ("ankan", "9999p"), ("kakan", "5555z"), ("minkan", "3333s")), "suukantsu"),
        ("111m333p555s777s22z", "2z", (), "suuankou_tanki"),  # out on a discard that completes the pair
        ("555z666z777z11m", "1m", (("chi", "234p"),), "daisangen"),
        ("111z222z333z44z", "4z", (("chi", "234p"),), "shousuushii"),
        ("111z222z333z55p", "5p", (("pon", "444z"),), "daisuushii"),
        ("111z222z555z66z", "6z", (("pon", "777z"),), "tsuuiisou"),
        ("111m999p111s99s", "9s", (("pon", "999m"),), "chinroutou"),
        ("11123455678999m", "5m", (), "junsei_chuuren"),
        ("11122345678999m", "9m", (), "chuuren"),  # before the 9m, the hand lacked a 9 of the nine-sided wait
        ("19m19p19s1234567z1z", "1z", (), "kokushi_13"),
        ("19m19p19s1234567z9m", "9m", (), "kokushi_13"),
    ],
)
def test_limit_hands_pay_400_percent(hand, win, melds, name):
    result = jp(hand, win, melds=melds)
    assert limits(result) == {name: 1}
    assert result["basic_points"] == 8000 and result["limit_name"] == "yakuman" and result["han"] == 13
    assert result["payments"]["discarder"] == 32000


def test_impure_thirteen_orphans():
    result = jp("119m19p19s1234567z", "9s", tsumo=True)
    assert limits(result) == {"kokushi": 1}


def test_hidden_treasure_needs_four_concealed_pungs():
    assert limits(jp("111m333p555s777s22z", "7s", tsumo=True)) == {"suuankou": 1}
    # ron that completes a pung: that pung counts as melded, so three concealed pungs + pung hand
    result = jp("111m333p555s777s22z", "7s")
    assert yaku(result) == {"sanankou": 2, "toitoi": 2}


def test_double_limits_and_stacking_in_tenhou():
    assert limits(jp("19m19p19s1234567z1z", "1z", rules="tenhou")) == {"kokushi_13": 2}
    assert limits(jp("19m19p19s1234567z9m", "1m", rules="tenhou")) == {"kokushi": 1}
    assert limits(jp("111m333p555s777s22z", "2z", rules="tenhou")) == {"suuankou_tanki": 2}
    assert limits(jp("11123455678999m", "5m", rules="tenhou")) == {"junsei_chuuren": 2}
    big = jp("111z222z333z444z55z", "5z", tsumo=True, rules="tenhou")
    assert limits(big) == {"daisuushii": 2, "tsuuiisou": 1, "suuankou_tanki": 2}
    assert big["basic_points"] == 5 * 8000 and big["limit_name"] == "5x yakuman" and big["han"] == 65


def test_limit_hands_do_not_stack_in_reference():
    result = jp("111z222z333z444z55z", "5z", tsumo=True)
    assert sum(limits(result).values()) == 1 and result["basic_points"] == 8000


def test_limit_hand_ignores_other_points():
    result = jp("111m333p555s777s22z", "7s", tsumo=True, riichi=True, dora_indicators="6s")
    assert [y["name"] for y in result["yaku"]] == ["suuankou"] and result["fu"] == 0


def test_all_honours_seven_pairs_is_a_preset_field():
    hand = "11223344556677z"
    assert limits(jp(hand, "7z", rules="tenhou")) == {"tsuuiisou": 1}
    ref = yaku(jp(hand, "7z"))
    assert ref == {"chiitoitsu": 2, "honroutou": 3}


@pytest.mark.parametrize(
    ("flags", "tsumo", "seat", "rules", "name"),
    [
        ({"tenhou": True}, True, "E", "reference", "tenhou"),
        ({"first_turn": True}, True, "E", "tenhou", "tenhou"),
        ({"chiihou": True}, False, "S", "reference", "chiihou"),  # on the dealer's first discard
        ({"chiihou": True}, True, "S", "tenhou", "chiihou"),  # first self-draw
        ({"first_turn": True}, True, "S", "tenhou", "chiihou"),
        ({"first_turn": True}, True, "S", "reference", "first_turn_tsumo"),
        ({"renhou": True}, False, "W", "reference", "renhou"),
        ({"first_turn": True}, False, "W", "reference", "renhou"),
    ],
)
def test_first_turn_limits(flags, tsumo, seat, rules, name):
    assert limits(jp("123m456p789s22255s", "2s", tsumo=tsumo, seat=seat, rules=rules, **flags)) == {name: 1}


def test_renhou_is_not_a_tenhou_preset_hand():
    assert not jp("123m456p789s22255s", "2s", seat="W", rules="tenhou", renhou=True)["win"]


def test_optional_limit_hands():
    wheel = "22334455667788p"
    assert "daisharin" not in yaku(jp(wheel, "8p"))
    assert limits(jp(wheel, "8p", custom={"consecutive_pairs": "2-8"})) == {"daisharin": 1}
    low = "11223344556677s"
    assert "daisharin" not in yaku(jp(low, "7s", custom={"consecutive_pairs": "2-8"}))
    assert limits(jp(low, "7s", custom={"consecutive_pairs": "any"})) == {"daisharin": 1}
    four = "123123123123m55z"
    assert "suushun" not in yaku(jp(four, "5z", riichi=True))
    assert limits(jp(four, "5z", custom={"four_identical_chows": True})) == {"suushun": 1}


def test_a_limit_hand_beats_counted_han_worth_the_same():
    # four concealed pungs (one a concealed kong), or 14 han of chows and patterns: both 8000 basic points;
    # the limit hand is the one a player declares
    result = jp("02223334445s", "2s", tsumo=True, riichi=True, dora_indicators="3s", rules="tenhou",
                melds=(("ankan", "6666s"),))
    assert limits(result) == {"suuankou": 1}
