"""The dependency direction of DEVELOPERS.md: engine imports nothing of ours; vision only engine and models."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {
    "engine": {"engine"},
    "vision": {"vision", "engine", "models"},
    "hardware": {"hardware"},
    # datasets/ is the training-side tool: it may reuse the runtime's preprocessing so both agree.
    "datasets": {"datasets", "engine", "vision", "models"},
}
OURS = {"engine", "vision", "hardware", "assistant", "datasets", "models"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names & OURS


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_dependency_direction(package):
    bad = []
    for path in (ROOT / package).rglob("*.py"):
        extra = _imports(path) - ALLOWED[package]
        if extra:
            bad.append(f"{path.relative_to(ROOT)} imports {sorted(extra)}")
    assert not bad, "\n".join(bad)
