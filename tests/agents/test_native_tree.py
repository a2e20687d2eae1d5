"""The compiled MCTS tree against the Python one it mirrors: the same visits and wins.

For every game with compiled searches (each holds agents/native/uct.h's tree), a fixed number
of iterations from seeded and random positions, and from the last plies of random games (where
children end the game), must leave the root's children with exactly the visits and wins, in the
same order, of `ReferenceMCTS`: `MCTSAgent`'s tree on `SplitMix64` with the same seed, and the
same answer. Random and heuristic playouts, with and without progressive widening, and other
settings than the agents'. The deadline, the memory limit, bad arguments and the agent's use of
it are tested on the compiled tree itself. The skip when no tree is built turns into a failure
under `CI`."""

from __future__ import annotations

import math
import random
import time
from typing import Any, cast

import pytest

from arbiter.agents.evaluation import evaluation_for
from arbiter.agents.search import MCTSAgent
from arbiter.agents.search.mcts import DEFAULT_CUTOFF, MEMORY_LIMIT, CompiledTrees, _Node
from arbiter.agents.search.mcts_reference import ReferenceMCTS, SplitMix64
from arbiter.games import Game, get_game
from tests.agents.positions import sample
from tests.agents.test_every_agent import STALL
from tests.agents.test_native_search import NATIVE as TREES
from tests.agents.test_native_search import compiled_or_skip, last_plies, ticks_while
from tests.conftest import TIMED

ITERATIONS = 400
KINDS = [
    pytest.param({"cutoff": None}, id="random"),
    pytest.param({"cutoff": DEFAULT_CUTOFF}, id="heuristic"),
    pytest.param({"cutoff": DEFAULT_CUTOFF, "widening": None}, id="heuristic-unwidened"),
    pytest.param({"cutoff": 3, "widening": 0.5, "exploration": 0.7}, id="other-settings"),
]


def tree_or_skip(game: Game[Any, Any]) -> CompiledTrees:
    """The game's compiled tree: every compiled search module holds one."""
    return cast(CompiledTrees, compiled_or_skip(game))


def root_choices(state: Any) -> list[Any]:
    """The choices the root is given: the legal moves, or the first part's options."""
    parts = evaluation_for(state.game).parts
    return state.legal_moves() if parts is None else parts.choices(state, ())


def grown(
    module: CompiledTrees, reference: ReferenceMCTS, state: Any, seed: int, memory_limit: int
) -> Any:
    """A compiled tree from `state` with the reference's settings."""
    return module.Tree(
        state,
        root_choices(state),
        seed,
        reference.exploration,
        reference.widening,
        reference.playout_plies,
        reference._evaluation.scale,
        memory_limit,
    )


def assert_alike(state: Any, seed: int, iterations: int, options: dict[str, Any]) -> None:
    """The root's children alike, and the answer: the most visited move, or in parts the most
    visited part at each step completed as the Python agent completes it."""
    reference = ReferenceMCTS(state.game, seed, **options)
    tree = grown(tree_or_skip(state.game), reference, state, seed, MEMORY_LIMIT)
    assert tree.run(math.inf, iterations) == iterations
    moves = root_choices(state)
    ours = [(moves[index], visits, wins) for index, visits, wins in tree.children()]
    root = reference.grow(state, iterations)
    theirs = [(child.move, child.visits, child.wins) for child in root.children]
    assert ours == theirs, f"{state!r} seeded {seed}: compiled {ours}, Python {theirs}"
    assert sum(visits for _, visits, _ in ours) == iterations
    if reference._parts is None:
        assert moves[tree.best()] == reference._answer(root)
    else:
        assert reference._complete(state, tuple(tree.line())) == reference._answer(root)


def test_splitmix64_draws_as_the_c_does() -> None:
    """Known values of splitmix64 from seed 0, and draws below n that stay below n evenly."""
    rng = SplitMix64(0)
    assert [rng.getrandbits(64) for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    counts = [0] * 3
    for _ in range(3000):
        counts[rng.randrange(3)] += 1
    assert all(900 < count < 1100 for count in counts)
    with pytest.raises(TypeError, match="SplitMix64 is seeded by an int, not 'a'"):
        SplitMix64("a")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="from 0 to 64 bits at a time, not 65"):
        rng.getrandbits(65)


