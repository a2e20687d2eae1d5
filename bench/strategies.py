"""Seed 001's study: every ordered pair of War of Life strategies, from seeded random starts.

    python bench/strategies.py [--games 100] [--seed 1] [--move-time 1.0]
                               [--strategies bloodlust,self-preservation,land-grab,minimax]

Each ordered pair (blue strategy, red strategy), self-pairs included, plays `--games` games from
the starts of seeds `--seed`, `--seed + 1`, ... A pair and its reverse play the same starts with
the colours swapped (the game's `swap` option, on for the pair whose blue strategy comes later
in `--strategies`), so each strategy keeps its own pieces and only who moves first changes.

Games are played in this process, not over TCP: the study compares strategies, and the thinking
time it reports is the strategy's own. The referee's rules still hold: a move that takes longer
than `--move-time` or is illegal loses the game for its mover, and both are counted and printed.
The strategies are deterministic, so the same command prints the same table, times aside.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arbiter.agents import Agent, make_agent
from arbiter.games import Outcome, Result, State, get_game

GAME_NAME = "war-of-life"
STRATEGIES = ("bloodlust", "self-preservation", "land-grab", "minimax")


@dataclass(frozen=True, slots=True)
class Played:
    """One finished game: how it ended, how long it was, and each seat's thinking time."""

    outcome: Outcome
    ply: int
    seconds: tuple[float, float]
    moves: tuple[int, int]
    default: str | None = None
    """'time' or 'illegal' when a seat lost by the referee's rules rather than on the board."""


def play(agents: Sequence[Agent], start: State[Any], move_time: float) -> Played:
    """Play `start` to its end, as the server would referee it but without its clock or wire."""
    state, seconds, moves, default = start, [0.0, 0.0], [0, 0], None
    while (outcome := state.outcome()) is None:
        seat = state.turn
        began = time.perf_counter()
        move = agents[seat].choose(state, move_time)
        spent = time.perf_counter() - began
        seconds[seat] += spent
        moves[seat] += 1
        default = "time" if spent > move_time else "illegal" if state.why_illegal(move) else None
        if default is not None:
            outcome = Outcome.win(1 - seat, f"{start.game.seats[seat]} default: {default}")
            break
        state = state.play(move)
    return Played(outcome, state.ply, (seconds[0], seconds[1]), (moves[0], moves[1]), default)


@dataclass
class Row:
    """The games of one ordered pair, summed."""

    blue: str
    red: str
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    exhausted: int = 0
    plies: int = 0
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])
    moves: list[int] = field(default_factory=lambda: [0, 0])
    defaults: dict[str, int] = field(default_factory=lambda: {"time": 0, "illegal": 0})

    def add(self, game: Played) -> None:
        if game.outcome.result is Result.WIN:
            assert game.outcome.winner is not None
            self.wins[game.outcome.winner] += 1
        else:
            self.draws += 1
            if "exhausted" in game.outcome.reason:
                self.exhausted += 1
        self.plies += game.ply
        for seat in (0, 1):
            self.seconds[seat] += game.seconds[seat]
            self.moves[seat] += game.moves[seat]
        if game.default is not None:
            self.defaults[game.default] += 1

    @property
    def games(self) -> int:
        return self.wins[0] + self.wins[1] + self.draws

    def ms_per_move(self, seat: int) -> float:
        return 1000 * self.seconds[seat] / max(self.moves[seat], 1)


def play_pair(blue: str, red: str, swap: bool, seeds: range, move_time: float) -> Row:
    game = get_game(GAME_NAME)
    agents = [make_agent(blue, game), make_agent(red, game)]
    row = Row(blue, red)
    for seed in seeds:
        row.add(play(agents, game.new_game(seed=seed, swap=swap), move_time))
    return row


HEADER = (
    f"{'blue':<18} {'red':<18} {'games':>5} {'blue wins':>9} {'red wins':>8} {'draws':>5} "
    f"{'(exhausted)':>11} {'avg length':>10} {'blue ms/move':>12} {'red ms/move':>11}"
)


def format_row(row: Row) -> str:
    return (
        f"{row.blue:<18} {row.red:<18} {row.games:>5} {row.wins[0]:>9} {row.wins[1]:>8} "
        f"{row.draws:>5} {row.exhausted:>11} {row.plies / row.games:>10.1f} "
        f"{row.ms_per_move(0):>12.2f} {row.ms_per_move(1):>11.2f}"
    )


def totals(rows: Sequence[Row], strategies: Sequence[str]) -> list[str]:
    """Each strategy's record against the others, either colour: who did best overall.

    Self-pairs are left out: a strategy wins exactly the games it loses there.
    """
    lines = [f"{'strategy':<18} {'games':>5} {'wins':>5} {'draws':>5} {'losses':>6} {'score':>6}"]
    for name in strategies:
        won = drawn = lost = 0
        for row in rows:
            for seat, player in enumerate((row.blue, row.red)):
                if player == name and row.blue != row.red:
                    won += row.wins[seat]
                    lost += row.wins[1 - seat]
                    drawn += row.draws
        played = won + drawn + lost
        score = (won + drawn / 2) / played
        lines.append(f"{name:<18} {played:>5} {won:>5} {drawn:>5} {lost:>6} {score:>6.1%}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per ordered pair")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first start")
    parser.add_argument("--move-time", type=float, default=1.0, help="seconds allowed per move")
    parser.add_argument("--strategies", default=",".join(STRATEGIES), help="strategies to pair")
    args = parser.parse_args()
    strategies = args.strategies.split(",")
    seeds = range(args.seed, args.seed + args.games)
    print(HEADER)
    rows = []
    for blue_index, blue in enumerate(strategies):
        for red_index, red in enumerate(strategies):
            row = play_pair(blue, red, blue_index > red_index, seeds, args.move_time)
            print(format_row(row), flush=True)
            rows.append(row)
    print()
    print("\n".join(totals(rows, strategies)))
    lost_on_time = sum(row.defaults["time"] for row in rows)
    illegal = sum(row.defaults["illegal"] for row in rows)
    print(f"\nlosses on time (over {args.move_time} s): {lost_on_time}; illegal moves: {illegal}")


if __name__ == "__main__":
    main()
