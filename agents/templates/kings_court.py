"""A Player module for King's Court: a random legal move each turn. Copy it and improve.

The API is the original Watch Your Back! referee's, with moves as text in the game's notation
(docs/games/kings-court.md), e.g. "B4C4" (a slide) or "A1A3C3" (two jumps). `Player(colour)`
gets the seat name ("white" or "black"); `start(state)`, optional, gets the start position in
the game's data form before anything else; `action(turns)` returns a move, `turns` being the
number of moves played so far; `update(move)` hears each of the opponent's moves.

Arbiter's own rules engine keeps the board here (`games.kings_court`): drop it and write your
own if you like, the adapter only sees the methods.

    arbiter referee kings-court agents/templates/kings_court.py random
    arbiter bot --server HOST:PORT --game kings-court --player my_player.py
"""

import random
from typing import Any

from arbiter.games.kings_court import GAME


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
