"""A watched session end to end through the real TableReader, journal, board emulator, display and annotated
video, on generated frames of an empty table (the tile model replaced by one that sees nothing, so this runs
without the shipped ONNX model); then a restart resumes the same journal without repeating anything."""

import json

import cv2
import numpy as np
import pytest

pytest.importorskip("vision.reader", reason="needs the table reader (issue 7)")
pytest.importorskip("assistant.journal", reason="needs the game journal (issue 3)")

from assistant.cli import main  # noqa: E402
from assistant.journal import read_journal, referee_from_header, replay  # noqa: E402
from vision.calibration import calibrate_from_points  # noqa: E402


class SeesNothing:
    def detect(self, frame):
        return []


@pytest.fixture()
def table(tmp_path, monkeypatch):
    monkeypatch.setattr("assistant.session.open_model", lambda _tile_set="": SeesNothing())
    frames = tmp_path / "frames"
    frames.mkdir()
    rng = np.random.default_rng(0)
    base = np.full((360, 480, 3), 90, np.uint8) + rng.integers(0, 6, (360, 480, 3), dtype=np.uint8)
    for i in range(12):
        cv2.imwrite(str(frames / f"{i:04d}.png"), base)
    cal = calibrate_from_points({0: (440, 320), 1: (440, 40), 2: (40, 40), 3: (40, 320)}, (480, 360),
                                source="manual")
    cal.save(tmp_path / "cal.json")
    profile = tmp_path / "mahj.toml"
    profile.write_text('[calibration]\nfile = "cal.json"\n[board]\nport = "sim"\n[speech]\nengine = "none"\n'
                       '[display]\nport = 0\n[seats]\neast = "Ada"\n', encoding="utf-8")
    return tmp_path, frames, profile


def _lines(capsys):
    return [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]


def test_watch_frames_then_resume(table, capsys):
    tmp, frames, profile = table
    journal = tmp / "game.jsonl"
    video = tmp / "annotated.mp4"
    argv = ["watch", "--frames", str(frames), "--profile", str(profile), "--journal", str(journal), "--json"]
    assert main([*argv, "--annotate", str(video)]) == 0
    out = _lines(capsys)
    assert any(o["type"] == "info" and o.get("url", "").startswith("http://127.0.0.1:") for o in out)
    assert [o["event"]["type"] for o in out if o["type"] == "event"] == ["deal"]  # assumed Charleston is quiet
    assert out[-1]["type"] == "summary" and out[-1]["frames"] == 12
    cap = cv2.VideoCapture(str(video))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == 12
    records = list(read_journal(journal))
    assert records[0]["kind"] == "header" and records[0]["card_text"]
    rulings, mismatches = replay(records, referee_from_header(records[0]))
    assert not mismatches and [r.kind for r in rulings][0] == "dealt"
    events_before = sum(r["kind"] == "event" for r in records)

    assert main(argv) == 0  # the same command again resumes the journal: no second deal
    out = _lines(capsys)
    assert any("resumed" in o.get("message", "") for o in out)
    records = list(read_journal(journal))
    assert sum(r["kind"] == "event" for r in records) == events_before
    assert sum(r["kind"] == "header" for r in records) == 1


def test_bad_source_and_profile_are_named(table, capsys):
    tmp, _, profile = table
    assert main(["watch", "--video", str(tmp / "missing.mp4"), "--profile", str(profile)]) == 2
    assert "missing.mp4: no such video file" in capsys.readouterr().err
    bad = tmp / "bad.toml"
    bad.write_text("[speech]\nrate = 'fast'\n")
    assert main(["watch", "--frames", str(tmp), "--profile", str(bad)]) == 2
    assert "bad.toml:2:" in capsys.readouterr().err
