"""Plays Watch Your Back! at random and writes every call it receives, one JSON line each, to
the file named by $ARBITER_TEST_LOG: the tests read back exactly what the adapter passed."""

import json
import os
import random

from arbiter.games.watch_your_back import GAME, PASS, Step

Action = tuple[int, int] | Step | None


class Player:
    def __init__(self, colour: str) -> None:
        self.state = GAME.new_game()
        self.rng = random.Random(7)
        self.log("init", colour)

    def action(self, turns: int) -> Action:
        move = self.rng.choice(self.state.legal_moves())
        self.state = self.state.play(move)
        action = None if move is PASS else move
        self.log("action", turns, action)
        return action

    def update(self, action: Action) -> None:
        self.log("update", action)
        self.state = self.state.play(PASS if action is None else action)

    def log(self, *call: object) -> None:
        with open(os.environ["ARBITER_TEST_LOG"], "a") as log:
            log.write(json.dumps(call) + "\n")
