"""Boards as grids of cells: the drawing every game shares.

Coordinates on all four edges, a piece's colour taken from its seat, the last move's squares
marked with brackets (and reversed where there is colour): the game's description of its boards
says which symbol and owner each cell shows and which squares a move touches. Every cell is
three characters wide, so a marked cell `[w]` never overlaps its neighbour, and without colour
the brackets alone still show the last move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

Square = tuple[int, int]
"""(row, column) in a grid, row 0 at the top as drawn."""

MARK_STYLE = "reverse"
DIM_STYLE = "dim"
SEAT_STYLES = {
    "white": "bold bright_white",
    "black": "bold yellow",
    "blue": "bold bright_blue",
    "red": "bold bright_red",
}
"""A seat named for a colour gets a colour that reads on a dark or a light terminal; black
pieces are drawn yellow because black text vanishes on most terminals."""
FALLBACK_STYLES = ("bold bright_cyan", "bold yellow")


def seat_style(seats: Sequence[str], seat: int) -> str:
    """The colour a seat's pieces, name and clock are drawn in."""
    return SEAT_STYLES.get(seats[seat], FALLBACK_STYLES[seat])


@dataclass(frozen=True, slots=True)
class Cell:
    """What one square shows: a symbol, the seat owning it (a piece) and any extra style."""

    symbol: str
    owner: int | None = None
    style: str = ""


@dataclass(frozen=True, slots=True)
class Grid:
    """One board as drawn: cells row by row (top row first) and the labels of its edges."""

    cells: tuple[tuple[Cell, ...], ...]
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    title: str = ""
    marked: frozenset[Square] = frozenset()
    background: str = ""
    """A style under every cell, e.g. a Shobu board's dark or light wood."""

    @property
    def label_width(self) -> int:
        return max(len(label) for label in self.rows)

    @property
    def width(self) -> int:
        return 2 * self.label_width + 2 + 3 * len(self.columns)

    def lines(self, seats: Sequence[str]) -> list[Text]:
        """The title (if any), the column letters, one line per row, the letters again."""
        edge = Text(" " * (self.label_width + 1) + "".join(f" {c} " for c in self.columns))
        body = [self._row_line(index, seats) for index in range(len(self.rows))]
        title = [Text(self.title[: self.width], style="bold")] if self.title else []
        return [*title, edge, *body, edge.copy()]

    def _row_line(self, index: int, seats: Sequence[str]) -> Text:
        label = self.rows[index].rjust(self.label_width)
        line = Text(label + " ")
        for column, cell in enumerate(self.cells[index]):
            line.append_text(self._cell_text(cell, (index, column) in self.marked, seats))
        line.append(" " + self.rows[index])
        return line

    def _cell_text(self, cell: Cell, marked: bool, seats: Sequence[str]) -> Text:
        style = " ".join(
            part
            for part in (
                self.background,
                cell.style,
                "" if cell.owner is None else seat_style(seats, cell.owner),
                MARK_STYLE if marked else "",
            )
            if part
        )
        text = f"[{cell.symbol}]" if marked else f" {cell.symbol} "
        return Text(text, style=style)


Block = tuple[Grid, ...] | str
"""One band of a picture: boards side by side, or a line of text between bands."""

GAP = 4
"""Columns between boards drawn side by side."""


def picture_lines(picture: Sequence[Block], seats: Sequence[str]) -> list[Text]:
    """A picture's bands stacked, the boards of a band side by side, top-aligned."""
    lines: list[Text] = []
    for block in picture:
        if isinstance(block, str):
            lines.append(Text(block, style=DIM_STYLE))
            continue
        columns = [grid.lines(seats) for grid in block]
        height = max(len(column) for column in columns)
        for row in range(height):
            line = Text()
            for number, (grid, column) in enumerate(zip(block, columns, strict=True)):
                part = column[row] if row < len(column) else Text()
                part.pad_right(grid.width - part.cell_len)
                if number:
                    line.append(" " * GAP)
                line.append_text(part)
            line.rstrip()
            lines.append(line)
    return lines
