"""A failing command speaks to whoever runs it: ``error: ...`` on stderr for a person, and with ``--json`` one JSON
object ``{"error": ...}`` on stdout and nothing else (a program reading stdout must not be left with nothing)."""

import json

import pytest

from assistant.cli import main
from assistant.console import report_error

#: argv without --json ({tmp}: a fresh folder), exit code, part of the message, the extra keys its JSON carries.
CASES = [
    ("detect {tmp}/missing.jpg", 1, "missing.jpg", {}),
    ("detect {tmp}/missing.jpg --out {tmp}/o.png", 1, "missing.jpg", {}),
    ("tile 3 bma", 2, "did you mean 'bam'", {}),
    ("say --tiles 3 bma", 2, "did you mean 'bam'", {}),
    ("display --journal {tmp}/none.jsonl", 2, "no such journal", {}),
    ("watch --frames {tmp} --journal {tmp}/j.jsonl --table 2", 2, "go with --tournament URL", {"type": "error"}),
    ("setup tiles --photo {tmp}/p.jpg --set no/good", 2, "give a plain name", {}),
    ("setup mat --dpi 10", 2, "give 50 to 600", {}),
    ("board signal turn --port {tmp}/no-such-tty", 1, "does not exist", {}),
    ("calibrate show {tmp}/none.json --image {tmp}/x.png", 2, "none.json", {}),
    ("init {tmp}/exists.toml", 2, "already exists", {}),
    ("pay --value 0 --self-pick", 2, "--value must be positive", {}),
    ("video read {tmp}/v.mp4 --oracle", 2, "no true boxes", {}),
]


@pytest.mark.parametrize(("command", "code", "part", "extra"), CASES, ids=[c[0].split(" {")[0] for c in CASES])
def test_an_error_is_one_json_object_on_stdout_with_json_and_text_on_stderr_without(command, code, part, extra,
                                                                                    tmp_path, capsys):
    (tmp_path / "exists.toml").write_text("", encoding="utf-8")
    argv = command.format(tmp=tmp_path).split()

    assert main([*argv, "--json"]) == code
    said = capsys.readouterr()
    assert said.err == "" and said.out.endswith("\n") and said.out.count("\n") == 1, said
    doc = json.loads(said.out)
    assert set(doc) == {"error", *extra} and part in doc["error"], doc
    assert {k: doc[k] for k in extra} == extra

    assert main(argv) == code
    said = capsys.readouterr()
    assert said.out == "" and said.err == f"error: {doc['error']}\n", said


def test_board_check_keeps_ok_false_beside_the_error(monkeypatch, capsys):
    """`board check --json` is read by its ``ok``; a check that cannot run says ok false as well."""
    from assistant.commands import board
    from hardware.rig import RigUnavailable

    def refuse(*_args, **_kwargs):
        raise RigUnavailable("simavr is not installed")

    monkeypatch.setattr(board, "run_check", refuse)
    assert main(["board", "check", "--port", "simavr", "--json"]) == 2
    said = capsys.readouterr()
    assert said.err == "" and json.loads(said.out) == {"ok": False, "error": "simavr is not installed"}


def test_extra_keys_never_replace_the_message(capsys):
    assert report_error("the real one", json_mode=True, code=3, error="not this", type="error") == 3
    assert json.loads(capsys.readouterr().out) == {"type": "error", "error": "the real one"}
    assert report_error("for people", json_mode=False, refused=["x"]) == 2
    assert capsys.readouterr() == ("", "error: for people\n")
