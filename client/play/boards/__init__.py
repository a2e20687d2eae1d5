"""Each game's board as the terminal client draws it, from the state's data form.

Drawing works from `State.to_data()` (documented in docs/games/<game>.md), never from a game
module's internals, so a rules module can change its representation without breaking the
screen. Everything games share (coordinates, colours by seat, the last move, piece counts) is
in `grid`; a game's module says what its cells are, which squares a move touches, and what else
a player needs to see (War of Life's board before the crank, Shobu's four boards).
"""

from __future__ import annotations

import importlib
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from arbiter.client.play.boards.grid import Block, Cell, Grid, Square, grid_from_rows, owner_counts

__all__ = ["BoardDrawing", "Drawing", "Position", "drawing_for"]


@dataclass(frozen=True, slots=True)
class Position:
    """What a drawing needs: the position's data, and the move that led to it if known."""

    seats: tuple[str, str]
    data: dict[str, Any]
    before: dict[str, Any] | None = None
    """The data before `move`, when the client saw the move being played."""
    move: str | None = None
    """The last move, in canonical notation."""
    mover: int | None = None


class Drawing(ABC):
    """How one game's positions look: the boards, piece counts and counters."""

    @abstractmethod
    def picture(self, position: Position) -> list[Block]:
        """The boards to draw, the last move marked."""

    @abstractmethod
    def pieces(self, data: dict[str, Any]) -> list[int]:
        """Pieces on the board per seat."""

    def facts(self, position: Position) -> list[str]:
        """Short lines of counters a player should keep an eye on (phase, move limits)."""
        return []


class BoardDrawing(Drawing):
    """A game played on one board whose data form is `board`: row strings, top row first."""

    cell_of: ClassVar[dict[str, Cell]]
    columns: ClassVar[tuple[str, ...]]
    row_labels: ClassVar[tuple[str, ...]]
    square_pattern: ClassVar[re.Pattern[str]]
    """Finds each square named in a move's text: group 1 the column, group 2 the row."""

    def rows(self, data: dict[str, Any]) -> list[str]:
        """The row strings to draw; a game may recode cells (King's Court's Court squares)."""
        board: list[str] = data["board"]
        return board

    def squares(self, move: str) -> list[Square]:
        """The squares `move` names, as grid positions."""
        return [
            (self.row_labels.index(row), self.columns.index(column))
            for column, row in self.square_pattern.findall(move)
        ]

    def grid(self, rows: list[str], move: str | None, title: str = "") -> Grid:
        marked = frozenset(self.squares(move)) if move else frozenset()
        return grid_from_rows(
            rows, self.cell_of, self.columns, self.row_labels, marked=marked, title=title
        )

    def picture(self, position: Position) -> list[Block]:
        return [(self.grid(self.rows(position.data), position.move),)]

    def pieces(self, data: dict[str, Any]) -> list[int]:
        return owner_counts(self.rows(data), self.cell_of)


_MODULES = {
    "kings-court": "arbiter.client.play.boards.kings_court",
    "watch-your-back": "arbiter.client.play.boards.watch_your_back",
    "war-of-life": "arbiter.client.play.boards.war_of_life",
    "amazons": "arbiter.client.play.boards.amazons",
    "shobu": "arbiter.client.play.boards.shobu",
}


def drawing_for(game_name: str) -> Drawing:
    """The drawing of a game, by the game's registry name."""
    drawing: Drawing = importlib.import_module(_MODULES[game_name]).DRAWING
    return drawing
