"""The tournament database on SQLite and PostgreSQL: creation, migrations, idempotent reports, disputes,
corrections, tokens, rounds and standings."""

import json
import threading
from dataclasses import asdict

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select
from tournament_kit import BACKENDS, NAMES, PG_ENV, database_url, new_tournament, wall, win

from assistant.tournament import db
from assistant.tournament.hands import canonical, result_of, stored_body
from assistant.tournament.reports import correct, resolve, submit, table_status
from assistant.tournament.rounds import close_round
from assistant.tournament.store import Role, Store, TournamentError
from engine.tournament import GameResult

DIRECTOR = Role("director")
HAND = {"concealed": "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B 8B"}


@pytest.fixture(params=BACKENDS)
def url(request, tmp_path):
    return database_url(request.param, tmp_path, request)


@pytest.fixture
def made(url):
    store, tokens = new_tournament(url)
    yield store, tokens
    store.close()


def _count(store, table):
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_migrations_make_the_schema_the_code_uses(made):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    store, _ = made
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
    assert diff == []
    db.upgrade(store.engine)  # again: nothing to do, nothing lost
    assert _count(store, db.players) == len(NAMES)


def test_new_seats_round_one_and_refuses_a_second_tournament(made, url):
    store, tokens = made
    seating = store.seating(1)
    assert sorted(len(s) for s in seating.values()) == [3, 4, 4]
    assert sorted(n for s in seating.values() for n in s.values()) == sorted(NAMES)
    assert set(tokens) == {"director", "1", "2", "3"}
    assert store.role_of(tokens["2"]) == Role("table", 2) and store.role_of(tokens["director"]) == DIRECTOR
    with pytest.raises(TournamentError, match="already holds the tournament 'Spring Open'"):
        new_tournament(url)
    assert _count(store, db.players) == len(NAMES)


def test_a_resend_counts_once_and_an_equal_report_agrees(made):
    store, tokens = made
    body = win(1, 1, client="phone-1")
    first = submit(store, tokens["1"], body)
    assert first["status"] == "counted" and first["points"] == {"A": 25, "B": 0, "C": 0, "D": 0}
    again = submit(store, tokens["1"], body)
    assert again["status"] == "duplicate" and again["report"] == first["report"]
    other = submit(store, tokens["1"], win(1, 1, client="camera-1", source="camera"))
    assert other["status"] == "agrees"
    assert _count(store, db.results) == 1
    assert [s.points for s in store.standings() if s.points] == [25]


def test_a_different_report_is_a_dispute_never_an_overwrite(made):
    store, tokens = made
    submit(store, tokens["2"], win(2, 1))
    out = submit(store, tokens["2"], wall(2, 1))
    assert out["status"] == "disputed"
    before = [(s.name, s.points) for s in store.standings()]
    assert dict(before)[store.seating(1)[2]["A"]] == 25  # the first result still counts
    with pytest.raises(TournamentError, match="open dispute"):
        close_round(store, force=True)
    with pytest.raises(TournamentError, match="who makes it and why"):
        resolve(store, 1, keep=False, who="", why="")
    assert resolve(store, 1, keep=False, who="Judy (TD)", why="the table agreed it was a wall game") == {
        "dispute": 1, "resolution": "replaced"}
    points = {s.name: s.points for s in store.standings()}
    assert all(points[n] == 10 for n in store.seating(1)[2].values())
    with pytest.raises(TournamentError, match="already resolved"):
        resolve(store, 1, keep=True, who="Judy", why="again")
    with store.engine.connect() as conn:
        log = conn.execute(select(db.corrections)).mappings().all()
    assert [(c["who"], c["why"]) for c in log] == [("Judy (TD)", "the table agreed it was a wall game")]


def test_same_client_id_with_another_result_is_refused(made):
    store, tokens = made
    submit(store, tokens["1"], win(1, 2, client="x"))
    with pytest.raises(TournamentError, match="needs a new client_id") as exc:
        submit(store, tokens["1"], wall(1, 2, client="x"))
    assert exc.value.status == 409 and _count(store, db.reports) == 1


