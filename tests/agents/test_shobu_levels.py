"""Shobu's difficulty levels: a higher level beats a lower one in most games."""

from __future__ import annotations

import pytest

from arbiter.agents import make_agent
from arbiter.games import get_game

GAMES = 4
"""Two with each level in each seat: a small sample, to keep the suite fast."""


def points_of_first(names: tuple[str, str], games: int) -> float:
    game = get_game("shobu")
    points = 0.0
    for number in range(games):
        seats = names if number % 2 == 0 else names[::-1]
        agents = [
            make_agent(name, game, seed=10 * number + seat) for seat, name in enumerate(seats)
        ]
        state = game.new_game()
        while (outcome := state.outcome()) is None:
            state = state.play(agents[state.turn].choose(state, 10.0))
        points += outcome.score(seats.index(names[0]))
    return points


@pytest.mark.long
@pytest.mark.parametrize(("higher", "lower"), [("medium", "easy"), ("hard", "medium")])
def test_a_higher_level_beats_a_lower_one_in_most_games(higher: str, lower: str) -> None:
    assert points_of_first((higher, lower), GAMES) > GAMES / 2
