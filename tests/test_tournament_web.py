"""The report API of a real `mahj tournament serve` process over HTTP, on SQLite and PostgreSQL: tokens, LAN
rules, idempotent reports, disputes, and nothing acknowledged lost when the server is killed."""

import json
import os
import urllib.error
import urllib.request

import pytest
from tournament_kit import BACKENDS, Server, database_url, new_tournament, wall, win

NAMES = [f"P{i}" for i in range(24)]


@pytest.fixture(scope="module", params=BACKENDS)
def served(request, tmp_path_factory):
    """One server per backend for the module; each test reports on tables of its own."""
    url = database_url(request.param, tmp_path_factory.mktemp("web"), request)
    store, tokens = new_tournament(url, tables=6, rounds=2, names=NAMES)
    store.close()
    server = Server(url).start()
    yield server, tokens
    server.stop()


def games_counted(server):
    return sum(p["games"] for p in call(server, "/api/standings")[1]["standings"])


def call(server, path, body=None, token=None, host=None, method=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(server.base + path, data=data, method=method or ("POST" if data else "GET"))
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_reports_need_the_right_token(served):
    server, tokens = served
    assert call(server, "/api/reports", win(1, 1))[0] == 403
    status, out = call(server, "/api/reports", win(1, 1), token="not-a-token")
    assert status == 403 and "not one of this tournament's" in out["error"]
    status, out = call(server, "/api/reports", win(1, 1), token=tokens["2"])
    assert status == 403 and "cannot report for table 1" in out["error"]
    assert call(server, "/api/reports", win(1, 1), token=tokens["1"])[1]["status"] == "counted"
    assert call(server, "/api/reports", win(2, 1), token=tokens["director"])[1]["status"] == "counted"
    status, out = call(server, "/api/round", {"force": True}, token=tokens["1"])
    assert status == 403 and "director" in out["error"]


def test_lan_rules_like_the_display(served):
    server, tokens = served
    status, out = call(server, "/api/standings", host="rebind.example.com")
    assert status == 403 and "Host header" in out["error"]
    assert call(server, "/api/standings")[0] == 200  # reading is open to this computer
    assert call(server, "/api/director")[0] == 200
    assert call(server, f"/api/director?token={tokens['1']}")[0] == 403  # a table token is not the director's


def test_resend_dispute_and_resolution_over_http(served):
    server, tokens = served
    body = win(3, 2, client="phone-3-2")
    first = call(server, "/api/reports", body, token=tokens["3"])[1]
    again = call(server, "/api/reports", body, token=tokens["3"])[1]
    assert (first["status"], again["status"], again["report"]) == ("counted", "duplicate", first["report"])
    assert call(server, "/api/reports", wall(3, 2), token=tokens["3"])[1]["status"] == "disputed"
    queue = call(server, "/api/director", token=tokens["director"])[1]["disputes"]
    assert len(queue) == 1 and queue[0]["counted"]["outcome"] == "mahjong"
    assert queue[0]["reported"]["outcome"] == "wall_game"
    status, out = call(server, f"/api/disputes/{queue[0]['id']}", {"keep": True, "who": "TD", "why": "scorer "
                                                                   "slip"}, token=tokens["director"])
    assert status == 200 and out["resolution"] == "kept"
    view = call(server, "/api/director", token=tokens["director"])[1]
    assert view["disputes"] == [] and view["corrections"][0]["who"] == "TD"


def test_bad_reports_are_answered_and_change_nothing(served):
    server, tokens = served
    before = games_counted(server)
    for body, status, message in [(win(1, 4, round_no=2), 409, "round 2 has not started"),
                                  (win(7, 1), 404, "tables 1..6"),
                                  (win(1, 4, hand={"concealed": "1B 2B"}, line=None), 422, "not Mah Jongg"),
                                  ({"round": 1}, 400, "table")]:
        got, out = call(server, "/api/reports", body, token=tokens["director"])
        assert got == status and message in out["error"], out
    assert games_counted(server) == before


def test_bad_json_body(served):
    server, tokens = served
    req = urllib.request.Request(server.base + "/api/reports", data=b"{nope", method="POST",
                                 headers={"Authorization": f"Bearer {tokens['1']}"})
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(req, timeout=10)
    assert exc.value.code == 400 and "must be JSON" in json.loads(exc.value.read())["error"]


def test_nothing_acknowledged_is_lost_when_the_server_is_killed(served):
    server, tokens = served
    before = games_counted(server)
    acked = [call(server, "/api/reports", wall(t, g), token=tokens[str(t)])[1] for t in (4, 5, 6) for g in (1, 2)]
    assert all(a["status"] == "counted" for a in acked)
    server.kill()
    server.start()
    assert games_counted(server) == before + 6 * 4
    assert call(server, "/api/reports", wall(4, 1, client=acked[0]["client_id"]),
                token=tokens["4"])[1]["status"] == "duplicate"


def test_a_database_failure_is_answered_503_and_saves_nothing(tmp_path):
    """In-process (no server needed): the reports table vanishes behind the app's back."""
    import asyncio

    import httpx
    from sqlalchemy import text

    from assistant.tournament.web import create_app

    store, tokens = new_tournament(f"sqlite:///{tmp_path / 't.db'}")
    with store.engine.begin() as conn:
        conn.execute(text("ALTER TABLE reports RENAME TO reports_gone"))

    async def send():
        transport = httpx.ASGITransport(app=create_app(store))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.post("/api/reports", json=wall(1, 1),
                                     headers={"Authorization": f"Bearer {tokens['1']}"})

    res = asyncio.run(send())
    assert res.status_code == 503 and "nothing was saved" in res.json()["error"]
    store.close()


def test_a_phone_on_the_lan_gets_the_page_and_then_its_scripts_by_the_page_cookie(tmp_path):
    """From another machine, only the page's address carries the token; its scripts and style come by the cookie
    the page set (the display's own cookie has another name)."""
    import asyncio

    import httpx

    from assistant.tournament.web import create_app

    store, tokens = new_tournament(f"sqlite:///{tmp_path / 't.db'}")

    async def visit():
        transport = httpx.ASGITransport(app=create_app(store), client=("192.168.1.50", 50123))
        async with httpx.AsyncClient(transport=transport, base_url="http://192.168.1.10:8770") as phone:
            bare = await phone.get("/static/scorer.js")
            page = await phone.get(f"/table/2?token={tokens['2']}")
            return bare.status_code, page.status_code, [(await phone.get(f"/static/{n}")).status_code
                                                       for n in ("scorer.js", "common.js", "tournament.css")]

    bare, page, assets = asyncio.run(visit())
    assert bare == 403                      # nothing without a token from another machine
    assert page == 200 and assets == [200, 200, 200]
    store.close()


def _children(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


def _gone(pid, within=5.0):
    import time

    end = time.monotonic() + within
    while True:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.05)


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"),
                    reason="needs Linux's /proc children lists")
def test_workers_serve_the_same_port_and_never_outlive_the_server(tmp_path):
    """--workers 3: two more processes, and they answer on the server's port (shown with the first one
    stopped); they stop with it, and stop by themselves when it is killed alone, so it can start again."""
    import signal

    url = f"sqlite:///{tmp_path / 'w.db'}"
    store, tokens = new_tournament(url, tables=6, rounds=2, names=NAMES)
    store.close()
    server = Server(url, "--workers", "3").start()
    workers = _children(server.proc.pid)
    assert len(workers) == 2
    os.kill(server.proc.pid, signal.SIGSTOP)  # only the workers can answer now
    try:
        assert call(server, "/api/reports", wall(1, 1), token=tokens["1"])[1]["status"] == "counted"
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
    os.kill(server.proc.pid, signal.SIGKILL)  # the server alone, as a crash would
    server.proc.wait(timeout=10)
    assert all(_gone(w) for w in workers)
    server.start()  # same port, workers again
    assert games_counted(server) == 4
    workers = _children(server.proc.pid)
    server.stop()
    assert len(workers) == 2 and all(_gone(w, within=0) for w in workers) and server.proc.returncode == 0
