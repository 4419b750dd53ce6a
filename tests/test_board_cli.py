"""`mahj board check` and `mahj board signal` end to end (emulator and, when the AVR tools exist, simavr)."""

import json

import pytest

from assistant.cli import main
from hardware.rig import missing_tools


@pytest.mark.parametrize("port", ["sim", "simavr"])
def test_board_check_passes_and_reports_latency(port, capsys):
    if port == "simavr" and missing_tools():
        pytest.skip(f"simavr rig unavailable: {missing_tools()}")
    code = main(["board", "check", "--port", port, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert report["ok"] and report["board"]["protocol"] == 1
    names = {c["name"]: c["ok"] for c in report["checks"]}
    assert all(names.values()) and "duplicate not acted twice" in names and "host silence -> fail-safe" in names
    assert "button held -> HOLD" in names and "lost event -> replayed" in names
    kinds = {r.split(":")[0] for r in report["recoveries"]}
    assert {"failsafe", "board_reset", "reconnect", "event_gap"} <= kinds
    assert report["latency_ms"]["n"] >= 10 and report["latency_ms"]["p95"] < 10
    if port == "simavr":
        assert "Program:" in report["avr_size"] and report["board"]["firmware"] == "0.3.0"


def test_board_signal_shows_the_ruling(capsys):
    assert main(["board", "signal", "window_closed", "--port", "sim", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["window"] == "red" and out["applied"] and out["pins"].startswith("window red")
    assert main(["board", "signal", "turn", "--seat", "3", "--port", "sim"]) == 0
    assert "seats 0001" in capsys.readouterr().out