@pytest.mark.parametrize(("body", "sender", "message", "status"), [
    (win(9, 1), "director", "tables 1..3", 404),
    (win(1, 1, round_no=2), "director", "round 2 has not started", 409),
    (win(1, 1, round_no=7), "director", "rounds 1..3", 404),
    (win(1, 5), "director", "games 1..4", 404),
    (win(1, 1), "2", "cannot report for table 1", 403),
    (win(1, 1, source="director"), "1", "only the director's token", 403),
    (win(1, 1), "unknown", "not one of this tournament's", 403),
    (win(1, 1, winner="Q"), "unknown", "not one of this tournament's", 403),  # a bad report from nobody: 403
    (win(1, 1, winner="Q"), "2", "cannot report for table 1", 403),  # nor from another table's token
    (win(1, 1), "none", "a token is needed", 403),
    (win(1, 1, hand={"concealed": "F F 2B 2B 2B 2B 4B 4B 6B 6B 8B 8B 8B 9B"}, line=None), "director",
     "not Mah Jongg on the card", 422),
    (win(1, 1, line={"section": "2468", "number": 99}), "director", "no line 2468 #99", 422),
    (win(1, 1, winner="Q"), "director", "seat letter A-D", 400),
    (win(1, 1, discarder="A"), "director", "another player", 422),
    (win(1, 1, client_id=""), "director", "client_id", 400),
    (win(1, 1, source="camera", penalties=[{"seat": "B", "kind": "nap"}]), "director", "not one to report", 422),
])
def test_bad_reports_change_nothing(made, body, sender, message, status):
    store, tokens = made
    with pytest.raises(TournamentError, match=message) as exc:
        submit(store, tokens.get(sender, {"unknown": "not-a-token", "none": ""}.get(sender)), body)
    assert exc.value.status == status
    assert _count(store, db.reports) == 0 and _count(store, db.results) == 0


def test_a_hand_given_as_tiles_is_verified_and_scored_from_the_card(made):
    store, tokens = made
    out = submit(store, tokens["director"], win(3, 1, hand=HAND, line=None, self_picked=True, discarder=None))
    assert out["points"]["A"] == 25 + 10 + 20  # the card says jokerless; self-picked
    with store.engine.connect() as conn:
        body = json.loads(conn.execute(select(db.reports.c.body)).scalar_one())
    assert body["line"] == {"section": "2468", "number": 2} and len(body["tiles"]["concealed"]) == 14


def test_tokens_stale_after_renewal(made):
    store, tokens = made
    fresh = store.renew_token(2)
    assert store.role_of(fresh) == Role("table", 2)
    with pytest.raises(TournamentError, match="stale token: table 2's token was replaced"):
        store.role_of(tokens["2"])
    with pytest.raises(TournamentError, match="stale token") as exc:
        submit(store, tokens["2"], win(2, 1))
    assert exc.value.status == 403 and _count(store, db.reports) == 0
    assert submit(store, fresh, win(2, 1))["status"] == "counted"
    with pytest.raises(TournamentError, match="not one of this tournament's"):
        store.role_of("guess")
    assert store.role_of(tokens["1"]) == Role("table", 1)


def test_round_next_needs_every_game_or_force_and_rotates(made):
    store, tokens = made
    for g in range(1, 5):
        submit(store, tokens["director"], wall(1, g))
    with pytest.raises(TournamentError, match="lacks 8 game"):
        close_round(store)
    assert store.current_round() == 1
    assert close_round(store, force=True, who="Judy").round == 2
    status = table_status(store, 1)
    assert all(t["complete"] for t in status)
    one, two = store.seating(1), store.seating(2)
    where1 = {n: (t, x) for t, s in one.items() for x, n in s.items()}
    where2 = {n: (t, x) for t, s in two.items() for x, n in s.items()}
    step = {"A": 0, "B": 1, "C": 2, "D": -1}
    assert all(where2[n] == ((t - 1 + step[x]) % 3 + 1, x) for n, (t, x) in where1.items())
    points = {s.name: s.points for s in store.standings()}
    assert all(points[n] == 40 for n in one[1].values())  # four wall games at table 1; the rest scored zero


def test_director_correction_replaces_with_who_when_why(made):
    store, tokens = made
    submit(store, tokens["3"], win(3, 2))
    out = correct(store, wall(3, 2, client="td-1"), who="Judy", why="scorer picked the wrong winner")
    assert out["status"] == "corrected"
    pts = {s.name: s.points for s in store.standings()}
    assert {pts[n] for n in store.seating(1)[3].values()} == {10}


def _race(store, token, bodies):
    """Send each body from a thread of its own, all at once; (body, acknowledgement) pairs, none failed."""
    outs, errors = [], []

    def send(body):
        try:
            outs.append((body, submit(store, token, body)))
        except Exception as exc:  # noqa: BLE001 - the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(body,)) for body in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return outs


def test_concurrent_reports_for_one_game_count_once(made):
    """Eight senders race the same game: one counts, equal ones agree, none is lost or counted twice."""
    store, tokens = made
    outs = _race(store, tokens["director"], [win(1, 3, client=f"c{i}") for i in range(8)])
    assert sorted(ack["status"] for _, ack in outs) == ["agrees"] * 7 + ["counted"]
    assert _count(store, db.results) == 1 and _count(store, db.reports) == 8


