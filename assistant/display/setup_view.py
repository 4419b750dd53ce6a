"""What the table display shows while ``mahj setup tiles`` runs: each box of the mat as the last capture saw it,
what to fix, and at the end how sure the learned set is (issue 32).

The same page and server as a game: a player setting up looks at the screen they will play by, and the page
shows the set-up panel alone while the snapshot carries ``setup``. Built from plain JSON (the command turns its
captures into it), so this module needs nothing from ``vision``.
"""

from __future__ import annotations

from typing import Any

from assistant.display.state import TableView

#: What the page says for each state of a box (``vision.enroll.STATES``), and the CSS class that colours it.
STATE_WORDS = {"tile": ("tile", "ok"), "empty": ("empty", "empty"), "two tiles": ("two tiles", "problem"),
               "face down": ("face down", "problem"), "off centre": ("off its box", "problem"),
               "unclear": ("unclear", "problem")}


def cell_json(label: str, name: str, state: str) -> dict[str, str]:
    """One box for the page: its printed label ("3 Bam"), its full name ("sheet 1, 3 Bam") and what lies there."""
    words, kind = STATE_WORDS[state]
    return {"label": label, "name": name, "state": state, "words": words, "kind": kind}


def setup_snapshot(set_name: str, step: str, capture: dict[str, Any] | None = None,
                   report: dict[str, Any] | None = None, error: str = "") -> dict[str, Any]:
    """A display snapshot for the set-up: ``capture`` as ``{"name", "sheets": [{"sheet", "rows": [[cell_json]]}],
    "problems", "doubts"}``; ``report``: ``{"sure": {level: [labels]}, "alike": [advice], "checked", "tiles",
    "seconds"}`` once learned; ``error``: why nothing was learned."""
    return TableView().snapshot() | {
        "status": f"Teaching mahj your tiles: {step}",
        "setup": {"set": set_name, "step": step, "capture": capture, "report": report, "error": error},
    }
