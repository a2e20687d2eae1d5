"""Seed 001's War of Life strategies, on boards small enough to crank by hand.

Boards are row strings ('b' blue, 'r' red, '.' empty), the game's own data form. The worked
examples keep to the a1 corner, so they list only ranks 4 to 1 (`corner`); each first pins the
boards after the crank (the hand working), then the strategies' choices.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.agents import agents_for, make_agent
from arbiter.agents.war_of_life import (
    MinimaxStrategy,
    OnePlyStrategy,
    bloodlust,
    land_grab,
    self_preservation,
)
from arbiter.games import Seat, get_game
from arbiter.games.war_of_life import BLUE, GAME, RED, Move, WarOfLifeState

STRATEGIES = ("bloodlust", "self-preservation", "land-grab", "minimax")
UPPER_RANKS = ("........",) * 4


def corner(*ranks: str, ply: int = 0) -> WarOfLifeState:
    """A board whose pieces all sit on ranks 4 to 1 (given in that order); the rest is empty."""
    return WarOfLifeState.from_rows((*UPPER_RANKS, *ranks), ply)


def ranks_4_to_1(state: WarOfLifeState) -> tuple[str, ...]:
    """The corner a board's pieces stay in, to compare with the hand-cranked picture."""
    rows = state.rows()
    assert tuple(rows[:4]) == UPPER_RANKS
    return tuple(rows[4:])


def move(text: str) -> Move:
    return GAME.parse_move(text)


def choice(strategy: str, state: WarOfLifeState) -> str:
    return GAME.format_move(make_agent(strategy, GAME).choose(state, 1.0))


# Blue's a2 steps to a1, b2 or b3 (its other neighbours hold red), in that order.
THREE_WAYS = corner(
    "........",
    "r.......",
    "b.r.....",
    ".r......",
)


def test_three_ways_boards_after_the_crank() -> None:
    # a2-a1: a1 (1 neighbour), c2 (1) and a3 (0) die; b1 lives on a1 and c2;
    # a2 is born of a1, a3, b1: two red, so red. Blue 0, red 2.
    assert ranks_4_to_1(THREE_WAYS.play(move("a2-a1"))) == (
        "........",
        "........",
        "r.......",
        ".r......",
    )
    # a2-b2: b2 (a3, b1, c2), b1 and c2 (2 each) live, a3 (only b2) dies; a2, b3 and c1 each
    # have three neighbours, two of them red, so red is born there. Blue 1, red 5.
    assert ranks_4_to_1(THREE_WAYS.play(move("a2-b2"))) == (
        "........",
        ".r......",
        "rbr.....",
        ".rr.....",
    )
    # a2-b3: b3 (a3, c2) and c2 (b1, b3) live, b1 and a3 (1 each) die; a2 is born of a3, b1,
    # b3 (red); b2 has four neighbours, so nothing is born there. Blue 1, red 2.
    assert ranks_4_to_1(THREE_WAYS.play(move("a2-b3"))) == (
        "........",
        ".b......",
        "r.r.....",
        "........",
    )


def test_bloodlust_takes_the_first_move_leaving_fewest_red_pieces() -> None:
    # Red is left with 2, 5, 2 pieces: a2-a1 and a2-b3 tie and a2-a1 comes first, though it
    # leaves blue no piece at all: bloodlust ignores its own pieces.
    assert choice("bloodlust", THREE_WAYS) == "a2-a1"


def test_self_preservation_takes_the_first_move_keeping_most_blue_pieces() -> None:
    # Blue keeps 0, 1, 1 pieces: a2-b2 and a2-b3 tie and a2-b2 comes first.
    assert choice("self-preservation", THREE_WAYS) == "a2-b2"


def test_land_grab_maximises_own_minus_opponent_pieces() -> None:
    # Blue minus red: 0-2, 1-5, 1-2, so -2, -4, -1.
    assert choice("land-grab", THREE_WAYS) == "a2-b3"


