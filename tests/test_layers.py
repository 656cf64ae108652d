"""The package's layers: every import points down, and no modules import each other in a ring.

Read from the source (every ``import``, including those under ``TYPE_CHECKING`` and inside
functions), so a new upward import or cycle fails here with the line to change.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "threadwise"

# Top to bottom; one row is one layer, whose parts may import each other (but not in a ring).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli", "client"),
    ("services", "doctor"),
    ("api",),
    ("serving",),
    ("jobs",),
    ("superpowers",),
    ("engines", "text", "auth", "organizations", "webhooks", "db"),
    ("work_queue", "metrics", "cache", "ttl_cache", "shared_redis", "payload", "deadlines", "logs"),
    ("errors", "config"),
    ("protocol",),
    ("__init__",),
)
RANK = {part: len(LAYERS) - depth for depth, row in enumerate(LAYERS) for part in row}
# Below, but reached only through the layer between: the transport asks serving, which asks
# the superpowers and engines.
SKIPPED = {"api": {"superpowers", "engines"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str) -> Iterator[tuple[str, int]]:
    """The package's modules that ``name`` imports, with the line of each import."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                target = f"{base}.{alias.name}"
                target = target if target in MODULES else base
                if target in MODULES and target != name:
                    yield target, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.name != name:
                    yield alias.name, node.lineno


GRAPH = {name: sorted(set(imports(name))) for name in MODULES}


def part(name: str) -> str:
    """The layer table's entry for a module: ``threadwise.api.deps`` → ``api``."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_module_has_a_layer() -> None:
    missing = sorted({part(name) for name in MODULES} - RANK.keys())
    assert not missing, f"add {missing} to a row of LAYERS in {__file__}"


def test_imports_point_down() -> None:
    upward = [
        f"{MODULES[name].relative_to(PACKAGE.parent)}:{line} imports {target} "
        f"({part(target)} is above {part(name)})"
        for name, targets in GRAPH.items()
        for target, line in targets
        if RANK.get(part(target), 0) > RANK.get(part(name), 0)
    ]
    assert not upward, "\n".join(upward)


def test_the_transport_goes_through_serving() -> None:
    reaching = [
        f"{MODULES[name].relative_to(PACKAGE.parent)}:{line} imports {target} "
        f"(reach it through threadwise.serving)"
        for name, targets in GRAPH.items()
        for target, line in targets
        if part(target) in SKIPPED.get(part(name), set())
    ]
    assert not reaching, "\n".join(reaching)


def rings(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("level", ["modules", "packages"])
def test_no_cycles(level: str) -> None:
    if level == "modules":
        edges = {name: {target for target, _ in targets} for name, targets in GRAPH.items()}
    else:
        edges = {}
        for name, targets in GRAPH.items():
            for target, _ in targets:
                if part(target) != part(name):
                    edges.setdefault(part(name), set()).add(part(target))
    assert not rings(edges), f"import cycles between {level}: {rings(edges)}"


def test_the_checks_see_an_upward_import() -> None:
    """The graph is read right: a known downward import is there, in the right direction."""
    assert any(target == "threadwise.protocol" for target, _ in GRAPH["threadwise.errors"])
