"""A Player module for the Game of the Amazons: a random legal move each turn. Copy it and improve.

The API is the original Watch Your Back! referee's, with moves as text in the game's notation
(docs/games/amazons.md), e.g. "d1-d7/g7" (amazon from d1 to d7, arrow to g7). `Player(colour)`
gets the seat name ("white" or "black"); `start(state)`, optional, gets the start position in
the game's data form before anything else; `action(turns)` returns a move, `turns` being the
number of moves played so far; `update(move)` hears each of the opponent's moves.

Arbiter's own rules engine keeps the board here (`games.amazons`): drop it and write your own if
you like, the adapter only sees the methods.

    arbiter referee amazons agents/templates/amazons.py random
    arbiter bot --server HOST:PORT --game amazons --player my_player.py
"""

import random
from typing import Any

from arbiter.games.amazons import GAME


class Player:
    def __init__(self, colour: str) -> None:
        self.colour = colour
        self.state: Any = None
        self.rng = random.Random()

    def start(self, state: dict[str, Any]) -> None:
        self.state = GAME.state_from_data(state)

    def action(self, turns: int) -> str:
        move = self.state.random_move(self.rng)
        self.state = self.state.play(move)
        return GAME.format_move(move)

    def update(self, move: str) -> None:
        self.state = self.state.play(GAME.parse_move(move))
