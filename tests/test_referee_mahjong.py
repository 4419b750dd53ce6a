"""Mah Jongg, errors, special hands, dead hands, misnamed discards, wall games, rotation, Charleston, corrections."""

import pytest
from referee_kit import EVENS, PAIRS, WINDS, Table, kinds, only, payments, south_calls_twice

from engine.card import parse_card
from engine.referee import parse_profile
from engine.referee.profile import PROFILES_DIR


def test_mahjong_on_discard_verified_and_discarder_pays_double():
    g = Table()
    g.start()
    g.turn(0, "8B")
    g("claim", seat=2, purpose="mahjong")
    out = g("mahjong_declared", seat=2, tiles=EVENS, self_picked=False)
    v = only(out, "mahjong_verified")
    assert v.data["value"] == 25 and v.data["self_picked"] is False and v.data["discarder"] == 0
    assert v.data["lines"][0]["section"] == "2468" and v.data["jokerless"] is True
    assert payments(out) == {0: -100, 1: -50, 2: 200, 3: -50}  # jokerless doubles: 2x2x25, 2x25
    assert "game_over" in kinds(out)


def test_mahjong_self_picked_everyone_pays_double():
    g = Table()
    g.start()
    g.turn(0, "N")
    g("pick", seat=1)
    hand = EVENS[:-1] + ["J"]  # a joker in the kong of 8s: no jokerless bonus
    out = g("mahjong_declared", seat=1, tiles=hand, self_picked=True)
    assert only(out, "mahjong_verified").data["self_picked"] is True
    assert payments(out) == {0: -50, 1: 150, 2: -50, 3: -50}
    assert only(out, "settlement").data["balances"] == {"0": -50, "1": 150, "2": -50, "3": -50}


def test_mahjong_with_exposures_shown_as_fourteen_tiles():
    g = Table()
    g.start()
    g.turn(0, "2B")
    g.expose(1, ["2B", "2B", "2B", "J"])
    g.turn(1, "N")
    g.turn(2, "E")
    g.turn(3, "W")
    g("pick", seat=0)
    g("discard", seat=0, tile="8B", named="8B")
    g("claim", seat=1, purpose="mahjong")
    shown = ["2B", "2B", "2B", "J"] + [x for x in EVENS if x != "2B"]
    out = g("mahjong_declared", seat=1, tiles=shown)
    v = only(out, "mahjong_verified")
    assert v.data["jokerless"] is False and v.data["discarder"] == 0


def test_win_by_joker_exchange_counts_as_self_picked():
    g = Table()
    g.start()
    g.turn(0, "3B")
    g.expose(2, ["3B", "3B", "J"])
    g.turn(2, "W")
    g.turn(3, "7D")
    g.turn(0, "8B")
    g.expose(1, ["8B", "8B", "8B", "8B"])
    g("joker_exchange", seat=1, from_seat=2, exposure_index=0, tile="3B")
    hand = ["8B", "8B", "8B", "8B", "F", "F", "2B", "2B", "2B", "J", "4B", "4B", "6B", "6B"]
    out = g("mahjong_declared", seat=1, tiles=hand)
    v = only(out, "mahjong_verified")
    assert v.data["self_picked"] is True and v.data["exchange"] is True
    assert payments(out) == {0: -50, 1: 150, 2: -50, 3: -50}


def test_jokerless_judged_at_declaration_after_joker_exchanged_away():
    g = Table()
    g.start()
    g.turn(0, "2B")
    g.expose(1, ["2B", "2B", "2B", "J"])
    g.turn(1, "N")
    g("pick", seat=2)
    g("joker_exchange", seat=2, from_seat=1, exposure_index=0, tile="2B")
    g("discard", seat=2, tile="8B", named="8B")
    g("claim", seat=1, purpose="mahjong")
    out = g("mahjong_declared", seat=1, tiles=EVENS)
    assert only(out, "mahjong_verified").data["jokerless"] is True
    assert payments(out)[2] == -100 and payments(out)[1] == 200


def test_singles_and_pairs_no_jokerless_bonus():
    g = Table()
    g.start()
    g.turn(0, "7B")
    g("claim", seat=3, purpose="mahjong")  # a discard may complete a pair for Mah Jongg
    out = g("mahjong_declared", seat=3, tiles=PAIRS)
    v = only(out, "mahjong_verified")
    assert v.data["value"] == 50 and v.data["singles_and_pairs"] and not v.data["jokerless"]
    assert payments(out) == {0: -100, 1: -50, 2: -50, 3: 200}