@pytest.mark.parametrize("options", KINDS)
@pytest.mark.parametrize("name", TREES)
def test_seeded_and_random_positions_grow_alike(name: str, options: dict[str, Any]) -> None:
    for seed, state in enumerate(sample(name, 4) + sample(name, 6, seed=11)):
        assert_alike(state, seed, ITERATIONS, options)


@pytest.mark.parametrize("options", KINDS)
@pytest.mark.parametrize("name", TREES)
def test_positions_near_the_end_grow_alike(name: str, options: dict[str, Any]) -> None:
    for seed, state in enumerate(last_plies(name, 3, 4)):
        if len(root_choices(state)) > 1:
            assert_alike(state, seed, ITERATIONS, options)


@pytest.mark.parametrize("name", TREES)
def test_iterations_split_over_runs_grow_as_one_run(name: str) -> None:
    state = sample(name, 2, seed=12)[1]
    reference = ReferenceMCTS(state.game, 7, cutoff=DEFAULT_CUTOFF)
    tree = grown(tree_or_skip(state.game), reference, state, 7, MEMORY_LIMIT)
    assert [tree.run(math.inf, count) for count in (1, 50, 50, 300)] == [1, 50, 50, 300]
    whole = grown(tree_or_skip(state.game), reference, state, 7, MEMORY_LIMIT)
    assert whole.run(math.inf, 300) == 300
    assert tree.children() == whole.children()


@pytest.mark.parametrize("name", TREES)
def test_a_deadline_already_past_runs_nothing_and_answers_the_likeliest_best(name: str) -> None:
    state = sample(name, 2, seed=13)[1]
    reference = ReferenceMCTS(state.game, 3, cutoff=DEFAULT_CUTOFF)
    tree = grown(tree_or_skip(state.game), reference, state, 3, MEMORY_LIMIT)
    assert tree.run(time.perf_counter() - 1.0, 100) == 0
    assert tree.children() == []
    assert reference.children(state, 0) == []
    first = reference._untried(_Node(state, None, 1 - state.turn))[-1]
    assert root_choices(state)[tree.best()] == first


@pytest.mark.parametrize("name", TREES)
def test_a_full_tree_stops_growing_and_goes_on_iterating(name: str) -> None:
    """Its memory bounded, the tree grows alike until it is full, then its iterations go on down
    to its leaves: each is counted below the root (but the one that found it full, which may
    stop at the root), and the answer is one of the root's."""
    state = sample(name, 2, seed=14)[1]
    reference = ReferenceMCTS(state.game, 5, cutoff=DEFAULT_CUTOFF)
    module = tree_or_skip(state.game)
    whole = grown(module, reference, state, 5, MEMORY_LIMIT)
    whole.run(math.inf, 20)
    limit = whole.bytes
    tree = grown(module, reference, state, 5, limit)
    assert tree.run(math.inf, 20) == 20
    assert tree.children() == whole.children()
    assert tree.run(math.inf, 500) == 500
    assert tree.bytes <= limit
    assert sum(visits for _, visits, _ in tree.children()) >= 499
    assert 0 <= tree.best() < len(root_choices(state))
    unlisted = grown(module, reference, state, 5, 0)  # not even the root's children fit
    assert unlisted.run(math.inf, 50) == 50
    assert unlisted.children() == []
    assert unlisted.bytes > 0


@TIMED
@pytest.mark.parametrize("name", TREES)
def test_the_agent_on_the_compiled_tree_keeps_to_its_budget(name: str) -> None:
    state = sample(name, 2, seed=3)[1]
    tree_or_skip(state.game)
    for cutoff in (None, DEFAULT_CUTOFF):
        agent = MCTSAgent(state.game, seed=1, cutoff=cutoff)
        assert agent._compiled is not None
        started = time.perf_counter()
        move = agent.choose(state, 0.3)
        assert time.perf_counter() - started < 0.3 + STALL  # a loaded machine's pause allowed
        assert state.why_illegal(move) is None
        assert agent.iterations > 100


