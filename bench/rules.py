"""Random playouts per second for each game's rules engine, and Amazons against OpenSpiel.

    python bench/rules.py [--seconds 3] [--games NAME,...]

A playout is a whole game from the start position, each move drawn with `State.random_move`
and made with `State.play`: exactly what a playout-based agent does. For Amazons the same
figure is measured in the same run from OpenSpiel's C++ `amazons` (the `bench` extra installs
`open-spiel`), whose own random playouts draw an amazon, a destination and an arrow as three
actions; the ratio printed is ours / OpenSpiel's.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from arbiter.games import GAME_NAMES, get_game


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

    def playout(rng: random.Random) -> int:
        state = game.new_game(fresh_seed=lambda: rng.getrandbits(31))
        while state.outcome() is None:
            state = state.play(state.random_move(rng))
        return state.ply

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--games", default=",".join(GAME_NAMES), help="games to measure")
    args = parser.parse_args()
    print(f"{'game':<16} {'playouts/s':>11} {'moves/game':>11} {'moves/s':>10}")
    rates = {}
    for name in args.games.split(","):
        rate, length = timed(args.seconds, our_playout(name))
        rates[name] = rate
        print(f"{name:<16} {rate:>11.0f} {length:>11.1f} {rate * length:>10.0f}")
    if "amazons" in rates:
        theirs = openspiel_playout()
        if theirs is None:
            print("openspiel: not installed (pip install -e '.[bench]'); no Amazons ratio")
            return
        rate, length = timed(args.seconds, theirs)
        print(f"{'amazons (C++)':<16} {rate:>11.0f} {length:>11.1f} {rate * length:>10.0f}")
        print(f"amazons: ours / OpenSpiel = {rates['amazons'] / rate:.2f}x (target: at least 0.2x)")


if __name__ == "__main__":
    main()
