"""Places pieces until its fourth turn, then raises from a helper: a student's bug mid-game."""

from arbiter.games.watch_your_back import GAME, PASS, Step

Action = tuple[int, int] | Step | None


class Player:
    def __init__(self, colour: str) -> None:
        self.state = GAME.new_game()

    def action(self, turns: int) -> Action:
        if self.state.ply >= 6:
            return count_enemies(turns)
        move = self.state.legal_moves()[0]
        self.state = self.state.play(move)
        return None if move is PASS else move

    def update(self, action: Action) -> None:
        self.state = self.state.play(PASS if action is None else action)


def count_enemies(turns: int) -> Action:
    raise KeyError(f"no board cell for turn {turns}")