def test_minimax_scores_a_finished_game_by_its_board_and_breaks_ties_by_move_order() -> None:
    # a2-a1 ends the game (blue has no piece), so no reply: its board scores -2.
    assert THREE_WAYS.play(move("a2-a1")).legal_moves() == []
    # After a2-b3, red's a2-b1 leaves only c2 and a newborn red b2: -2, no better than a2-a1.
    after_b3 = THREE_WAYS.play(move("a2-b3"))
    assert ranks_4_to_1(after_b3.play(move("a2-b1"))) == (
        "........",
        "........",
        ".rr.....",
        "........",
    )
    # a2-b2 is -4 before red even replies, and red's b1-a1 makes it -7.
    after_b2 = THREE_WAYS.play(move("a2-b2"))
    assert land_grab(after_b2.play(move("b1-a1")), BLUE) == -7
    assert choice("minimax", THREE_WAYS) == "a2-a1"


# Blue can play a1-b2, then a2-b2, a2-a3, a2-b3.
TRAP = corner(
    ".r......",
    "........",
    "b.......",
    "br......",
)


def test_trap_boards_after_the_crank() -> None:
    # a1-b2: a2, b2, b1 live (2 neighbours each), b4 dies alone; a1 (a2, b1, b2), a3 and b3
    # (a2, b2, b4) are born, each of two blue and one red: blue. Blue 5, red 1: +4.
    grab = TRAP.play(move("a1-b2"))
    assert ranks_4_to_1(grab) == ("........", "bb......", "bb......", "br......")
    # a2-b2: a1, b2, b1 live, b4 dies; a2 is born of a1, b1, b2: blue. Blue 3, red 1: +2.
    safe = TRAP.play(move("a2-b2"))
    assert ranks_4_to_1(safe) == ("........", "........", "bb......", "br......")
    # a2-a3 and a2-b3: every piece is alone or has one neighbour and dies; a2 and b2 are
    # born blue (of a1, b1 and the moved piece). Red is wiped out: blue wins 2-0, +2.
    for winning in ("a2-a3", "a2-b3"):
        assert ranks_4_to_1(TRAP.play(move(winning))) == (
            "........",
            "........",
            "bb......",
            "........",
        )


def test_trap_replies() -> None:
    grab = TRAP.play(move("a1-b2"))
    # Red's only piece b1 can go to c1 or c2. b1-c2 overcrowds a2, b2, b3 and c2 lives on b2
    # and b3, with a blue c3 born: blue 3, red 1, down from +4 to +2.
    assert ranks_4_to_1(grab.play(move("b1-c2"))) == (
        "........",
        "b.b.....",
        "..r.....",
        "b.......",
    )
    safe = TRAP.play(move("a2-b2"))
    # After a2-b2 red's piece dies alone either way: b1-c1 leaves blue 3 (+3); b1-c2 leaves
    # blue 4, with b3 born of a2, b2 and c2 (+4).
    assert ranks_4_to_1(safe.play(move("b1-c1"))) == (
        "........",
        "........",
        "bb......",
        "b.......",
    )
    assert ranks_4_to_1(safe.play(move("b1-c2"))) == (
        "........",
        ".b......",
        "bb......",
        "b.......",
    )


def test_land_grab_takes_the_biggest_margin_now() -> None:
    # +4, +2, +2, +2.
    assert choice("land-grab", TRAP) == "a1-b2"
    assert choice("self-preservation", TRAP) == "a1-b2"


def test_minimax_sees_the_reply_that_spoils_the_greedy_move() -> None:
    # Worst replies: a1-b2 +2 (b1-c2), a2-b2 +3 (b1-c1), a2-a3 and a2-b3 +2 (game over).
    assert choice("minimax", TRAP) == "a2-b2"


def test_bloodlust_ties_between_two_wins_go_to_the_first() -> None:
    # Red is left with 1, 1, 0, 0 pieces.
    assert choice("bloodlust", TRAP) == "a2-a3"


# Two lone blue pieces die whatever they do, and red's 2x2 block is a still life far away:
# every move leaves blue 0, red 4, so every strategy ties across all of blue's moves.
ALL_TIE = WarOfLifeState.from_rows(
    (
        "......rr",
        "......rr",
        "........",
        "........",
        "........",
        "........",
        "b.......",
        ".......b",
    )
)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_ties_go_to_the_lowest_source_square_then_the_lowest_target(strategy: str) -> None:
    # h1 (square 7) comes before a2 (square 8) although a2-a1 has the lowest target of all.
    assert {GAME.format_move(m) for m in ALL_TIE.legal_moves()} >= {"a2-a1", "h1-g1"}
    afters = [ALL_TIE.play(m) for m in ALL_TIE.legal_moves()]
    assert {(after.piece_count(BLUE), after.piece_count(RED)) for after in afters} == {(0, 4)}
    assert choice(strategy, ALL_TIE) == "h1-g1"


