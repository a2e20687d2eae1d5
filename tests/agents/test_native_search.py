"""The compiled alpha-beta below the root against the Python one it mirrors: the same answers.

For every game with a search in agents/native/, fixed-depth searches of seeded and random
positions, and of the last plies of random games (where children end the game), must give the
same move, score, depth and node count on both paths: the compiled one the agent picks, and the
Python `_Tree`, which the agent runs when handed an evaluation (here the game's own, so both
evaluate alike). A search stopped by its deadline, bad arguments and the clock are tested on the
compiled search itself. The skip when no search is built turns into a failure under `CI`.
"""

from __future__ import annotations

import functools
import os
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arbiter.agents.evaluation import evaluation_for
from arbiter.agents.search import AlphaBetaAgent, MCTSAgent, alphabeta
from arbiter.agents.search.alphabeta import (
    INFINITY,
    NULL_WINDOW,
    TABLE_LIMIT,
    CompiledModule,
    _Tree,
    compiled_search,
)
from arbiter.games import Game, get_game
from tests.agents.positions import KINGS_COURT_LONG_JUMP, KINGS_COURT_MAZE, sample
from tests.agents.test_every_agent import STALL
from tests.conftest import TIMED

NATIVE = sorted(
    path.stem.replace("_", "-")
    for path in (Path(__file__).parents[2] / "agents" / "native").glob("*.c")
)
"""The games with a compiled search."""

FULL_DEPTH = {"kings-court": 4, "watch-your-back": 4, "war-of-life": 4, "amazons": 2, "shobu": 4}
"""The depths bench/search.py searches at, on its positions."""
SHALLOW = {"amazons": (1, 2)}
"""Depths for the further positions (1 to 3 where it takes no more than a second or two)."""


def compiled_or_skip(game: Game[Any, Any]) -> CompiledModule:
    module = compiled_search(game)
    if module is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{game.name} has no compiled search, and CI must build it")
        pytest.skip(f"{game.name}'s compiled search is not built (no compiler?)")
    return module


def searched(state: Any, depth: int, seed: int, compiled: bool) -> tuple[Any, ...]:
    """(move, score, depth, nodes) of a fixed-depth search on one path."""
    game = state.game
    evaluation = None if compiled else evaluation_for(game)
    agent = AlphaBetaAgent(game, seed, max_depth=depth, evaluation=evaluation)
    assert (agent._compiled is not None) == compiled
    agent.choose(state, 3600.0)
    assert agent.last is not None
    return agent.last.move, agent.last.score, agent.last.depth, agent.last.nodes


def assert_alike(state: Any, depth: int, seed: int) -> None:
    ours, reference = searched(state, depth, seed, True), searched(state, depth, seed, False)
    assert ours == reference, f"depth {depth} of {state!r}: compiled {ours}, Python {reference}"


def last_plies(name: str, games: int, plies: int) -> list[Any]:
    """The last `plies` unfinished positions of `games` seeded random games."""
    found: list[Any] = []
    for seed in range(games):
        rng = random.Random(seed)
        state = get_game(name).new_game(fresh_seed=functools.partial(int, seed))
        path = []
        while state.outcome() is None:
            path.append(state)
            state = state.play(state.random_move(rng))
        found += path[-plies:]
    return found


@pytest.mark.parametrize("name", NATIVE)
def test_bench_positions_at_the_bench_depth_search_alike(name: str) -> None:
    compiled_or_skip(get_game(name))
    for seed, state in enumerate(sample(name, 4)):
        assert_alike(state, FULL_DEPTH[name], seed)


@pytest.mark.parametrize("name", NATIVE)
def test_random_positions_at_shallow_depths_search_alike(name: str) -> None:
    compiled_or_skip(get_game(name))
    for seed, state in enumerate(sample(name, 8, seed=5)):
        for depth in SHALLOW.get(name, (1, 2, 3)):
            assert_alike(state, depth, seed)


@pytest.mark.parametrize("name", NATIVE)
def test_positions_near_the_end_search_alike(name: str) -> None:
    compiled_or_skip(get_game(name))
    for seed, state in enumerate(last_plies(name, 3, 4)):
        for depth in (1, 2, 3):
            assert_alike(state, depth, seed)


