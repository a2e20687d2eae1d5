"""The shape of the five rooms in figures: module and function sizes, largest first.

    python bench/code_shape.py [CHECKOUT]     # this checkout by default

A figure for reviews, not a test: it has no goal. Compare two commits with a worktree
(`git worktree add /tmp/before REV && python bench/code_shape.py /tmp/before`). Lines are the
lines of the file or of the function's definition, docstrings and comments included.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOMS = ("games", "protocol", "server", "client", "agents")


def sizes(checkout: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(lines, module) and (lines, function) over every module of the rooms, largest first."""
    modules, functions = [], []
    for room in ROOMS:
        for path in sorted((checkout / room).rglob("*.py")):
            text = path.read_text()
            where = path.relative_to(checkout)
            modules.append((len(text.splitlines()), str(where)))
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    functions.append((length, f"{where}:{node.lineno} {node.name}"))
    return sorted(modules, reverse=True), sorted(functions, reverse=True)


def main() -> None:
    checkout = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1])
    modules, functions = sizes(checkout)
    lengths = sorted(length for length, _ in functions)
    print(
        f"{len(modules)} modules, {sum(n for n, _ in modules)} lines;"
        f" {len(functions)} functions, median {lengths[len(lengths) // 2]} lines,"
        f" {sum(1 for n in lengths if n > 40)} over 40"
    )
    print("largest modules:")
    for length, name in modules[:8]:
        print(f"  {length:5}  {name}")
    print("largest functions:")
    for length, name in functions[:8]:
        print(f"  {length:5}  {name}")


if __name__ == "__main__":
    main()
