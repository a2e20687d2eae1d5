"""What a game's positions look like, described once, beside its rules.

A game is played on one or more square grids whose rows are strings in its data form
(`State.to_data()`, one character per square, top row first). `Boards` says where those rows
are, how the grids are labelled and laid out, what each character shows (a piece of a seat, a
burnt or removed square), which squares a move touches and which lines of counters a person
should see. The terminal client draws its text boards from it, the web pages their SVG boards,
and the OpenSpiel bridge its observation planes, so a game that describes its boards needs no
drawing or encoding code anywhere else.

Looks are named here too (a terminal style, a web colour) because how a game is usually shown
is part of the game: a burnt Amazons square is dark, the Court of King's Court is shaded. Both
drawers read the same words, and nothing here imports more than the standard library.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

Owner = int | None
"""The seat a piece belongs to (0 moves first), or None for a mark that is nobody's."""

INK = "#222"
"""The outline of pieces drawn on the web, unless a piece says otherwise."""
DIM = "dim"
"""The terminal style of an empty square: the pieces stand out."""


class Shape(enum.StrEnum):
    """How the web draws a piece on its square."""

    STONE = "stone"
    AMAZON = "amazon"
    CROSS = "cross"


@dataclass(frozen=True, slots=True)
class Piece:
    """What one character of the rows shows: on a terminal a symbol in the owner's colour (plus
    `style`), on the web a `shape` filled and outlined, on a square coloured `ground` when the
    piece changes the square itself (a burnt or removed one)."""

    char: str
    owner: Owner = None
    symbol: str = ""
    """The terminal's symbol; the character itself when empty."""
    style: str = ""
    shape: Shape | None = None
    fill: str = ""
    stroke: str = INK
    ground: str = ""

    @property
    def shown(self) -> str:
        return self.symbol or self.char


@dataclass(frozen=True, slots=True)
class Area:
    """A block of squares with a ground of its own (King's Court's Court): on the web `ground`,
    on a terminal `style` under each square and `symbols` recoding its characters, so the block
    shows without colour too."""

    rows: range
    columns: range
    ground: str
    style: str
    symbols: Mapping[str, str] = field(default_factory=dict)

    def holds(self, row: int, column: int) -> bool:
        return row in self.rows and column in self.columns


@dataclass(frozen=True, slots=True)
class Grid:
    """One square board: where its rows are in the data form, the labels of its columns and of
    its rows (top row first, as drawn), and the colour of its squares."""

    path: tuple[str, ...]
    """The keys leading to its rows in the data form: `("board",)`, `("boards", "white-dark")`."""
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    ground: tuple[str, ...]
    """The web colour of its squares: one, or two alternating as on a chessboard (the top left
    square takes the first)."""
    style: str = ""
    """A terminal style under every square (a Shobu board's wood)."""
    title: str = ""
    prefix: str = ""
    """Put before a square's name when a game has several grids (`bd:` names `bd:a1`)."""
    areas: tuple[Area, ...] = ()

    def cells(self, data: Mapping[str, Any]) -> list[str]:
        """Its rows in `data`."""
        found: Any = data
        for key in self.path:
            found = found[key]
        rows: list[str] = found
        return rows

    def area(self, row: int, column: int) -> Area | None:
        return next((area for area in self.areas if area.holds(row, column)), None)

    def ground_of(self, row: int, column: int) -> str:
        """The web colour of a square, before any piece on it colours it."""
        area = self.area(row, column)
        if area is not None:
            return area.ground
        return self.ground[(row + column) % len(self.ground)]

    def name(self, row: int, column: int) -> str:
        """A square's name in the notation: column label, then row label."""
        return f"{self.prefix}{self.columns[column]}{self.rows[row]}"


class BoardSquare(NamedTuple):
    """A square of a game's boards: its grid's index in `Boards.grids`, its row (0 at the top
    as drawn) and its column."""

    grid: int
    row: int
    column: int


@dataclass(frozen=True, slots=True)
class Shown:
    """A position as a person is shown it: the data, and the move to it when that was seen
    being played (`before` is the data the move was played on)."""

    seats: tuple[str, str]
    data: Mapping[str, Any]
    before: Mapping[str, Any] | None = None
    move: str | None = None
    mover: int | None = None


