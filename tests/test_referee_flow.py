"""Turn order, the window of opportunity, claims, exposures and joker exchanges: one scripted game per rule."""

from referee_kit import Table, joker_on_wests_rack, kinds, only


def test_turn_order_counterclockwise_from_east():
    g = Table()
    g.start()
    assert only(g.turn(0, "N"), "turn").seat == 1
    assert only(g.turn(1, "S"), "turn").seat == 2
    assert only(g.turn(2, "W"), "turn").seat == 3
    assert only(g.turn(3, "E"), "turn").seat == 0


def test_play_continues_from_claimant_seats_between_skipped():
    g = Table()
    g.start()
    g.turn(0, "3B")
    out = g.expose(3, ["3B", "3B", "3B"])
    assert only(out, "claim_awarded").seat == 3 and only(out, "turn").seat == 3
    out = g("discard", seat=3, tile="N", named="N")
    assert only(out, "turn").seat == 0  # seats 1 and 2 were skipped; play goes on to the claimant's right


def test_window_opens_when_discard_named_or_touching():
    g = Table()
    g.start()
    out = g("discard", seat=0, tile="5D", named=None, touching=True)
    assert only(out, "window_opened").data == {"seat": 0, "tile": "5D", "named": None}
    g2 = Table()
    g2.start()
    assert only(g2("discard", seat=0, tile="5D", named="5D", touching=False), "window_opened")
    g3 = Table()
    g3.start()
    assert only(g3("discard", seat=0, tile="5D", named=None, touching=False), "rejected")


def test_window_closes_when_next_player_racks():
    g = Table()
    g.start()
    g.turn(0, "5D")
    assert "window_closed" not in kinds(g("pick", seat=1))  # picking and looking does not close it
    closed = only(g("rack", seat=1), "window_closed")
    assert closed.data["reason"] == "racked" and closed.data["opened_at"] < closed.data["closed_at"]
    assert only(g("claim", seat=2, purpose="exposure"), "rejected")


def test_window_closes_when_next_player_discards_picked_tile():
    g = Table()
    g.start()
    g.turn(0, "5D")
    g("pick", seat=1)
    out = g("discard", seat=1, tile="7C", named="7C")
    assert only(out, "window_closed").data["reason"] == "discarded"
    assert only(out, "window_opened").data["tile"] == "7C"


def test_window_closes_on_joker_exchange_announced():
    g = joker_on_wests_rack()
    g("pick", seat=3)
    out = g("joker_exchange_announced", seat=3)
    assert only(out, "window_closed").data["reason"] == "joker_exchange"


def test_window_closes_on_mahjong_declared_by_next_player():
    g = Table()
    g.start()
    g.turn(0, "5D")
    g("pick", seat=1)
    out = g("mahjong_declared", seat=1, tiles=["1B"] * 14, self_picked=True)
    assert only(out, "window_closed").data["reason"] == "mahjong"


def test_claim_after_pick_sends_picked_tile_back_to_wall():
    g = Table()
    g.start()
    g.turn(0, "5D")
    wall = g.ref.wall
    g("pick", seat=1)
    out = g.expose(3, ["5D", "5D", "J"])
    assert only(out, "pick_returned").seat == 1
    assert g.ref.wall == wall and g.ref.seats[1].total == 13
    assert only(out, "window_closed").data["reason"] == "claimed"


def test_call_at_same_instant_as_rack_goes_to_caller():
    g = Table()
    g.start()
    g.turn(0, "5D")
    g("pick", seat=1, t=10.0)
    g("rack", seat=1, t=11.0)
    assert only(g("claim", seat=2, purpose="exposure", t=11.0), "claim_pending")
    out = g("exposure", seat=2, tiles=["5D", "5D", "5D"], t=12.0)
    assert only(out, "claim_awarded").seat == 2 and only(out, "pick_returned").seat == 1
    late = Table()
    late.start()
    late.turn(0, "5D")
    late("pick", seat=1, t=10.0)
    late("rack", seat=1, t=11.0)
    assert only(late("claim", seat=2, purpose="exposure", t=11.5), "rejected")


def test_only_latest_discard_is_live():
    g = Table()
    g.start()
    g.turn(0, "5D")
    g.turn(1, "7C")
    out = g("claim", seat=3, purpose="exposure")
    g("exposure", seat=3, tiles=["7C", "7C", "7C"])
    assert only(g.rulings, "claim_awarded").data["tile"] == "7C"
    assert "rejected" not in kinds(out)


