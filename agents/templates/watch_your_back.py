"""A Player module for Watch Your Back!: a random legal action each turn. Copy it and improve.

The API is the original course referee's, unchanged: `Player(colour)` with colour "white" or
"black"; `action(turns)` returns `(x, y)` to place a piece, `((xa, ya), (xb, yb))` to move one,
or `None` to forfeit a turn with no move; `update(action)` hears each of the opponent's actions.
`turns` counts the moves played so far in the current phase (placing, then moving).

Arbiter's own rules engine keeps the board here (`games.watch_your_back`): drop it and write
your own if you like, the adapter only sees the three methods.

    arbiter referee watch-your-back agents/templates/watch_your_back.py random
    arbiter bot --server HOST:PORT --game watch-your-back --player my_player.py
"""

import random

from arbiter.games.watch_your_back import GAME, PASS, Step

Action = tuple[int, int] | Step | None


class Player:
    def __init__(self, colour: str) -> None:
        self.colour = colour
        self.state = GAME.new_game()
        self.rng = random.Random()

    def action(self, turns: int) -> Action:
        move = self.rng.choice(self.state.legal_moves())
        self.state = self.state.play(move)
        return None if move is PASS else move

    def update(self, action: Action) -> None:
        self.state = self.state.play(PASS if action is None else action)
