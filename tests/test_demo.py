"""`mahj demo` end to end on the bundled recording: events and rulings printed with the board's LEDs, the display
URL, a verified Mah Jongg and the settlement, the journal (replayable) and the annotated video.

By default the demo reads tiles with the shipped ONNX tile model; `--detector oracle` serves the recording's true
tile boxes instead, so the rest of the chain is checked apart from the model's errors.
"""

import json

import cv2
import pytest

pytest.importorskip("vision.reader", reason="needs the table reader (issue 7)")

from assistant.annotate import RESULT_S  # noqa: E402
from assistant.cli import main  # noqa: E402
from assistant.commands.demo import DEMO_RECORDING  # noqa: E402
from assistant.journal import read_journal, referee_from_header, replay  # noqa: E402

pytestmark = pytest.mark.skipif(not DEMO_RECORDING.exists(), reason=f"no demo recording at {DEMO_RECORDING}")
MODEL = DEMO_RECORDING.parents[3] / "models" / "tile_detector.onnx"


def _check_outputs(out_dir, text, mahjong=True):
    assert "display: http://127.0.0.1:" in text
    assert "board: window GREEN" in text and "board: window RED" in text
    summary = json.loads((out_dir / "summary.json").read_text())
    if mahjong:
        assert "MAH JONGG verified" in text and "\nsettlement: " in text
        assert summary["mahjong"]["kind"] == "mahjong_verified" and summary["settlement"]["data"]["payments"]
    records = list(read_journal(out_dir / "journal.jsonl"))
    _, mismatches = replay(records, referee_from_header(records[0]))
    assert not mismatches
    cap = cv2.VideoCapture(str(out_dir / "annotated.mp4"))
    held = round(RESULT_S * cap.get(cv2.CAP_PROP_FPS)) if mahjong else 0  # the video ends on the result
    assert cap.get(cv2.CAP_PROP_FRAME_COUNT) == summary["frames"] + held and summary["frames"] > 100
    return summary


def test_demo_with_oracle_detector(tmp_path, capsys):
    import time

    began = time.monotonic()
    assert main(["demo", "--out", str(tmp_path), "--no-speech", "--detector", "oracle"]) == 0
    took = time.monotonic() - began
    text = capsys.readouterr().out
    assert "tiles: the recording's true tile boxes" in text
    # Run from a script the display ends with the demo: said before it starts and once it has stopped (issue 43)
    assert "display: stops when the demo ends" in text and "display: stopped (http" in text
    summary = _check_outputs(tmp_path, text)
    assert 0 < summary["seconds"] <= took  # the session's own time, not the clock since boot
    assert summary["events_before_recording"] > 0 and summary["detector"] == "oracle"


@pytest.mark.skipif(not MODEL.exists(), reason="the tile model is not trained/shipped in this checkout")
def test_demo_with_the_shipped_model(tmp_path, capsys):
    """The README's first command: the shipped model reads the recording well enough for the verified Mah Jongg
    and the same settlement as the true boxes give."""
    assert main(["demo", "--out", str(tmp_path), "--no-speech"]) == 0
    text = capsys.readouterr().out
    assert "tiles: read by the shipped tile model" in text
    summary = _check_outputs(tmp_path, text)
    assert summary["detector"] == "model" and summary["mahjong"]["seat"] == 2
    assert summary["settlement"]["data"]["payments"] == {"0": -50, "1": -25, "2": 100, "3": -25}


def test_demo_json_lines(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--no-speech", "--no-display", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    kinds = {x["type"] for x in lines}
    assert {"event", "ruling", "board", "summary"} <= kinds
    assert lines[-1]["mahjong"]["data"]["value"] > 0


def test_the_display_outlives_the_demo_for_a_person_at_a_terminal(monkeypatch):
    """Issue 33: the printed link stayed alive ten seconds; at a terminal it now lasts until Ctrl-C, from a
    script (or with --json or no display) the demo ends with the game, and --linger S still says how long."""
    import argparse
    import math
    import sys

    from assistant.commands.demo import linger_for

    def args(**kw):
        return argparse.Namespace(**({"linger": None, "json": False, "no_display": False} | kw))

    for stream in ("stdin", "stdout"):
        monkeypatch.setattr(getattr(sys, stream), "isatty", lambda: True, raising=False)
    assert linger_for(args()) == math.inf
    assert linger_for(args(json=True)) == 0 and linger_for(args(no_display=True)) == 0
    assert linger_for(args(linger=5.0)) == 5.0
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)
    assert linger_for(args()) == 0
