"""The assistant's benches run, on short recordings, so they cannot rot unnoticed (issue 43: bench_assistant.py
crashed on main, counting the primed journal's rulings as window closes). Their figures are the benches' to
report (they depend on the machine's load); here they must run and measure something real."""

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "datasets" / "video" / "fixtures"
sys.path.insert(0, str(ROOT / "bench"))


def test_bench_assistant_measures_rack_to_led_on_the_demo_recording():
    import bench_assistant

    video = FIXTURES / "demo.mp4"
    run = bench_assistant.bench_pipeline(video, video.with_suffix(".truth.jsonl"), oracle=True)
    pooled = bench_assistant.pooled([run])
    # two racks closed a window in the recording, both signalled (the primed game's closes are not counted)
    assert run["racks_in_truth"] == 2 and pooled["racks_measured"] == 2 and pooled["racks_missed"] == 0
    assert all(x > 0 for x in run["latencies_ms"]) and run["mahjong"] == 25


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="needs espeak-ng (apt install espeak-ng)")
def test_bench_speech_listens_to_a_whole_recording():
    import bench_speech

    run = bench_speech.run_recording(FIXTURES / "demo.mp4", model=False, press_every=4.0)
    s = bench_speech.summary([run])
    assert run["outcome"] == "mahjong_verified" and s["mahjong"] == 1 and s["mahjong_unheard"] == 0
    assert s["discards"] == 3 and s["discard_to_speech_ms"]["max"] is not None
    assert set(run["discard_to_speech_kept_up_ms"]) <= set(run["discard_to_speech_ms"])
    assert s["answers"] >= 2 and s["sentences_checked"] >= 5
    assert set(bench_speech.verdicts(s)) and any("ruling mahjong_verified" in line for line in run["timeline"])


def test_bench_speech_matches_each_discard_to_its_own_announcement():
    """A discard cut short by an answer and said again after it passed for the next discard (-468 ms)."""
    import bench_speech

    landed = [(1.0, "E"), (10.0, "1C")]
    announced = [(1.1, "North player, East wind"), (9.8, "North player, East wind"),  # said again, after an answer
                 (10.4, "East player, One Crak")]
    assert [round(x) for x in bench_speech.discard_latencies(landed, announced)] == [100, 400]
    assert bench_speech.discard_latencies([(1.0, "3B")], announced) == [None]
