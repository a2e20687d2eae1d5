"""Every game ends, whatever the players do: under a per-move limit alone (no game clock to run
out) only the rules can stop a game, so each game's rules must bound its length.

Each bound below is the longest game the rules allow at the default options, derived from the
game's own end rules (the derivation is beside each game's constant). 1,000 seeded random
playouts per game must end within it; so must playouts by a player that never eliminates a
piece when it can help it, the kind of play that kept a Watch Your Back! game going for 3.9
million plies before the "endless games" ruling. The playouts use the rules engines directly
(`random_move` and `play`), so the whole file takes a few seconds.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from arbiter.games import (
    GAME_NAMES,
    Result,
    get_game,
    kings_court,
    shobu,
    war_of_life,
    watch_your_back,
)
from tests.conftest import VOLUME

PLAYOUTS = 1000

BOUNDS = {
    # 48 capturing moves at most, each after at most `limit` quiet moves; one more stretch ends it.
    "kings-court": 49 * (kings_court.DEFAULT_NO_CAPTURE_LIMIT + 1),
    # 24 placements, 192 moves to the last shrink, then at most 9 stretches of `limit` moves.
    "watch-your-back": watch_your_back.max_plies(watch_your_back.NO_CAPTURE_LIMIT),
    # 250 moves, both players together.
    "war-of-life": war_of_life.MAX_PLY,
    # Every move burns a square with its arrow: 100 squares less the 8 amazons.
    "amazons": 100 - 8,
    # 25 pushes off a board at most, each after at most `limit` turns that push nothing.
    "shobu": 25 * (shobu.NO_CAPTURE_LIMIT + 1),
}
"""The longest game at the default options, in plies."""


def test_every_game_has_a_bound() -> None:
    assert sorted(BOUNDS) == sorted(GAME_NAMES)
    assert BOUNDS["watch-your-back"] == 24 + 192 + 9 * 64 == 792


@pytest.mark.parametrize("name", GAME_NAMES)
def test_each_game_states_the_bound_derived_here(name: str) -> None:
    """`Game.max_plies`, which tools ask (OpenSpiel's game length), is the bound above at the
    default options, whether the options are resolved or left out."""
    game = get_game(name)
    assert game.max_plies(game.resolve_options({}, fresh_seed=lambda: 1)) == BOUNDS[name]
    assert game.max_plies({}) == BOUNDS[name]


def start(name: str, seed: int) -> Any:
    return get_game(name).new_game(fresh_seed=lambda: seed)


@VOLUME
@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_thousand_random_games_end_within_the_bound(name: str) -> None:
    bound = BOUNDS[name]
    longest = 0
    results = set()
    for seed in range(PLAYOUTS):
        rng = random.Random(seed)
        state = start(name, seed)
        while (outcome := state.outcome()) is None:
            assert state.ply < bound, f"{name}: seed {seed} still going after {bound} plies"
            state = state.play(state.random_move(rng))
        longest = max(longest, state.ply)
        results.add(outcome.result)
    assert longest <= bound
    # a game whose rules forfeited both seats says it can (`Game.can_both_forfeit`)
    assert Result.BOTH_FORFEIT not in results or get_game(name).can_both_forfeit
    if name == "kings-court":  # its 50-move rule, met by random play
        assert Result.BOTH_FORFEIT in results
        assert get_game(name).can_both_forfeit


def peaceful_move(state: Any, rng: random.Random) -> Any:
    """A random move among those that eliminate no piece of either colour, if any exists."""
    pieces = state.piece_count(0) + state.piece_count(1)
    moves = state.legal_moves()
    rng.shuffle(moves)
    for move in moves:
        if state.play(move).piece_count(0) + state.play(move).piece_count(1) == pieces:
            return move
    return moves[0]


@pytest.mark.parametrize("name", ["watch-your-back", "kings-court", "shobu"])
def test_players_who_avoid_eliminations_still_end_within_the_bound(name: str) -> None:
    """The games with a no-capture rule: peaceful play must run into it, never past it."""
    bound = BOUNDS[name]
    for seed in range(20):
        rng = random.Random(seed)
        state = start(name, seed)
        while state.outcome() is None:
            assert state.ply < bound, f"{name}: seed {seed} still going after {bound} plies"
            state = state.play(peaceful_move(state, rng))
