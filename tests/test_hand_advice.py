"""engine.card.advice: what a player's own hand can make, what is live, where Jokers go, dead lines, verdict."""

import json

import pytest

from engine.card import SAMPLE_CARD, load_card
from engine.card.advice import PASSES, advise, advise_pass, advise_passes, count_problems
from engine.tiles import TileError

CARD = load_card(SAMPLE_CARD)
# 2026 #6 is FF 2026a 2026b 6666c (X35): this hand is 2 tiles from it (2D 6D), a Joker already in the kong.
NEAR = "F F 2B WD 2B 6B 2D WD 6C 6C 6C J 9D".split()


def test_nearest_line_with_value_needed_tiles_and_live_counts():
    a = advise(CARD, NEAR, seen=["2D", "2D"])
    first = a.nearest[0]
    assert (first.line.section, first.line.number, first.line.value) == ("2026", 6, 35)
    assert first.suggestion.missing == 2
    need = {m.tile: (m.count, m.joker_ok, m.unseen) for m in first.suggestion.need}
    # one 2D left live: 4 in the set, 2 on the table, 1 in her hand; 6D: all 4 live
    assert need == {"2D": (1, False, 1), "6D": (1, False, 4)}
    assert a.live["2D"] == 1 and a.live["6D"] == 4 and a.live["6C"] == 1
    assert a.live["J"] == 7 and a.live["F"] == 6
    assert a.possible and a.verdict is None and a.problems == ()
    # with the last 2D out too, that line is dead and another is nearest
    assert advise(CARD, NEAR, seen=["2D"] * 3).nearest[0].line.number != 6


def test_jokers_go_only_in_groups_of_three_or_more_identical_tiles():
    a = advise(CARD, NEAR)
    first = a.nearest[0]
    assert first.joker_groups == (("6C", "6C", "6C", "6C"),)
    assert first.jokers_used == 1
    for line in a.nearest:
        for g in line.joker_groups:
            assert len(g) >= 3 and len(set(g)) == 1


def test_a_line_needing_a_single_whose_tiles_are_all_out_is_dead_with_its_reason():
    a = advise(CARD, NEAR, seen=["N"] * 4, top=61)
    dead = {(s.line.section, s.line.number): s.reason for s in a.dead}
    # N 111a 222b 333c 4444a: its single North wind takes no Joker, and all four are on the table
    assert dead[("Consecutive Run", 3)] == "needs 1 more N (no jokers there), only 0 unseen"
    assert ("2026", 2) not in dead      # NNN is a pung: Jokers can stand for the North winds
    assert all(not x.suggestion.dead for x in a.nearest) and a.possible


def test_after_an_exposure_the_hand_is_possible_or_not():
    a = advise(CARD, "F F 2B WD 2B 6B 2D WD 2D".split(), [["6C", "6C", "J", "6C"]])
    assert a.possible and a.nearest[0].suggestion.missing == 1
    assert a.nearest[0].joker_groups == ()      # the kong is exposed: no group left where a Joker may go
    b = advise(CARD, "J F 2B WD 2B 6B 2D WD 2D 6D".split(), [["6C", "6C", "6C", "6C"]])
    first = b.nearest[0]
    assert (first.line.number, first.suggestion.missing) == (6, 1)
    assert first.jokers_used == 0 and first.joker_groups == ()  # FF is a pair: her Joker has nowhere to stand
    # no line takes a kong of 6C with a pung of 9B: every line is dead, each with its reason
    b = advise(CARD, "F F 2B WD 2B 6B 2D".split(), [["6C", "6C", "J", "6C"], ["9B", "9B", "9B"]])
    assert not b.possible and b.nearest == ()
    assert len(b.dead) == len(CARD.lines) and all(s.reason for s in b.dead)


def test_fourteen_tiles_get_the_verdict_with_line_and_value():
    a = advise(CARD, "F F 2B WD 2B 6B 2D WD 2D 6D".split(), [["6C", "6C", "J", "6C"]])
    assert a.verdict.mahjong and a.verdict.value == 35
    assert (a.verdict.lines[0].section, a.verdict.lines[0].number) == ("2026", 6)
    not_yet = advise(CARD, NEAR + ["N"])
    assert not not_yet.verdict.mahjong and not_yet.verdict.nearest


