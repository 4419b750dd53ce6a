"""The mistakes people make at the command line (issue 33): typos in commands, tiles, seats and profiles, missing
files, folders where files belong, wrong ports, bad values. Each row is one mistake: it must end with exit 1 or 2,
a message that names the place (file, file:line:col, port, option) and says what would be right, and never a
traceback. Rows run in-process through ``main``, so an uncaught exception fails the row."""

import json

import pytest

from assistant.cli import main

BAD_CARD = """card: typed at home
FFF 2026a 222b 2222c x25
[2026]
FFF 2026a 222b 2222c X25
FFF 2026a 222b 2222c X25
FFFF 2026a 222b 2222c X25
"""

#: (argv, exit code, words the message must hold, words it must not hold)
MISTAKES = [
    (["tiel", "3B"], 2, ["'tiel' is not one of", "did you mean 'tile'?"], []),
    (["verfy"], 2, ["did you mean 'verify'?"], []),
    (["pay", "--value", "25", "--self-pick", "--jsno"], 2, ["unrecognized arguments: --jsno (did you mean '--json'?)"],
     []),
    # spelt right but given to a command that does not take it: name who does, never "did you mean" itself
    (["demo", "--journal", "j.jsonl"], 2, ["--journal is an option of: display, watch"], ["did you mean"]),
    (["tile", "3", "bma"], 2, ["tile 1: 'bma' is not a suit", "did you mean 'bam'?"], []),
    (["tile", "soup"], 2, ["not a tile: 'soup'", "'soap'"], []),
    (["tile", "3B", "jocker"], 2, ["tile 2", "'joker'"], []),
    (["tile", "3", "x"], 2, ["'x' is not a suit (suits are bam, crak, dot)"], []),
    (["verify", "3", "bma"], 2, ["tiles: tile 1: 'bma' is not a suit", "'bam'"], []),
    (["verify", "--card", "nosuch.card", "1B"], 2, ["nosuch.card: No such file"], []),
    (["verify", "--exposed", "3B 3B qq", "1B"], 2, ["--exposed group 1: tile 3: not a tile: 'qq'"], []),
    (["suggest", "--card", "bad.card", "1B"], 2, ["bad.card:2:22:", "X25 or C25"], []),
    (["pay", "--winner", "sout", "--discarder", "west", "--value", "25"], 2,
     ["--winner", "'sout' is not a seat", "did you mean 'south'?", "east, south, west, north or 0-3"], []),
    (["pay", "--discarder", "wets", "--value", "25"], 2, ["did you mean 'west'?"], []),
    (["pay", "--profile", "nmj", "--value", "25", "--self-pick"], 2,
     ["'nmj' is neither a built-in profile (nmjl, mahjcon) nor a file", "did you mean 'nmjl'?"], []),
    (["pay", "--discarder", "east", "--value", "25"], 2, ["the winner cannot be the discarder"], []),
    (["pay", "--value", "0", "--self-pick"], 2, ["--value must be positive"], []),
    (["pay", "--value", "lots", "--self-pick"], 2, ["--value", "invalid int value: 'lots'"], []),
    (["pay", "--value", "25"], 2, ["--self-pick", "--discarder", "required"], []),
    (["pay", "--value", "25", "--discarder", "1", "--players", "3", "--winner", "3"], 2,
     ["--winner must be a chair 0..2"], []),
    (["board", "chek"], 2, ["did you mean 'check'?"], []),
    (["board", "check", "--port", "/dev/ttyUSB9"], 1, ["/dev/ttyUSB9 does not exist", "serial ports here:"], []),
    (["board", "signal", "window_closed", "--port", "/dev/ttyUSB9"], 1, ["/dev/ttyUSB9 does not exist"], []),
    (["board", "signal", "window_close"], 2, ["did you mean 'window_closed'"], []),
    (["board", "signal", "turn", "--seat", "nroth"], 2, ["did you mean 'north'"], []),
    (["card", "lint", "nosuch.card"], 2, ["nosuch.card: No such file"], []),
    (["card", "lint", "folder"], 2, ["folder: Is a directory"], []),
    (["card", "lint", "bad.card"], 1, ["bad.card:2:22: 'x25': the value is X25 or C25"], []),
    (["card", "lint", "bad.card"], 1, ["bad.card:6:1: 15 tiles (FFFF 4 + 2026a 4 + 222b 3 + 2222c 4)"], []),
    (["card", "lint", "bad.card"], 1, ["bad.card:5:1: this line repeats line 4"], []),
    (["card", "show", "bad.card"], 1, [">>   5  FFF 2026a 222b 2222c X25", "^ this line repeats line 4"], []),
    (["card", "show", "--color", "alway"], 2, ["did you mean 'always'?"], []),
    (["referee", "replay", "notes.txt"], 2, ["notes.txt: not a game journal"], ["replay matches"]),
    (["referee", "replay", "nosuch.jsonl"], 2, ["nosuch.jsonl: no such journal"], []),
    (["referee", "apply", "nosuch.jsonl"], 2, ["start one with `mahj referee new`"], []),
    (["referee", "apply", "game.jsonl", '{"type": "dela"}'], 2, ["event 1:", "did you mean 'deal'?"], []),
    (["referee", "new", "new.jsonl", "--profile", "mahjon"], 2, ["did you mean 'mahjcon'?"], []),
    (["referee", "new", "new.jsonl", "--card", "nosuch.card"], 2, ["nosuch.card: cannot read the card"], []),
    (["referee", "new", "game.jsonl"], 2, ["game.jsonl: already exists", "mahj referee apply"], []),
    (["referee", "script", "s.jsonl", "--outcome", "mahjongg"], 2, ["did you mean 'mahjong'?"], []),
    (["jp", "score", "nosuch.jsonl"], 2, ["nosuch.jsonl: cannot read it"], []),
    (["jp", "score", "folder"], 2, ["folder: cannot read it"], []),
    (["jp", "score", "--rules", "tenho"], 2, ["did you mean 'tenhou'?"], []),
    (["display", "--journal", "nosuch.jsonl"], 2, ["nosuch.jsonl: no such journal"], []),
    (["display", "--journal", "notes.txt"], 2, ["notes.txt: not a game journal"], []),
    (["display", "--journal", "game.jsonl", "--port", "eighty"], 2, ["--port", "invalid int value: 'eighty'"], []),
    (["demo", "--video", "nosuch.mp4"], 2, ["nosuch.mp4: no such video file"], ["reinstall"]),
    (["watch", "--video", "nosuch.mp4", "--no-display", "--no-speech"], 2, ["nosuch.mp4: no such video"], []),
    (["watch", "--east", "nort"], 2, ["did you mean 'north'?"], []),
    (["watch", "--wall", "300"], 2, ["'300' is not a number of wall tiles (0-99)"], []),
    (["watch", "--profile", "notes.txt", "--video", "x.mp4"], 2, ["notes.txt:1:"], []),
    (["detect", "nosuch.jpg"], 1, ["nosuch.jpg: no such file"], []),
    (["detect", "notes.txt"], 1, ["notes.txt: not an image", "save it as JPEG, PNG"], []),
    (["say", "--tiles", "3", "bma"], 2, ["did you mean 'bam'?"], []),
    (["say", "--profile", "nosuch.toml", "hello"], 2, ["nosuch.toml: cannot read profile"], []),
    (["say", "--profile", "bad.toml", "hello"], 2, ["bad.toml:1: x: unknown section"], []),
    (["init", "notes.txt"], 2, ["notes.txt: already exists", "--force"], []),
    (["setup", "tiles", "--photo", "nosuch.jpg"], 1, ["nosuch.jpg: no such file"], []),
    (["setup", "mta"], 2, ["did you mean 'mat'?"], []),
    (["enroll", "myset"], 2, ["'enroll' is not one of"], []),
]


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "bad.card").write_text(BAD_CARD, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("shopping: tiles, racks\n", encoding="utf-8")
    (tmp_path / "bad.toml").write_text("[x]\ny = 1\n", encoding="utf-8")
    assert main(["referee", "new", "game.jsonl"]) == 0
    return tmp_path


def _run(argv):
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own errors exit 2 after printing usage and the message
        return exc.code


def test_the_table_holds_at_least_forty_mistakes():
    assert len(MISTAKES) >= 40


@pytest.mark.parametrize("argv, code, says, not_says", MISTAKES, ids=[" ".join(m[0]) for m in MISTAKES])
def test_a_mistake_gets_its_place_and_the_fix(table, capsys, argv, code, says, not_says):
    capsys.readouterr()
    assert _run(argv) == code
    out = capsys.readouterr()
    text = out.out + out.err
    for words in says:
        assert words in text
    for words in not_says:
        assert words not in text
    assert "Traceback" not in text and "None" not in text


def test_json_mistakes_answer_json(table, capsys):
    capsys.readouterr()
    assert main(["board", "check", "--port", "/dev/ttyUSB9", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["checks"][0]["name"] == "port"
    assert "/dev/ttyUSB9 does not exist" in report["checks"][0]["detail"]


def test_version_names_the_package(capsys):
    assert _run(["--version"]) == 0
    assert capsys.readouterr().out.strip().startswith("mahj 0.")
