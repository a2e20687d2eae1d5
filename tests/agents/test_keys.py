"""`State.key()`, the transposition table's key: equal positions, equal keys; equal keys, one game.

Every game packs its state into one exact int, so two positions with one key must have the same
future: the same moves, leading to positions with the same keys, and the same outcome.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from arbiter.games import GAME_NAMES, get_game
from arbiter.games.kings_court import KingsCourtState


def positions(name: str, games: int, seed: int) -> list[Any]:
    game, rng = get_game(name), random.Random(seed)
    seen = []
    for _ in range(games):
        state = game.new_game(fresh_seed=lambda: rng.getrandbits(16))
        while state.outcome() is None:
            seen.append(state)
            state = state.play(state.random_move(rng))
        seen.append(state)
    return seen


@pytest.mark.parametrize("name", GAME_NAMES)
def test_positions_with_one_key_have_one_future(name: str) -> None:
    by_key: dict[int, Any] = {}
    for state in positions(name, 20, seed=3):
        assert isinstance(state.key(), int)
        twin = by_key.setdefault(state.key(), state)
        assert twin.turn == state.turn
        assert twin.outcome() == state.outcome()
        moves = state.legal_moves()
        assert twin.legal_moves() == moves
        for move in moves[:5]:
            assert twin.play(move).key() == state.play(move).key()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_different_positions_have_different_keys(name: str) -> None:
    """Over whole games, no two positions differing in their data share a key (unless the
    difference is one the future ignores, as King's Court's ply past the opening)."""
    keys: dict[int, Any] = {}
    for state in positions(name, 10, seed=4):
        other = keys.setdefault(state.key(), state)
        if other is not state and other != state:
            assert name == "kings-court"
            assert other.ply % 2 == state.ply % 2
            assert (other.white, other.black) == (state.white, state.black)


def test_kings_court_forgets_the_ply_past_the_opening_only() -> None:
    rows = ["b.......", "........", "........", "........", "..wb....", "........", "........"]
    late = [KingsCourtState.from_rows([*rows, "w......b"], ply=ply) for ply in (10, 12, 11)]
    assert late[0].key() == late[1].key() != late[2].key()
    assert len({KingsCourtState(0, 0, ply, 0).key() for ply in range(6)}) == 6
