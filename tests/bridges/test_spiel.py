"""Our five games under OpenSpiel: its own conformance test, pickling, tensors, the action
encodings, and OpenSpiel's MCTSBot playing each game."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402

from arbiter.bridges import spiel  # noqa: E402
from arbiter.bridges.encoding import Turn  # noqa: E402
from arbiter.bridges.encodings import ENCODINGS  # noqa: E402
from arbiter.games import GAME_NAMES, State, get_game  # noqa: E402
from arbiter.games.watch_your_back import max_plies  # noqa: E402

GAMES = list(GAME_NAMES)


def random_positions(game_name: str, count: int, seed: int) -> list[State[Any]]:
    """Positions along one random game of ours (a War of Life start from the seed)."""
    game, rng = get_game(game_name), random.Random(seed)
    state = game.new_game(seed=seed) if game_name == "war-of-life" else game.new_game()
    positions = [state]
    while state.outcome() is None and len(positions) < count:
        state = state.play(rng.choice(state.legal_moves()))
        positions.append(state)
    return positions


@pytest.mark.parametrize("name", GAMES)
def test_openspiels_random_simulation_test_passes_with_serialisation(name: str) -> None:
    game = pyspiel.load_game(spiel.spiel_name(name))
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_every_legal_move_is_its_actions_and_back(name: str) -> None:
    encoding = ENCODINGS[name]
    for state in random_positions(name, 40, seed=7)[::4]:
        for move in state.legal_moves():
            tokens = encoding.tokens(move)
            assert all(0 <= token < encoding.num_actions for token in tokens)
            assert encoding.move_of(state, tokens) == move
            turn = Turn(state)
            for token in tokens:
                assert token in encoding.legal_actions(turn)
                turn = encoding.advance(turn, token)
            assert turn == Turn(state.play(move))
            if encoding.max_tokens == 1:
                assert encoding.move_of_action(tokens[0]) == move


@pytest.mark.parametrize("name", GAMES)
def test_states_pickle_and_deserialise_to_the_same_position(name: str) -> None:
    game = spiel.load(name)
    state = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(7):
        state.apply_action(rng.choice(state.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, state)
    _, restored = pyspiel.deserialize_game_and_state(text)
    assert str(restored) == str(state)
    assert restored.history() == state.history()
    assert str(pickle.loads(pickle.dumps(state))) == str(state)


@pytest.mark.parametrize("name", GAMES)
def test_observation_tensors_have_the_stated_shape_and_follow_the_board(name: str) -> None:
    game = spiel.load(name)
    encoding = ENCODINGS[name]
    state = game.new_initial_state()
    before = np.array(state.observation_tensor())
    assert before.shape == (int(np.prod(encoding.tensor_shape)),)
    assert set(np.unique(before)) <= {0.0, 1.0}
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    assert not np.array_equal(before, np.array(state.observation_tensor()))
    assert state.observation_string(0) == state.observation_string(1) == str(state)


def test_returns_are_per_player_and_a_double_forfeit_costs_both() -> None:
    game = spiel.load("kings-court", no_capture_limit=1)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0])
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert spiel.load("amazons").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


@pytest.mark.parametrize("name", GAMES)
def test_openspiels_mcts_bot_plays_each_game(name: str) -> None:
    """OpenSpiel's Python MCTSBot with its own random rollouts: a few legal decisions each."""
    game = spiel.load(name)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bot = mcts.MCTSBot(game, 2.0, 4, evaluator, random_state=np.random.RandomState(2))
    state = game.new_initial_state()
    for _ in range(4):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


@pytest.mark.parametrize("limit", [1, 64, 1000])
def test_watch_your_backs_length_bound_is_the_rules_own(limit: int) -> None:
    """No draw of the bridge's own: OpenSpiel's bound is `max_plies` under the game's limit."""
    game = spiel.load("watch-your-back", no_capture_limit=limit)
    assert game.max_game_length() == max_plies(limit)