def test_singles_and_pairs_jokerless_bonus_when_the_profile_grants_it():
    text = (PROFILES_DIR / "nmjl.toml").read_text(encoding="utf-8")
    rule = "jokerless_in_singles_and_pairs = "
    club = parse_profile(text.replace(rule + "false", rule + "true"), "club.toml")
    g = Table(club)
    g.start()
    g.turn(0, "7B")
    g("claim", seat=3, purpose="mahjong")
    out = g("mahjong_declared", seat=3, tiles=PAIRS)
    assert payments(out) == {0: -200, 1: -100, 2: -100, 3: 400}  # the club's table rule doubles it


def test_mahjong_in_error_kills_declarer_and_play_goes_on():
    g = Table()
    g.start()
    g.turn(0, "N")
    g("pick", seat=1)
    out = g("mahjong_declared", seat=1, tiles=EVENS[:-1] + ["9D"], self_picked=True)
    err = only(out, "mahjong_in_error")
    assert err.data["retracted"] is False and g.ref.seats[1].out == "mahjong_in_error"
    assert only(out, "turn").seat == 2  # the erring player took her turn; play goes to her right
    assert "game_over" not in kinds(out)
    g.turn(2, "E")
    assert only(g.turn(3, "W"), "turn").seat == 0
    assert only(g.turn(0, "S"), "turn").seat == 2  # the dead seat is skipped


def test_mahjong_in_error_mahjcon_retract_with_at_most_one_exposure():
    g = Table("mahjcon")
    g.start()
    g.turn(0, "N")
    g("pick", seat=1)
    out = g("mahjong_declared", seat=1, tiles=EVENS[:-1] + ["9D"], self_picked=True)
    assert only(out, "mahjong_in_error").data["retracted"] is True
    assert g.ref.seats[1].out is None
    assert only(g("discard", seat=1, tile="9D", named="9D"), "turn").seat == 2  # she plays on
    g2 = south_calls_twice("3B", "5C")
    out = g2("mahjong_declared", seat=1, tiles=["1B"] * 8)
    assert only(out, "mahjong_in_error").data["retracted"] is False  # two exposures: no retraction


def test_heavenly_hand_east_before_charleston():
    g = Table()
    g("deal")
    out = g("mahjong_declared", seat=0, tiles=EVENS)
    v = only(out, "mahjong_verified")
    assert v.data["special"] == "heavenly" and v.data["self_picked"] is True
    assert payments(out) == {0: 300, 1: -100, 2: -100, 3: -100}
    assert only(g("mahjong_declared", seat=1, tiles=EVENS, t=99.0), "rejected")


def test_earthly_hand_east_after_charleston():
    g = Table()
    g.start("full")
    out = g("mahjong_declared", seat=0, tiles=WINDS)
    assert only(out, "mahjong_verified").data["special"] == "earthly"
    assert payments(out)[1] == -100
    g2 = Table()
    g2("deal")
    g2("charleston_pass", seat=0, direction="right")
    assert only(g2("mahjong_declared", seat=0, tiles=WINDS), "rejected")  # not during the Charleston


def test_dead_hand_wrong_tile_count_after_east_first_discard():
    g = Table()
    g.start()
    assert g("tile_count", seat=2, count=13) == []
    g.turn(0, "N")
    out = g("tile_count", seat=2, count=14)
    assert "wrong tile count" in only(out, "dead_hand").data["reason"]


def test_wrong_tile_count_before_play_redeals_except_twelve_for_norths_seat():
    g = Table()
    g.start()
    out = g("tile_count", seat=1, count=12)  # East's right-hand player short one: takes a tile
    assert only(out, "take_tile").seat == 1
    out = g("tile_count", seat=3, count=12)
    assert only(out, "redeal") and only(out, "game_over").data["reason"] == "redeal"


TINY_CARD = """card: tiny test card
[Winds]
NNN EEE WWW SSS FF   X25 "the flower pair needs two natural flowers"
NNNN EEEE 1111 FF    C30
"""


