"""The tournament's address (issue 42, items 7 and 8): the server answers to the host name on the table cards,
still refuses any other name (DNS rebinding), and ``new`` says when the tables could not reach it there."""

import json
import socket
import urllib.error
import urllib.request

import pytest
from tournament_kit import Server, new_tournament, wall

from assistant.cli import main


def players(tmp_path):
    path = tmp_path / "players.csv"
    path.write_text("name\n" + "\n".join(f"P{i}" for i in range(8)) + "\n", encoding="utf-8")
    return path


def new(capsys, tmp_path, address, *extra):
    code = main(["tournament", "new", "Hall Open", "--players", str(players(tmp_path)), "--tables", "2",
                 "--rounds", "1", "--games-per-round", "1", "--db", str(tmp_path / "t.db"),
                 "--cards", str(tmp_path / "cards.pdf"), "--url", address, *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, path, host, token, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST" if body else "GET",
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Host", host)
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_serve_answers_to_the_name_on_the_cards_on_their_port(capsys, tmp_path):
    port = free_port()
    code, out, err = new(capsys, tmp_path, f"http://scores.hall.lan:{port}", "--json")
    assert code == 0, err
    made = json.loads(out)
    server = Server(str(tmp_path / "t.db"))
    server.port = None  # serve listens where the cards point
    server.start()
    try:
        assert server.port == port
        host = f"scores.hall.lan:{port}"
        assert call(port, "/api/standings", host, made["director_token"])[0] == 200
        status, ack = call(port, "/api/reports", "SCORES.hall.lan", made["table_tokens"]["1"], wall(1, 1))
        assert status == 200 and ack["status"] == "counted"
        for other in ("rebind.example.com", f"scores.hall.lan.evil.example:{port}", "hall.lan"):
            status, answer = call(port, "/api/standings", other, made["director_token"])
            assert status == 403 and "Host header" in answer["error"], other
        status, _ = call(port, "/api/reports", "rebind.example.com", made["table_tokens"]["2"], wall(2, 1))
        assert status == 403
    finally:
        server.stop()


def test_the_docs_director_local_is_answered(tmp_path):
    """The docs' own example address, on a machine not named 'director'."""
    assert socket.gethostname().lower().split(".")[0] != "director"
    url = f"sqlite:///{tmp_path / 'd.db'}"
    store, tokens = new_tournament(url, address="http://director.local:8780")
    store.close()
    server = Server(url).start()
    try:
        assert call(server.port, "/api/standings", "director.local:8780", tokens["director"])[0] == 200
        assert call(server.port, "/api/standings", "evil.example", tokens["director"])[0] == 403
    finally:
        server.stop()


@pytest.mark.parametrize(("address", "says"), [
    ("http://scores.hall.lan:8780", ["scores.hall.lan does not resolve on this computer", "hall router's DNS"]),
    ("http://127.0.0.1:8780", ["loopback address: only this computer can open it"]),
    ("http://192.0.2.77:8780", ["192.0.2.77 is not this computer: run mahj tournament serve on that machine"]),
])
def test_new_warns_when_the_tables_could_not_reach_the_cards_address(capsys, tmp_path, address, says):
    code, out, err = new(capsys, tmp_path, address, "--json")
    warnings = json.loads(out)["warnings"]
    assert code == 0 and len(warnings) == 1 and all(s in warnings[0] for s in says), warnings
    assert "--url http://" in warnings[0]  # what to give instead
    (tmp_path / "t.db").unlink()
    code, out, err = new(capsys, tmp_path, address)
    assert code == 0 and err.startswith("warning: ") and says[0] in err


def test_an_address_of_this_computer_gets_no_warning(capsys, tmp_path):
    code, out, err = new(capsys, tmp_path, f"http://{socket.gethostname()}:8780", "--json")
    assert code == 0 and json.loads(out)["warnings"] == []


@pytest.mark.parametrize("address", ["scores.hall.lan:8780", "ftp://scores.hall.lan", "http://:8780",
                                     "http://x:99999"])
def test_a_url_that_is_not_an_address_is_refused_before_anything_is_made(capsys, tmp_path, address):
    code, out, err = new(capsys, tmp_path, address, "--json")
    assert code == 2 and "--url" in json.loads(out)["error"]
    assert not (tmp_path / "t.db").exists() and not (tmp_path / "cards.pdf").exists()
