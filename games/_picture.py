"""Text pictures of square boards, shared by the games' `render`."""

from __future__ import annotations

from collections.abc import Sequence


def framed_grid(
    rows: Sequence[str], columns: Sequence[str], number_width: int = 2, gap: int = 2
) -> list[str]:
    """`rows` (top row first, one character per square), with the column names above and below
    and the row numbers on both sides, counting down to 1 at the bottom; `number_width` and
    `gap` set the margins (a board of nine rows or fewer may take 1 and 1)."""
    margin = " " * gap
    header = " " * (number_width + gap) + " ".join(columns)
    lines = [header]
    for index, row in enumerate(rows):
        number = len(rows) - index
        cells = " ".join(row)
        lines.append(
            f"{number:>{number_width}}{margin}{cells}{margin}{number:<{number_width}}".rstrip()
        )
    lines.append(header)
    return lines