def test_dead_hand_impossible_given_visible_tiles():
    g = Table(card_=parse_card(TINY_CARD, "tiny.card"))
    g.start()
    g.turn(0, "N")
    g.expose(2, ["N", "N", "N"])
    g.turn(2, "F")
    dead = []
    for _ in range(6):  # six more flowers thrown: only one of the eight is left, the pair cannot be made ...
        seat = g.ref.turn
        dead += [r for r in g.turn(seat, "F") if r.kind == "dead_hand"]
    assert dead == []  # ... once the last one thrown is dead: while it is live, seat 2 may call it for a pair
    g("pick", seat=g.ref.turn)
    dead += [r for r in g("rack", seat=g.ref.turn) if r.kind == "dead_hand"]
    assert len(dead) == 1 and dead[0].seat == 2
    assert dead[0].data["reason"].startswith("impossible hand")
    assert [ln["text"] for ln in dead[0].data["lines"]] == ['NNN EEE WWW SSS FF X25 "the flower pair needs two '
                                                            'natural flowers"']


def test_first_exposure_commits_hand_to_exposed_lines():
    g = Table(card_=parse_card(TINY_CARD, "tiny.card"))
    g.start()
    g.turn(0, "N")
    out = g.expose(1, ["N", "N", "N", "N"])  # only the concealed (C) line has a kong of North
    assert "no exposed (X) line" in only(out, "dead_hand").data["reason"]


def test_dead_hand_picking_out_of_turn_and_ahead():
    g = Table()
    g.start()
    g.turn(0, "N")
    out = g("pick", seat=3)
    assert only(out, "dead_hand").data["reason"] == "picking out of turn"
    g("pick", seat=1)
    g("rack", seat=1)
    out = g("pick", seat=2)  # seat 1 has not discarded yet
    assert only(out, "dead_hand").data["reason"] == "picking ahead"


def test_dead_hand_discarding_before_picking():
    g = Table()
    g.start()
    g.turn(0, "N")
    out = g("discard", seat=1, tile="5D", named="5D")
    assert only(out, "dead_hand").data["reason"] == "discarding before picking"
    assert only(out, "turn").seat == 2
    assert "discard_at_fault" not in kinds(out)  # in her own turn: not "out of turn", no paying for the table


def test_dead_players_stop_playing_and_still_pay():
    g = Table()
    g.start()
    g.turn(0, "N")
    g("pick", seat=3)  # out of turn: dead
    assert only(g("pick", seat=3), "rejected").data["reason"] == "this player is out of the game"
    g("pick", seat=1)
    g("discard", seat=1, tile="8B", named="8B")
    g("claim", seat=2, purpose="mahjong")
    out = g("mahjong_declared", seat=2, tiles=EVENS)
    assert payments(out) == {0: -50, 1: -100, 2: 200, 3: -50}  # dead seat 3 still pays its share


def test_death_challenge_erroneous_pays_double_cheapest_hand():
    g = Table()
    g.start()
    g.turn(0, "N")
    assert kinds(g("dead_challenge", seat=2, target=1)) == ["challenge_pending"]  # settled when the hand ends
    assert g.ref.seats[1].out is None
    upheld = g("dead_challenge", seat=2, target=1, upheld=True)  # the table's own finding applies at once
    assert only(upheld, "dead_hand").seat == 1
    out = g("wall_exhausted")
    assert only(out, "challenge_upheld").data["at_hand_end"]  # by then she was dead: West was right
    assert [r.data["payments"] for r in out if r.kind == "settlement"][-1] == {"0": 0, "1": -50, "2": 50, "3": 0}


def test_rules_004_a_death_challenge_is_settled_when_the_hand_ends_from_what_the_hands_then_show():
    """Rules 004: an erroneous challenge (or an erroneous denial) "can be determined at the end of the hand". West
    calls South dead while South's exposure is still possible; nothing is settled then, and South goes on to win:
    West pays South twice the cheapest hand as the hand ends, with the Mah Jongg."""
    g = Table()
    g.start()
    g.turn(0, "8B")
    g.expose(1, ["8B", "8B", "8B", "8B"])
    assert kinds(g("dead_challenge", seat=2, target=1)) == ["challenge_pending"]
    assert g.ref.seats[1].out is None and g.ref.balances == {0: 0, 1: 0, 2: 0, 3: 0}
    g.turn(1, "N")
    g.turn(2, "W")
    g.turn(3, "2B")
    g("claim", seat=1, purpose="mahjong")
    out = g("mahjong_declared", seat=1, tiles=EVENS)
    assert only(out, "mahjong_verified").seat == 1
    failed = only(out, "challenge_failed")
    assert (failed.seat, failed.data["target"], failed.data["at_hand_end"]) == (2, 1, True)
    settled = [r.data for r in out if r.kind == "settlement"]
    assert settled[-1]["reason"] == "erroneous_death_challenge"
    assert settled[-1]["payments"] == {"0": 0, "1": 50, "2": -50, "3": 0}
    assert kinds(out)[-2:] == ["game_over", "east_rotates"]


