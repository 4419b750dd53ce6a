"""Races a real `mahj tournament serve --workers 2` must settle, on SQLite and PostgreSQL (.ci/run starts the
PostgreSQL these run on): two director stations deciding one dispute at once, and a forced round close while
every table posts. Every request goes out at the same moment from threads of its own, each on a connection
opened beforehand."""

import http.client
import json
import threading

import pytest
from sqlalchemy import select
from tournament_kit import BACKENDS, Server, database_url, new_tournament, wall, win

from assistant.tournament import db
from assistant.tournament.reports import corrections_log, submit
from assistant.tournament.store import Store


@pytest.fixture(params=BACKENDS)
def url(request, tmp_path):
    return database_url(request.param, tmp_path, request)


def _at_once(port: int, token: str | list[str], posts: list[tuple[str, dict]]) -> list[tuple[int, dict]]:
    """Each (path, body) posted from a thread of its own (with ``token``, or the token of the same place in the
    list), all released together; the answers in order."""
    tokens = token if isinstance(token, list) else [token] * len(posts)
    # Each from an address of its own, as each table's phone is (one address may hold only so many connections).
    conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(f"127.0.3.{i + 1}", 0))
             for i in range(len(posts))]
    for c in conns:
        c.connect()
    gate = threading.Barrier(len(posts))
    answers: list = [None] * len(posts)

    def post(i: int) -> None:
        path, body = posts[i]
        data = json.dumps(body).encode()
        gate.wait()
        conns[i].request("POST", path, data, {"Authorization": f"Bearer {tokens[i]}",
                                              "Content-Type": "application/json"})
        res = conns[i].getresponse()
        text = res.read()
        try:
            answers[i] = (res.status, json.loads(text))
        except ValueError:
            answers[i] = (res.status, {"error": text.decode(errors="replace")})

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(posts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for c in conns:
        c.close()
    return answers


def test_a_dispute_decided_from_two_stations_at_once_is_decided_once(url):
    store, tokens = new_tournament(url, tables=6, rounds=1, games=4, names=[f"P{i}" for i in range(24)])
    for t in range(1, 7):
        for g in range(1, 5):
            submit(store, tokens[str(t)], win(t, g))
            assert submit(store, tokens[str(t)], wall(t, g))["status"] == "disputed"
    store.close()
    server = Server(url, "--workers", "2").start()
    try:
        decided = {}
        for dispute in range(1, 25):
            keep, replace = _at_once(server.port, tokens["director"], [
                (f"/api/disputes/{dispute}", {"keep": True, "who": "station 1", "why": "the table agreed"}),
                (f"/api/disputes/{dispute}", {"keep": False, "who": "station 2", "why": "the sheet says wall"})])
            assert sorted([keep[0], replace[0]]) == [200, 409], (dispute, keep, replace)
            lost = keep if keep[0] == 409 else replace
            assert "already resolved" in lost[1]["error"]
            decided[dispute] = (keep if keep[0] == 200 else replace)[1]["resolution"]
    finally:
        server.stop()
    store = Store.open(url)
    try:
        log = corrections_log(store)
        assert len(log) == 24  # one entry per dispute, by the station whose decision was taken
        with store.engine.connect() as conn:
            rows = conn.execute(select(db.disputes.c.id, db.disputes.c.resolution, db.disputes.c.report_id,
                                       db.results.c.report_id.label("counted"))
                                .join(db.results, (db.results.c.round == db.disputes.c.round)
                                      & (db.results.c.table_no == db.disputes.c.table_no)
                                      & (db.results.c.game == db.disputes.c.game))).all()
        for d, resolution, disputing, counted in rows:
            assert resolution == decided[d]
            assert (counted == disputing) == (resolution == "replaced")
    finally:
        store.close()


def test_a_forced_close_never_supersedes_an_acknowledged_result(url):
    """40 tables post their game while the director forces the round closed, three times (the last close ends
    the tournament): every table told "counted" stays counted; every other table was told its round is
    closed."""
    tables = 40
    store, tokens = new_tournament(url, tables=tables, rounds=3, games=1, names=[f"P{i:03d}" for i in range(160)])
    store.close()
    server = Server(url, "--workers", "2").start()
    acked: dict[tuple[int, int], int] = {}
    refused = 0
    try:
        for round_no in (1, 2, 3):
            posts = [("/api/reports", wall(t, 1, round_no=round_no)) for t in range(1, tables + 1)]
            posts.append(("/api/round", {"force": True, "who": "TD"}))
            answers = _at_once(server.port, [tokens[str(t)] for t in range(1, tables + 1)] + [tokens["director"]],
                               posts)
            assert answers[-1][0] == 200 and answers[-1][1]["closed"] == round_no, answers[-1]
            for t, (status, out) in enumerate(answers[:-1], start=1):
                if status == 200:
                    assert out["status"] == "counted", out
                    acked[round_no, t] = out["report"]
                else:
                    assert status == 409 and f"round {round_no} is closed" in out["error"], out
                    refused += 1
            assert answers[-1][1]["unfinished"] == tables - sum(1 for r, _ in acked if r == round_no)
    finally:
        server.stop()
    store = Store.open(url)
    try:
        with store.engine.connect() as conn:
            counted = {(r, t): rid for r, t, rid in conn.execute(
                select(db.results.c.round, db.results.c.table_no, db.results.c.report_id))}
            superseded = conn.execute(select(db.reports.c.id).where(db.reports.c.status == "superseded")).all()
        assert len(counted) == 3 * tables  # every game has one result: the table's, or not finished in time
        assert {k: counted[k] for k in acked} == acked, "an acknowledged result was replaced by the close"
        assert superseded == []
        assert store.finished()
    finally:
        store.close()
    print(f"{len(acked)} counted, {refused} refused as closed")
