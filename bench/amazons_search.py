"""Amazons search speed: evaluations per second, and how deep alpha-beta gets in a middle game.

    python bench/amazons_search.py [--positions 30] [--move-time 0.3] [--seconds 2]
                                   [--baseline REV]

The middle-game positions come from seeded games between moves drawn at random and the
`greedy` agent's, stopped between plies 16 and 50 (the opening is over, the board not yet
split into rooms). Both evaluations are measured in the same run: ours, and the evaluation of
`agents/evaluations/amazons.py` as it was at git revision `--baseline` (the flood before it was
packed), loaded from `git show`. Printed: evaluations/s of each and their ratio; then, for each
evaluation, the share of the positions where `alphabeta` finished depth 2 or more in
`--move-time` seconds, the mean depth and the nodes searched per second; the CPU seconds
alpha-beta takes to finish depth 2 (a figure the machine's load barely moves, where the share
at 0.3 s falls with the CPU the process gets); and the load average.

Goals (exit 1 when one is missed): ours at least `SPEED_GOAL` times the baseline's
evaluations/s, and depth 2 or more in more than `DEPTH_GOAL` of the positions at 0.3 s a move.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

from arbiter.agents import make_agent
from arbiter.agents.evaluation import Evaluation, evaluation_for
from arbiter.agents.search import AlphaBetaAgent
from arbiter.games import get_game

BASELINE = "99bd1e3"
"""The last revision with the evaluation before this bench's work (one flood per side)."""
SPEED_GOAL = 2.0
DEPTH_GOAL = 0.5
ROOT = Path(__file__).resolve().parents[1]


def baseline_evaluation(revision: str) -> Evaluation:
    """The Amazons evaluation module as it was at `revision`, imported from its source."""
    source = subprocess.run(
        ["git", "show", f"{revision}:agents/evaluations/amazons.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType(f"amazons_evaluation_{revision}")
    exec(compile(source, f"{revision}:agents/evaluations/amazons.py", "exec"), module.__dict__)
    evaluation: Evaluation = module.EVALUATION
    return evaluation


def middle_games(count: int, seed: int = 1) -> list[Any]:
    """`count` unfinished positions between plies 16 and 50 of seeded half-greedy games."""
    game = get_game("amazons")
    rng = random.Random(seed)
    positions: list[Any] = []
    while len(positions) < count:
        greedy = make_agent("greedy", game, rng.getrandbits(31))
        state, stop = game.new_game(), rng.randrange(16, 51)
        while state.outcome() is None and state.ply < stop:
            random_move = rng.random() < 0.5
            move = state.random_move(rng) if random_move else greedy.choose(state, 10.0)
            state = state.play(move)
        if state.outcome() is None:
            positions.append(state)
    return positions


def evaluations_per_second(evaluation: Evaluation, positions: list[Any], seconds: float) -> float:
    evaluate, count = evaluation.evaluate, 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for state in positions:
            evaluate(state, 0)
        count += len(positions)
    return count / elapsed


def depths(
    evaluation: Evaluation, positions: list[Any], move_time: float
) -> tuple[list[int], float]:
    """The depth alpha-beta finished in each position, and its nodes per second overall."""
    game = get_game("amazons")
    reached, nodes, seconds = [], 0, 0.0
    for number, state in enumerate(positions):
        agent = AlphaBetaAgent(game, number, evaluation=evaluation)
        agent.choose(state, move_time)
        assert agent.last is not None
        reached.append(agent.last.depth)
        nodes += agent.last.nodes
        seconds += agent.last.seconds
    return reached, nodes / seconds


def cpu_to_depth_two(evaluation: Evaluation, positions: list[Any]) -> float:
    """Mean CPU seconds (this process's, not the wall's) for alpha-beta to finish depth 2."""
    game, spent = get_game("amazons"), 0.0
    for number, state in enumerate(positions):
        agent = AlphaBetaAgent(game, number, max_depth=2, evaluation=evaluation)
        start = time.process_time()
        agent.choose(state, 3600.0)
        spent += time.process_time() - start
    return spent / len(positions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=30, help="middle-game positions")
    parser.add_argument("--move-time", type=float, default=0.3, help="alpha-beta's budget a move")
    parser.add_argument("--seconds", type=float, default=2.0, help="per evaluation speed figure")
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the old evaluation")
    args = parser.parse_args()
    positions = middle_games(args.positions)
    ours, old = evaluation_for(get_game("amazons")), baseline_evaluation(args.baseline)
    rates = {
        name: evaluations_per_second(e, positions, args.seconds)
        for name, e in (("ours", ours), ("baseline", old))
    }
    ratio = rates["ours"] / rates["baseline"]
    print(f"{len(positions)} middle-game positions (plies 16-50), baseline {args.baseline}")
    for name, rate in rates.items():
        print(f"  {name:<9} {rate:>9.0f} evaluations/s ({1e6 / rate:.1f} us each)")
    print(f"  ours / baseline = {ratio:.2f}x (goal: at least {SPEED_GOAL:g}x)")
    share = 0.0
    for name, evaluation in (("ours", ours), ("baseline", old)):
        reached, rate = depths(evaluation, positions, args.move_time)
        deep = sum(depth >= 2 for depth in reached) / len(reached)
        share = deep if name == "ours" else share
        print(
            f"  alphabeta with {name} evaluation at {args.move_time:g} s: depth >= 2 in "
            f"{deep:.0%}, mean depth {sum(reached) / len(reached):.2f}, {rate:.0f} nodes/s; "
            f"depth 2 in {cpu_to_depth_two(evaluation, positions) * 1000:.0f} ms of CPU"
        )
    print(f"  goal: depth >= 2 in more than {DEPTH_GOAL:.0%} of the positions with ours")
    print("load average " + ", ".join(f"{value:.1f}" for value in os.getloadavg()))
    if ratio < SPEED_GOAL or share <= DEPTH_GOAL:
        sys.exit(1)


if __name__ == "__main__":
    main()