def test_death_challenge_erroneous_mahjcon_kills_challenger():
    g = Table("mahjcon")
    g.start()
    g.turn(0, "N")
    out = g("dead_challenge", seat=2, target=1)
    assert only(out, "dead_hand").seat == 2 and "settlement" not in kinds(out)


def test_misnamed_discard_named_tile_wins_misnamer_pays_for_table():
    g = Table()
    g.start()
    out = g("discard", seat=0, tile="5D", named="8B")
    assert only(out, "misnamed_discard").data == {"seat": 0, "tile": "5D", "named": "8B"}
    g("claim", seat=2, purpose="mahjong")
    hand = [x for x in EVENS]
    hand[hand.index("8B")] = "5D"  # the tile really thrown sits in the shown hand
    out = g("mahjong_declared", seat=2, tiles=hand)
    v = only(out, "mahjong_verified")
    assert v.data["misnamed"] is True and v.data["pays_for_table"] == 0
    assert payments(out) == {0: -200, 1: 0, 2: 200, 3: 0}  # 4 x 25 x jokerless 2, nobody else pays


def test_joker_named_as_previous_discard_is_not_misnamed():
    g = Table()
    g.start()
    g.turn(0, "5D")
    g("pick", seat=1)
    out = g("discard", seat=1, tile="J", named="5D")
    assert "misnamed_discard" not in kinds(out)
    g("pick", seat=2)
    assert only(g("discard", seat=2, tile="J", named="8B"), "misnamed_discard").data["named"] == "8B"


def misled_exposure(exposed: list[str]) -> tuple[Table, list]:
    """East throws 5 Dot calling it "8 Bam"; West (2) calls it for exposure and exposes ``exposed``."""
    g = Table()
    g.start()
    g("discard", seat=0, tile="5D", named="8B")
    return g, g.expose(2, exposed)


@pytest.mark.parametrize("exposed", [["8B", "8B", "8B"], ["8B", "8B", "J"], ["8B", "8B", "5D"]],
                         ids=["named-tile", "named-with-joker", "thrown-tile-picked-up"])
def test_misnamed_discard_cannot_be_claimed_for_exposure_of_named_tile(exposed):
    g, out = misled_exposure(exposed)
    assert "dead_hand" not in kinds(out) and "exposure_accepted" not in kinds(out)
    assert only(out, "claim_withdrawn").data == {"seat": 2, "reason": "the discard is 5D, not 8B as named",
                                                 "tile": "5D", "named": "8B"}
    reopened = only(out, "window_opened")
    assert reopened.data == {"seat": 0, "tile": "5D", "named": "5D", "reopened": True}  # the name corrected
    assert (out[-1].kind, out[-1].seat) == ("turn", 1)  # the turn the call interrupted resumes
    west, east = g.ref.seats[2], g.ref.seats[0]
    assert (west.out, west.total, west.concealed, west.exposures) == (None, 13, 13, [])  # her tiles back, no penalty
    assert (east.total, east.discards) == (13, ["5D"])  # the discard lies on the floor again
    assert g.ref.snapshot()["window"]["named"] == "5D"


def test_misnamed_discard_after_withdrawal_real_tile_claimed_for_exposure():
    g, _ = misled_exposure(["8B", "8B", "8B"])
    g("claim", seat=2, purpose="exposure")  # the misled caller may call again, for what it is
    out = g("claim", seat=1, purpose="exposure") + g("exposure", seat=1, tiles=["5D", "5D", "J"])
    assert only(out, "claim_awarded").data == {"seat": 1, "purpose": "exposure", "tile": "5D"}
    assert only(out, "claim_denied").data["seat"] == 2  # equal calls: South is next in turn after East
    assert only(out, "exposure_accepted").data == {"seat": 1, "tiles": ["5D", "5D", "J"]}
    assert "dead_hand" not in kinds(out) and g.ref.turn == 1 and g.ref.seats[1].total == 14


