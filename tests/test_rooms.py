"""The rooms' import rules (shared/DESIGN.md), read from the source: what each room may import,
anywhere in a module (a function's lazy import counts too), and no module-level import cycle
inside a room (TYPE_CHECKING imports count)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("games", "protocol", "server", "client", "agents")
STDLIB_ONLY = {"games": set(), "protocol": {"msgpack"}}
FORBIDDEN = {
    "agents": ("trio", "arbiter.server", "arbiter.client"),
    "server": ("arbiter.agents", "arbiter.client"),
}
CLIENT_DOOR = "arbiter.server.app"


def modules() -> dict[str, Path]:
    found = {}
    for room in ROOMS:
        for path in (ROOT / room).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found["arbiter." + ".".join(parts)] = path
    return found


MODULES = modules()


def imported(nodes: Iterator[ast.AST]) -> Iterator[str]:
    """Absolute module names (a `from package import submodule` names the submodule)."""
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                yield name if name in MODULES else node.module


def module_level(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Import statements run at import time: the body, and inside `if` (TYPE_CHECKING too)
    and `try` blocks; not inside functions or classes."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            yield from module_level(node.body)
            yield from module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                yield from module_level(block)
            for handler in node.handlers:
                yield from module_level(handler.body)


def room_of(module: str) -> str:
    return module.split(".")[1]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_what_its_room_may(module: str) -> None:
    room = room_of(module)
    tree = ast.parse(MODULES[module].read_text())
    for name in imported(ast.walk(tree)):
        top = name.split(".")[0]
        if room in STDLIB_ONLY and top != "__future__":
            allowed = name.startswith(f"arbiter.{room}") or top in STDLIB_ONLY[room]
            assert allowed or top in sys.stdlib_module_names, f"{module} imports {name}"
        for prefix in FORBIDDEN.get(room, ()):
            assert not name.startswith(prefix), f"{module} imports {name}"
        if room == "client" and name.startswith("arbiter.server"):
            assert name == CLIENT_DOOR, f"{module} imports {name}: only {CLIENT_DOOR}"


@pytest.mark.parametrize("room", ["games", "protocol", "client", "agents"])
def test_no_import_cycle_inside_a_room(room: str) -> None:
    graph = {
        module: {
            name
            for name in imported(module_level(ast.parse(path.read_text()).body))
            if name in MODULES and name != module and room_of(name) == room
        }
        for module, path in MODULES.items()
        if room_of(module) == room
    }
    cycle = _find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle as the path that closes it, or None (depth-first, three colours)."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        path.append(module)
        for name in sorted(graph[module]):
            if (cycle := visit(name)) is not None:
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in sorted(graph):
        if (cycle := visit(module)) is not None:
            return cycle
    return None
