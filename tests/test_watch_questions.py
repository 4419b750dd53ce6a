"""At the table, mahj asks before it penalises: the bundled recordings watched with nobody at the keyboard give no
penalty at all (the camera's evidence is only asked about), and a person answers from the keyboard, the display
or the board's call button."""

import json
from pathlib import Path

import pytest

from assistant.cli import main
from assistant.commands.demo import oracle_for
from assistant.journal import read_journal, referee_from_header, replay
from assistant.pipeline import Assistant
from assistant.profile import Profile
from assistant.wiring import load_game_card, load_scoring, parse_key_command
from datasets.misreads import Misreader, MisreadingDetector
from engine.referee import Referee
from engine.referee import events as rev

FIXTURES = Path(__file__).resolve().parents[1] / "datasets" / "video" / "fixtures"
MODEL = Path(__file__).resolve().parents[1] / "models" / "tile_detector.onnx"
PENALTIES = {"dead_hand", "mahjong_in_error", "discard_at_fault", "redeal", "challenge_upheld"}


def _watch(tmp_path, video, *extra):
    journal = tmp_path / f"{video}.jsonl"
    assert main(["watch", "--video", str(FIXTURES / f"{video}.mp4"), "--json", "--no-speech", "--no-display",
                 "--board", "none", "--journal", str(journal), *extra]) == 0
    return journal


@pytest.mark.skipif(not MODEL.exists(), reason="the tile model is not shipped in this checkout")
@pytest.mark.parametrize("video", ["moves", "camera", "demo"])
def test_the_bundled_recordings_watched_by_nobody_penalise_nobody(tmp_path, capsys, video):
    _watch(tmp_path, video)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    rulings = [x["ruling"] for x in lines if x["type"] == "ruling"]
    assert not [r for r in rulings if r["kind"] in PENALTIES]
    summary = lines[-1]
    if video == "demo":  # a game joined in progress: West wins on East's discard, settled as the rules say
        assert summary["settlement"]["data"]["payments"] == {"0": -50, "1": -25, "2": 100, "3": -25}
    if video == "moves":  # the 8 Dot kong read as 2D 8D 2D 2D: asked about, South plays on
        question = next(r for r in rulings if r["kind"] == "question")
        assert question["seat"] == 1 and "invalid exposure" in question["data"]["reason"]


@pytest.mark.parametrize("video", ["moves", "camera", "demo"])
def test_the_recordings_read_by_a_tile_model_misreading_a_fifth_of_faces_penalise_nobody(tmp_path, monkeypatch,
                                                                                        capsys, video):
    oracle = oracle_for(FIXTURES / f"{video}.mp4")
    misreader = Misreader(0.20, seed=1)
    monkeypatch.setattr("assistant.session.open_model",
                        lambda _tile_set="": MisreadingDetector(oracle, misreader))
    journal = _watch(tmp_path, video)
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert misreader.misread > 0
    assert not [x["ruling"] for x in lines if x["type"] == "ruling" and x["ruling"]["kind"] in PENALTIES]
    records = list(read_journal(journal))  # the journal replays exactly, the camera's events untrusted again
    _, mismatches = replay(records, referee_from_header(records[0]))
    assert not mismatches


def _assistant() -> Assistant:
    profile = Profile(players=("Ada", "Bob", "Cy", "Di"))
    a = Assistant(Referee(load_game_card(profile), load_scoring(profile)), profile.players)
    a.start_game(0.0)
    return a


def _out_of_turn(a: Assistant) -> dict:
    """East discards, then the camera sees West discard in South's turn: a question about West."""
    a.apply(rev.Discard(1.0, 0, "N"))
    a.t = 2.0
    a.apply(rev.Discard(2.0, 2, "8B"))
    return next(r for r in a.rulings if r.kind == "question").data


def test_keyboard_answers_yes_or_no_to_the_newest_question_or_a_numbered_one():
    assert parse_key_command("y") == {"action": "answer", "id": None, "confirmed": True}
    assert parse_key_command("n 12") == {"action": "answer", "id": 12, "confirmed": False}
    assert parse_key_command("y twelve").startswith("not done")
    a = _assistant()
    q = _out_of_turn(a)
    assert a.view.snapshot()["question"]["id"] == q["id"]
    assert "Cy's hand is dead" in a.view.snapshot()["question"]["text"]
    a.inbox.put(parse_key_command("y") | {"source": "keyboard"})
    a.handle_requests()
    assert a.referee.seats[2].out == "dead" and a.view.snapshot()["question"] is None
    assert a.view.snapshot()["seats"][2]["dead"]


def test_the_display_answers_no_and_the_question_goes_for_good():
    from assistant.display.app import check_correction

    a = _assistant()
    q = _out_of_turn(a)
    a.request(check_correction({"action": "answer", "id": q["id"], "confirmed": False}))
    a.handle_requests()
    assert a.referee.seats[2].out is None and a.view.snapshot()["question"] is None
    assert a.rulings[-1].kind == "question_dropped" and a.rulings[-1].data["reason"] == "answered no"
    with pytest.raises(ValueError, match="confirmed must be"):
        check_correction({"action": "answer", "confirmed": "yes"})


def test_nobody_answering_takes_the_question_off_the_screen_and_a_late_yes_does_nothing():
    a = _assistant()
    q = _out_of_turn(a)
    a.t = q["until"] + 1
    a.handle_requests()
    assert a.view.snapshot()["question"] is None
    a.inbox.put({"action": "answer", "id": None, "confirmed": True, "source": "keyboard"})
    a.handle_requests()
    assert a.referee.seats[2].out is None and a.rulings[-1].kind != "confirmed"


class Press:
    def __init__(self, seat, held=False):
        self.seat, self.held, self.t, self.board_ms = seat, held, None, 1


class Board:
    """A board double: the presses to report, the lights and signals it was given."""

    def __init__(self, presses):
        self.presses, self.leds, self.signals = presses, [], []

    def events(self):
        out, self.presses = self.presses, []
        return out

    def signal(self, ruling):
        self.signals.append(ruling.kind)

    def set_leds(self, state):
        self.leds.append(state)


def test_the_call_button_of_the_seat_asked_about_says_yes_and_the_board_shows_the_question():
    a = _assistant()
    a.board = Board([])
    _out_of_turn(a)
    assert "question" in a.board.signals
    a.board.presses = [Press(1)]  # South's button: a claim for South, not an answer about West
    a.handle_requests()
    assert a.referee.seats[2].out is None and a.rulings[-1].kind == "claim_pending"
    a.board.presses = [Press(2)]
    a.handle_requests()
    assert a.referee.seats[2].out == "dead" and a.board.leds