def test_claim_mahjong_on_single_or_pair_allowed_exposure_needs_pung():
    g = Table()
    g.start()
    g.turn(0, "4B")
    assert only(g("claim", seat=2, purpose="mahjong"), "claim_pending")
    bad = Table()
    bad.start()
    bad.turn(0, "4B")
    out = bad.expose(2, ["4B", "4B"])  # a pair is never an exposure
    assert only(out, "dead_hand").data["reason"].startswith("invalid exposure")


def test_discarded_jokers_are_dead():
    g = Table()
    g.start()
    g.turn(0, "J")
    out = g("claim", seat=1, purpose="exposure")
    assert only(out, "rejected").data["reason"] == "discarded jokers are dead"


def test_mahjong_claim_beats_exposure_claim():
    g = Table()
    g.start()
    g.turn(0, "8B")
    g("claim", seat=1, purpose="exposure")
    g("claim", seat=3, purpose="mahjong")
    out = g("mahjong_declared", seat=3, tiles=["1B"] * 14)
    assert only(out, "claim_awarded").data == {"seat": 3, "purpose": "mahjong", "tile": "8B"}
    assert only(out, "claim_denied").seat == 1


def test_equal_claims_next_in_turn_wins():
    g = Table()
    g.start()
    g.turn(0, "8B")
    g("claim", seat=3, purpose="exposure")
    out = g.expose(2, ["8B", "8B", "8B"])
    assert only(out, "claim_awarded").seat == 2  # seat 2 comes before seat 3 after the discarder (0)
    assert only(out, "exposure_accepted").data["tiles"] == ["8B", "8B", "8B"]


def test_exposure_jokers_allowed_with_claimed_natural():
    g = Table()
    g.start()
    g.turn(0, "8B")
    out = g.expose(1, ["8B", "J", "J", "J"])
    assert only(out, "exposure_accepted").data["tiles"] == ["8B", "J", "J", "J"]
    assert g.ref.seats[1].concealed == 10 and g.ref.seats[1].total == 14


def test_exposure_of_mixed_tiles_is_invalid_and_kills():
    g = Table()
    g.start()
    g.turn(0, "8B")
    out = g.expose(1, ["8B", "8B", "7B"])
    dead = only(out, "dead_hand")
    assert dead.seat == 1 and "invalid exposure" in dead.data["reason"]


def test_no_exposure_from_wall_tile():
    g = Table()
    g.start()
    g.turn(0, "N")
    g("pick", seat=1)
    g("rack", seat=1)
    assert "no exposure from a wall tile" in only(g("exposure", seat=1, tiles=["2C"] * 3), "rejected").data["reason"]


def test_exposure_not_added_to_after_discard():
    g = Table()
    g.start()
    g.turn(0, "8B")
    g.expose(1, ["8B", "8B", "8B"])
    g.turn(1, "N")
    assert only(g("exposure", seat=1, tiles=["8B"] * 4), "rejected")


def test_exposure_no_card_line_allows_makes_hand_dead_citing_lines():
    g = Table()
    g.start()
    g.turn(0, "N")
    g.expose(2, ["N", "N", "N"])  # winds lines allow a pung of North
    g.turn(2, "1D")
    g.turn(3, "7D")
    g("pick", seat=0)
    g("discard", seat=0, tile="7C", named="7C")
    out = g.expose(2, ["7C", "7C", "7C"])  # no exposed line has North pung + 7 Crak pung
    dead = only(out, "dead_hand")
    assert dead.seat == 2 and "no exposed (X) line" in dead.data["reason"]
    assert dead.data["lines"] and all("N" in ln["text"] for ln in dead.data["lines"])  # the lines NNN allowed


def test_joker_exchange_in_own_turn_after_picking():
    g = joker_on_wests_rack()
    g("pick", seat=3)
    g("rack", seat=3)
    out = g("joker_exchange", seat=3, from_seat=2, exposure_index=0, tile="3B")
    assert only(out, "joker_exchanged").data["tile"] == "3B"
    assert g.ref.seats[2].exposures[0] == ["3B", "3B", "3B"]
    again = g("joker_exchange", seat=3, from_seat=2, exposure_index=0, tile="3B")
    assert only(again, "rejected").data["reason"] == "that exposure holds no joker"


def test_joker_exchange_several_per_turn_and_own_exposure():
    g = Table()
    g.start()
    g.turn(0, "3B")
    g.expose(1, ["3B", "J", "J"])
    assert only(g("joker_exchange", seat=1, from_seat=1, exposure_index=0, tile="3B"), "joker_exchanged")
    assert only(g("joker_exchange", seat=1, from_seat=1, exposure_index=0, tile="3B"), "joker_exchanged")
    assert g.ref.seats[1].exposures[0] == ["3B", "3B", "3B"]


