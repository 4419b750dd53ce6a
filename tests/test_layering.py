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


def _module_graph(folder: str) -> dict[str, set[str]]:
    """module of ``folder`` -> the modules of ``folder`` it imports anywhere (at the top, under TYPE_CHECKING or in
    a function)."""
    graph: dict[str, set[str]] = {}
    for path in (ROOT / folder).rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        package = name if rel.name == "__init__" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    mod = f"{base}.{node.module}" if node.module else base
                else:
                    mod = node.module or ""
                deps.add(mod)
                deps.update(f"{mod}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[name] = deps
    return {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}


@pytest.mark.parametrize("folder", ["vision", "assistant/tournament"])
def test_no_import_cycles(folder):
    """Two modules importing each other (even for a type only) cannot be read or changed one at a time: the tile
    classifier and the tile model did, for Prototypes, which now has a module of its own; the tournament's store
    and reports did, for closing a round, which now has a module of its own (rounds)."""
    graph = _module_graph(folder)
    cycles = set()
    for start in graph:
        stack = [(start, (start,))]
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    cycles.add(" -> ".join(sorted(path)))
                elif nxt not in path and len(path) < 6:
                    stack.append((nxt, path + (nxt,)))
    assert not cycles, "\n".join(sorted(cycles))
