"""The display's state folding and its HTTP rules (token, LAN, corrections), against the real server."""

import json
import urllib.error
import urllib.request

import pytest

from assistant.display import DisplayServer, TableView, check_correction


def _r(kind, seat=None, **data):
    return {"kind": kind, "t": 0.0, "seat": seat, "data": data}


def test_table_view_folds_a_hand():
    v = TableView(("Ada", "Bob", "Cy", ""))
    assert v.apply(_r("window_opened", 1, tile="3B", named="3B"))
    assert v.snapshot()["discard"]["name"] == "Three Bam" and v.snapshot()["window"]["state"] == "open"
    assert "Bob discards Three Bam" in v.snapshot()["announce"]
    v.apply(_r("claim_pending", 2, purpose="exposure"))
    assert v.window == "claim"
    v.apply(_r("exposure_accepted", 2, tiles=["3B", "3B", "J"]))
    v.apply(_r("dead_hand", 0, reason="no card line left"))
    v.apply(_r("mahjong_verified", 2, value=30, jokerless=False, self_picked=False,
               lines=[{"section": "2468", "number": 1, "text": "222 4444 666 8888", "value": 25}]))
    v.apply(_r("settlement", payments={"0": -30, "1": -60, "2": 90}, balances={"0": -30, "1": -60, "2": 90}))
    s = v.snapshot()
    assert s["seats"][2]["exposures"][0][2]["name"] == "Joker"
    assert s["seats"][0]["dead"] and not s["seats"][3]["in_play"]
    assert s["mahjong"]["lines"] == ["2468 #1: 222 4444 666 8888 (25)"]
    assert s["payments"] == {"Ada": -30, "Bob": -60, "Cy": 90}
    assert not v.apply(_r("no_such_ruling"))
    v.apply(_r("dealt", 1, east=1, game=2))  # the next game starts clean, balances stay
    s = v.snapshot()
    assert s["mahjong"] is None and not s["seats"][2]["exposures"] and not s["seats"][0]["dead"]
    assert s["balances"] == {"Ada": -30, "Bob": -60, "Cy": 90} and s["status"] == "Game 2: Bob is East"


def _floor(view):
    return {f["tile"]: f["count"] for f in view.snapshot()["floor"]}


def test_the_floor_counts_discards_in_card_order_and_follows_calls():
    v = TableView()
    for seat, tile in [(0, "WD"), (1, "3B"), (2, "1C"), (3, "3B")]:
        v.apply(_r("window_opened", seat, tile=tile, named=tile))
    assert [(f["tile"], f["name"], f["count"]) for f in v.snapshot()["floor"]] == [
        ("3B", "Three Bam", 2), ("1C", "One Crak", 1), ("WD", "Soap", 1)]
    v.apply(_r("claim_awarded", 0, tile="3B", purpose="exposure"))  # the live 3B leaves the floor
    assert _floor(v) == {"3B": 1, "1C": 1, "WD": 1} and v.snapshot()["floor_total"] == 3
    v.apply(_r("window_opened", 3, tile="3B", named="3B", reopened=True))  # the claim was withdrawn
    assert _floor(v)["3B"] == 2
    v.apply(_r("window_opened", 1, tile="J", named="5D"))
    v.apply(_r("claim_awarded", 2, tile="5D", purpose="mahjong"))  # called as named: the joker leaves the floor
    assert "J" not in _floor(v) and "5D" not in _floor(v)
    v.sync({"stage": "play", "seats": [{"discards": ["N"]}, {"discards": ["N", "F"]}, {}, {}]})
    assert _floor(v) == {"F": 1, "N": 2}
    v.apply(_r("dealt", 1, east=1, game=2))
    assert v.snapshot()["floor"] == [] and v.snapshot()["floor_total"] == 0


def test_the_declared_hand_is_shown_with_the_verification():
    v = TableView(("Ada", "Bob", "Cy", "Di"))
    v.apply(_r("exposure_accepted", 2, tiles=["8B", "8B", "8B", "J"]))
    v.declare(2, ["F", "F", "2D", "2D", "2D", "2D", "4D", "4D", "6D", "6D"])  # the concealed part alone
    v.apply(_r("mahjong_verified", 2, value=25, jokerless=False, self_picked=False, lines=[]))
    hand = v.snapshot()["mahjong"]["hand"]
    assert [[t["tile"] for t in g] for g in hand] == [["8B", "8B", "8B", "J"],
                                                      ["F", "F", "2D", "2D", "2D", "2D", "4D", "4D", "6D", "6D"]]
    assert hand[1][2]["name"] == "Two Dot"
    whole = ["F", "F", "2D", "2D", "2D", "2D", "4D", "4D", "6D", "6D", "8B", "8B", "8B", "J"]
    v.declare(2, whole)  # a hand laid down whole, its exposure among it: one group, nothing twice
    v.apply(_r("mahjong_in_error", 2, reason="no line on the card matches this hand"))
    assert [[t["tile"] for t in g] for g in v.snapshot()["mahjong"]["hand"]] == [whole]
    v.sync({"stage": "play", "seats": []})  # a correction took the declaration back
    assert v.snapshot()["mahjong"] is None