@pytest.mark.parametrize("name", NATIVE)
def test_a_small_table_limit_clears_the_table_alike(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled_or_skip(get_game(name))
    monkeypatch.setattr(alphabeta, "TABLE_LIMIT", 20)
    for seed, state in enumerate(sample(name, 3, seed=6)):
        assert_alike(state, 2, seed)


@pytest.mark.parametrize("name", NATIVE)
def test_a_deadline_already_past_stops_both_at_the_first_node(name: str) -> None:
    game = get_game(name)
    module = compiled_or_skip(game)
    state = sample(name, 2, seed=7)[1]
    move = state.legal_moves()[0]
    past = time.perf_counter() - 1.0
    search = module.Search(past, TABLE_LIMIT, NULL_WINDOW)
    reference = _Tree(evaluation_for(game), {}, past, time.perf_counter)
    assert search.root(state, [move], 4) == reference.root(state, [move], 4) == (0, -INFINITY, [])
    assert search.nodes == reference.nodes == 1


def test_long_jump_sequences_are_searched_compiled_alike() -> None:
    """King's Court's long hops and many moves: the compiled search holds them all, so the
    agent never leaves it, and answers as the reference does."""
    state = KINGS_COURT_LONG_JUMP
    module = compiled_or_skip(state.game)
    longest = max(state.legal_moves(), key=len)
    assert len(longest) == 12
    search = module.Search(time.perf_counter() + 60.0, TABLE_LIMIT, NULL_WINDOW)
    reference = _Tree(evaluation_for(state.game), {}, time.perf_counter() + 60.0, time.perf_counter)
    for depth in (1, 2, 3):
        answer = search.root(state, [longest], depth)
        assert answer == reference.root(state, [longest], depth)
        assert len(answer[2]) == 1
        assert search.nodes == reference.nodes
    for depth in (1, 2, 3):
        assert_alike(state, depth, depth)
    assert len(KINGS_COURT_MAZE.legal_moves()) == 1258
    for depth in (1, 2, 3):  # at depth 3 the lists below the root grow past their first room
        assert_alike(KINGS_COURT_MAZE, depth, depth)
    bench = sample("kings-court", 8)
    for seed in (2, 5, 7):  # positions with moves of 11 and 12 squares in their trees
        assert_alike(bench[seed], FULL_DEPTH["kings-court"], seed)


def test_a_move_longer_than_any_legal_one_is_refused() -> None:
    state = KINGS_COURT_LONG_JUMP
    module = compiled_or_skip(state.game)
    search = module.Search(time.perf_counter() + 60.0, TABLE_LIMIT, NULL_WINDOW)
    with pytest.raises(ValueError, match=r"is longer than any legal move \(1024 squares\)"):
        search.root(state, [(0, 2) * 513], 1)
    with pytest.raises(ValueError, match="is not legal in the state given"):
        search.root(state, [(0, 2) * 10], 1)


@pytest.mark.parametrize("name", NATIVE)
def test_a_root_iteration_answers_as_the_python_one(name: str) -> None:
    """`Search.root` against `_Tree.root` directly: best index, score, every move's score and
    the node count, over two iterations sharing their tables."""
    game = get_game(name)
    module = compiled_or_skip(game)
    state = sample(name, 2, seed=8)[1]
    moves = state.legal_moves()
    later = time.perf_counter() + 60.0
    search = module.Search(later, TABLE_LIMIT, NULL_WINDOW)
    reference = _Tree(evaluation_for(game), {}, later, time.perf_counter)
    for depth in (1, 2):
        ours = search.root(state, moves, depth)
        assert ours == reference.root(state, moves, depth)
        assert len(ours[2]) == len(moves)
        assert search.nodes == reference.nodes


@TIMED
@pytest.mark.parametrize("name", ["amazons", "kings-court"])
def test_a_root_iteration_stopped_by_its_deadline_answers_the_moves_it_finished(
    name: str,
) -> None:
    module = compiled_or_skip(get_game(name))
    state = sample(name, 2, seed=9)[1]
    moves = state.legal_moves()
    started = time.perf_counter()
    search = module.Search(started + 0.2, TABLE_LIMIT, NULL_WINDOW)
    best, score, scores = search.root(state, moves, 40)
    assert 0.15 <= time.perf_counter() - started < 0.8
    assert len(scores) < len(moves)
    if scores:
        assert score == max(scores) == scores[best]
    else:
        assert (best, score) == (0, -INFINITY)
    past = time.perf_counter() - 1.0
    assert module.Search(past, TABLE_LIMIT, NULL_WINDOW).root(state, moves, 3) == (
        0,
        -INFINITY,
        [],
    )


def test_the_agents_search_compiled_only_with_the_games_own_evaluation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Alpha-beta below the root and MCTS's tree alike (tests/agents/test_native_tree.py)."""
    for name in NATIVE:
        game = get_game(name)
        compiled_or_skip(game)
        for agent in (AlphaBetaAgent, MCTSAgent):
            assert agent(game)._compiled is not None
            assert agent(game, evaluation=evaluation_for(game))._compiled is None
            monkeypatch.setenv("ARBITER_PURE_PYTHON", "1")
            assert agent(game)._compiled is None
            monkeypatch.delenv("ARBITER_PURE_PYTHON")


@TIMED
@pytest.mark.parametrize("name", NATIVE)
def test_the_compiled_search_stops_near_its_deadline(name: str) -> None:
    module = compiled_or_skip(get_game(name))
    state = sample(name, 1)[0]
    started = time.perf_counter()
    search = module.Search(started + 0.2, TABLE_LIMIT, NULL_WINDOW)
    assert search.root(state, state.legal_moves()[:1], 41) == (0, -INFINITY, [])
    assert 0.15 <= time.perf_counter() - started < 0.8  # it may stop one expansion early
    assert search.stall < 0.2


@TIMED
def test_the_compiled_search_lets_other_threads_run_meanwhile() -> None:
    """The agent searches in a worker thread while the connection's loop runs in another: the
    search holds no interpreter lock, so the loop is not starved for the whole move."""
    module = compiled_or_skip(get_game(NATIVE[0]))
    state = sample(NATIVE[0], 1)[0]
    search = module.Search(time.perf_counter() + 0.3, TABLE_LIMIT, NULL_WINDOW)

    def think() -> None:
        search.root(state, state.legal_moves()[:1], 41)

    assert ticks_while(think) >= 10


def ticks_while(think: Callable[[], None]) -> int:
    """Milliseconds ticked in this thread while `think` runs in another: few if it holds the
    interpreter lock."""
    finished = threading.Event()

    def run() -> None:
        think()
        finished.set()

    thinker = threading.Thread(target=run)
    thinker.start()
    ticks = 0
    while not finished.is_set():
        ticks += 1
        time.sleep(0.001)
    thinker.join()
    return ticks


@TIMED
@pytest.mark.parametrize("name", NATIVE)
def test_the_agent_deepening_on_the_compiled_search_keeps_to_its_budget(name: str) -> None:
    state = sample(name, 2, seed=3)[1]
    compiled_or_skip(state.game)
    agent = AlphaBetaAgent(state.game, seed=1)
    start = time.perf_counter()
    move = agent.choose(state, 0.3)
    assert time.perf_counter() - start < 0.3 + STALL  # a loaded machine's pause allowed
    assert state.why_illegal(move) is None
    assert agent.last is not None
    assert agent.last.depth >= 1


@pytest.mark.parametrize("name", NATIVE)
def test_bad_arguments_are_refused_by_name(name: str) -> None:
    game = get_game(name)
    module = compiled_or_skip(game)
    state = sample(name, 1)[0]
    move = state.legal_moves()[0]
    later = time.perf_counter() + 60.0
    with pytest.raises(TypeError, match="must be real number, not str"):
        module.Search("soon", TABLE_LIMIT, NULL_WINDOW)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="table_limit must be at least 0, not -1"):
        module.Search(later, -1, NULL_WINDOW)
    with pytest.raises(ValueError, match="null_window must be above 0"):
        module.Search(later, TABLE_LIMIT, 0.0)
    search = module.Search(later, TABLE_LIMIT, NULL_WINDOW)
    with pytest.raises(TypeError, match=r"state must be an? \w+State, not int"):
        search.root(3, [move], 1)
    with pytest.raises(TypeError, match="move must be"):
        search.root(state, [move, "a move"], 1)
    theirs = next(m for m in state.play(move).legal_moves() if state.why_illegal(m) is not None)
    with pytest.raises(TypeError, match="must be list, not tuple"):
        search.root(state, (move,), 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is not legal in the state given"):
        search.root(state, [move, theirs], 1)
    with pytest.raises(ValueError, match="depth must be from 1 to 64, not 0"):
        search.root(state, [move], 0)
    with pytest.raises(ValueError, match="depth must be from 1 to 64, not 65"):
        search.root(state, [move], 65)
    assert search.nodes == 0