def test_misnamed_discard_after_withdrawal_nobody_calls_play_goes_on():
    g, out = misled_exposure(["8B", "8B", "8B"])
    reopened_at = only(out, "window_opened").t
    g("pick", seat=1)
    closed = only(g("rack", seat=1), "window_closed")
    assert closed.data["reason"] == "racked" and closed.data["opened_at"] == reopened_at
    assert only(g("discard", seat=1, tile="N", named="N"), "turn").seat == 2
    assert [s.total for s in g.ref.seats] == [13, 13, 13, 13]


def test_misnamed_discard_withdrawn_call_gives_back_the_returned_pick():
    g = Table()
    g.start()
    g("discard", seat=0, tile="5D", named="8B")
    wall = g.ref.wall
    g("pick", seat=1)  # South picked, then West called: the pick goes back
    g("claim", seat=2, purpose="exposure")
    out = g("exposure", seat=2, tiles=["8B", "8B", "8B"])
    assert only(out, "pick_returned").seat == 1
    assert only(out, "claim_withdrawn").seat == 2 and (out[-1].kind, out[-1].seat) == ("turn", 1)
    assert g.ref.phase.value == "wait_pick" and g.ref.wall == wall and g.ref.seats[1].total == 13
    assert only(g("pick", seat=1), "picked").seat == 1  # South picks again, nobody is dead


def test_misnamed_discard_once_corrected_cannot_be_won_on_as_named():
    g, _ = misled_exposure(["8B", "8B", "8B"])
    g("claim", seat=3, purpose="mahjong")
    hand = list(EVENS)
    hand[hand.index("8B")] = "5D"
    out = g("mahjong_declared", seat=3, tiles=hand)
    assert only(out, "claim_awarded").data["tile"] == "5D" and "mahjong_verified" not in kinds(out)
    assert only(out, "mahjong_in_error").seat == 3


@pytest.mark.parametrize(("named", "exposed"), [("5D", ["8B", "8B", "8B"]), ("8B", ["3C", "3C", "3C"]),
                                                ("8B", ["8B", "8B", "5D", "5D"])],
                         ids=["correctly-named", "misnamed-third-tile", "misnamed-two-thrown-tiles"])
def test_exposure_of_the_wrong_tile_still_kills(named, exposed):
    g = Table()
    g.start()
    g("discard", seat=0, tile="5D", named=named)
    out = g.expose(2, exposed)
    assert only(out, "dead_hand").data["reason"].startswith("invalid exposure: an exposure must be identical tiles")
    assert "claim_withdrawn" not in kinds(out)


def test_pay_for_table_discard_after_wrong_end_pick():
    g = Table()
    g.start()
    g.turn(0, "N")
    out = g("pick", seat=1, end="wrong_end")
    assert "wrong end" in only(out, "dead_hand").data["reason"]
    g("discard", seat=1, tile="8B", named="8B")  # she finishes her turn; the discard is live
    g("claim", seat=3, purpose="mahjong")
    out = g("mahjong_declared", seat=3, tiles=EVENS)
    assert only(out, "mahjong_verified").data["pays_for_table"] == 1
    assert payments(out) == {0: 0, 1: -200, 2: 0, 3: 200}


def test_pay_for_table_discard_after_wrong_wall_pick():
    g = Table()
    g.start()
    g.turn(0, "N")
    assert "wrong wall" in only(g("pick", seat=1, end="wrong_wall"), "dead_hand").data["reason"]
    g("discard", seat=1, tile="8B", named="8B")
    g("claim", seat=2, purpose="mahjong")
    assert payments(g("mahjong_declared", seat=2, tiles=EVENS))[1] == -200


def test_pay_for_table_discard_out_of_turn():
    g = Table()
    g.start()
    g.turn(0, "N")
    out = g("discard", seat=2, tile="8B", named="8B")
    assert only(out, "dead_hand").data["reason"] == "discarding out of turn"
    assert only(out, "discard_at_fault").data == {"seat": 2, "tile": "8B", "fault": "out_of_turn"}
    assert "turn" not in kinds(out) and g.ref.turn == 1  # South still has to pick
    g("claim", seat=3, purpose="mahjong")
    out = g("mahjong_declared", seat=3, tiles=EVENS)
    assert only(out, "mahjong_verified").data["pays_for_table"] == 2
    assert payments(out) == {0: 0, 1: 0, 2: -200, 3: 200}


