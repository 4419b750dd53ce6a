"""A camera table reporting to a real tournament server on localhost (`mahj watch --tournament`): each finished
game is reported as it ends with the same points the table's referee gave; offline, reports wait in the queue
file next to the journal and are sent when the server is back, never counted twice."""

import json
import socket

import pytest
from tournament_kit import Server, new_tournament, wall

from assistant.cli import main
from assistant.pipeline import Assistant
from assistant.profile import Profile
from assistant.tournament.client import Queue, Sender, TableReporter, made_for
from assistant.wiring import load_game_card, load_scoring
from datasets.misreads import camera_view
from engine.referee import Referee
from engine.referee.scripted import scripted_game


@pytest.fixture(scope="module")
def event(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('watch') / 't.db'}"
    store, tokens = new_tournament(url)  # 11 players: table 3 seats three
    seats = store.seating(1)
    store.close()
    server = Server(url).start()
    yield server, tokens, seats
    server.stop()


def standings(server):
    import urllib.request

    with urllib.request.urlopen(server.base + "/api/standings", timeout=10) as res:
        return {r["name"]: r["points"] for r in json.loads(res.read())["standings"]}


def play(reporter, players, seed):
    """One scripted game seen by the camera, through the pipeline with the reporter wired in."""
    profile = Profile(players=("Ada", "Bob", "Cy", "Di" if players == 4 else ""), scoring="mahjcon")
    card, scoring = load_game_card(profile), load_scoring(profile)
    game = scripted_game(card, scoring, seed=seed, players=players, outcome="mahjong")
    a = Assistant(Referee(card, scoring, players=profile.table_size), profile.players)
    a.reporter = reporter
    reporter.hand_of = a.view.declared.get
    reporter.seats = lambda: a.referee.snapshot()["seats"]
    a.start_game(0.0)
    a.observe(camera_view(game.events))
    return next(r for r in a.rulings if r.kind == "settlement").data["payments"]