def test_an_agent_seeded_alike_answers_alike() -> None:
    """The tree's seed comes from the agent's generator: a fixed count is then reproducible."""
    name = TREES[0]
    state = sample(name, 2, seed=15)[1]
    module = tree_or_skip(state.game)
    seeds = [random.Random(4).getrandbits(64) for _ in range(2)]
    trees = [
        grown(module, ReferenceMCTS(state.game, 0), state, seed, MEMORY_LIMIT) for seed in seeds
    ]
    for tree in trees:
        tree.run(math.inf, 200)
    assert trees[0].children() == trees[1].children()


@TIMED
def test_the_compiled_tree_lets_other_threads_run_meanwhile() -> None:
    name = TREES[0]
    state = sample(name, 1)[0]
    reference = ReferenceMCTS(state.game, 1)
    tree = grown(tree_or_skip(state.game), reference, state, 1, MEMORY_LIMIT)
    assert ticks_while(lambda: tree.run(time.perf_counter() + 0.3, 1 << 62)) >= 10
    assert tree.stall < 0.1


@pytest.mark.parametrize("name", TREES)
def test_bad_arguments_are_refused_by_name(name: str) -> None:
    game = get_game(name)
    module = tree_or_skip(game)
    state = sample(name, 1)[0]
    moves = root_choices(state)
    good: dict[str, Any] = {
        "state": state,
        "moves": moves,
        "seed": 1,
        "exploration": 1.4,
        "widening": 1.0,
        "plies": 10,
        "scale": 100.0,
        "memory_limit": 100,
    }

    def refused(error: type[Exception], match: str, **bad: Any) -> None:
        with pytest.raises(error, match=match):
            module.Tree(*{**good, **bad}.values())

    refused(TypeError, r"state must be an? \w+State, not int", state=3)
    refused(TypeError, "must be list, not tuple", moves=tuple(moves))
    refused(ValueError, "moves must hold at least one legal move", moves=[])
    if evaluation_for(game).parts is None:
        refused(TypeError, "move must be", moves=["a move"])
        played = state.play(moves[0]).legal_moves()
        theirs = next(m for m in played if state.why_illegal(m) is not None)
        refused(ValueError, "is not legal in the state given", moves=[moves[0], theirs])
    else:
        refused(TypeError, "a first part must be an int, not 'a move'", moves=["a move"])
        refused(ValueError, "-1 is not a first part in the state given", moves=[moves[0], -1])
        refused(OverflowError, "too large", moves=[1 << 80])
    for seed in (-1, 1 << 64, 1.0):
        refused(ValueError, rf"seed must be an int from 0 to 2\*\*64 - 1, not {seed}", seed=seed)
    refused(ValueError, "exploration must be at least 0, not -1.0", exploration=-1.0)
    refused(ValueError, "exploration must be at least 0, not nan", exploration=math.nan)
    refused(ValueError, r"widening must be None or at least 0, not -0.5", widening=-0.5)
    refused(TypeError, "must be real number, not str", widening="wide")
    refused(ValueError, "plies must be at least 0, not -1", plies=-1)
    refused(ValueError, "scale must be a finite number above 0, not 0.0", scale=0.0)
    refused(ValueError, "scale must be a finite number above 0, not inf", scale=math.inf)
    refused(ValueError, "memory_limit must be at least 0, not -1", memory_limit=-1)
    tree = module.Tree(*good.values())
    with pytest.raises(ValueError, match="deadline must be a number, not nan"):
        tree.run(math.nan, 10)
    with pytest.raises(TypeError, match="must be real number, not str"):
        tree.run("soon", 10)  # type: ignore[arg-type]
    assert tree.run(math.inf, 0) == 0
