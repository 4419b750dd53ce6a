"""Hands that read more than one way: the best-scoring reading counts. Plus the text's worked example."""

from jp_util import fu_parts, jp, yaku


def test_worked_example_follows_the_han_table():
    """North in the South round, out on East claimed from East.

    The rules text counts its Pung hand as 1 han here and prints 960, but its own han table gives the Pung
    hand 2 han; the project decided (issue 4) to follow the table, so the example is 3 han, 60 fu, 1920.
    """
    result = jp("222s111p11z", "1z", melds=(("pon", "555m"), ("minkan", "7777z")), seat="N", rnd="S")
    assert sum(f for f, _ in fu_parts(result)) == 52
    assert result["fu"] == 60
    assert yaku(result) == {"yakuhai_red": 1, "toitoi": 2}
    assert result["han"] == 3 and result["basic_points"] == 1920
    assert result["payments"] == {"discarder": 7700, "dealer": None, "non_dealer": None, "total": 7700}


def test_chows_or_pungs_pick_the_better():
    # 111222333m: three pungs (three concealed triplets) or three 1-2-3 chows (iipeikou, pinfu)
    by_pungs = jp("111222333m456p77s", "7s", tsumo=True)
    assert "sanankou" in yaku(by_pungs) and by_pungs["fu"] == 40  # 3 han 40 fu = 1280
    # won on 1m by a discard the pungs lose their concealed 1m triplet; the chow reading wins instead
    by_chows = jp("111222333m456p77s", "1m", riichi=True)
    assert yaku(by_chows) == {"riichi": 1, "pinfu": 1, "iipeikou": 1}
    assert by_chows["fu"] == 30 and by_chows["basic_points"] == 960


def test_seven_pairs_or_two_pairs_of_identical_chows():
    hand = "223344m556677p88s"
    ten = jp(hand, "2m", rules="tenhou")
    assert yaku(ten) == {"pinfu": 1, "tanyao": 1, "ryanpeikou": 3}  # 5 han beat seven pairs' 3
    ref = jp(hand, "2m")
    assert yaku(ref) == {"pinfu": 1, "tanyao": 1, "iipeikou": 1} and ref["basic_points"] == 960
    # the same tiles as seven pairs would be 3 han 25 fu = 800: fewer points, so not chosen
    assert ref["fu"] == 30


def test_seven_pairs_when_it_pays_more():
    # tanki on 8s, self-drawn, riichi: as chows 4 han 30 fu (1920); as seven pairs 5 han (mangan, 2000)
    ref = jp("223344m556677p88s", "8s", tsumo=True, riichi=True)
    assert yaku(ref) == {"chiitoitsu": 2, "riichi": 1, "menzen_tsumo": 1, "tanyao": 1}
    assert ref["fu"] == 25 and ref["basic_points"] == 2000
    # tenhou knows the two pairs of identical chows (3 han): 6 han beats seven pairs
    ten = jp("223344m556677p88s", "8s", tsumo=True, riichi=True, rules="tenhou")
    assert "ryanpeikou" in yaku(ten) and ten["han"] == 6 and ten["basic_points"] == 3000


def test_pinfu_self_draw():
    result = jp("234m567p234s67899s", "8s", tsumo=True)  # 6-7 waiting on 5/8, or 8-9 pair? ryanmen wins
    assert yaku(result) == {"pinfu": 1, "menzen_tsumo": 1}
    assert result["fu"] == 20 and result["basic_points"] == 320
    assert result["payments"] == {"discarder": None, "dealer": 700, "non_dealer": 400, "total": 1500}


def test_wait_choice_pair_over_chow_for_two_more_fu():
    # The text's example: calling on 2-2-3-4 and winning on a 2: the 2 may complete the pair (2 fu)
    result = jp("111m456p789p22234s", "2s", tsumo=True, riichi=True)
    assert (2, "out on a pair") in fu_parts(result)
    assert result["fu"] == 40  # 20 + 8 + 2 + 2 = 32; as a two-sided chow it would be 30


def test_wait_choice_prefers_pinfu_over_a_closed_wait():
    result = jp("123m456p789s23455s", "4s", tsumo=True)  # 3-(4)-5 closed, or 2-3-4 two-sided + 55
    assert "pinfu" in yaku(result) and result["fu"] == 20


def test_two_sided_wait_on_an_edge_chow_is_an_edge_wait():
    # 1-2 waiting on 3 is one-chance even though 1-2-3 is "two-sided" by shape
    result = jp("123m456p789s11s777z", "3m")
    assert (2, "out on a one-chance chow (edge)") in fu_parts(result)
    result = jp("123m456p789s11s777z", "1m")  # 2-3 waiting on 1 or 4: two-sided
    assert not [r for _, r in fu_parts(result) if "one-chance" in r]


def test_no_yaku_and_not_a_winning_shape():
    no_yaku = jp("123m456p789s22255s", "2s")
    assert no_yaku == {"ok": True, "win": False, "reason": no_yaku["reason"]} and "no yaku" in no_yaku["reason"]
    shape = jp("123m456p789s22256s", "2s", riichi=True)
    assert not shape["win"] and "not a winning shape" in shape["reason"]
