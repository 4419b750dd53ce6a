"""Crafted input on every reader the issue names (issue 31 items 8 and 9): deeply nested JSON, files that are not
what they claim, fields of the wrong type. Each gets its place (file:line, stdin:line, the file) and an exit
code or an error answer, never a traceback, and the lines after a bad one are still read."""

import io
import json
import sys

import pytest

from assistant.cli import main
from assistant.journal import read_journal
from vision.calibration import Calibration, CalibrationError, calibrate_from_points

DEEP = "[" * 100_000 + "]" * 100_000


def _stdin(monkeypatch, text):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_verify_batch_answers_a_deep_line_and_goes_on(monkeypatch, capsys):
    _stdin(monkeypatch, DEEP + "\n" + json.dumps({"tiles": "F F 2D 2D 2D 2D 4D 4D 6D 6D 8D 8D 8D 8D"}) + "\n")
    assert main(["verify", "--batch"]) == 0
    first, second = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert first == {"error": "stdin:1: JSON nested too deeply"} and second["mahjong"]


def test_jp_score_answers_a_deep_line_and_goes_on(monkeypatch, capsys):
    hand = {"hand": "123m406p789s22255s", "win": "2s", "tsumo": True, "seat_wind": "S", "round_wind": "E"}
    _stdin(monkeypatch, DEEP + "\n" + json.dumps(hand) + "\n")
    assert main(["jp", "score"]) == 1
    first, second = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert first["error"] == "request: JSON nested too deeply" and second["ok"]


@pytest.mark.parametrize("what, said", [
    ("missing", "missing.jsonl: cannot read it"),
    ("folder", "folder: cannot read it"),
    ("badbyte", "badbyte.jsonl:2:3: not UTF-8 text"),
])
def test_jp_score_names_a_file_it_cannot_read(tmp_path, monkeypatch, capsys, what, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "badbyte.jsonl").write_bytes(b'{"hand": "123m"}\n{"\xff": 1}\n')
    name = {"missing": "missing.jsonl", "folder": "folder", "badbyte": "badbyte.jsonl"}[what]
    assert main(["jp", "score", name]) == 2
    assert f"error: {said}" in capsys.readouterr().err


def test_referee_apply_and_replay_survive_a_deep_line(tmp_path, monkeypatch, capsys):
    journal = tmp_path / "game.jsonl"
    assert main(["referee", "new", str(journal)]) == 0
    _stdin(monkeypatch, DEEP + "\n" + json.dumps({"type": "deal", "t": 0}) + "\n")
    assert main(["referee", "apply", str(journal)]) == 2
    out = capsys.readouterr()
    assert "<stdin>:1: JSON nested too deeply" in out.out + out.err
    assert [r["event"]["type"] for r in read_journal(journal) if r["kind"] == "event"] == ["deal"]  # line 2 went on
    with journal.open("a", encoding="utf-8") as f:
        f.write(DEEP + "\n")
    assert main(["referee", "replay", str(journal)]) == 0
    assert f"{journal}:4: damaged line skipped (JSON nested too deeply)" in capsys.readouterr().err


@pytest.mark.parametrize("content, said", [
    (DEEP, "JSON nested too deeply"),
    ("[]", "a calibration is a JSON object, not list"),
    ('"x"', "a calibration is a JSON object, not str"),
    ("band9", "band 'slope' for seat 9: seats are 0-3"),
    ("nan", "table_to_image is not a usable homography"),
    ("singular", "table_to_image is not a usable homography"),
])
def test_the_calibration_loader_names_a_bad_file(tmp_path, content, said):
    good = calibrate_from_points({0: (440, 320), 1: (440, 40), 2: (40, 40), 3: (40, 320)}, (480, 360),
                                 source="manual").to_json()
    if content == "band9":
        good["bands"][0] |= {"seat": 9, "kind": "slope"}
        content = json.dumps(good)
    elif content in ("nan", "singular"):
        good["table_to_image"] = [[float("nan")] * 3] * 3 if content == "nan" else [[1, 2, 3], [2, 4, 6], [0, 0, 1]]
        content = json.dumps(good)
    path = tmp_path / "cal.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CalibrationError, match=rf"^{path}: .*{said}"):
        Calibration.load(path)


def test_verify_batch_names_every_place_one_way(monkeypatch, capsys):
    _stdin(monkeypatch, 'nope\n  {"tiles": \n{"tiles": "1B", "exposed": ["3B 3B qq"]}\n')
    assert main(["verify", "--batch"]) == 0
    assert [json.loads(x)["error"] for x in capsys.readouterr().out.splitlines()] == [
        "stdin:1:1: not JSON (Expecting value)", "stdin:2:13: not JSON (Expecting value)",
        "stdin:3: \"exposed\" group 1, tile 3: not a tile: 'qq' (try codes like 3B, 7C, 1D, N, RD, WD, F, J)"]
