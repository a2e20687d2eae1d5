"""Text pictures of square boards, shared by the games' `render`."""

from __future__ import annotations

from collections.abc import Sequence


def framed_grid(rows: Sequence[str], columns: Sequence[str]) -> list[str]:
    """`rows` (top row first, one character per square), with the column names above and below
    and the row numbers on both sides, counting down to 1 at the bottom."""
    header = "    " + " ".join(columns)
    lines = [header]
    for index, row in enumerate(rows):
        number = len(rows) - index
        lines.append(f"{number:>2}  {' '.join(row)}  {number:<2}".rstrip())
    lines.append(header)
    return lines
