"""A working random player that thinks for $ARBITER_TEST_LATE seconds on its third action
only: a client that answers one move too close to the limit."""

import os
import random
import time

from arbiter.games.watch_your_back import GAME, PASS, Step

Action = tuple[int, int] | Step | None


class Player:
    def __init__(self, colour: str) -> None:
        self.state = GAME.new_game()
        self.actions = 0

    def action(self, turns: int) -> Action:
        self.actions += 1
        if self.actions == 3:
            time.sleep(float(os.environ["ARBITER_TEST_LATE"]))
        move = random.choice(self.state.legal_moves())
        self.state = self.state.play(move)
        return None if move is PASS else move

    def update(self, action: Action) -> None:
        self.state = self.state.play(PASS if action is None else action)
