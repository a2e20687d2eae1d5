"""One agent against another, many games, colours alternated: OpenSpiel's MCTS by default.

    python bench/versus.py AGENT [--opponent openspiel-mcts] [--game amazons] [--games 40]
                           [--move-time 0.1] [--times 5,10] [--seed 1] [--log FILE] [--forfeit]

For each multiple k of `--times`, AGENT plays `--games` games against the opponent, the colours
alternating game by game, AGENT getting `--move-time` seconds a move through its own clock (as
from the server) and the opponent k times that budget. The default opponent is OpenSpiel's C++
`MCTSBot` (random rollouts, MCTS-Solver; `bench/strength.py`'s `OpenSpielMCTS` bridge, Amazons
only); any registered agent of the game may be named instead. A move of AGENT over its time is
counted but does not lose the game: this bench measures play, and `bench/strength.py` keeps
time (on a machine loaded several times over its cores, any agent overruns now and then;
`--forfeit` makes an overrun lose, as the server would). The games are
`strength.play_in_process`'s, each seat with its own budget. Each game is printed as it ends
(and appended to `--log` as a JSON line, so a long run reports what it finished); at the end,
per multiple: wins, draws, losses, AGENT's points rate with its 95% Wilson interval (a draw
counting half), AGENT's playouts or depth per move where it reports them, its moves over time,
and the load average. Exits non-zero unless AGENT
scored more than half the points at every multiple.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from strength import OPENSPIEL, Search, play_in_process  # bench/ comes first on the path

from arbiter.games import Game, get_game

Z95 = 1.96


@dataclass
class Series:
    """One multiple's games, from AGENT's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    over_time: int = 0
    """AGENT's moves over its time (lost games with `--forfeit`)."""
    search: Search = field(default_factory=Search)
    """What AGENT's searches did over its moves."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


def wilson(points: float, games: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate: sound at 0 or all wins, unlike the normal."""
    if not games:
        return 0.0, 1.0
    rate = points / games
    centre = rate + Z95 * Z95 / (2 * games)
    spread = Z95 * math.sqrt(rate * (1 - rate) / games + Z95 * Z95 / (4 * games * games))
    scale = 1 + Z95 * Z95 / games
    # at 0 or all wins one end is the rate itself, give or take a rounding: not -0%
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def effort(search: Search) -> float | None:
    """A move's mean effort: alpha-beta's depth reached, or MCTS's playouts (None for an agent
    that does not search)."""
    if search.depths:
        return sum(search.depths) / len(search.depths)
    return search.nodes / search.moves if search.moves else None


def play(
    names: tuple[str, str],
    game: Game[Any, Any],
    seat: int,
    budgets: tuple[float, float],
    seed: int,
    forfeit: bool,
) -> tuple[dict[str, Any], Search]:
    """One game, AGENT (`names[0]`, given `budgets[0]` a move) in `seat`: its record, `points`
    from AGENT's side, and what AGENT's searches did."""
    if seat:
        names, budgets = (names[1], names[0]), (budgets[1], budgets[0])
    result = play_in_process(game, names, seed, budgets, forfeit=forfeit)
    search = result.searches[seat]
    record = {
        "points": result.points[seat],
        "over_time": result.over_time[seat],
        "plies": result.plies,
        "reason": result.reason,
        "effort": effort(search),
    }
    return record, search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="our agent's name (alphabeta, mcts...)")
    parser.add_argument("--opponent", default=OPENSPIEL, help="an agent's name, or the default")
    parser.add_argument("--game", default="amazons", help="the game (OpenSpiel's: amazons only)")
    parser.add_argument("--games", type=int, default=40, help="games per multiple")
    parser.add_argument("--move-time", type=float, default=0.1, help="our seconds per move")
    parser.add_argument("--times", default="5,10", help="OpenSpiel's time as multiples of ours")
    parser.add_argument("--seed", type=int, default=1, help="first game's seed")
    parser.add_argument("--log", type=Path, help="append each game as a JSON line here")
    parser.add_argument("--forfeit", action="store_true", help="a move over time loses")
    args = parser.parse_args()
    multiples = [float(text) for text in args.times.split(",")]
    game, names = get_game(args.game), (args.agent, args.opponent)
    results: dict[float, Series] = {}
    started = time.perf_counter()
    for multiple in multiples:
        series = results[multiple] = Series()
        for number in range(args.games):
            seat = number % 2
            budgets = (args.move_time, args.move_time * multiple)
            record, search = play(names, game, seat, budgets, args.seed + number, args.forfeit)
            series.wins += record["points"] == 1
            series.draws += record["points"] == 0.5
            series.losses += record["points"] == 0
            series.over_time += record["over_time"]
            series.search.merge(search)
            record.update(
                game=game.name,
                agent=args.agent,
                opponent=args.opponent,
                multiple=multiple,
                seat=seat,
                load=os.getloadavg()[0],
            )
            print(json.dumps(record), file=sys.stderr, flush=True)
            if args.log is not None:
                with args.log.open("a") as log:
                    log.write(json.dumps(record) + "\n")
    print(f"{args.agent} at {args.move_time:g} s a move against {args.opponent}, {game.name}")
    for multiple, series in results.items():
        low, high = wilson(series.points, series.games)
        mean = effort(series.search)
        searched = "-" if mean is None else f"{mean:.1f}"
        print(
            f"  {args.opponent} at {multiple:g}x: {series.wins} won, {series.draws} drawn, "
            f"{series.losses} lost ({series.points / series.games:.0%} of the points, "
            f"95% CI {low:.0%}-{high:.0%}), "
            f"{series.over_time} moves over time, mean depth/playouts a move {searched}"
        )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"{time.perf_counter() - started:.0f} s; load average at the end {load}")
    if any(series.points <= series.games / 2 for series in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
