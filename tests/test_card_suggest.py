"""Ranking lines for a hand in play (suggest) and dead-hand detection from the table (lines_allowing)."""

from engine.card import SAMPLE_CARD, load_card

CARD = load_card(SAMPLE_CARD)
ONE_AWAY = "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B".split()  # 2468 #2 (FF 2222 44 66 8888) less one 8B


def test_closest_line_first_with_what_it_still_needs():
    ranked = CARD.suggest(ONE_AWAY)
    assert len(ranked) == len(CARD.lines)
    best = ranked[0]
    assert best.line.label == "2468 #2" and best.missing == 1 and not best.dead
    assert [m.to_json() for m in best.need] == [{"tile": "8B", "count": 1, "joker_ok": True, "unseen": 1}]
    assert best.target == (("F", "F"), ("2B",) * 4, ("4B",) * 2, ("6B",) * 2, ("8B",) * 4)
    missing = [s.missing for s in ranked if not s.dead]
    assert missing == sorted(missing)


def test_a_pair_tile_is_marked_no_joker():
    hand = "F F 2B 2B 2B 2B 4B 6B 6B 8B 8B 8B 8B".split()
    best = CARD.suggest(hand)[0]
    assert best.line.label == "2468 #2"
    assert [(m.tile, m.count, m.joker_ok) for m in best.need] == [("4B", 1, False)]


def test_jokers_in_hand_fill_eligible_gaps():
    hand = "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B J".split()
    best = CARD.suggest(hand)[0]
    assert best.line.label == "2468 #2" and best.missing == 1
    assert [(m.tile, m.count, m.joker_ok) for m in best.need] == [("8B", 1, True)]
    assert CARD.suggest(hand + ["8B"])[0].missing == 0


def test_seen_tiles_make_a_line_dead_when_a_pair_can_no_longer_be_made():
    exposed = [["2B"] * 4]
    concealed = "F F 4B 6B 6B 8B 8B 8B 8B".split()
    alive = {s.line.label: s for s in CARD.suggest(concealed, exposed)}
    assert not alive["2468 #2"].dead and alive["2468 #2"].missing == 1
    dead = {s.line.label: s for s in CARD.suggest(concealed, exposed, seen=["4B"] * 3)}
    assert dead["2468 #2"].dead
    assert dead["2468 #2"].reason == "needs 1 more 4B (no jokers there), only 0 unseen"
    ranked = CARD.suggest(concealed, exposed, seen=["4B"] * 3)
    assert ranked.index(dead["2468 #2"]) > max(i for i, s in enumerate(ranked) if not s.dead)


def test_exposures_and_concealed_lines_are_ruled_out_with_reasons():
    ranked = {s.line.label: s for s in CARD.suggest("F F 4B 4B 6B 6B 8B 8B 8B".split(), [["2B"] * 4])}
    assert ranked["2468 #4"].dead and ranked["2468 #4"].missing is None
    assert ranked["2468 #4"].reason == "concealed hand, but the hand has exposures"
    assert ranked["Winds and Dragons #1"].reason == "the exposures do not fit this line"


def test_lines_allowing_follows_exposures_and_seen_tiles():
    kong = [["2B", "2B", "2B", "J"]]
    allowed = {ln.label for ln in CARD.lines_allowing(kong)}
    assert "2468 #2" in allowed and "2468 #7" not in allowed  # 22 is a pair there: no kong of twos
    assert all(not ln.concealed for ln in CARD.lines_allowing(kong))
    after = {ln.label for ln in CARD.lines_allowing(kong, seen=["4B"] * 4)}
    assert "2468 #2" not in after  # its pair of 4B can no longer be made
    assert CARD.lines_allowing([["N"] * 6]) == []  # no line has a sextet of North: dead


def test_lines_allowing_counts_jokers_left_in_the_set():
    # 2026 #5 DDa 2026a DDDDb DDDDc needs the dragon kongs: with every joker and dragon gone it is dead
    exposed = [["GD", "GD", "GD", "GD"]]
    assert "2026 #5" in {ln.label for ln in CARD.lines_allowing(exposed)}
    seen = ["J"] * 8 + ["RD"] * 4 + ["WD"] * 4
    assert "2026 #5" not in {ln.label for ln in CARD.lines_allowing(exposed, seen)}