@pytest.mark.parametrize("body, ok", [
    ({"action": "undo"}, True), ({"action": "fix_tile", "tile": "three bam"}, True),
    ({"action": "claim", "seat": 3, "purpose": "mahjong"}, True), ({"action": "fix_tile", "tile": "10B"}, False),
    ({"action": "claim", "seat": 4}, False), ({"action": "claim", "seat": True}, False), ({"action": "x"}, False),
    ([], False),
])
def test_corrections_are_checked(body, ok):
    if ok:
        assert check_correction(body)["action"] == body["action"]
    else:
        with pytest.raises(ValueError):
            check_correction(body)


def _call(url, body=None, token=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"}
                                 | ({"Authorization": f"Bearer {token}"} if token else {}))
    try:
        with urllib.request.urlopen(req, timeout=5) as res:
            return res.status, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def test_server_reads_openly_on_loopback_but_corrections_need_the_token():
    got = []
    srv = DisplayServer(port=0, token="table-secret-1", on_correction=lambda c: got.append(c) or {"message": "ok"})
    srv.start()
    try:
        base = f"http://127.0.0.1:{srv.port}"
        assert srv.url.endswith("?token=table-secret-1")
        assert _call(base + "/api/state")[0] == 200
        assert _call(base + "/api/correction", {"action": "undo"})[0] == 403
        assert _call(base + "/api/correction", {"action": "undo"}, token="wrong-token")[0] == 403
        assert _call(base + "/api/correction", {"action": "fix_tile", "tile": "zz"}, token="table-secret-1")[0] == 400
        assert _call(base + "/api/correction", {"action": "fix_tile", "tile": "soap"}, token="table-secret-1") \
            == (200, {"message": "ok"})
        assert got == [{"action": "fix_tile", "tile": "WD"}]
    finally:
        srv.stop()


def test_a_token_is_made_up_when_none_is_configured():
    a, b = DisplayServer(port=0), DisplayServer(port=0)
    assert len(a.token) >= 12 and a.token != b.token


def test_display_command_serves_a_journal(tmp_path):
    """`mahj display --journal` folds the journaled rulings into the page state."""
    pytest.importorskip("assistant.journal")
    from assistant.commands.display import fold

    records = [{"kind": "event", "event": {"type": "discard"}},
               {"kind": "rulings", "rulings": [_r("window_opened", 3, tile="WD"), _r("turn", 0)]},
               {"kind": "notice", "notice": _r("help", None, message="camera bumped")}]
    v = TableView()
    assert fold(v, records) == 3
    s = v.snapshot()
    assert s["discard"]["name"] == "Soap" and s["turn"] == 0 and s["help"] == "camera bumped"
    hand = ["F", "F", "2D", "2D", "2D", "2D", "4D", "4D", "6D", "6D", "8B", "8B", "8B", "J"]
    fold(v, [{"kind": "event", "event": {"type": "mahjong_declared", "seat": 1, "tiles": hand}},
             {"kind": "rulings", "rulings": [_r("mahjong_verified", 1, value=25, jokerless=False,
                                                self_picked=False, lines=[])]}])
    assert [t["tile"] for g in v.snapshot()["mahjong"]["hand"] for t in g] == hand


def _lan_address():
    import socket

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
        addr = s.getsockname()[0]
    except OSError:
        return None
    finally:
        s.close()
    return None if addr.startswith("127.") else addr


def test_lan_access_needs_the_token():
    addr = _lan_address()
    if addr is None:
        pytest.skip("no non-loopback address on this machine")
    srv = DisplayServer(host="0.0.0.0", port=0, token="lan-token-123").start()
    try:
        base = f"http://{addr}:{srv.port}"
        assert _call(base + "/api/state")[0] == 403
        assert _call(base + "/")[0] == 403
        assert _call(base + "/api/state?token=lan-token-123")[0] == 200
        assert _call(base + "/api/state", token="lan-token-123")[0] == 200
    finally:
        srv.stop()


