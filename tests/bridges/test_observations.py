"""The observation planes each encoding makes from its game's description of its boards are the
ones it made from the rules' bitboards: here the bitboard formulas, as a reference, against every
position of random games (and, where a move takes several actions, its pending ones), so a
policy trained on them stays valid."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bridges.encoding import Tensor, Turn, planes, top_row_first
from arbiter.bridges.encodings import encoding_for
from arbiter.games import GAME_NAMES, State, amazons, get_game, kings_court, watch_your_back


def kings_court_reference(turn: Turn) -> Tensor:
    state = turn.state
    visited = sum(1 << square for square in turn.pending)
    to_move = (1 << 64) - 1 if state.turn == 0 else 0
    return top_row_first([state.white, state.black, visited, to_move], kings_court.SIZE)


def war_of_life_reference(turn: Turn) -> Tensor:
    state = turn.state
    to_move = (1 << 64) - 1 if state.turn == 0 else 0
    return top_row_first([state.blue, state.red, to_move], 8)


def watch_your_back_reference(turn: Turn) -> Tensor:
    state = turn.state
    ones = (1 << 64) - 1
    boards = [
        state.white,
        state.black,
        watch_your_back.CORNERS[state.shrinks],
        watch_your_back.REMOVED[state.shrinks],
        ones if state.turn == 0 else 0,
        ones if state.ply < watch_your_back.PLACEMENTS else 0,
    ]
    return planes(boards, 64).reshape(len(boards), 8, 8)


def shobu_reference(turn: Turn) -> Tensor:
    state = turn.state
    to_move = (1 << 64) - 1 if state.turn == 0 else 0
    return planes([state.black, state.white, to_move], 64).reshape(3, 4, 4, 4)


def amazons_reference(turn: Turn) -> Tensor:
    state = turn.state
    action = encoding_for("amazons").tokens  # OpenSpiel's numbering is its own inverse
    white, black = state.white, state.black
    mover = 0
    if turn.pending:
        mover = amazons.BIT[action((turn.pending[0],))[0]]
    if len(turn.pending) > 1:
        mover ^= amazons.BIT[action((turn.pending[1],))[0]]
    if state.to_move:
        black ^= mover
    else:
        white ^= mover
    empty = amazons.FULL & ~(white | black | state.arrows)
    return top_row_first([empty, black, white, state.arrows], amazons.SIZE)


REFERENCES = {
    "kings-court": kings_court_reference,
    "war-of-life": war_of_life_reference,
    "watch-your-back": watch_your_back_reference,
    "shobu": shobu_reference,
    "amazons": amazons_reference,
}


def turns(name: str, seed: int, plies: int) -> list[Turn]:
    """A random game's positions, each also with every proper prefix of its move's actions."""
    game, encoding = get_game(name), encoding_for(name)
    rng = random.Random(seed)
    state: State[Any] = game.new_game(lambda: seed)
    found = []
    for _ in range(plies):
        if state.is_over():
            break
        move = state.random_move(rng)
        tokens = encoding.tokens(move)
        found.extend(Turn(state, tokens[:cut]) for cut in range(len(tokens)))
        state = state.play(move)
    found.append(Turn(state))
    return found


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(GAME_NAMES), st.integers(0, 10**6), st.integers(0, 200))
def test_each_observation_equals_the_bitboard_reference(name: str, seed: int, plies: int) -> None:
    encoding = encoding_for(name)
    for turn in turns(name, seed, plies):
        tensor = encoding.tensor(turn)
        reference = REFERENCES[name](turn)
        assert tensor.shape == encoding.tensor_shape
        assert tensor.dtype == np.float32
        assert np.array_equal(tensor, reference), (name, turn.state, turn.pending)
