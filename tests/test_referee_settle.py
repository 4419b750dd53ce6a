"""Settling up: profiles (parsing and errors), NMJL payments, MahjCon points, survivors, rotation, `mahj pay`."""

import json

import pytest
from referee_kit import EVENS, WINDS, Table, kinds, only, payments, profile, south_calls_twice

from assistant.cli import main
from engine.referee import ProfileError, parse_profile
from engine.referee.profile import PROFILES_DIR
from engine.referee.rotation import next_seat, rotate
from engine.referee.settle import Win, settle_win

# --- profiles ---------------------------------------------------------------------------------------------

def test_builtin_profiles_parse_with_every_number():
    nmjl, mahjcon = profile("nmjl"), profile("mahjcon")
    assert nmjl.mode == "payments" and nmjl.payments.pay_for_table == 4 and nmjl.points is None
    assert mahjcon.mode == "points" and mahjcon.points.jokerless_bonus == 20
    assert mahjcon.penalties.blind_pass_peek == -10


def test_bad_profile_reports_file_and_line():
    text = (PROFILES_DIR / "nmjl.toml").read_text(encoding="utf-8")
    broken = text.replace("discarder = 2", "discarder = \"two\"").replace("self_pick = 2", "self_pik = 2")
    with pytest.raises(ProfileError) as exc:
        parse_profile(broken, "club.toml")
    lines = text.splitlines()
    discarder_line = next(i for i, x in enumerate(lines, 1) if x.startswith("discarder ="))
    typo_line = next(i for i, x in enumerate(lines, 1) if x.startswith("self_pick ="))
    diags = exc.value.diagnostics
    assert f"club.toml:{discarder_line}: 'discarder' must be a whole number, got 'two'" in diags
    assert f"club.toml:{typo_line}: unknown key 'self_pik' in [payments]" in diags
    assert any("lacks 'self_pick'" in d for d in diags)
    with pytest.raises(ProfileError) as exc:
        parse_profile("name = \"x\"\nmode = [\n", "syntax.toml")
    assert exc.value.diagnostics[0].startswith("syntax.toml:")


def test_bad_profile_sections_negative_multiples_and_bytes_named_by_line(tmp_path, capsys):
    text = (PROFILES_DIR / "nmjl.toml").read_text(encoding="utf-8").replace("discarder = 2", "discarder = -2")
    text += "\n[extra]\nfoo = 1\n"
    lines = text.splitlines()
    discarder_line = next(i for i, x in enumerate(lines, 1) if x.startswith("discarder ="))
    extra_line = lines.index("[extra]") + 1
    with pytest.raises(ProfileError) as exc:
        parse_profile(text, "club.toml")
    assert exc.value.diagnostics == [  # in file order
        f"club.toml:{discarder_line}: 'discarder' is a multiple of the hand value: 0 or more, got -2",
        f"club.toml:{extra_line}: unknown key or section 'extra' (known sections: rules, payments, points, penalties)",
    ]
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b'name = "x"\n\xff\n')
    assert main(["pay", "--profile", str(binary), "--value", "25", "--self-pick"]) == 2
    assert f"{binary}:2: not UTF-8 text" in capsys.readouterr().err


def test_profile_changes_every_number():
    text = (PROFILES_DIR / "nmjl.toml").read_text(encoding="utf-8").replace("discarder = 2", "discarder = 3")
    club = parse_profile(text, "club.toml")
    amounts = settle_win(club, Win(winner=0, value=25, discarder=1), range(4))
    assert amounts == {0: 125, 1: -75, 2: -25, 3: -25}


# --- NMJL payments ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("discarder,jokerless,sp,expected", [
    (2, False, False, {0: 100, 1: -25, 2: -50, 3: -25}),
    (None, False, False, {0: 150, 1: -50, 2: -50, 3: -50}),
    (2, True, False, {0: 200, 1: -50, 2: -100, 3: -50}),
    (None, True, False, {0: 300, 1: -100, 2: -100, 3: -100}),
    (None, True, True, {0: 150, 1: -50, 2: -50, 3: -50}),  # Singles and Pairs: no jokerless doubling
])
def test_nmjl_payments(discarder, jokerless, sp, expected):
    win = Win(winner=0, value=25, discarder=discarder, jokerless=jokerless, singles_and_pairs=sp)
    assert settle_win(profile("nmjl"), win, range(4)) == expected


def test_nmjl_pay_for_table_four_times_from_one_player():
    win = Win(winner=0, value=25, discarder=2, pays_for_table=2)
    assert settle_win(profile("nmjl"), win, range(4)) == {0: 100, 1: 0, 2: -100, 3: 0}


def test_running_balances_across_games():
    g = Table()
    g.start()
    g.turn(0, "8B")
    g("claim", seat=2, purpose="mahjong")
    g("mahjong_declared", seat=2, tiles=EVENS)
    g.start()  # East is now chair 1
    g.turn(1, "N")
    g("pick", seat=2)
    out = g("mahjong_declared", seat=2, tiles=EVENS, self_picked=True)
    assert only(out, "settlement").data["balances"] == {"0": -200, "1": -150, "2": 500, "3": -150}


