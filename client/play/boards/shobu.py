"""Shobu on screen: all four boards, each titled by owner and colour (`black-dark (bd)`), White's
homeboards across the rope from Black's, the wood's colour as background where there is colour,
and both halves of the last turn marked on their boards."""

from __future__ import annotations

from typing import Any

from arbiter.client.play.boards import Drawing, Position
from arbiter.client.play.boards.grid import Block, Cell, Grid, Square, grid_from_rows, owner_counts

CELLS = {"B": Cell("B", 0), "W": Cell("W", 1), ".": Cell(".", None, "dim")}
COLUMNS = tuple("abcd")
ROWS = tuple("4321")
"""Row 4, White's side, is drawn first: Black sits at the bottom of the screen."""
CODES = {"bd": "black-dark", "bl": "black-light", "wd": "white-dark", "wl": "white-light"}
BANDS = (("white-dark", "white-light"), ("black-dark", "black-light"))
WOOD = {"dark": "on grey19", "light": "on grey42"}
STEPS = {
    "n": (-1, 0),
    "ne": (-1, 1),
    "e": (0, 1),
    "se": (1, 1),
    "s": (1, 0),
    "sw": (1, -1),
    "w": (0, -1),
    "nw": (-1, -1),
}
"""Grid steps (row, column) per compass point; north is up, toward White's side."""
ROPE = "~" * 35 + " rope"
"""As wide as the two boards of a band."""


class ShobuDrawing(Drawing):
    def picture(self, position: Position) -> list[Block]:
        marks = _marks(position.move) if position.move else {}
        boards: dict[str, list[str]] = position.data["boards"]
        top, bottom = (
            tuple(_grid(name, boards[name], marks.get(name, frozenset())) for name in band)
            for band in BANDS
        )
        return [top, ROPE, bottom]

    def pieces(self, data: dict[str, Any]) -> list[int]:
        counts = [0, 0]
        for rows in data["boards"].values():
            for seat, count in enumerate(owner_counts(rows, CELLS)):
                counts[seat] += count
        return counts

    def facts(self, position: Position) -> list[str]:
        data = position.data
        per_board = {
            code: owner_counts(data["boards"][name], CELLS) for code, name in CODES.items()
        }
        lines = [
            f"{seat} stones: " + " ".join(f"{code} {per_board[code][index]}" for code in CODES)
            for index, seat in enumerate(position.seats)
        ]
        lines.append(
            f"no capture for {data['since_capture']} turns (limit {data['no_capture_limit']})"
        )
        return lines


def _grid(name: str, rows: list[str], marked: frozenset[Square]) -> Grid:
    code = next(code for code, full in CODES.items() if full == name)
    grid = grid_from_rows(rows, CELLS, COLUMNS, ROWS, marked=marked, title=f"{name} ({code})")
    return Grid(grid.cells, grid.columns, grid.rows, grid.title, marked, WOOD[name.split("-")[1]])


def _marks(move: str) -> dict[str, frozenset[Square]]:
    """Each half of a turn marked on its own board: the stone's square and where it went."""
    words = move.split()
    if len(words) != 3 or words[2][:-1] not in STEPS or not words[2][-1].isdigit():
        return {}
    (step_row, step_column), distance = STEPS[words[2][:-1]], int(words[2][-1])
    marks: dict[str, set[Square]] = {}
    for word in words[:2]:
        board, column, row = CODES.get(word[:2]), word[2:3], word[3:4]
        if board is None or column not in COLUMNS or row not in ROWS:
            return {}
        start = (ROWS.index(row), COLUMNS.index(column))
        end = (start[0] + step_row * distance, start[1] + step_column * distance)
        marks.setdefault(board, set()).update({start, end})
    return {board: frozenset(squares) for board, squares in marks.items()}


DRAWING = ShobuDrawing()