def test_pay_for_table_discard_after_picking_out_of_turn():
    g = Table()
    g.start()
    g.turn(0, "N")
    assert only(g("pick", seat=3), "dead_hand").data["reason"] == "picking out of turn"
    out = g("discard", seat=3, tile="8B", named="8B")  # dead, but the tile is down: it is live all the same
    assert "dead_hand" not in kinds(out) and "turn" not in kinds(out) and g.ref.turn == 1
    assert only(out, "window_closed").data["reason"] == "covered"  # East's North is no longer live
    assert only(out, "discard_at_fault").data == {"seat": 3, "tile": "8B", "fault": "out_of_turn"}
    assert g.ref.seats[3].total == 13
    g("claim", seat=2, purpose="mahjong")
    out = g("mahjong_declared", seat=2, tiles=EVENS)
    assert only(out, "mahjong_verified").data["pays_for_table"] == 3
    assert payments(out) == {0: 0, 1: 0, 2: 200, 3: -200}  # 4 x 25 x jokerless 2, nobody else pays


def test_out_of_turn_discard_by_a_dead_player_not_won_on_play_goes_on():
    g = Table()
    g.start()
    g.turn(0, "N")
    g("pick", seat=3)  # out of turn: dead
    g("discard", seat=3, tile="5D", named="5D")
    g("pick", seat=1)  # South, still in turn, picks and racks: the out-of-turn discard is dead now
    assert only(g("rack", seat=1), "window_closed").data == {"reason": "racked", "opened_at": g.t - 2,
                                                             "closed_at": g.t, "tile": "5D"}
    assert only(g("discard", seat=1, tile="8B", named="8B"), "turn").seat == 2
    g("claim", seat=2, purpose="mahjong")  # a win on South's ordinary discard: nobody pays for the table
    out = g("mahjong_declared", seat=2, tiles=EVENS)
    assert only(out, "mahjong_verified").data["pays_for_table"] is None
    assert payments(out) == {0: -50, 1: -100, 2: 200, 3: -50}  # the dead seat 3 still pays its share


def test_wall_game_when_wall_exhausted():
    g = Table()
    g.start()
    g.turn(0, "N")
    out = g("wall_exhausted")
    assert "wall_game" in kinds(out) and only(out, "game_over").data["reason"] == "wall_game"
    assert payments(out) == {0: 0, 1: 0, 2: 0, 3: 0}
    assert only(out, "window_closed").data["reason"] == "wall_exhausted"


def test_east_rotates_counterclockwise_and_pivot_switch():
    g = Table()
    easts = []
    for game in range(5):
        g.start()
        east = g.ref.east
        easts.append(east)
        if game == 0:
            g("discard", seat=0, tile="N", named="N")
            g("pick", seat=1)
            g("discard", seat=1, tile="8B", named="8B")
            g("claim", seat=2, purpose="mahjong")
            g("mahjong_declared", seat=2, tiles=EVENS)
        else:
            g.turn(east, "N")
            assert only(g("wall_exhausted"), "east_rotates").data["east"] == [2, 3, 1, 2][game - 1]
    assert easts == [0, 1, 2, 3, 1]  # after a full round the Pivot (chair 0) swaps with chair 1 and deals
    assert only(g.rulings, "pivot_switch").data == {"seat": 0, "with_seat": 1}
    # balances travel with the players: the Pivot's -50 now sits in chair 1, chair 1's -100 in chair 0
    assert g.ref.balances[1] == -50 and g.ref.balances[0] == -100


def test_wrong_east_rejected_in_four_player_game():
    g = Table()
    g.start()
    g.turn(0, "N")
    g("wall_exhausted")
    assert "East this game is chair 1" in only(g("deal", east=2), "rejected").data["reason"]
    assert only(g("deal"), "dealt").data["east"] == 1