@dataclass(frozen=True)
class Boards:
    """A game's boards. A game whose moves name squares in one grid as column then row
    (`d1-d7/g7`) says only how to find them (`square_pattern`); another overrides
    `move_squares`. Counters a person should watch are `facts`."""

    grids: tuple[Grid, ...]
    pieces: tuple[Piece, ...]
    bands: tuple[tuple[int, ...], ...] = ((0,),)
    """The grids drawn side by side in each band, bands top to bottom."""
    separator: str = ""
    """The name of a line drawn between bands (Shobu's rope)."""
    square_pattern: re.Pattern[str] | None = None
    """Finds each square a move's text names, in order: group 1 the column, group 2 the row."""
    clicks: int | None = None
    """How many of a move's squares a person clicks to choose it (all when None)."""
    planes: tuple[str, ...] = ()
    """The observation's planes, each marking the squares holding one of these characters."""
    plane_grids: tuple[int, ...] = (0,)
    """The grids in the order the observation stacks them."""
    planes_bottom_up: bool = False
    """Whether the observation's rows count from the bottom row up, as the rules number them."""
    empty: str = "."
    """The character of an empty square."""
    step_titles: tuple[str, str] | None = None
    """For a game whose rules change the board after the mover's step (War of Life's crank):
    the mover's step alone is drawn beside the position, titled with the first words, the
    position with the second."""

    def piece(self, char: str) -> Piece:
        return self._pieces[char]

    @functools.cached_property
    def _pieces(self) -> dict[str, Piece]:
        return {piece.char: piece for piece in self.pieces}

    def move_squares(self, move: str) -> list[BoardSquare]:
        """The squares `move` (canonical notation) touches, in the order it names them."""
        if self.square_pattern is None:
            return []
        grid = self.grids[0]
        return [
            BoardSquare(0, grid.rows.index(row), grid.columns.index(column))
            for column, row in self.square_pattern.findall(move)
        ]

    def click_path(self, move: str) -> list[BoardSquare]:
        """The squares a person clicks to make `move`, in order; none for a pass."""
        return self.move_squares(move)[: self.clicks]

    def square_name(self, square: BoardSquare) -> str:
        return self.grids[square.grid].name(square.row, square.column)

    def square_names(self, move: str) -> list[str]:
        """The names of the squares `move` touches (`bd:a1` on a board of several)."""
        return [self.square_name(square) for square in self.move_squares(move)]

    def click_names(self, move: str) -> list[str]:
        """The names of the squares a person clicks to make `move`."""
        return [self.square_name(square) for square in self.click_path(move)]

    def rows(self, data: Mapping[str, Any]) -> list[list[str]]:
        """Each grid's rows in `data`."""
        return [grid.cells(data) for grid in self.grids]

    def counts(self, data: Mapping[str, Any], seats: int = 2) -> list[int]:
        """Pieces on the boards per seat."""
        totals = [0] * seats
        for rows in self.rows(data):
            for seat, count in enumerate(self.owner_counts(rows, seats)):
                totals[seat] += count
        return totals

    def owner_counts(self, rows: Sequence[str], seats: int = 2) -> list[int]:
        """Pieces in `rows` (one grid) per seat."""
        counts = [0] * seats
        pieces = self._pieces
        for row in rows:
            for char in row:
                owner = pieces[char].owner
                if owner is not None:
                    counts[owner] += 1
        return counts

    def stepped(self, before: Mapping[str, Any], move: str) -> list[str]:
        """The first grid of `before` with the piece on the move's first square stepped to its
        second: the board as the mover's step leaves it, before the rules' own change."""
        rows = self.grids[0].cells(before)
        squares = self.move_squares(move)
        if len(squares) != 2:
            return rows
        cells = [list(row) for row in rows]
        (_, from_row, from_column), (_, to_row, to_column) = squares
        cells[to_row][to_column] = cells[from_row][from_column]
        cells[from_row][from_column] = self.empty
        return ["".join(row) for row in cells]

    def facts(self, shown: Shown) -> list[str]:
        """Short lines of counters a person should keep an eye on (a phase, a move limit)."""
        return []

    def to_data(self) -> dict[str, Any]:
        """What a web page draws with, as plain data: the grids, the pieces by character, the
        bands and the separator."""
        return {
            "grids": [
                {
                    "path": list(grid.path),
                    "columns": list(grid.columns),
                    "rows": list(grid.rows),
                    "title": grid.title,
                    "prefix": grid.prefix,
                    "ground": [
                        [grid.ground_of(row, column) for column in range(len(grid.columns))]
                        for row in range(len(grid.rows))
                    ],
                }
                for grid in self.grids
            ],
            "pieces": {
                piece.char: {
                    "shape": piece.shape,
                    "fill": piece.fill,
                    "stroke": piece.stroke,
                    "ground": piece.ground,
                }
                for piece in self.pieces
            },
            "bands": [list(band) for band in self.bands],
            "separator": self.separator,
        }