def _error_declare(g, seat):
    """Seat picks (when it is her turn) and declares a hand that is not on the card."""
    g("pick", seat=seat)
    return g("mahjong_declared", seat=seat, tiles=EVENS[:-1] + ["9D"], self_picked=True)


def test_three_dead_survivor_paid_by_last_erring_declarer_rule_b():
    g = Table()
    g.start()
    g.turn(0, "N")
    _error_declare(g, 1)
    g("throw_in", seat=2)
    out = _error_declare(g, 3)
    due = only(out, "survivor_payment_due")
    assert due.data == {"payer": 3, "survivor": 0, "basis": 0} and only(out, "hand_value_needed").seat == 0
    out = g("attempted_hand", seat=0, value=30)
    assert payments(out) == {0: 60, 1: 0, 2: 0, 3: -60} and "game_over" in kinds(out)


def test_three_dead_survivor_paid_by_erring_declarer_rule_c():
    g = Table()
    g.start()
    g("attempted_hand", seat=1, value=25)
    g.turn(0, "N")
    _error_declare(g, 1)
    g("throw_in", seat=2)
    out = g("throw_in", seat=3)
    assert only(out, "survivor_payment_due").data == {"payer": 1, "survivor": 0, "basis": 1}
    assert payments(out) == {0: 50, 1: -50, 2: 0, 3: 0}


def test_three_dead_other_causes_nobody_paid_rule_e():
    g = Table()
    g.start()
    g.turn(0, "N")
    g("pick", seat=2)
    g("pick", seat=3)
    out = g("pick", seat=0)
    assert only(out, "last_survivor").seat == 1
    assert only(out, "game_over").data["reason"] == "three_dead" and "settlement" not in kinds(out)


def test_wall_destroyed_after_mahjong_in_error_destroyer_pays_survivors_rule_d():
    g = Table()
    g.start()
    g.turn(0, "N")
    _error_declare(g, 1)
    out = g("wall_destroyed", seat=3)
    assert payments(out) == {0: 25, 1: 0, 2: 25, 3: -50}  # the card's cheapest hand (25) to each survivor
    assert only(out, "game_over").data["reason"] == "wall_destroyed"


# --- MahjCon points --------------------------------------------------------------------------------------

def test_mahjcon_points_self_pick_and_jokerless_bonus():
    g = Table("mahjcon")
    g.start()
    g.turn(0, "N")
    g("pick", seat=1)
    out = g("mahjong_declared", seat=1, tiles=EVENS, self_picked=True)
    assert payments(out) == {0: 0, 1: 25 + 10 + 20, 2: 0, 3: 0}


def test_mahjcon_discard_into_two_exposures_penalty():
    g = south_calls_twice("N", "E")
    g.turn(1, "2D")
    g.turn(2, "S")
    g("claim", seat=1, purpose="mahjong")
    out = g("mahjong_declared", seat=1, tiles=WINDS)
    assert payments(out) == {0: 0, 1: 25 + 20, 2: -20, 3: 0}


@pytest.mark.parametrize("exposures,quint,penalty", [(1, False, 0), (2, False, -20), (3, False, -25),
                                                      (2, True, -25)])
def test_mahjcon_discard_penalties(exposures, quint, penalty):
    win = Win(winner=1, value=30, discarder=3, exposures=exposures, quint_exposed=quint)
    assert settle_win(profile("mahjcon"), win, range(4))[3] == penalty


def test_mahjcon_misnamed_discard_penalty():
    g = Table("mahjcon")
    g.start()
    g("discard", seat=0, tile="5D", named="8B")
    g("claim", seat=2, purpose="mahjong")
    hand = list(EVENS)
    hand[hand.index("8B")] = "5D"
    out = g("mahjong_declared", seat=2, tiles=hand)
    assert payments(out) == {0: -25, 1: 0, 2: 25 + 20, 3: 0}


def test_mahjcon_wall_game_ten_points_not_for_dead():
    g = Table("mahjcon")
    g.start()
    g.turn(0, "N")
    g("pick", seat=3)  # dead: out of turn
    out = g("wall_exhausted")
    assert payments(out) == {0: 10, 1: 10, 2: 10, 3: 0}


def test_mahjcon_all_but_one_throw_in_intact_hand_ten():
    g = Table("mahjcon")
    g.start()
    g.turn(0, "N")
    g("throw_in", seat=0)
    g("throw_in", seat=1)
    out = g("throw_in", seat=3)
    assert payments(out) == {0: 0, 1: 0, 2: 10, 3: 0} and only(out, "last_survivor").seat == 2


def test_mahjcon_penalty_event_and_nmjl_has_none():
    g = Table("mahjcon")
    g.start()
    out = g("penalty", seat=3, kind="blind_pass_peek")
    assert payments(out)[3] == -10
    h = Table("nmjl")
    h.start()
    assert only(h("penalty", seat=3, kind="blind_pass_peek"), "rejected")