def test_impossible_counts_are_named():
    assert count_problems(["3B"] * 5) == ["5 x 3B, but a set has only 4: one is misread"]
    assert count_problems(["J"] * 9)[0].startswith("9 Jokers, but a set has only 8")
    assert count_problems(["1B"] * 3 + ["2B"] * 12)[0].startswith("15 tiles: a hand holds at most 14")
    assert "in view on the table" in count_problems(["5D", "5D", "5D"], seen=["5D", "5D"])[0]
    assert count_problems(["5D", "5D"], [["5D", "5D", "J"]]) == []
    assert advise(CARD, ["3B"] * 5).problems


def test_pass_advice_never_passes_a_joker_and_says_why():
    hand = "J J J J J J J 1B 5C 9D N RD F".split()
    for which in PASSES:
        p = advise_pass(CARD, hand, which)
        assert "J" not in p.tiles
        assert p.reason and "Jokers are never passed" in p.reason
    assert len(advise_pass(CARD, hand, "first-right").tiles) == 3


def test_a_blind_pass_spares_only_tiles_that_cost_nothing():
    # Everything counts for 2026 #6 except 9D: pass 9D from the hand and two blind.
    p = advise_pass(CARD, NEAR, "first-left")
    assert p.tiles == ("9D",) and p.blind == 2
    assert p.distance_now == p.distance_after == 2
    assert "9D from your hand and 2 blind" in p.reason
    assert p.by_count[1] == ("9D",) and len(p.by_count[3]) == 3
    # a compulsory pass must give three, even at a cost
    q = advise_pass(CARD, NEAR, "first-right")
    assert len(q.tiles) == 3 and q.blind == 0 and q.distance_after > q.distance_now


def test_courtesy_offers_what_she_can_spare_or_the_agreed_count():
    p = advise_pass(CARD, NEAR, "courtesy")
    assert p.tiles == ("9D",) and p.reason.startswith("Offer 1 across: 9D")
    assert advise_pass(CARD, NEAR, "courtesy", courtesy=0).tiles == ()
    assert len(advise_pass(CARD, NEAR, "courtesy", courtesy=2).tiles) == 2
    with pytest.raises(ValueError, match="courtesy pass only"):
        advise_pass(CARD, NEAR, "first-right", courtesy=2)


def test_bad_calls_raise_clear_errors():
    with pytest.raises(ValueError, match="unknown pass"):
        advise_pass(CARD, NEAR, "sideways")
    with pytest.raises(ValueError, match="before any exposure"):
        advise(CARD, NEAR[:10], [["6C", "6C", "6C"]], charleston="first-right")
    with pytest.raises(TileError):
        advise(CARD, ["3X"])


def test_names_are_read_and_everything_is_json():
    a = advise(CARD, ["flower", "flower", "2 bam", "soap"] + NEAR[4:], charleston="courtesy")
    assert a.tiles[:3] == ("2B", "2B", "6B") and a.tiles[-3:] == ("F", "F", "J") and a.total == 13
    text = json.dumps(a.to_json())
    back = json.loads(text)
    assert back["charleston"]["pass"] == "courtesy" and back["nearest"][0]["joker_groups"]
    assert back["live"]["F"] == 6 and back["verdict"] is None


def test_several_passes_from_one_search_are_the_passes_advised_one_by_one():
    hand = "1B 1B 5C 9D N RD F J 2D 2D 2D 4C 8B".split()
    together = advise_passes(CARD, hand, PASSES, seen=["2B", "N"])
    assert together == [advise_pass(CARD, hand, which, seen=["2B", "N"]) for which in PASSES]


def test_a_mah_jongg_hand_in_the_charleston_is_told_to_declare():
    east = "F F 2B WD 2B 6B 2D WD 2D 6D 6C 6C 6C J".split()
    p = advise_pass(CARD, east, "first-right")
    assert p.distance_now == 0 and p.reason.startswith("You hold Mah Jongg: declare it rather than pass.")
    assert "every choice costs at least" in p.reason