def test_charleston_order_blind_pass_and_no_jokers():
    g = Table()
    g("deal")
    assert "right" in only(g("charleston_pass", seat=0, direction="left"), "rejected").data["reason"]
    assert only(g("charleston_pass", seat=0, direction="right", blind=1), "rejected")  # no blind on first right
    assert only(g("charleston_pass", seat=0, direction="right", tiles=["J", "1B", "2B"]), "rejected")
    for seat in range(4):
        g("charleston_pass", seat=seat, direction="right")
    for seat in range(4):
        g("charleston_pass", seat=seat, direction="across")
    assert only(g("charleston_pass", seat=2, direction="left", blind=2), "charleston_passed").data["blind"] == 2


def test_charleston_stop_only_between_first_left_and_second_left():
    g = Table()
    g("deal")
    assert only(g("charleston_stop", seat=1), "rejected")
    for d in ("right", "across", "left"):
        for seat in range(4):
            g("charleston_pass", seat=seat, direction=d)
    g("charleston_pass", seat=0, direction="left")
    assert only(g("charleston_stop", seat=1), "rejected")  # the second left has begun
    g2 = Table()
    g2.start("stop")
    assert only(g2("charleston_pass", seat=0, direction="left"), "rejected")  # stopped: no second Charleston
    assert "charleston_stopped" in kinds(g2.rulings)


def test_courtesy_pass_smaller_offer_wins():
    g = Table()
    g.start("full")
    g("courtesy_pass", seat=0, count=3)
    out = g("courtesy_pass", seat=2, count=1)
    assert only(out, "courtesy_agreed").data == {"seats": [0, 2], "count": 1}
    assert only(g("courtesy_pass", seat=1, count=4), "rejected")


def test_first_charleston_compulsory_before_play():
    g = Table()
    g("deal")
    for seat in range(4):
        g("charleston_pass", seat=seat, direction="right")
    assert "Charleston is not finished" in only(g("discard", seat=0, tile="N", named="N"), "rejected").data["reason"]


def test_three_player_table_no_charleston():
    g = Table(players=3)
    out = g("deal")
    assert "charleston_skipped" in kinds(out) and only(out, "dealt").data["wall"] == 152 - 40
    assert "3-player" in only(g("charleston_pass", seat=0, direction="right"), "rejected").data["reason"]
    g.turn(0, "N")
    assert only(g.turn(1, "S"), "turn").seat == 2
    assert only(g.turn(2, "W"), "turn").seat == 0
    g.turn(0, "8B")
    g("claim", seat=2, purpose="mahjong")
    out = g("mahjong_declared", seat=2, tiles=EVENS)
    assert payments(out) == {0: -100, 1: -50, 2: 150}


def test_seat_change_between_games_moves_balances():
    g = Table()
    g.start()
    assert only(g("seat_change", seat=0, with_seat=2), "rejected")
    g.turn(0, "8B")
    g("claim", seat=2, purpose="mahjong")
    g("mahjong_declared", seat=2, tiles=EVENS)
    out = g("seat_change", seat=2, with_seat=3)
    assert only(out, "seats_changed").data["balances"]["3"] == 200


def test_correction_undo_last_event():
    g = Table()
    g.start()
    g.turn(0, "N")
    g("pick", seat=3)  # misread: it was seat 1
    assert g.ref.seats[3].out == "dead"
    out = g("correction", action="undo")
    assert only(out, "corrected").data["event"]["seat"] == 3
    assert g.ref.seats[3].out is None and g.ref.turn == 1
    assert only(g("pick", seat=1), "picked")


def test_correction_fix_misread_tile_replays_game():
    g = Table()
    g.start()
    g.turn(0, "N")
    index = next(i for i, e in enumerate(g.ref.events) if type(e).__name__ == "Discard")
    g.turn(1, "5D")
    out = g("correction", action="fix", index=index,
            event={"type": "discard", "t": g.ref.events[index].t, "seat": 0, "tile": "3B", "named": "3B"})
    assert only(out, "corrected").data["index"] == index
    assert g.ref.seats[0].discards == ["3B"] and g.ref.seats[1].discards == ["5D"]
    assert only(g("correction", action="fix", index=999, event={}), "rejected")


