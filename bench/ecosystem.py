"""OpenSpiel's MCTSBot on the strength ladder: `openspiel-mcts` against our agents, every game.

    python bench/ecosystem.py [--games N] [--move-time SECONDS] [--load N]
                              [--opponents random,greedy,alphabeta,mcts] [--only GAME,...]

For each game, `bench/strength.py`'s round robin of `openspiel-mcts` (the `openspiel` extra's
MCTSBot on our rules, in Amazons too) against each opponent: N
games with each in each seat, played in this process, where a move over its time or illegal
loses at once, as the server would rule (either side). `--load N` runs strength.py's busy
processes beside the games. Prints one table over the games: OpenSpiel's bot's score against
each opponent (win 1, draw 0.5), the time losses of each side, illegal moves and the bot's
slowest move as a share of the budget. Exits 1 on any time loss or illegal move: an agent must
keep time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial

from strength import OPENSPIEL, Tally, busy_processes, play_in_process, round_robin

from arbiter.agents import make_agent
from arbiter.games import GAME_NAMES, get_game

OPPONENTS = ("random", "greedy", "alphabeta", "mcts")


def report(results: dict[str, dict[str, Tally]], opponents: list[str]) -> str:
    """The bot's row per game, from its tallies against each opponent."""
    header = ["game", *(f"vs {name}" for name in opponents), "over time", "illegal", "slowest"]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for game, tallies in results.items():
        bot = tallies[OPENSPIEL]
        scores = [f"{bot.points[name] / bot.games[name]:.0%}" for name in opponents]
        theirs = sum(tallies[name].time_losses for name in opponents)
        illegal = sum(tally.illegal for tally in tallies.values())
        over_time = f"{bot.time_losses} (theirs {theirs})"
        lines.append(
            "| " + " | ".join([game, *scores, over_time, str(illegal), f"{bot.slowest:.0%}"]) + " |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1, help="games per opponent and seat")
    parser.add_argument("--move-time", type=float, default=0.2, help="seconds per move")
    parser.add_argument("--load", type=int, default=0, metavar="N", help="N busy processes")
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    parser.add_argument("--only", help="comma-separated games (default: all five)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(GAME_NAMES)
    opponents = args.opponents.split(",")
    started = time.perf_counter()
    with busy_processes(args.load):
        load_before = os.getloadavg()[0]
        results = {
            name: round_robin(
                get_game(name),
                opponents,
                args.games,
                args.move_time,
                args.seed,
                partial(play_in_process, make=make_agent),  # the bridge's bot, Amazons too
                opponent=OPENSPIEL,
            )
            for name in names
        }
        load_after = os.getloadavg()[0]
    print(
        f"{OPENSPIEL}'s score, {args.games} game(s) per opponent and seat, {args.move_time:g} s a"
        f" move, {args.load} busy processes, load average {load_before:.1f} to {load_after:.1f}"
        f" on {os.cpu_count()} cores, {time.perf_counter() - started:.0f} s"
    )
    print(report(results, opponents))
    faults = sum(
        t.time_losses + t.illegal for tallies in results.values() for t in tallies.values()
    )
    if faults:
        print(f"{faults} time losses or illegal moves: the goal is 0")
        sys.exit(1)


if __name__ == "__main__":
    main()