@pytest.mark.parametrize(("table", "players", "seed"), [(1, 4, 0), (3, 3, 1)])
def test_each_finished_game_is_reported_with_the_referees_points(event, tmp_path, table, players, seed):
    server, tokens, seats = event
    said = []
    reporter = TableReporter(Sender(server.base, table, tokens[str(table)]), Queue(tmp_path / "q.jsonl"),
                             say=said.append)
    assert reporter.round == 1 and reporter.game == 1 and reporter.letters == list(seats[table])
    before = standings(server)
    payments = play(reporter, players, seed)
    reporter.close()
    assert reporter.queue.pending(reporter.sender.here) == []
    answer = next(iter(reporter.queue.answers.values()))
    assert answer["status"] == "counted", (answer, said)
    letters = list(seats[table])
    assert answer["points"] == {letters[int(c)]: p for c, p in payments.items()}
    after = standings(server)
    for c, p in payments.items():
        assert after[seats[table][letters[int(c)]]] - before[seats[table][letters[int(c)]]] == p
    assert any("counted by the tournament" in s for s in said)
    assert reporter.game == 2  # the next game at this table


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_offline_reports_queue_on_disk_and_resend_once(event, tmp_path):
    server, tokens, seats = event
    queue_file = tmp_path / "tournament-queue.jsonl"
    said = []
    down = f"http://127.0.0.1:{_free_port()}"
    offline = TableReporter(Sender(down, 2, tokens["2"]), Queue(queue_file), round_no=1, game=1, say=said.append)
    assert any("not reachable" in s for s in said)
    play(offline, 4, 2)
    offline.close(wait_s=0.5)
    assert len(Queue(queue_file).pending(offline.sender.here)) == 1 and "kept in" in said[-1]
    # The ack of an earlier report was lost: the server has it, the queue still holds it as pending.
    lost = wall(2, 2, client="lost-ack", source="camera")
    Queue(queue_file).add(lost, made_for(server.base, 2, tokens["2"]))
    import urllib.request

    req = urllib.request.Request(server.base + "/api/reports", data=json.dumps(lost).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {tokens['2']}"})
    urllib.request.urlopen(req, timeout=10).read()
    before = standings(server)
    back = TableReporter(Sender(server.base, 2, tokens["2"]), Queue(queue_file), say=said.append)
    assert back.game == 3  # games 1 (queued) and 2 (counted) are taken
    back.close()
    answers = Queue(queue_file).answers
    assert Queue(queue_file).pending(back.sender.here) == []
    assert sorted(a["status"] for a in answers.values()) == ["counted", "duplicate"]
    after = standings(server)
    assert sum(after.values()) - sum(before.values()) == sum(next(a for a in answers.values()
                                                                  if a["status"] == "counted")["points"].values())


def test_a_refused_report_is_not_resent_forever(event, tmp_path):
    server, tokens, _ = event
    said = []
    reporter = TableReporter(Sender(server.base, 1, "stale-or-wrong"), Queue(tmp_path / "q.jsonl"), round_no=1,
                             game=4, say=said.append)
    reporter.queue.add(wall(1, 4, client="x", source="camera"), reporter.sender.here)
    reporter.close()
    assert reporter.queue.pending(reporter.sender.here) == [] and any("refused by the tournament" in s for s in said)


@pytest.mark.parametrize(("argv", "message"), [
    (["--tournament", "director.local:8780", "--table", "1", "--token", "t"], "give the server's address"),
    (["--tournament", "http://x:1", "--token", "t"], "needs --table N and --token T"),
    (["--table", "2"], "go with --tournament URL"),
])
def test_watch_tournament_options(capsys, tmp_path, argv, message):
    assert main(["watch", "--frames", str(tmp_path), "--journal", str(tmp_path / "j.jsonl"), "--json", *argv]) == 2
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["type"] == "error" and message in last["error"]  # the stream's error line: {"type", "error"}


def test_the_report_takes_who_is_out_and_what_was_exposed_from_the_referee_as_the_game_ends(tmp_path):
    """A dead hand the table corrected away and an exposure added by a correction: the report follows the
    referee's seats at the end, not the rulings as they went by."""
    from engine.referee.rulings import Ruling

    down = f"http://127.0.0.1:{_free_port()}"
    seats = [{"out": None, "exposures": []}, {"out": None, "exposures": []},
             {"out": None, "exposures": [["3B", "3B", "3B"], ["N", "N", "N", "N", "J"]]}, {"out": "threw_in"}]
    reporter = TableReporter(Sender(down, 2, "t"), Queue(tmp_path / "q.jsonl"), round_no=1, game=1,
                             seats=lambda: seats, say=lambda text: None)
    for r in (Ruling("dealt", 0.0, None, {"east": 0}), Ruling("dead_hand", 1.0, 1, {}),   # later corrected away
              Ruling("mahjong_verified", 2.0, 2, {"seat": 2, "self_picked": True,
                                                  "lines": [{"section": "2468", "number": 1}]}),
              Ruling("game_over", 2.5, None, {"reason": "mahjong"})):
        reporter.ruling(r)
    reporter.close(wait_s=0.1)
    [report] = Queue(tmp_path / "q.jsonl").pending(reporter.sender.here)
    assert report["dead"] == ["D"] and report["in_error"] == []
    assert report["winner"] == "C" and report["exposures"] == 2 and report["quint"] is True


def test_a_report_queued_for_another_event_is_kept_and_sent_only_to_its_own(tmp_path):
    """A table's queue holds a report of last month's event (its server went down before it was sent) and a
    line from a mahj that did not record the event; this month's event, same name, same address, new tokens:
    neither is sent to it nor numbers its games, both stay in the file, the table is told whose they are; the
    old event's server, back, still gets its own report."""
    queue_file = tmp_path / "tournament-queue.jsonl"
    old_url = f"sqlite:///{tmp_path / 'old.db'}"
    _, old_tokens = new_tournament(old_url)
    old_server = Server(old_url).start()
    said: list[str] = []
    old = TableReporter(Sender(old_server.base, 1, old_tokens["1"]), Queue(queue_file), say=said.append)
    assert old.sender.here["event"] and old.game == 1
    old_server.stop()
    play(old, 4, 3)  # the game ends while the server is down: queued for the old event
    old.close(wait_s=0.2)
    with open(queue_file, "a", encoding="utf-8") as f:
        f.write(json.dumps({"report": wall(1, 2, client="before-events-were-recorded")}) + "\n")
    kept = queue_file.read_text(encoding="utf-8")

    new_url = f"sqlite:///{tmp_path / 'new.db'}"
    _, new_tokens = new_tournament(new_url)  # the same name, "Spring Open"
    new_server = Server(new_url)
    new_server.port = old_server.port
    new_server.start()
    try:
        said.clear()
        new = TableReporter(Sender(new_server.base, 1, new_tokens["1"]), Queue(queue_file), say=said.append)
        assert new.round == 1 and new.game == 1  # not game 2: the old event's games are not this one's
        new.close()
        told = " | ".join(said)
        assert f"1 queued report(s) in {queue_file} were made for 'Spring Open' at {old_server.base}, not this " \
               "tournament: they are not sent here and stay in that file" in told
        assert "made for a tournament this queue did not record (queued by an older mahj)" in told
        assert set(standings(new_server).values()) == {0}
        assert queue_file.read_text(encoding="utf-8").startswith(kept)  # nothing removed
        assert len(Queue(queue_file).elsewhere(new.sender.here)) == 2
        again = TableReporter(Sender(new_server.base, 1, new_tokens["1"]), Queue(queue_file), say=said.append)
        play(again, 4, 4)
        again.close()
        answers = [a for a in Queue(queue_file).answers.values()]
        assert [(a["status"], a["game"]) for a in answers] == [("counted", 1)]  # its own first game
    finally:
        new_server.stop()
    old_server.start()  # the old event's server is back: its report goes there, once
    try:
        back = TableReporter(Sender(old_server.base, 1, old_tokens["1"]), Queue(queue_file), say=said.append)
        back.close()
        statuses = sorted(a["status"] for a in Queue(queue_file).answers.values())
        assert statuses == ["counted", "counted"] and sum(standings(old_server).values()) != 0
    finally:
        old_server.stop()



@pytest.mark.parametrize("status", [408, 429])
def test_a_report_refused_for_now_stays_queued_and_is_sent_later(tmp_path, status):
    """408 (the request came too slowly) and 429 (too many connections from this address) refuse for now, not
    for good: the report stays queued and is sent again. A server scripted to answer so once, then count it."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    answers = [(status, {"error": "for now"}), (200, {"status": "counted", "report": 1})]
    posted: list[dict] = []

    class Scripted(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def _answer(self, code: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer(200, {"tournament": "Spring Open", "event": "e1", "round": 1, "seats": {}, "counted": {}})

        def do_POST(self) -> None:
            posted.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self._answer(*answers.pop(0))

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        said: list[str] = []
        reporter = TableReporter(Sender(f"http://127.0.0.1:{httpd.server_port}", 2, "t2"),
                                 Queue(tmp_path / "q.jsonl"), say=said.append)
        reporter.close(wait_s=0)  # its thread stops: this test sends, at the moments it chooses
        reporter.queue.add(wall(2, 1, client="held-back", source="camera"), reporter.sender.here)
        assert reporter.flush_once() is False
        assert [r["client_id"] for r in reporter.queue.pending(reporter.sender.here)] == ["held-back"]
        assert not any("refused" in s for s in said)
        assert reporter.flush_once() is True
        assert reporter.queue.answers["held-back"]["status"] == "counted" and len(posted) == 2
    finally:
        httpd.shutdown()
