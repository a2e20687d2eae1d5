"""Random playouts per second of each game's rules, pure Python against the compiled kernel.

    python bench/rules.py [--seconds 3] [--games NAME,...] [--check GAMES]

A playout is a whole game from a start position by `State.random_playout`: exactly what a
playout-based agent runs. Start positions are built before the clock starts (War of Life's
random start costs more than a compiled playout). Both paths are measured in the same run: the
pure-Python one in a child process under `ARBITER_PURE_PYTHON=1`, the compiled one here. For
Amazons, OpenSpiel's C++ `amazons` (the `bench` extra installs `open-spiel`) is measured too,
its random playouts drawing an amazon, a destination and an arrow as three actions.

Goals, for a game whose kernel is built: its compiled playouts at least 10x its pure-Python
ones, and Amazons' at least 1.5x OpenSpiel's. The exit status is 1 when one is missed. A game
without a kernel prints "no kernel" and sets no goal.

`--check N` first plays N random games per game in lockstep on both paths
(tests/games/lockstep.py; the suite plays a few hundred), failing on the first disagreement.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from arbiter.games import GAME_NAMES, get_game
from arbiter.games._native import kernel

ROOT = Path(__file__).resolve().parents[1]
KERNEL_GOAL = 10.0
OPENSPIEL_GOAL = 1.5
STARTS = 64
"""Start positions per game, cycled through (random starts differ; a fixed one would not)."""


def timed(seconds: float, playout: Callable[[random.Random], int]) -> tuple[float, float]:
    """Playouts per second and moves per playout, run for about `seconds`."""
    rng = random.Random(1)
    games = moves = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        moves += playout(rng)
        games += 1
    return games / elapsed, moves / games


def our_playout(name: str) -> Callable[[random.Random], int]:
    game = get_game(name)
    seeds = random.Random(0)
    starts = []
    for _ in range(STARTS):
        options = game.resolve_options({}, fresh_seed=lambda: seeds.getrandbits(31))
        starts.append((game.initial_state(options), game.max_plies(options)))
    played = 0

    def playout(rng: random.Random) -> int:
        nonlocal played
        start, max_plies = starts[played % STARTS]
        played += 1
        return start.random_playout(rng, max_plies).ply - start.ply

    return playout


def openspiel_playout() -> Callable[[random.Random], int] | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("amazons")

    def playout(rng: random.Random) -> int:
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        return actions // 3  # amazon, destination, arrow: three actions make one move

    return playout


def has_kernel(name: str) -> bool:
    return kernel(name.replace("-", "_")) is not None


def pure_python_rates(names: list[str], seconds: float) -> dict[str, list[float]]:
    """Each game's (playouts/s, moves/playout) on the pure-Python path, from a child process."""
    child = subprocess.run(
        [sys.executable, __file__, "--games", ",".join(names), "--seconds", str(seconds), "--json"],
        env={**os.environ, "ARBITER_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    rates: dict[str, list[float]] = json.loads(child.stdout)
    return rates


def check(games: int, names: list[str]) -> None:
    """`games` lockstep games for each named game that has a kernel and a lockstep check."""
    sys.path.insert(0, str(ROOT))
    from tests.games.lockstep import CHECKS

    for name in names:
        if name not in CHECKS or not has_kernel(name):
            print(f"check {name:<16} no kernel or no lockstep check")
            continue
        started = time.perf_counter()
        plies = sum(CHECKS[name][1](10**9 + seed) for seed in range(games))
        elapsed = time.perf_counter() - started
        print(f"check {name:<16} {games} games, {plies} plies agree ({elapsed:.0f} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--games", default=",".join(GAME_NAMES), help="games to measure")
    parser.add_argument("--check", type=int, default=0, help="lockstep games per game first")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the child's
    args = parser.parse_args()
    names = args.games.split(",")
    if args.json:
        print(json.dumps({name: timed(args.seconds, our_playout(name)) for name in names}))
        return 0
    if args.check:
        check(args.check, names)
    pure = pure_python_rates(names, args.seconds)
    header = f"{'game':<16} {'moves/game':>10} {'python/s':>9} {'compiled/s':>11} {'ratio':>7}"
    print(header)
    missed: list[str] = []
    compiled: dict[str, float] = {}
    for name in names:
        python_rate, length = pure[name]
        row = f"{name:<16} {length:>10.1f} {python_rate:>9.0f}"
        if not has_kernel(name):
            print(f"{row} {'no kernel':>11}")
            continue
        compiled[name] = rate = timed(args.seconds, our_playout(name))[0]
        ratio = rate / python_rate
        print(f"{row} {rate:>11.0f} {ratio:>6.1f}x (goal {KERNEL_GOAL:g}x)")
        if ratio < KERNEL_GOAL:
            missed.append(f"{name}: compiled {ratio:.1f}x the pure-Python path")
    if "amazons" in names:
        missed += openspiel_comparison(args.seconds, compiled.get("amazons"), pure["amazons"][0])
    for goal in missed:
        print(f"goal missed: {goal}")
    return 1 if missed else 0


def openspiel_comparison(seconds: float, compiled: float | None, python: float) -> list[str]:
    """Prints OpenSpiel's Amazons playouts/s and ours against it; the goal missed, if one was."""
    theirs = openspiel_playout()
    if theirs is None:
        print("openspiel: not installed (pip install -e '.[bench]'); no Amazons ratio")
        return []
    rate, length = timed(seconds, theirs)
    print(f"{'amazons (C++)':<16} {length:>10.1f} {'':>9} {rate:>11.0f}  OpenSpiel")
    print(f"amazons against OpenSpiel: pure Python {python / rate:.2f}x", end="")
    if compiled is None:
        print(", no kernel")
        return []
    ratio = compiled / rate
    print(f", compiled {ratio:.2f}x (goal {OPENSPIEL_GOAL:g}x)")
    return [] if ratio >= OPENSPIEL_GOAL else [f"amazons: {ratio:.2f}x OpenSpiel's playouts"]


if __name__ == "__main__":
    sys.exit(main())
