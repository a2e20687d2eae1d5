"""OpenSpiel's MCTSBot on the strength ladder: `openspiel-mcts` against our agents, every game.

    python bench/ecosystem.py [--games N] [--move-time SECONDS] [--load N]
                              [--opponents random,greedy,alphabeta,mcts] [--only GAME,...]

For each game and opponent, N games with OpenSpiel's bot in each seat, played in this process:
`choose(state, move_time)` is timed with the wall clock, and a move over the time or illegal
loses at once, as the server would rule (either side). A game still going after `--max-plies`
is called a draw (Watch Your Back! sets no bound on a game). Prints OpenSpiel's bot's score
against each opponent (win 1, draw 0.5), the time losses and illegal moves of each side, and
each side's slowest move as a share of the budget. `--load N` runs N busy processes beside the
games, ended with the run. Exits 1 on any time loss or illegal move: an agent must keep time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from arbiter.agents import Agent, make_agent
from arbiter.client.referee import seeded_options
from arbiter.games import GAME_NAMES, Game, get_game

BOT = "openspiel-mcts"
OPPONENTS = ("random", "greedy", "alphabeta", "mcts")


@dataclass
class Side:
    """One side's record against one opponent in one game."""

    points: float = 0.0
    games: int = 0
    time_losses: int = 0
    illegal: int = 0
    slowest: float = 0.0
    """The longest move as a share of the budget."""


@dataclass
class Pairing:
    bot: Side = field(default_factory=Side)
    opponent: Side = field(default_factory=Side)


def play(
    game: Game[Any, Any],
    agents: list[Agent],
    seed: int,
    move_time: float,
    max_plies: int,
    sides: list[Side],
) -> None:
    """One game, seat 0 first; each side's record in `sides` (by seat) takes its result."""
    state = game.initial_state(game.resolve_options(seeded_options(game, seed)))
    points = [0.5, 0.5]
    while state.outcome() is None and state.ply < max_plies:
        seat = state.turn
        start = time.perf_counter()
        move = agents[seat].choose(state, move_time)
        share = (time.perf_counter() - start) / move_time
        sides[seat].slowest = max(sides[seat].slowest, share)
        late, illegal = share > 1.0, state.why_illegal(move) is not None
        if late or illegal:
            sides[seat].time_losses += late
            sides[seat].illegal += illegal and not late
            points = [float(seat == 1), float(seat == 0)]
            break
        state = state.play(move)
    outcome = state.outcome()
    if outcome is not None:
        points = [outcome.score(0), outcome.score(1)]
    for side, score in zip(sides, points, strict=True):
        side.points += score
        side.games += 1


def ladder(
    names: list[str], opponents: list[str], games: int, move_time: float, seed: int, max_plies: int
) -> dict[tuple[str, str], Pairing]:
    results: dict[tuple[str, str], Pairing] = {}
    for name in names:
        game = get_game(name)
        for opponent in opponents:
            pairing = results[name, opponent] = Pairing()
            for number in range(games):
                for bot_seat in (0, 1):
                    seats = [BOT, opponent] if bot_seat == 0 else [opponent, BOT]
                    agents = [make_agent(seat_name, game, seed + number) for seat_name in seats]
                    sides = [pairing.bot, pairing.opponent][:: 1 if bot_seat == 0 else -1]
                    play(game, agents, seed + number, move_time, max_plies, sides)
            print(
                f"  {name} vs {opponent}: {pairing.bot.points:g}/{pairing.bot.games}",
                file=sys.stderr,
                flush=True,
            )
    return results


def report(results: dict[tuple[str, str], Pairing], opponents: list[str]) -> str:
    names = list(dict.fromkeys(name for name, _ in results))
    header = ["game", *(f"vs {name}" for name in opponents), "over time", "illegal", "slowest"]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for name in names:
        pairings = [results[name, opponent] for opponent in opponents]
        scores = [f"{p.bot.points / p.bot.games:.0%}" for p in pairings]
        bot_late = sum(p.bot.time_losses for p in pairings)
        them_late = sum(p.opponent.time_losses for p in pairings)
        illegal = sum(p.bot.illegal + p.opponent.illegal for p in pairings)
        slowest = max(p.bot.slowest for p in pairings)
        cells = [name, *scores, f"{bot_late} (theirs {them_late})", str(illegal), f"{slowest:.0%}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


@contextlib.contextmanager
def busy_processes(count: int) -> Iterator[None]:
    """`count` processes spinning on a core each, for the block."""
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for process in spinning:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1, help="games per opponent and seat")
    parser.add_argument("--move-time", type=float, default=0.2, help="seconds per move")
    parser.add_argument("--load", type=int, default=0, metavar="N", help="N busy processes")
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    parser.add_argument("--only", help="comma-separated games (default: all five)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-plies", type=int, default=200, help="a draw after this many")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(GAME_NAMES)
    opponents = args.opponents.split(",")
    started = time.perf_counter()
    with busy_processes(args.load):
        load_before = os.getloadavg()[0]
        results = ladder(names, opponents, args.games, args.move_time, args.seed, args.max_plies)
        load_after = os.getloadavg()[0]
    print(
        f"{BOT}'s score, {args.games} game(s) per opponent and seat, {args.move_time:g} s a move, "
        f"{args.load} busy processes, load average {load_before:.1f} to {load_after:.1f} on "
        f"{os.cpu_count()} cores, {time.perf_counter() - started:.0f} s"
    )
    print(report(results, opponents))
    faults = sum(
        side.time_losses + side.illegal
        for pairing in results.values()
        for side in (pairing.bot, pairing.opponent)
    )
    if faults:
        print(f"{faults} time losses or illegal moves: the goal is 0")
        sys.exit(1)


if __name__ == "__main__":
    main()
