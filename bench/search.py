"""Search speed of each game's agents, on the pure-Python path against the compiled one.

    python bench/search.py [--games NAME,...] [--positions 4] [--seconds 1]

For each game, the seeded positions the agents' tests use (tests/agents/positions.py: the start,
then points along random games), then: alpha-beta to a fixed depth per game (`DEPTHS`) in each,
timed, giving nodes per second; and MCTS (`mcts-eval`, heuristic playouts) given `--seconds` a
move in each, giving iterations per second. Both paths are measured in the same run: the
pure-Python one in a child process under `ARBITER_PURE_PYTHON=1`, the compiled one here. A
fixed-depth search visits the same nodes on both paths (the evaluations give the same values,
tests/agents/test_native_evaluations.py, and the compiled search below the root makes the Python
one's choices, tests/agents/test_native_search.py), so its node count is checked equal: the
ratio compares like with like. Rates are per CPU second (`time.process_time`), so that on a busy
machine the time spent waiting for a core is left out of both paths. Printed per game: nodes,
nodes/s of each path and their ratio, MCTS iterations/s of each and their ratio; then the load
average. Exits 1 if a node count differs, or if compiled alpha-beta is under `GOAL` times pure
Python's for a game with a compiled search (agents/native/), or slower than it for another, or
if compiled MCTS's iterations are under `MCTS_GOAL` times pure Python's for a game with a
compiled tree (agents/native/uct.h), or fewer than them for another.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from arbiter.agents.search import AlphaBetaAgent, MCTSAgent
from arbiter.agents.search.alphabeta import compiled_search
from arbiter.agents.search.mcts import DEFAULT_CUTOFF, compiled_tree
from arbiter.games import GAME_NAMES, get_game

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, run as a script
from tests.agents.positions import sample

DEPTHS = {"kings-court": 4, "watch-your-back": 4, "war-of-life": 4, "amazons": 2, "shobu": 4}
"""Fixed depths that take a few seconds per game on the pure-Python path."""
GOAL = 10.0
"""Compiled alpha-beta's least nodes per second, in pure Python's, for a game with a compiled
search: the factor the compiled rules reach over the Python ones."""
MCTS_GOAL = 10.0
"""Compiled MCTS's least iterations per second, in pure Python's, for a game with a compiled
tree: the same factor, now that the whole search of a move runs in C."""


def alphabeta_rate(name: str, states: list[Any]) -> tuple[int, float]:
    """(nodes, nodes per CPU second) of fixed-depth alpha-beta over `states`."""
    game, nodes, start = get_game(name), 0, time.process_time()
    for number, state in enumerate(states):
        agent = AlphaBetaAgent(game, number, max_depth=DEPTHS[name])
        agent.choose(state, 3600.0)
        assert agent.last is not None
        nodes += agent.last.nodes
    return nodes, nodes / (time.process_time() - start)


def mcts_rate(name: str, states: list[Any], seconds: float) -> float:
    """MCTS iterations per CPU second over `states`, `seconds` a move."""
    game, iterations, start = get_game(name), 0, time.process_time()
    for number, state in enumerate(states):
        agent = MCTSAgent(game, number, cutoff=DEFAULT_CUTOFF)
        agent.choose(state, seconds)
        iterations += agent.iterations
    return iterations / (time.process_time() - start)


def measure(names: list[str], count: int, seconds: float) -> dict[str, list[float]]:
    rates: dict[str, list[float]] = {}
    for name in names:
        states = sample(name, count)
        nodes, rate = alphabeta_rate(name, states)
        rates[name] = [nodes, rate, mcts_rate(name, states, seconds)]
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAME_NAMES), help="games to measure")
    parser.add_argument("--positions", type=int, default=4, help="positions per game")
    parser.add_argument("--seconds", type=float, default=1.0, help="MCTS's time a move")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the child's
    args = parser.parse_args()
    names = args.games.split(",")
    if args.json:
        print(json.dumps(measure(names, args.positions, args.seconds)))
        return 0
    child = subprocess.run(
        [sys.executable, __file__, *sys.argv[1:], "--json"],
        env={**os.environ, "ARBITER_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    pure: dict[str, list[float]] = json.loads(child.stdout)
    compiled = measure(names, args.positions, args.seconds)
    print(
        f"{'game':<16} {'depth':>5} {'nodes':>8} {'python/s':>9} {'compiled/s':>10} {'ratio':>6}"
        f" | {'mcts python/s':>13} {'compiled/s':>10} {'ratio':>6}"
    )
    failed: list[str] = []
    for name in names:
        (nodes, python, mcts_python), (compiled_nodes, ours, mcts_ours) = pure[name], compiled[name]
        print(
            f"{name:<16} {DEPTHS[name]:>5} {nodes:>8.0f} {python:>9.0f} {ours:>10.0f}"
            f" {ours / python:>5.1f}x | {mcts_python:>13.0f} {mcts_ours:>10.0f}"
            f" {mcts_ours / mcts_python:>5.1f}x"
        )
        if compiled_nodes != nodes:
            failed.append(f"{name}: {compiled_nodes:.0f} nodes compiled, {nodes:.0f} in Python")
        game = get_game(name)
        least = GOAL if compiled_search(game) is not None else 1.0
        if ours < least * python:
            failed.append(f"{name}: compiled alpha-beta is under {least:.0f}x pure Python's")
        least = MCTS_GOAL if compiled_tree(game) is not None else 1.0
        if mcts_ours < least * mcts_python:
            failed.append(
                f"{name}: compiled MCTS's iterations are under {least:.0f}x pure Python's"
            )
    print("load average " + ", ".join(f"{value:.1f}" for value in os.getloadavg()))
    for failure in failed:
        print(f"failed: {failure}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
