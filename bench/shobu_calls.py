"""Shobu's rules on both paths in one run: random playouts and each per-move call, in CPU time.

    python bench/shobu_calls.py [--seconds 3] [--agents 1.0]

The server asks the rules `why_illegal`, `play`, `outcome` and `legal_moves` (the hints) on
every move; playout-based agents ask `random_move` and `play`, or `random_playout` whole. Each is
timed on the Python rules (the kernel hidden, as the lockstep tests hide it) and on the compiled
ones over the same positions of random games. With `--agents T`, Shobu's searching agents (the
three levels, alphabeta, mcts, mcts-eval) also choose a move in six positions with T seconds
each, on each path of the rules: alpha-beta's nodes and MCTS's playouts per CPU second (their
evaluation's compiled feature serves both; bench/search.py compares the whole paths). Times
are CPU time (`time.process_time`), so that on a busy machine the time spent waiting for a core
is left out of both. Exits non-zero when the kernel is not built, or when its whole playouts are
under `GOAL` times the Python rules' (bench/rules.py's goal for every game).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from arbiter.agents import make_agent
from arbiter.games import shobu
from arbiter.games.shobu import GAME, KERNEL, Move, ShobuState

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout, run as a script
from tests.games.lockstep import python_rules

POSITIONS = 200
ROUNDS = 20
AGENTS = ("easy", "medium", "hard", "alphabeta", "mcts", "mcts-eval")


def on_both_paths() -> list[tuple[str, AbstractContextManager[None]]]:
    """The two paths, each a context to measure it inside: the Python rules, then the kernel."""
    return [("Python", python_rules(shobu)), ("compiled", nullcontext())]


def cpu_rate(seconds: float, playout: Callable[[random.Random], Any]) -> float:
    """Calls of `playout` per CPU second, run for about `seconds` of CPU."""
    rng, count, start = random.Random(1), 0, time.process_time()
    while (spent := time.process_time() - start) < seconds:
        playout(rng)
        count += 1
    return count / spent


def game_positions() -> list[ShobuState]:
    """Positions of random games, sampled: every stage of a game, not only its start."""
    states = []
    for seed in range(20):
        rng, state = random.Random(seed), GAME.new_game()
        while state.outcome() is None:
            states.append(state)
            state = state.play(state.random_move(rng))
    return random.Random(1).sample(states, POSITIONS)


def per_call(states: list[ShobuState], moves: list[Move], call: Callable[..., Any]) -> float:
    """µs of CPU per call of `call(state, move)`, the best of three runs over every position."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(ROUNDS):
            for state, move in zip(states, moves, strict=True):
                call(state, move)
        best = min(best, (time.process_time() - start) / (ROUNDS * len(states)))
    return best * 1e6


def agent_work(name: str, positions: list[ShobuState], budget: float) -> tuple[float, str]:
    """Nodes (alpha-beta) or playouts (MCTS) per CPU second of one agent's moves, and what
    they were."""
    agent: Any = make_agent(name, GAME, seed=1)
    work, cpu = 0, 0.0
    for position in positions:
        start = time.process_time()
        agent.choose(position, budget)
        cpu += time.process_time() - start
        work += agent.last.nodes if hasattr(agent, "last") else agent.iterations
    return work / cpu, "nodes" if hasattr(agent, "last") else "playouts"


def print_agents(budget: float) -> None:
    rng, positions, state = random.Random(7), [], GAME.new_game()
    while len(positions) < 6 and state.outcome() is None:
        positions += [state] if state.ply % 8 == 0 else []
        state = state.play(state.random_move(rng))
    print(f"\n{'agent, per CPU second':<42} {'Python':>9} {'compiled':>9} {'ratio':>7}")
    for name in AGENTS:
        (python_rate, _), (compiled_rate, unit) = (
            measured(path, agent_work, name, positions, budget) for _, path in on_both_paths()
        )
        ratio = compiled_rate / python_rate
        print(f"{name + ' ' + unit:<42} {python_rate:>9.0f} {compiled_rate:>9.0f} {ratio:>6.1f}x")


def measured(path: AbstractContextManager[None], measure: Callable[..., Any], *args: Any) -> Any:
    """`measure(*args)` on one path of the rules."""
    with path:
        return measure(*args)


GOAL = 10.0
"""Whole random playouts per CPU second on the compiled path over the Python path's, at least."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU time per playout rate")
    parser.add_argument("--agents", type=float, help="seconds a move for the searching agents")
    args = parser.parse_args()
    if KERNEL is None:
        sys.exit("no Shobu kernel is built (or ARBITER_PURE_PYTHON is set): nothing to compare")
    rng = random.Random(3)
    positions = game_positions()
    moves = [state.random_move(rng) for state in positions]
    start = GAME.new_game()

    def looped(first: ShobuState) -> Callable[[random.Random], None]:
        def playout(rng: random.Random) -> None:
            state = first
            while state.outcome() is None:
                state = state.play(state.random_move(rng))

        return playout

    rows: list[tuple[str, float, float]] = []
    for label, make in (
        ("random_playout, per CPU s", lambda s: lambda r: s.random_playout(r, 10**6)),
        ("outcome/random_move/play loop, per CPU s", looped),
    ):
        python_rate, compiled_rate = (
            measured(path, cpu_rate, args.seconds, make(start)) for _, path in on_both_paths()
        )
        rows.append((label, python_rate, compiled_rate))
    calls: dict[str, Callable[[ShobuState, Move], Any]] = {
        "why_illegal of a legal turn, µs": lambda state, move: state.why_illegal(move),
        "play, µs": lambda state, move: state.play(move),
        "outcome, µs": lambda state, move: state.outcome(),
        "legal_moves, µs": lambda state, move: state.legal_moves(),
        "random_move, µs": lambda state, move: state.random_move(rng),
    }
    for label, call in calls.items():
        python_time, compiled_time = (
            measured(path, per_call, positions, moves, call) for _, path in on_both_paths()
        )
        rows.append((label, python_time, compiled_time))
    print(f"{'measure':<42} {'Python':>9} {'compiled':>9} {'ratio':>7}")
    for label, python_figure, compiled_figure in rows:
        higher, lower = sorted((python_figure, compiled_figure), reverse=True)
        print(f"{label:<42} {python_figure:>9.2f} {compiled_figure:>9.2f} {higher / lower:>6.1f}x")
    if args.agents is not None:
        print_agents(args.agents)
    _, python_playouts, compiled_playouts = rows[0]
    ratio = compiled_playouts / python_playouts
    if ratio < GOAL:
        sys.exit(f"missed: compiled playouts {ratio:.1f}x the Python rules' (goal {GOAL:g}x)")
    print(f"met: compiled playouts {ratio:.1f}x the Python rules' (goal {GOAL:g}x)")


if __name__ == "__main__":
    main()
