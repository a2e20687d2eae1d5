"""What a page needs to draw a game's boards and to click its moves, from the game's own
description of its boards (`Game.boards`): the description as JSON, and the squares of moves by
the names the boards give them. A page then draws and offers moves knowing no game.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

from arbiter.games import Game, get_game


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


@functools.cache
def boards_json(game_name: str) -> str:
    """The description of a game's boards as a page draws from it, the same for every match."""
    return compact(get_game(game_name).boards.to_data())


SQUARES_KEPT = 1 << 16
"""Moves whose squares are kept as JSON: a page starting to watch is sent the squares of the
latest moves, most of which the pages before it were sent too."""


@functools.lru_cache(maxsize=SQUARES_KEPT)
def _squares(game_name: str, move: str) -> str:
    return compact(get_game(game_name).boards.square_names(move))


def squares_json(game: Game[Any, Any], move: str) -> str:
    """The names of the squares `move` touches: the last move marked on the board."""
    return _squares(game.name, move)


def each_squares_json(game: Game[Any, Any], moves: Iterable[str]) -> str:
    """The squares of each move of a match, in order."""
    return "[" + ",".join(_squares(game.name, move) for move in moves) + "]"


def paths_json(game: Game[Any, Any], legal: Iterable[str]) -> str:
    """For each legal move, the squares a person clicks to make it, in order."""
    return compact([game.boards.click_names(move) for move in legal])
