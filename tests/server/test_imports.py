"""The server's modules import one another without a cycle, counting imports made only for the
type checker (as import-linter's acyclic-siblings contract does): each can be read, tested and
changed from the bottom up."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

SERVER = Path(__file__).parents[2] / "server"


def server_imports(module: Path) -> set[str]:
    """The sibling modules `module` imports, anywhere in it."""
    siblings = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module.startswith("arbiter.server."):
                siblings.add(node.module.split(".")[2])
            elif node.module == "arbiter.server":
                siblings.update(alias.name for alias in node.names)
    return siblings - {module.stem}


def test_server_modules_form_no_import_cycle() -> None:
    graph = {module.stem: server_imports(module) for module in SERVER.glob("*.py")}
    assert "session" in graph["lobby"] and "match" in graph["tournament"], "the graph is read"
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        raise AssertionError(f"import cycle: {' -> '.join(error.args[1])}") from None