def test_red_scores_its_own_pieces() -> None:
    # The same corner with colours swapped and red to move: red's a2 faces the blue pieces.
    swapped = WarOfLifeState(THREE_WAYS.red, THREE_WAYS.blue, ply=1)
    assert [choice(name, swapped) for name in STRATEGIES] == ["a2-a1", "a2-b2", "a2-b3", "a2-a1"]


def test_registered_for_war_of_life_only() -> None:
    assert set(STRATEGIES) <= {info.name for info in agents_for("war-of-life")}
    assert not set(STRATEGIES) & {info.name for info in agents_for("kings-court")}


def test_a_finished_game_has_no_choice() -> None:
    finished = corner("........", "........", "b.......", "........")
    assert finished.outcome() is not None
    with pytest.raises(ValueError, match="game is over"):
        make_agent("land-grab", GAME).choose(finished, 1.0)


def test_strategies_refuse_other_games() -> None:
    other = get_game("kings-court").new_game()
    with pytest.raises(TypeError, match="War of Life"):
        OnePlyStrategy(land_grab).choose(other, 1.0)


def test_every_pairing_plays_legal_moves_to_the_end_reproducibly() -> None:
    def moves_of_game(blue: str, red: str) -> list[str]:
        # Agents built with different seeds: the strategies must not depend on them.
        seed = len(blue) * 7 + len(red)
        agents = [make_agent(blue, GAME, seed), make_agent(red, GAME, seed + 1)]
        state, played = GAME.new_game(seed=3), []
        while state.outcome() is None:
            chosen = agents[state.turn].choose(state, 1.0)
            assert state.why_illegal(chosen) is None
            played.append(GAME.format_move(chosen))
            state = state.play(chosen)
        return played

    for blue in STRATEGIES:
        for red in STRATEGIES:
            assert moves_of_game(blue, red) == moves_of_game(blue, red) != []


# -- Against a plain restatement of the seed's definitions -----------------------------------


def first_best(state: WarOfLifeState, value: Callable[[WarOfLifeState], int]) -> Move:
    """The first legal move of highest value: the definitions written as plainly as possible."""
    moves = state.legal_moves()
    values = [value(state.play(m)) for m in moves]
    return moves[values.index(max(values))]


def plain_minimax_value(board: WarOfLifeState, me: Seat) -> int:
    replies = board.legal_moves()
    if not replies:
        return land_grab(board, me)
    return min(land_grab(board.play(reply), me) for reply in replies)


def position(seed: int, plies: int, thin: int) -> WarOfLifeState:
    """A random start played on at random, then thinned so that sparse boards come up too."""
    state = GAME.new_game(seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if state.outcome() is not None:
            break
        state = state.play(state.random_move(rng))
    return WarOfLifeState(state.blue & ~thin, state.red & ~thin, state.ply)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 12),
    thin=st.integers(0, 2**64 - 1) | st.just(0),
)
def test_strategies_agree_with_the_plain_definitions(seed: int, plies: int, thin: int) -> None:
    state = position(seed, plies, thin)
    if state.outcome() is not None:
        return
    me, them = state.turn, 1 - state.turn
    assert state.piece_count(BLUE) + state.piece_count(RED) > 0
    expected = {
        "bloodlust": first_best(state, lambda b: -b.piece_count(them)),
        "self-preservation": first_best(state, lambda b: b.piece_count(me)),
        "land-grab": first_best(state, lambda b: b.piece_count(me) - b.piece_count(them)),
        "minimax": first_best(state, lambda b: plain_minimax_value(b, me)),
    }
    chosen = {
        "bloodlust": OnePlyStrategy(bloodlust).choose(state, 1.0),
        "self-preservation": OnePlyStrategy(self_preservation).choose(state, 1.0),
        "land-grab": OnePlyStrategy(land_grab).choose(state, 1.0),
        "minimax": MinimaxStrategy().choose(state, 1.0),
    }
    assert chosen == expected
