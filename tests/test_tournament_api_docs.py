"""docs/tournament.md's report API section against a real server (issue 42 item 13): its example report is
counted with the answer it shows, a resend is a duplicate, and every status the server refuses a report with is
in its table (and the table lists none the server does not give, 503 aside: a database going away)."""

import json
import re
import socket
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from tournament_kit import Server, new_tournament, wall

DOCS = Path(__file__).resolve().parents[1] / "docs" / "tournament.md"


def api_section() -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("## The report API")
    return text[start:text.index("\n## ", start + 1)]


def post(server, body: bytes, token: str | None, headers: dict | None = None):
    req = urllib.request.Request(server.base + "/api/reports", data=body, method="POST")
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('api') / 't.db'}"
    store, tokens = new_tournament(url, tables=2, rounds=2, games=4, names=[f"P{i}" for i in range(8)],
                                   address=f"http://{socket.gethostname()}:8780")
    store.close()
    server = Server(url).start()
    yield server, tokens
    server.stop()


def test_the_documented_example_is_counted_with_the_documented_answer(served):
    server, tokens = served
    request, answer = (json.loads(block) for block in re.findall(r"```json\n(.*?)```", api_section(), re.S))
    status, got = post(server, json.dumps(request).encode(), tokens[str(request["table"])])
    assert status == 200 and got == answer | {"report": got["report"]}, got
    status, again = post(server, json.dumps(request).encode(), tokens[str(request["table"])])
    assert status == 200 and again["status"] == "duplicate" and again["was"] == "counted"


def test_every_refusal_is_in_the_documented_table(served):
    server, tokens = served
    documented = {int(code) for code in re.findall(r"^\| (\d{3}) \|", api_section(), re.M)}
    table1, director = tokens["1"], tokens["director"]
    cases = {
        "not json": (b"{", table1, None),
        "a field of the wrong kind": (json.dumps(wall(1, 1) | {"game": "one"}).encode(), table1, None),
        "no token": (json.dumps(wall(1, 1)).encode(), None, None),
        "another table's token": (json.dumps(wall(2, 1)).encode(), table1, None),
        "a foreign Host": (json.dumps(wall(1, 1)).encode(), table1, {"Host": "rebind.example.com"}),
        "no such table": (json.dumps(wall(9, 1)).encode(), director, None),
        "a round not started": (json.dumps(wall(1, 1, round_no=2)).encode(), table1, None),
        "too large": (json.dumps(wall(1, 1) | {"pad": "x" * 70_000}).encode(), table1, None),
        "a line not on the card": (json.dumps(wall(1, 2) | {"outcome": "mahjong", "winner": "A", "discarder": "B",
                                                            "line": {"section": "2468", "number": 99}}).encode(),
                                   table1, None),
    }
    seen = {}
    for why, (body, token, headers) in cases.items():
        status, answer = post(server, body, token, headers)
        assert status >= 400 and answer.get("error"), (why, status, answer)
        seen[why] = status
    assert set(seen.values()) <= documented, seen
    assert documented - set(seen.values()) == {503}, (documented, seen)