def test_discarded_joker_misnamed_wins_only_as_the_named_tile():
    g = Table()
    g.start()
    g("discard", seat=0, tile="J", named="8B")  # a joker thrown as "Eight Bam"
    g("claim", seat=2, purpose="mahjong")
    hand = list(EVENS)
    hand[hand.index("8B")] = "J"  # the thrown joker would also fit the kong of 8s, but discarded jokers are dead
    v = only(g("mahjong_declared", seat=2, tiles=hand), "mahjong_verified")
    assert v.data["misnamed"] is True and v.data["pays_for_table"] == 0 and v.data["jokerless"] is False
    assert payments(g.rulings) == {0: -100, 1: 0, 2: 100, 3: 0}  # 4 x 25 from the misnamer alone


def test_last_discard_can_still_be_called_when_the_wall_runs_out():
    g = Table()
    g.start()
    g.turn(0, "N")
    g.ref.wall = 1  # the last tile of the wall
    g.turn(1, "8B")
    g("claim", seat=3, purpose="mahjong")
    assert "last discard was called" in only(g("wall_exhausted"), "rejected").data["reason"]
    out = g("mahjong_declared", seat=3, tiles=EVENS)
    assert only(out, "mahjong_verified").data["discarder"] == 1 and "wall_game" not in kinds(g.rulings)


def test_a_tile_misnamed_as_joker_cannot_be_won_on_as_a_joker():
    g = Table()
    g.start()
    g("discard", seat=0, tile="3B", named="J")  # a 3 Bam thrown as "Joker"
    g("claim", seat=2, purpose="mahjong")
    hand = list(EVENS)
    hand[hand.index("8B")] = "3B"  # as a joker the tile would fill the kong of 8s: discarded jokers are dead
    out = g("mahjong_declared", seat=2, tiles=hand)
    assert only(out, "claim_awarded").data["tile"] == "3B" and "mahjong_verified" not in kinds(out)
    assert only(out, "mahjong_in_error").seat == 2


def test_rules_004_the_discard_claimed_for_mahjong_must_be_in_the_hand_shown():
    """A hand shown without the discard it was called on is not that player's hand: Mah Jongg in error, and a
    misnamed discard's paying for the table is not settled as an ordinary win."""
    g = Table()
    g.start()
    g("discard", seat=0, tile="5D", named="8B")  # misnamed: West wants the named 8 Bam
    g("claim", seat=2, purpose="mahjong")
    out = g("mahjong_declared", seat=2, tiles=EVENS)  # 8B 8B 8B 8B from her own rack: the 5 Dot is not shown
    error = only(out, "mahjong_in_error")
    assert "(5D) is not in the hand shown" in error.data["reason"]
    assert "settlement" not in kinds(out) and "mahjong_verified" not in kinds(out)
    g = Table()
    g.start()
    g.turn(0, "N")
    g("claim", seat=1, purpose="mahjong")
    assert "(N) is not in the hand shown" in only(g("mahjong_declared", seat=1, tiles=EVENS),
                                                  "mahjong_in_error").data["reason"]


def test_rules_004_a_player_may_add_tiles_to_her_own_exposure_before_she_redeems_a_joker_or_discards():
    g = Table()
    g.start()
    g.turn(0, "8B")
    g.expose(1, ["8B", "8B", "J"])
    out = g("exposure", seat=1, tiles=["8B"])
    grown = only(out, "exposure_extended")
    assert grown.data == {"seat": 1, "index": 0, "tiles": ["8B", "8B", "J", "8B"], "added": ["8B"]}
    assert g.ref.seats[1].exposures == [["8B", "8B", "J", "8B"]] and g.ref.seats[1].concealed == 10
    assert "must be 8B or jokers" in only(g("exposure", seat=1, tiles=["2B"]), "rejected").data["reason"]
    g.turn(1, "N")
    late = only(g("exposure", seat=1, tiles=["J"]), "rejected")  # after her discard: too late
    assert "placed before the discard, never added later" in late.data["reason"]
    # A joker redeemed from it first also ends the time to add (West redeems South's joker, then adds).
    g = Table()
    g.start()
    g.turn(0, "8B")
    g.expose(1, ["8B", "8B", "J"])
    g.turn(1, "N")
    g.turn(2, "3C")
    g.expose(3, ["3C", "3C", "3C"])
    g("joker_exchange", seat=3, from_seat=1, exposure_index=0, tile="8B")
    assert "no exposure from a wall tile" in only(g("exposure", seat=3, tiles=["3C"]), "rejected").data["reason"]
