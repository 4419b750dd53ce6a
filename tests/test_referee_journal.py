"""The journal (append, fsync, torn lines), `mahj referee` commands, and whole games replayed end to end."""

import json
import os

import pytest
from referee_kit import card, profile

from assistant import journal as jr
from assistant.cli import main
from engine.referee import Referee, events
from engine.referee.scripted import scripted_game


def test_journal_appends_one_fsynced_line_per_record(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(jr.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    path = tmp_path / "sub" / "game.jsonl"
    with jr.Journal(path) as j:
        j.append({"kind": "event", "event": {"type": "deal", "t": 0.0, "east": None}})
        j.append({"kind": "rulings", "rulings": []})
    assert len(synced) == 2
    assert [json.loads(x)["kind"] for x in path.read_text().splitlines()] == ["event", "rulings"]


def test_torn_last_line_reported_with_file_line_and_skipped(tmp_path):
    path = tmp_path / "game.jsonl"
    with jr.Journal(path) as j:
        j.append({"kind": "event", "event": {"type": "deal", "t": 0.0}})
    with open(path, "a") as f:
        f.write('{"kind": "event", "event": {"type": "di')  # the crash
    problems = []
    assert [r["kind"] for r in jr.read_journal(path, report=problems.append)] == ["event"]
    assert len(problems) == 1 and problems[0].startswith(f"{path}:2: damaged line skipped (Unterminated string")
    with jr.Journal(path) as j:  # resuming never glues a record onto the torn line
        j.append({"kind": "event", "event": {"type": "rack", "t": 1.0, "seat": 1}})
    problems.clear()
    kinds = [r["event"]["type"] for r in jr.read_journal(path, report=problems.append)]
    assert kinds == ["deal", "rack"] and problems[0].startswith(f"{path}:2:")


def test_read_journal_missing_file(tmp_path):
    with pytest.raises(jr.JournalError, match="cannot read"):
        list(jr.read_journal(tmp_path / "none.jsonl"))


def _run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr()


def test_crash_mid_game_resumes_from_journal_with_nothing_lost(tmp_path, capsys):
    game = scripted_game(card(), profile("nmjl"), seed=4)
    path = tmp_path / "game.jsonl"
    assert _run(capsys, "referee", "new", str(path))[0] == 0
    lines = [json.dumps(events.to_json(e)) for e in game.events]
    half = len(lines) // 2
    assert _run(capsys, "referee", "apply", str(path), *lines[:half])[0] == 0
    with open(path, "a") as f:
        f.write(lines[half][: len(lines[half]) // 2])  # power cut while writing the next event
    code, out = _run(capsys, "referee", "apply", str(path), *lines[half:])
    assert code == 0 and "damaged line skipped" in out.err
    code, out = _run(capsys, "referee", "replay", str(path), "--json")
    result = json.loads(out.out)
    assert code == 0 and result["mismatches"] == [] and result["events"] == len(game.events)
    direct = Referee(card(), profile("nmjl"))
    for e in game.events:
        direct.apply(e)
    assert result["state"] == json.loads(json.dumps(direct.snapshot()))


@pytest.mark.parametrize("seed,profile_name,players", [(1, "nmjl", 4), (2, "mahjcon", 4), (5, "nmjl", 3),
                                                        (11, "nmjl", 4)])
def test_full_games_replayed_end_to_end(tmp_path, capsys, seed, profile_name, players):
    path = tmp_path / "game.jsonl"
    code, out = _run(capsys, "referee", "script", str(path), "--seed", str(seed), "--profile", profile_name,
                     "--players", str(players), "--json")
    summary = json.loads(out.out)
    assert code == 0
    code, out = _run(capsys, "referee", "replay", str(path), "--json")
    result = json.loads(out.out)
    assert code == 0 and result["mismatches"] == [] and result["state"]["stage"] == "over"
    kinds = [r["kind"] for r in result["rulings"]]
    assert kinds[-1] == "east_rotates" and "game_over" in kinds
    assert ("mahjong_verified" in kinds) == (summary["outcome"] == "mahjong")
    assert result["state"]["balances"] == summary["balances"]
    if profile_name == "nmjl":
        assert sum(result["state"]["balances"].values()) == 0  # payments are zero-sum


def test_replay_detects_a_journal_that_departs_from_the_rules(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    _run(capsys, "referee", "script", str(path), "--seed", "3", "--outcome", "mahjong")
    records = [json.loads(x) for x in path.read_text().splitlines()]
    for rec in records:
        for r in rec.get("rulings", []):
            if r["kind"] == "mahjong_verified":
                r["data"]["value"] = 1000
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, out = _run(capsys, "referee", "replay", str(path))
    assert code == 1 and "1 mismatches" in out.out
    event_line = next(i for i, rec in enumerate(records, 1) if rec.get("rulings") and any(
        r["kind"] == "mahjong_verified" for r in rec["rulings"])) - 1  # the event is the line before its rulings
    assert f"mismatch at {path}:{event_line} " in out.out
    code, out = _run(capsys, "referee", "apply", str(path), '{"type":"seat_change","t":999,"seat":0,"with_seat":1}')
    assert code == 0 and "1 journaled ruling(s) differ on replay" in out.err  # resumed, but not silently


def test_apply_reports_bad_event_json_with_position(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    _run(capsys, "referee", "new", str(path), "--profile", "mahjcon", "--players", "3")
    code, out = _run(capsys, "referee", "apply", str(path), '{"type":"deal","t":0}', '{"type":"dael","t":1}')
    assert code == 2 and "event 2: type: unknown event type 'dael'" in out.err
    assert "dealt" in out.out and "charleston_skipped" in out.out


def test_unreplayable_event_record_named_by_file_line(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    _run(capsys, "referee", "new", str(path))
    _run(capsys, "referee", "apply", str(path), '{"type":"deal","t":0}')
    with open(path, "a") as f:
        f.write('{"kind":"event","event":{"type":"pick","t":1}}\n')  # intact JSON, but no seat
    line = len(path.read_text().splitlines())
    for command in ("replay", "apply"):
        code, out = _run(capsys, "referee", command, str(path), *(['{"type":"rack","t":2,"seat":1}']
                                                                 if command == "apply" else []))
        assert code == 2 and f"{path}:{line}: event record cannot be replayed: pick.seat: missing" in out.err
    assert len(path.read_text().splitlines()) == line  # nothing appended after a journal it cannot follow


def test_journal_without_header_is_reported_not_silently_defaulted(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text('{"kind":"event","event":{"type":"deal","t":0}}\n')
    code, out = _run(capsys, "referee", "replay", "--json", str(path))
    result = json.loads(out.out)
    assert code == 0 and result["events"] == 1
    assert result["problems"] == [f"{path}: no header record: replaying with the sample card and the nmjl profile"]


def test_new_journal_refuses_unusable_card_or_profile_naming_the_file(tmp_path, capsys):
    binary = tmp_path / "binary.card"
    binary.write_bytes(b"card: x\n\xff\n")
    path = tmp_path / "game.jsonl"
    missing = tmp_path / "no.toml"
    for options, message in ((["--card", str(binary)], f"{binary}:2:1: not UTF-8 text"),
                             (["--card", str(tmp_path)], f"{tmp_path}: cannot read the card: Is a directory"),
                             (["--profile", str(missing)], f"{missing}: cannot read the profile: No such file")):
        code, out = _run(capsys, "referee", "new", str(path), *options)
        assert code == 2 and message in out.err
    assert not path.exists()  # nothing written for a game that cannot be refereed
