"""What the page tests share: Debian's Chromium as playwright drives it, and the axe-core audit they hold every
page to (nothing serious or critical, and AAA contrast: 7:1, for low-vision players)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="needs the python playwright package")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
HERE = Path(__file__).parent
ARTIFACTS = HERE / "artifacts"
AXE = HERE / "vendor" / "axe-core" / "axe.min.js"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def axe_violations(page, artifact: str | None = None) -> list[tuple]:  # noqa: ANN001 -- a playwright Page
    """The page's serious or critical axe-core violations and any contrast under 7:1, as (rule, impact, targets);
    the whole axe answer is kept in tests/artifacts/``artifact`` when named."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "axe.run(document, {rules: {'color-contrast-enhanced': {enabled: true}}}).then(r => r.violations)")
    if artifact:
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / artifact).write_text(json.dumps(result, indent=1))
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in result
            if v["impact"] in ("serious", "critical") or v["id"] == "color-contrast-enhanced"]
