"""The code base stays ruff clean (DEVELOPERS.md)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed: pip install -e '.[test]'")
def test_ruff_clean():
    result = subprocess.run(["ruff", "check", str(ROOT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
