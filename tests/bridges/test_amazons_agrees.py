"""Our Amazons and OpenSpiel's C++ `amazons` agree: over 2,000 random games, the legal actions
of every phase of every move, when the game ends, who wins, and the final observation tensor.
It takes about 18 s of CPU (30-40 s of wall time on a loaded 2-core machine)."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from arbiter.bridges import spiel  # noqa: E402
from arbiter.bridges.encoding import Turn  # noqa: E402
from arbiter.bridges.encodings import encoding_for  # noqa: E402
from arbiter.bridges.encodings.amazons import action  # noqa: E402
from tests.conftest import VOLUME  # noqa: E402

GAMES = 2000
CLOSE_LOOK_EVERY = 20
"""Every 20th game also compares the boards as text and each position's whole move list (from
`legal_moves`, not the phase-by-phase scans) with OpenSpiel's first phase."""


@VOLUME
@pytest.mark.long
def test_two_thousand_random_games_agree_with_openspiels_amazons() -> None:
    theirs_game, ours_game = pyspiel.load_game("amazons"), spiel.load("amazons")
    encoding = encoding_for("amazons")
    rng = random.Random(19)
    for number in range(GAMES):
        theirs, ours = theirs_game.new_initial_state(), ours_game.new_initial_state()
        while not theirs.is_terminal():
            assert not ours.is_terminal()
            legal = theirs.legal_actions()
            assert ours.legal_actions() == legal
            if not ours.turn.pending and number % CLOSE_LOOK_EVERY == 0:
                assert str(ours) == str(theirs)
                whole = {encoding.tokens(move)[0] for move in ours.turn.state.legal_moves()}
                assert sorted(whole) == legal
            choice = rng.choice(legal)
            theirs.apply_action(choice)
            ours.apply_action(choice)
        assert ours.is_terminal()
        assert ours.returns() == theirs.returns()
        assert ours.observation_tensor(0) == theirs.observation_tensor(0)


def test_a_move_mid_way_looks_as_openspiel_shows_it() -> None:
    theirs, ours = pyspiel.load_game("amazons").new_initial_state(), spiel.load("amazons")
    state = ours.new_initial_state()
    for token in (action(3), action(63)):  # d1 lifted, then put down on d7
        theirs.apply_action(token)
        state.apply_action(token)
        assert str(state) == str(theirs)
        assert state.observation_tensor() == theirs.observation_tensor()
    assert state.turn == Turn(state.turn.state, (action(3), action(63)))
