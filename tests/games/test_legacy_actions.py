"""The original referee's Player API form of each game's moves (`Game.legacy_action` and its
inverse): every legal move of sampled positions goes there and back, through JSON as the Player
module's pipe carries it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.games import GAME_NAMES, InvalidMoveError, as_tuples, get_game
from arbiter.games.watch_your_back import PASS, PLACEMENTS


def sample_position(name: str, seed: int, plies: int) -> Any:
    """A position `plies` random moves into a game (fewer if it ends first)."""
    game = get_game(name)
    rng = random.Random(seed)
    state = game.new_game(fresh_seed=lambda: seed)
    for _ in range(plies):
        if state.is_over():
            break
        state = state.play(state.random_move(rng))
    return state


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), plies=st.integers(0, 80))
def test_every_legal_move_round_trips_through_the_legacy_form(
    name: str, seed: int, plies: int
) -> None:
    game = get_game(name)
    state = sample_position(name, seed, plies)
    for move in [] if state.is_over() else state.legal_moves():
        action = game.legacy_action(move)
        assert game.parse_legacy_action(action) == move
        over_the_pipe = json.loads(json.dumps(action))
        assert game.parse_legacy_action(over_the_pipe) == move


def test_watch_your_back_speaks_tuples_and_none_and_counts_turns_per_phase() -> None:
    game = get_game("watch-your-back")
    assert not game.legacy_start
    assert game.legacy_action(PASS) is None
    assert game.parse_legacy_action(None) is PASS
    assert game.legacy_action(game.parse_move("3,4-3,5")) == ((3, 4), (3, 5))
    assert game.parse_legacy_action([[3, 4], [3, 5]]) == ((3, 4), (3, 5))
    moving = sample_position("watch-your-back", 1, PLACEMENTS + 3)
    assert (moving.ply, game.legacy_turns(moving)) == (PLACEMENTS + 3, 3)
    assert game.legacy_turns(sample_position("watch-your-back", 1, 5)) == 5


@pytest.mark.parametrize("action", [{"x": 1}, [9, 9], "3,4", 3.5, [[1, 2]]])
def test_watch_your_back_refuses_what_is_no_action(action: Any) -> None:
    with pytest.raises(InvalidMoveError, match="not a Watch Your Back! action"):
        get_game("watch-your-back").parse_legacy_action(action)


@pytest.mark.parametrize("name", [name for name in GAME_NAMES if name != "watch-your-back"])
def test_other_games_use_their_notation_and_count_every_move(name: str) -> None:
    game = get_game(name)
    state = sample_position(name, 2, 4)
    move = state.legal_moves()[0]
    assert game.legacy_start
    assert game.legacy_action(move) == game.format_move(move)
    assert game.legacy_turns(state) == state.ply
    with pytest.raises(InvalidMoveError, match="not a move in"):
        game.parse_legacy_action(["a", "b"])


def test_as_tuples_turns_lists_back_into_tuples_all_the_way_down() -> None:
    assert as_tuples([[1, 2], [3, [4]]]) == ((1, 2), (3, (4,)))
    assert as_tuples("ab") == "ab"
    assert as_tuples(None) is None
