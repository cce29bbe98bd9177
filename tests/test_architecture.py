"""The import structure: no cycles inside ``opsagent/``, and the layers point one way.

Every import counts, including those inside functions and ``TYPE_CHECKING`` blocks: a lazy import
hides a cycle from Python, not from the person who has to untangle it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "opsagent"
BOTTOM = {"opsagent.contracts", "opsagent.errors"}
"""Shared by every layer; they import nothing of ours but each other."""
LOCAL_MODEL = "opsagent.local_model"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolve(name: str) -> str:
    """``opsagent.x.y`` as the module it names (a module file or a package)."""
    while name.count(".") > 0:
        path = ROOT.joinpath(*name.split("."))
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return name
        name = name.rsplit(".", 1)[0]
    return name


def imports_of(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        yield from (resolve(name) for name in names if name.startswith("opsagent"))


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        source = module_name(path)
        edges.setdefault(source, set()).update(target for target in imports_of(path) if target != source)
    return edges


def layer(module: str) -> str:
    """``opsagent.workflows.review`` → ``opsagent.workflows``; root modules are their own layer."""
    return ".".join(module.split(".")[:2])


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_modules() -> None:
    assert cycles(graph()) == []


def test_no_import_cycle_between_layers() -> None:
    layered: dict[str, set[str]] = {}
    for source, targets in graph().items():
        layered.setdefault(layer(source), set()).update(layer(target) for target in targets if layer(target) != layer(source))
    assert cycles(layered) == []


def test_contracts_and_errors_import_nothing_of_ours_but_each_other() -> None:
    bad = {source: sorted(target for target in targets if layer(target) not in BOTTOM)
           for source, targets in graph().items() if layer(source) in BOTTOM}
    assert {source: targets for source, targets in bad.items() if targets} == {}


def test_only_the_provider_factory_imports_the_offline_model() -> None:
    importers = {source for source, targets in graph().items()
                 if any(layer(target) == LOCAL_MODEL for target in targets) and layer(source) != LOCAL_MODEL}
    assert importers == {"opsagent.llm.providers"}


def test_the_checker_finds_a_cycle_when_there_is_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
