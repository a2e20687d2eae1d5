"""Properties every game must have, checked over random playouts of each registered game.

Hypothesis draws the playouts (so failures shrink to a short game). Along each game we keep the
moves that were legal in earlier positions: they are plausible but often illegal now, which makes
them good probes for the agreement between `legal_moves()` and `why_illegal()`.
"""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.games import GAME_NAMES, IllegalMoveError, get_game
from tests.conftest import volume_body

MAX_PLIES = 5000
PROBES_PER_POSITION = 40

playout_settings = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def random_start(name: str, seed: int) -> Any:
    return get_game(name).new_game(fresh_seed=lambda: seed)


@pytest.mark.parametrize("name", GAME_NAMES)
@playout_settings
@given(seed=st.integers(0, 2**32 - 1))
@volume_body
def test_playout_keeps_every_promise(name: str, seed: int) -> None:
    game = get_game(name)
    rng = random.Random(seed)
    state = random_start(name, seed)
    seen: list[Any] = []
    seen_set: set[Any] = set()
    for _ in range(MAX_PLIES):
        data = state.to_data()
        assert game.state_from_data(msgpack.unpackb(msgpack.packb(data))) == state
        moves = state.legal_moves()
        if state.outcome() is not None:
            assert moves == []
            return
        assert moves, "a game that is not over must offer a move"
        legal = set(moves)
        assert len(legal) == len(moves), "legal_moves() lists a move twice"
        texts = game.format_moves(moves)
        assert texts == [game.format_move(move) for move in moves]
        assert [game.parse_move(text) for text in texts] == moves
        for move in rng.sample(seen, min(len(seen), PROBES_PER_POSITION)):
            assert (state.why_illegal(move) is None) == (move in legal), game.format_move(move)
        for move in rng.sample(moves, min(len(moves), PROBES_PER_POSITION)):
            assert state.why_illegal(move) is None, game.format_move(move)
        for move in moves:
            if move not in seen_set:
                seen_set.add(move)
                seen.append(move)
        before = state
        state = state.apply(rng.choice(moves))
        assert state != before, "a move left the state unchanged"
    pytest.fail(f"{name}: no outcome after {MAX_PLIES} plies")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_finished_game_refuses_every_move(name: str) -> None:
    rng = random.Random(7)
    state = random_start(name, 7)
    history = []
    while state.outcome() is None:
        move = rng.choice(state.legal_moves())
        history.append(move)
        state = state.play(move)
    for move in history[-20:]:
        with pytest.raises(IllegalMoveError):
            state.apply(move)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_interface_metadata_is_complete(name: str) -> None:
    game = get_game(name)
    assert game.name == name
    assert len(game.seats) == 2
    assert game.seats[0] != game.seats[1]
    assert game.title
    assert game.notation_help
    start = random_start(name, 1)
    assert start.turn == 0
    assert start.ply == 0
    assert all(len(game.format_move(m)) <= game.max_move_text for m in start.legal_moves())
    assert start.render().strip()


def test_the_longest_game_any_option_allows_fits_one_message() -> None:
    """Every game's options are bounded so that its longest game fits a move list (65,536 moves):
    `game_over` and `watching` of any game can be built and sent."""
    from arbiter import protocol
    from arbiter.games import amazons, kings_court, shobu, war_of_life, watch_your_back

    assert kings_court.MAX_PLY <= protocol.MAX_ITEMS
    assert shobu.MAX_PLY <= protocol.MAX_ITEMS
    assert war_of_life.MAX_PLY <= protocol.MAX_ITEMS
    assert watch_your_back.MAX_PLY <= protocol.MAX_ITEMS
    for name in GAME_NAMES:  # the same through the interface, at each option's maximum
        game = get_game(name)
        longest = {option.name: option.maximum for option in game.options if option.maximum}
        assert game.max_plies(longest) <= protocol.MAX_ITEMS, name
    assert amazons.SIZE * amazons.SIZE <= protocol.MAX_ITEMS  # each move burns a square
    longest = ["A1A3A5A7C7C5C3C1E1E3E5E7G7G5G3G1"] * protocol.MAX_ITEMS  # 16 squares, no capture
    state = {"board": ["." * 8] * 8}
    over = protocol.GameOver(
        match=1, result="draw", winner=None, reason="long", state=state, moves=longest
    )
    assert len(protocol.encode_frame(over.to_wire())) < 4 * 1024 * 1024  # what our client takes
