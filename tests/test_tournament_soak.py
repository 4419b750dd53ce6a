"""bench/soak_tournament.py, small (6 tables, 2 rounds of 2 games), on SQLite and PostgreSQL, so that the soak
cannot rot: it runs a real server and must pass every one of its checks (disputes decided once from two
stations, every acknowledged result counted once through forced closes, standings = its recomputation)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tournament_kit import BACKENDS, postgres_base

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_small_soak_passes_every_check(backend):
    db = "sqlite" if backend == "sqlite" else postgres_base()
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "soak_tournament.py"), "--db", db, "--tables", "6",
                          "--rounds", "2", "--games", "2", "--late", "0.34", "--workers", "2", "--json"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["problems"] == [] and out["tables"] == 6 and out["counts"]["disputes"] == 2
    assert out["counts"]["late_counted"] + out["counts"]["late_refused"] == 2 * 2  # two late tables a round
    assert out["timed_requests"] >= 6 * 2 * 2 - 4 and out["peak_rss_mb"] > 0