def test_joker_exchange_out_of_turn_rejected_and_before_picking_kills():
    g = joker_on_wests_rack()
    assert only(g("joker_exchange", seat=1, from_seat=2, exposure_index=0, tile="3B"), "rejected")
    out = g("joker_exchange", seat=3, from_seat=2, exposure_index=0, tile="3B")  # 3's turn but no pick yet
    assert only(out, "dead_hand").data["reason"] == "exchanging a joker before picking"


def test_joker_exchange_never_reverse():
    g = Table()
    g.start()
    g.turn(0, "3B")
    g.expose(1, ["3B", "3B", "3B"])
    g.turn(1, "N")
    g("pick", seat=2)
    assert "reverse" in only(g("joker_exchange", seat=2, from_seat=1, exposure_index=0, tile="J"),
                             "rejected").data["reason"]


def test_joker_exchange_wrong_tile_kills_owner_once_redeemer_discards():
    g = joker_on_wests_rack()
    g("pick", seat=3)
    out = g("joker_exchange", seat=3, from_seat=2, exposure_index=0, tile="5B")
    assert only(out, "joker_exchange_wrong_tile").data["expected"] == "3B"
    assert g.ref.seats[2].out is None  # not yet: it can still be fixed before the discard
    out = g("discard", seat=3, tile="N", named="N")
    dead = only(out, "dead_hand")
    assert dead.seat == 2 and "wrong tile" in dead.data["reason"]
    assert g.ref.seats[3].out is None  # no penalty for the redeemer


def test_pick_after_a_call_goes_back_to_the_wall():
    g = Table()
    g.start()
    g.turn(0, "5D")
    wall = g.ref.wall
    g("claim", seat=3, purpose="exposure")  # called before the next player reached the wall
    out = g("pick", seat=1)
    assert only(out, "pick_returned").seat == 1 and only(out, "claim_awarded").seat == 3
    assert "dead_hand" not in kinds(out) and g.ref.wall == wall and g.ref.seats[1].total == 13


def test_picker_cannot_rack_discard_or_exchange_once_a_call_is_made():
    g = Table()
    g.start()
    g.turn(0, "5D")
    g("pick", seat=1)
    g("claim", seat=3, purpose="exposure")
    for kind, fields in (("rack", {}), ("discard", {"tile": "7C", "named": "7C"}), ("joker_exchange_announced", {})):
        assert "call for the live discard came first" in only(g(kind, seat=1, **fields), "rejected").data["reason"]
    out = g("exposure", seat=3, tiles=["5D", "5D", "5D"])
    assert only(out, "pick_returned").seat == 1 and g.ref.seats[1].out is None


def test_exposure_of_more_naturals_than_a_set_holds_is_invalid():
    g = Table()
    g.start()
    g.turn(0, "8B")
    out = g.expose(1, ["8B"] * 5)  # five natural 8 Bams: a misread, no set has them
    assert only(out, "dead_hand").data["reason"] == "invalid exposure: 5 x 8B, but a set holds 4"


def test_a_pick_after_a_call_that_ends_the_game_leaves_no_call_to_settle():
    g = Table(players=3)
    g.start()
    g.turn(0, "N")
    g("pick", seat=2)  # out of turn: dead
    g.turn(1, "5D")
    g("claim", seat=0, purpose="exposure")
    out = g("pick", seat=0, end="wrong_end")  # the caller then picks, from the wrong end: dead, one player left
    assert "rejected" not in kinds(out) and only(out, "last_survivor").seat == 1


def test_joker_exchange_only_once_the_claimed_tile_is_exposed():
    g = joker_on_wests_rack()
    g.turn(3, "5C")
    g("claim", seat=0, purpose="exposure")  # East calls 5 Crak: her 14th tile is in only once it is exposed
    early = g("joker_exchange", seat=0, from_seat=2, exposure_index=0, tile="3B")
    assert "complete the exposure" in only(early, "rejected").data["reason"]
    g("exposure", seat=0, tiles=["5C", "5C", "5C"])
    assert only(g("joker_exchange", seat=0, from_seat=2, exposure_index=0, tile="3B"), "joker_exchanged")


def test_issued_rulings_keep_their_data_after_a_joker_exchange():
    g = Table()
    g.start()
    g.turn(0, "3B")
    accepted = only(g.expose(1, ["3B", "J", "J"]), "exposure_accepted")
    g("joker_exchange", seat=1, from_seat=1, exposure_index=0, tile="3B")
    assert g.ref.seats[1].exposures[0] == ["3B", "3B", "J"]
    assert accepted.data["tiles"] == ["3B", "J", "J"]  # the ruling still says what was placed