def test_mahjcon_three_player_table_no_charleston_fourth_game_east_by_dice():
    g = Table("mahjcon", players=3)
    for _ in range(3):
        g("deal")
        g.turn(g.ref.east, "N")
        g("wall_exhausted")
    out = g("deal", east=2)  # the fourth game: the highest roller is East
    assert only(out, "dealt").data["east"] == 2 and "charleston_skipped" in kinds(out)
    assert g.ref.balances == {0: 30, 1: 30, 2: 30}


def test_mahjcon_game_not_completed_in_time_scores_zero():
    g = Table("mahjcon")
    g.start()
    g.turn(0, "N")
    out = g("time_called")
    assert only(out, "game_over").data["reason"] == "time" and "settlement" not in kinds(out)
    assert g.ref.balances == {0: 0, 1: 0, 2: 0, 3: 0}


def test_mahjcon_table_rotation_by_seat_letter():
    assert next_seat(1, "A", 5) == (1, "A")
    assert next_seat(1, "B", 5) == (2, "B")
    assert next_seat(4, "C", 5) == (1, "C")
    assert next_seat(1, "D", 5) == (5, "D")
    room = {f"p{t}{s}": (t, s) for t in range(1, 4) for s in "ABCD"}
    nxt = rotate(room, 3)
    assert nxt["p1B"] == (2, "B") and nxt["p3C"] == (2, "C") and nxt["p1D"] == (3, "D")
    assert sorted(nxt.values()) == sorted(room.values())  # everyone has a seat, nobody shares one
    with pytest.raises(ValueError):
        next_seat(1, "E", 3)


# --- mahj pay ----------------------------------------------------------------------------------------------

def test_pay_command_json(capsys):
    assert main(["pay", "--profile", "nmjl", "--value", "25", "--discarder", "2", "--jokerless", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["payments"] == {"0": 200, "1": -50, "2": -100, "3": -50} and out["jokerless_bonus"] is True
    assert main(["pay", "--profile", "mahjcon", "--value", "30", "--self-pick", "--winner", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["payments"] == {"0": 0, "1": 0, "2": 0, "3": 40}


def test_pay_command_text_and_bad_profile(capsys, tmp_path):
    assert main(["pay", "--value", "25", "--self-pick", "--singles-and-pairs", "--jokerless"]) == 0
    text = capsys.readouterr().out
    assert "+150" in text and "jokerless bonus" not in text
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \"club\"\ndescription = \"x\"\nmode = \"payments\"\n[rules]\nstarting_balance = 0\n")
    assert main(["pay", "--profile", str(bad), "--value", "25", "--self-pick"]) == 2
    assert f"{bad}:4: [rules] lacks" in capsys.readouterr().err


def test_mahjcon_penalty_counts_exposures_before_the_winning_tile():
    g = south_calls_twice("N", "E")
    g.turn(1, "2D")
    g.turn(2, "W")
    g.expose(1, ["W", "W", "W"])  # the winning tile makes a third exposure, but the discarder saw two
    out = g("mahjong_declared", seat=1, tiles=WINDS)
    assert payments(out) == {0: 0, 1: 25 + 20, 2: -20, 3: 0}


def test_pay_command_misnamed_discard_makes_the_discarder_pay_for_the_table(capsys):
    assert main(["pay", "--value", "25", "--discarder", "2", "--misnamed", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["payments"] == {"0": 100, "1": 0, "2": -100, "3": 0} and out["pays_for_table"] == 2
    assert main(["pay", "--value", "25", "--discarder", "2", "--misnamed"]) == 0
    assert "chair 2 pays for the table" in capsys.readouterr().out
    for bad, message in ((["--self-pick", "--misnamed"], "--misnamed is a win on a discard"),
                         (["--discarder", "1", "--pays-for-table", "0"], "the winner cannot pay for the table"),
                         (["--discarder", "1", "--exposures", "-1"], "--exposures must be 0..4"),
                         (["--discarder", "1", "--quint"], "--quint needs --exposures")):
        assert main(["pay", "--value", "25", *bad]) == 2
        assert message in capsys.readouterr().err


def test_mahjcon_discard_penalties_only_for_a_discarder():
    # a self-picked win on a wall someone pushed out wrongly: nobody threw the tile, so nobody loses points
    win = Win(winner=0, value=25, discarder=None, pays_for_table=1, exposures=3)
    assert settle_win(profile("mahjcon"), win, range(4)) == {0: 35, 1: 0, 2: 0, 3: 0}


def test_mahjcon_all_three_expose_after_mahjong_in_error_all_score_zero():
    g = south_calls_twice("3B", "5C")
    err = g("mahjong_declared", seat=1, tiles=["1B"] * 8)  # two exposures: no retraction, South is out
    assert only(err, "mahjong_in_error").data["retracted"] is False
    g("throw_in", seat=0)
    assert payments(g("throw_in", seat=2))[3] == 10  # North alone kept her hand ...
    out = g("throw_in", seat=3)  # ... until she exposes it too: nobody scores
    assert only(out, "threw_in").seat == 3 and payments(out) == {0: 0, 1: 0, 2: 0, 3: -10}
    assert g.ref.balances == {0: 0, 1: 0, 2: 0, 3: 0}
    assert only(g("throw_in", seat=3), "rejected")  # once only
