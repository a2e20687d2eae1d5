"""Rules of the five games, pure and deterministic: no I/O, no clocks, standard library only.

Each game is one module defining a `Game` subclass, a `State` subclass and `GAME`, the instance
registered here; its `Game.boards` describes how its positions look (`_boards`), which
every drawing and observation of them is made from. Modules load on first use, so a process
that plays one game pays for one.
"""

from __future__ import annotations

import importlib
from typing import Any

from arbiter.games._base import (
    Game,
    GameError,
    IllegalMoveError,
    InvalidMoveError,
    Option,
    OptionError,
    Outcome,
    Result,
    Seat,
    State,
    StateDataError,
    Termination,
    as_tuples,
    describe_options,
)
from arbiter.games._boards import Area, Boards, BoardSquare, Grid, Piece, Shape, Shown

__all__ = [
    "GAME_NAMES",
    "Area",
    "BoardSquare",
    "Boards",
    "Game",
    "GameError",
    "Grid",
    "IllegalMoveError",
    "InvalidMoveError",
    "Option",
    "OptionError",
    "Outcome",
    "Piece",
    "Result",
    "Seat",
    "Shape",
    "Shown",
    "State",
    "StateDataError",
    "Termination",
    "all_games",
    "as_tuples",
    "describe_options",
    "get_game",
]

_MODULES = {
    "kings-court": "arbiter.games.kings_court",
    "watch-your-back": "arbiter.games.watch_your_back",
    "war-of-life": "arbiter.games.war_of_life",
    "amazons": "arbiter.games.amazons",
    "shobu": "arbiter.games.shobu",
}

GAME_NAMES: tuple[str, ...] = tuple(_MODULES)


def get_game(name: str) -> Game[Any, Any]:
    """The registered game called `name`, or `GameError` naming the games there are."""
    try:
        module_name = _MODULES[name]
    except KeyError:
        raise GameError(f"no game {name!r} (games: {', '.join(GAME_NAMES)})") from None
    game: Game[Any, Any] = importlib.import_module(module_name).GAME
    return game


def all_games() -> list[Game[Any, Any]]:
    return [get_game(name) for name in GAME_NAMES]
