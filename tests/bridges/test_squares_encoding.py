"""The encoding any game gets from its description of its boards (`squares`), tried on the five
games as if each were new: every legal move has actions of its own, a random game played by
actions alone reaches the positions the rules reach, and the observation has its stated shape."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bridges.encoding import Turn
from arbiter.bridges.encodings.squares import squares_encoding
from arbiter.games import GAME_NAMES, State, get_game


@pytest.mark.long
@settings(max_examples=20, deadline=None)
@given(st.sampled_from(GAME_NAMES), st.integers(0, 10**6), st.integers(0, 60))
def test_a_random_game_played_by_square_actions_follows_the_rules(
    name: str, seed: int, plies: int
) -> None:
    game, encoding = get_game(name), squares_encoding(name)
    rng = random.Random(seed)
    state: State[Any] = game.new_game(lambda: seed)
    for _ in range(plies):
        if state.is_over():
            break
        legal = state.legal_moves()
        assert len({encoding.tokens(move) for move in legal}) == len(legal)
        move = rng.choice(legal)
        turn = Turn(state)
        for action in encoding.tokens(move):
            assert action in encoding.legal_actions(turn)
            assert 0 <= action < encoding.num_actions
            assert encoding.action_name(action)
            turn = encoding.advance(turn, action)
        assert not turn.pending
        assert turn.state == state.play(move)
        assert len(encoding.tokens(move)) <= encoding.max_tokens
        state = turn.state
        assert encoding.tensor(Turn(state)).shape == encoding.tensor_shape


def test_actions_are_named_by_their_squares_then_end() -> None:
    encoding = squares_encoding("shobu")
    game = get_game("shobu")
    move = game.parse_move("bda1 wla1 n2")
    names = [encoding.action_name(action) for action in encoding.tokens(move)]
    assert names == ["bd:a1", "bd:a3", "wl:a1", "wl:a3", "end"]
    assert encoding.num_actions == 4 * 16 + 1
    assert encoding.tensor_shape == (3, 4, 4, 4)
