"""Each game's boards as the terminal client draws them, from the game's own description.

A game says in games/ what its boards are (`Game.boards`: grids, labels, what each character of
its data form shows, which squares a move touches, its counters); this draws any such
description as text grids (`grid`), so no game needs drawing code here. Drawing works from
`State.to_data()` (documented in docs/games/<game>.md), never from a rules module's internals.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from arbiter.client.play.boards.grid import GAP, Block, Cell, Grid, Square
from arbiter.games import Boards, Shown, get_game

__all__ = ["Drawing", "Position", "drawing_for"]

Position = Shown
"""What a drawing needs: the position's data, and the move that led to it if it was seen."""


class Drawing:
    """How one game's positions look on a terminal: its boards, piece counts and counters."""

    def __init__(self, boards: Boards) -> None:
        self.boards = boards

    def picture(self, position: Position) -> list[Block]:
        """The boards to draw in bands, the last move's squares marked on their grids."""
        boards, move = self.boards, position.move
        marks: dict[int, set[Square]] = {}
        for square in boards.move_squares(move) if move else ():
            marks.setdefault(square.grid, set()).add((square.row, square.column))
        if boards.step_titles is not None and position.before is not None and move is not None:
            return [self._step_beside(position, frozenset(marks.get(0, ())))]
        picture: list[Block] = []
        for number, band in enumerate(boards.bands):
            grids = tuple(
                self.grid(index, boards.grids[index].cells(position.data), marks.get(index, set()))
                for index in band
            )
            if number and boards.separator:
                picture.append(_separator(boards.separator, picture[-1]))
            picture.append(grids)
        return picture

    def _step_beside(self, position: Position, marked: frozenset[Square]) -> tuple[Grid, ...]:
        """The mover's step alone beside the position the rules made of it."""
        assert position.before is not None
        assert position.move is not None
        before_title, after_title = self.boards.step_titles or ("", "")
        mover = "" if position.mover is None else f"{position.seats[position.mover]} "
        stepped = self.boards.stepped(position.before, position.move)
        after = self.boards.grids[0].cells(position.data)
        return (
            self.grid(0, stepped, marked, f"{mover}{position.move}, {before_title}"),
            self.grid(0, after, marked, after_title),
        )

    def grid(
        self,
        index: int,
        rows: Sequence[str],
        marked: set[Square] | frozenset[Square],
        title: str = "",
    ) -> Grid:
        """Grid `index` of the game showing `rows`."""
        described = self.boards.grids[index]
        cells = tuple(
            tuple(self._cell(index, row, column, char) for column, char in enumerate(cells))
            for row, cells in enumerate(rows)
        )
        return Grid(
            cells,
            described.columns,
            described.rows,
            title or described.title,
            frozenset(marked),
            described.style,
        )

    def _cell(self, index: int, row: int, column: int, char: str) -> Cell:
        piece = self.boards.piece(char)
        area = self.boards.grids[index].area(row, column)
        if area is None:
            return Cell(piece.shown, piece.owner, piece.style)
        style = " ".join(part for part in (piece.style, area.style) if part)
        return Cell(area.symbols.get(char, piece.shown), piece.owner, style)

    def pieces(self, data: Mapping[str, Any]) -> list[int]:
        """Pieces on the boards per seat."""
        return self.boards.counts(data)

    def facts(self, position: Position) -> list[str]:
        """Short lines of counters a player should keep an eye on (phase, move limits)."""
        return self.boards.facts(position)


def _separator(name: str, band: Block) -> str:
    """A line as wide as the band above it, named at its end (Shobu's rope)."""
    grids = band if isinstance(band, tuple) else ()
    width = sum(grid.width for grid in grids) + GAP * (len(grids) - 1)
    return "~" * (width - 1) + " " + name


@functools.cache
def drawing_for(game_name: str) -> Drawing:
    """The drawing of a game, by the game's registry name."""
    return Drawing(get_game(game_name).boards)