# ---- hostile requests (issue 31 item 12), straight into the ASGI app with the client address chosen --------
def _asgi(app, path, *, client="192.0.2.7", host="192.0.2.1:8765", headers=(), method="GET", body=b""):
    """(status, response headers) of one request; the body of a streaming answer is not waited for."""
    import asyncio

    path, _, query = path.partition("?")
    scope = {"type": "http", "http_version": "1.1", "method": method, "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "root_path": "", "scheme": "http", "client": (client, 50000),
             "server": ("192.0.2.1", 8765),
             "headers": [(b"host", host.encode()), *((k.encode(), v.encode()) for k, v in headers)]}
    sent, asked = [], []

    async def receive():
        asked.append(1)
        return {"type": "http.request", "body": body, "more_body": False} if len(asked) == 1 else \
            {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)
        if message["type"] == "http.response.start":
            raise _Started

    try:
        asyncio.run(app(scope, receive, send))
    except _Started:
        pass
    start = sent[0]
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}


class _Started(Exception):
    pass


def _app(on_correction=None):
    from assistant.display.app import Broadcaster, create_app

    return create_app(Broadcaster(TableView().snapshot()), "lan-token-123", on_correction=on_correction)


@pytest.mark.parametrize("path", ["/static/display.js", "/static/tiles.js", "/static/display.css", "/", "/api/state"])
def test_every_file_from_another_machine_needs_the_token(path):
    app = _app()
    assert _asgi(app, path)[0] == 403
    assert _asgi(app, path + "?token=lan-token-123")[0] == 200
    assert _asgi(app, path, headers=[("cookie", "mahj_token=lan-token-123")])[0] == 200  # the page's own requests
    assert _asgi(app, path, headers=[("cookie", "mahj_token=wrong")])[0] == 403
    assert _asgi(app, "/static/../app.py?token=lan-token-123")[0] == 404


def test_the_page_opened_with_its_token_leaves_a_strict_cookie_for_its_scripts():
    status, headers = _asgi(_app(), "/?token=lan-token-123")
    assert status == 200 and "mahj_token=lan-token-123" in headers["set-cookie"]
    assert "httponly" in headers["set-cookie"].lower() and "samesite=strict" in headers["set-cookie"].lower()


@pytest.mark.parametrize("host", ["evil.example:8765", "attacker.test", "127.0.0.1.nip.io:8765"])
def test_a_foreign_host_name_is_refused_even_from_this_machine(host):
    """A DNS-rebinding page sends its own name as Host: refused, so it cannot read the state or the events."""
    app = _app()
    for path in ("/api/state", "/events", "/", "/static/display.js"):
        assert _asgi(app, path, client="127.0.0.1", host=host)[0] == 403
    assert _asgi(app, "/api/state", client="127.0.0.1", host="127.0.0.1:8765")[0] == 200
    assert _asgi(app, "/api/state", client="127.0.0.1", host="localhost:8765")[0] == 200
    assert _asgi(app, "/api/state", client="::1", host="[::1]:8765")[0] == 200


def test_a_cookie_is_no_token_for_a_correction():
    app = _app(on_correction=lambda c: {"message": "ok"})
    body = json.dumps({"action": "undo"}).encode()
    cookie = [("cookie", "mahj_token=lan-token-123"), ("content-type", "application/json")]
    assert _asgi(app, "/api/correction", client="127.0.0.1", host="127.0.0.1", method="POST", body=body,
                 headers=cookie)[0] == 403
    assert _asgi(app, "/api/correction?token=lan-token-123", client="127.0.0.1", host="127.0.0.1", method="POST",
                 body=body)[0] == 200


def test_a_deeply_nested_body_is_a_bad_request_not_a_crash():
    app = _app(on_correction=lambda c: {"message": "ok"})
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    assert _asgi(app, "/api/correction?token=lan-token-123", client="127.0.0.1", host="127.0.0.1", method="POST",
                 body=deep)[0] == 400


@pytest.mark.parametrize("token", [" " * 8, "abc def ghi", "short"])
def test_a_lan_display_needs_a_real_token(token):
    from assistant.profile import ProfileError, parse_profile

    with pytest.raises(ProfileError, match="display.token"):
        parse_profile(f"[display]\nhost = '0.0.0.0'\ntoken = '{token}'\n", "x.toml")


def test_a_profile_with_a_byte_order_mark_loads(tmp_path):
    from assistant.profile import load_profile

    path = tmp_path / "mahj.toml"
    path.write_bytes("\ufeff[seats]\neast = 'Ada'\n".encode())
    assert load_profile(path).players[0] == "Ada"