def test_concurrent_different_reports_for_one_game_count_one_and_dispute_the_others(made):
    """Eight senders race one game with two different results: exactly one counts, every report equal to it
    agrees and every other is a dispute, whichever sender wins the race."""
    store, tokens = made
    bodies = [win(2, 4, client=f"c{i}") if i % 2 else wall(2, 4, client=f"c{i}") for i in range(8)]
    outs = [(body["outcome"], ack["status"]) for body, ack in _race(store, tokens["director"], bodies)]
    [winner] = [outcome for outcome, status in outs if status == "counted"]
    assert sorted(status for outcome, status in outs if outcome == winner) == ["agrees"] * 3 + ["counted"]
    assert [status for outcome, status in outs if outcome != winner] == ["disputed"] * 4
    assert _count(store, db.results) == 1 and _count(store, db.disputes) == 4


def test_open_without_a_tournament_says_how_to_make_one_and_makes_nothing(url, tmp_path):
    with pytest.raises(TournamentError, match="mahj tournament new"):
        Store.open(url)
    if url.startswith("sqlite"):
        assert not (tmp_path / "tournament.db").exists()
    else:
        from sqlalchemy import create_engine, inspect

        engine = create_engine(url)
        assert inspect(engine).get_table_names() == []
        engine.dispose()


def test_postgres_cases_skip_without_a_server_but_fail_under_ci(monkeypatch, tmp_path, request):
    monkeypatch.delenv(PG_ENV, raising=False)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the PostgreSQL cases"):
        database_url("postgresql", tmp_path, request)
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match=PG_ENV):
        database_url("postgresql", tmp_path, request)


SEAT = st.sampled_from("ABCD")
SEATS = st.lists(SEAT, max_size=2).map(tuple)


@given(st.builds(GameResult, outcome=st.sampled_from(["mahjong", "wall_game", "time", "last_survivor"]),
                 winner=st.none() | SEAT, value=st.integers(0, 100), self_picked=st.booleans(),
                 discarder=st.none() | SEAT, jokerless=st.booleans(), singles_and_pairs=st.booleans(),
                 exposures=st.integers(0, 4), quint_exposed=st.booleans(), misnamed=st.booleans(), dead=SEATS,
                 in_error=SEATS, survivor=st.none() | SEAT,
                 penalties=st.lists(st.tuples(SEAT, st.text(max_size=5)), max_size=2).map(tuple)))
def test_what_is_kept_of_a_result_is_every_field_as_asdict_gives_it(result):
    """Reports already stored were compared by the JSON of dataclasses.asdict: the faster copy must match it."""
    assert canonical(result) == json.dumps(asdict(result), sort_keys=True, separators=(",", ":"))
    assert result_of(stored_body(result, {"east": "A"})) == result


def test_a_table_token_reports_only_the_round_in_play(made):
    """Once its round is closed a table's token may resend what was taken (answered as before) but reports and
    disputes nothing new; the director's token still may. Closing the last round ends the tournament."""
    store, tokens = made
    taken = submit(store, tokens["1"], wall(1, 1, client="phone-1-1"))
    assert close_round(store, force=True).round == 2
    assert submit(store, tokens["1"], wall(1, 1, client="phone-1-1"))["status"] == "duplicate"
    for late in (win(1, 1), wall(1, 2)):  # a dispute of a counted game, a game the close scored unfinished
        with pytest.raises(TournamentError, match=r"round 1 is closed \(the current round is 2\)") as exc:
            submit(store, tokens["1"], late)
        assert exc.value.status == 409 and "the director corrects" in str(exc.value)
    assert _count(store, db.disputes) == 0
    assert submit(store, tokens["director"], win(1, 1))["status"] == "disputed"  # the director still may
    assert submit(store, tokens["1"], wall(1, 1, round_no=2))["status"] == "counted"
    resolve(store, 1, keep=True, who="TD", why="the sheet says wall")
    assert close_round(store, force=True).round == 3
    closed = close_round(store, force=True)
    assert (closed.closed, closed.round, closed.finished) == (3, 3, True) and store.finished()
    with pytest.raises(TournamentError, match=r"round 3 is closed \(the tournament is over\)"):
        submit(store, tokens["2"], wall(2, 1, round_no=3))
    with pytest.raises(TournamentError, match="the tournament is over"):
        close_round(store, force=True)
    assert taken["status"] == "counted"
