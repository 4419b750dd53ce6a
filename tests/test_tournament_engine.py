"""Tournament rules without I/O: rotation for every seat letter and room size, 3-player tables, who is East,
and the MahjCon points of 003 for each way a game ends."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.referee import parse_profile
from engine.referee.profile import PROFILES_DIR
from engine.tournament import GameResult, ResultError, east_of_game, first_round, game_points, round_seating
from engine.tournament.seating import SeatingError, check_given
from engine.tournament.standings import ScoredGame, standings

MAHJCON = parse_profile((PROFILES_DIR / "mahjcon.toml").read_text(), "mahjcon.toml")
NMJL = parse_profile((PROFILES_DIR / "nmjl.toml").read_text(), "nmjl.toml")
FULL = "ABCD"


@pytest.mark.parametrize("tables", range(1, 61))
def test_rotation_every_letter_every_room_size(tables):
    """003: A stays, B moves down 1, C down 2, D up 1 table, wrapping at both ends; a bijection of the seats."""
    room = {f"{t}{x}": (t, x) for t in range(1, tables + 1) for x in FULL}
    nxt = round_seating(room, 2, tables)
    for (t, x), (t2, x2) in ((room[p], nxt[p]) for p in room):
        step = {"A": 0, "B": 1, "C": 2, "D": -1}[x]
        want = t + step
        want = want - tables if want > tables else want + tables if want < 1 else want
        if tables <= 2 and x == "C":
            want = (t - 1 + 2) % tables + 1  # two tables down wraps right back (1 table: everyone stays)
        assert (t2, x2) == (want, x), (tables, t, x)
    assert sorted(nxt.values()) == sorted(room.values())
    if tables >= 2:
        assert nxt["1D"] == (tables, "D") and nxt[f"{tables}B"] == (1, "B")  # the wrap at the first and last table
    if tables >= 3:
        assert nxt[f"{tables - 1}C"] == (1, "C")


@settings(deadline=None, max_examples=60)  # a loaded CI machine must not turn slowness into a failure
@given(st.integers(1, 60), st.integers(0, 60), st.integers(1, 8), st.integers(0, 2**32))
def test_rounds_keep_everyone_seated_and_three_player_tables_count(tables, short, rounds, seed):
    short = short % (tables + 1)  # 0..tables tables play with three
    names = [f"p{i}" for i in range(4 * tables - short)]
    seating = first_round(names, tables, seed)
    for r in range(1, rounds + 1):
        now = round_seating(seating, r, tables)
        assert len(set(now.values())) == len(names)
        sizes = [sum(1 for t, _ in now.values() if t == table) for table in range(1, tables + 1)]
        assert sorted(sizes) == sorted([4] * (tables - short) + [3] * short), (r, sizes)
        assert all(x in "ABCD" for _, x in now.values())


def test_first_round_is_repeatable_by_seed_and_checks_the_room():
    names = [f"p{i}" for i in range(11)]
    assert first_round(names, 3, 7) == first_round(names, 3, 7) != first_round(names, 3, 8)
    seats = first_round(names, 3, 7)
    assert (3, "D") not in seats.values() and (2, "D") in seats.values()  # 11 = 4 + 4 + 3
    with pytest.raises(SeatingError, match="use 3 to 3 tables"):
        first_round(names, 2)
    with pytest.raises(SeatingError, match="both sit at table 1 seat A"):
        check_given({"a": (1, "A"), "b": (1, "A"), "c": (1, "B")}, 1)
    with pytest.raises(SeatingError, match="table 2 has 2 players"):
        check_given({f"p{i}": (1, x) for i, x in enumerate(FULL)} | {"x": (2, "A"), "y": (2, "B")}, 2)


def test_east_of_game_full_and_three_player_tables():
    assert [east_of_game(g, FULL) for g in range(1, 6)] == ["A", "B", "C", "D", "A"]
    assert [east_of_game(g, "ABC") for g in (1, 2, 3)] == ["A", "B", "C"]
    with pytest.raises(SeatingError, match="high roller"):
        east_of_game(4, "ABD")
    assert east_of_game(4, "ABD", dice_east="D") == "D"
    with pytest.raises(SeatingError, match="one of the seats"):
        east_of_game(4, "ABC", dice_east="D")


# --- MahjCon points (003) ------------------------------------------------------------------------------------

def pts(result, letters=FULL):
    return game_points(MAHJCON, result, letters)


def test_win_on_discard_scores_the_hand_value_only():
    assert pts(GameResult("mahjong", winner="B", value=25, discarder="C")) == {"A": 0, "B": 25, "C": 0, "D": 0}


def test_self_pick_adds_ten_and_jokerless_adds_twenty():
    assert pts(GameResult("mahjong", winner="A", value=30, self_picked=True))["A"] == 40
    assert pts(GameResult("mahjong", winner="A", value=30, self_picked=True, jokerless=True))["A"] == 60
    assert pts(GameResult("mahjong", winner="A", value=30, discarder="B", jokerless=True))["A"] == 50


def test_no_jokerless_bonus_for_singles_and_pairs():
    r = GameResult("mahjong", winner="D", value=50, discarder="A", jokerless=True, singles_and_pairs=True)
    assert pts(r)["D"] == 50


@pytest.mark.parametrize(("exposures", "quint", "penalty"), [(0, False, 0), (1, False, 0), (2, False, -20),
                                                             (2, True, -25), (3, False, -25), (4, False, -25)])
def test_discarding_the_winning_tile_to_exposed_hands(exposures, quint, penalty):
    r = GameResult("mahjong", winner="A", value=25, discarder="C", exposures=exposures, quint_exposed=quint)
    assert pts(r) == {"A": 25, "B": 0, "C": penalty, "D": 0}


def test_misnamed_discard_costs_twenty_five_and_the_winner_scores_the_hand():
    r = GameResult("mahjong", winner="B", value=35, discarder="D", misnamed=True)
    assert pts(r) == {"A": 0, "B": 35, "C": 0, "D": -25}


def test_wall_game_ten_each_except_dead_and_mahjong_in_error():
    assert pts(GameResult("wall_game")) == dict.fromkeys(FULL, 10)
    assert pts(GameResult("wall_game", dead=("B",), in_error=("D",))) == {"A": 10, "B": 0, "C": 10, "D": 0}


def test_game_not_finished_in_time_scores_zero_but_penalties_stand():
    assert pts(GameResult("time")) == dict.fromkeys(FULL, 0)
    assert pts(GameResult("time", penalties=(("C", "blind_pass_peek"),))) == {"A": 0, "B": 0, "C": -10, "D": 0}


def test_mahjong_in_error_survivor_and_all_out():
    r = GameResult("last_survivor", in_error=("A",), dead=("B", "C"), survivor="D")
    assert pts(r) == {"A": 0, "B": 0, "C": 0, "D": 10}
    assert pts(GameResult("all_out", in_error=("A",), dead=("B", "C", "D"))) == dict.fromkeys(FULL, 0)


def test_dead_hand_scores_zero_while_the_game_goes_on():
    r = GameResult("mahjong", winner="C", value=25, self_picked=True, dead=("A",))
    assert pts(r) == {"A": 0, "B": 0, "C": 35, "D": 0}


def test_three_player_table_scores_its_three_seats():
    assert pts(GameResult("wall_game"), "ABC") == {"A": 10, "B": 10, "C": 10}
    with pytest.raises(ResultError, match="not a seat at this table"):
        pts(GameResult("mahjong", winner="D", value=25, self_picked=True), "ABC")


@pytest.mark.parametrize(("result", "message"), [
    (GameResult("mahjong", value=25, self_picked=True), "winner: say which seat"),
    (GameResult("mahjong", winner="A", value=0, self_picked=True), "positive value"),
    (GameResult("mahjong", winner="A", value=25), "discarder: say which seat"),
    (GameResult("mahjong", winner="A", value=25, discarder="A"), "another player"),
    (GameResult("mahjong", winner="A", value=25, self_picked=True, discarder="B"), "no discarder"),
    (GameResult("mahjong", winner="A", value=25, discarder="B", dead=("B",)), "another player"),
    (GameResult("mahjong", winner="A", value=25, self_picked=True, in_error=("A",)), "cannot win"),
    (GameResult("wall_game", winner="A"), "has no winner"),
    (GameResult("draw"), "outcome must be one of"),
    (GameResult("last_survivor"), "survivor: say which seat"),
    (GameResult("time", penalties=(("A", "discard_to_two_exposures"),)), "follow from the win"),
])
def test_impossible_results_are_refused(result, message):
    with pytest.raises(ResultError, match=message):
        pts(result)


def test_a_payments_profile_is_refused():
    with pytest.raises(ResultError, match="points profile"):
        game_points(NMJL, GameResult("wall_game"), FULL)


def test_standings_order_and_shared_places():
    names = {"A": "ann", "B": "bea", "C": "cy", "D": "dot"}
    games = [ScoredGame(names, {"A": 25, "B": 0, "C": -20, "D": 0}, "A", {"C": -20}),
             ScoredGame(names, {"A": 0, "B": 25, "C": 0, "D": 0}, "B"),
             ScoredGame(names, {"A": 10, "B": 10, "C": 10, "D": 10})]
    rows = standings(["ann", "bea", "cy", "dot", "eve"], games)
    assert [(r.place, r.name, r.points, r.games, r.wins) for r in rows] == [
        (1, "ann", 35, 3, 1), (1, "bea", 35, 3, 1), (3, "dot", 10, 3, 0), (4, "eve", 0, 0, 0), (5, "cy", -10, 3, 0)]
