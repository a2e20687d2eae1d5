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
`--forfeit` makes an overrun lose, as the server would). A game still going after `MAX_PLIES`
is a draw. Each game is printed as it ends (and appended to `--log` as a JSON line, so a long
run reports what it finished); at the end, per multiple: wins, draws, losses, AGENT's points
rate with its 95% Wilson interval (a draw counting half), AGENT's playouts or depth per move
where it reports them, its moves over time, and the load average. Exits non-zero unless AGENT
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

from strength import OPENSPIEL, build  # bench/ is first on the path when run as a script

from arbiter.agents import make_agent
from arbiter.games import Game, get_game

Z95 = 1.96
MAX_PLIES = 2000
"""A game this long is called a draw (Watch Your Back! can otherwise go on for ever)."""


@dataclass
class Series:
    """One multiple's games, from AGENT's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    over_time: int = 0
    """AGENT's moves over its time (lost games with `--forfeit`)."""
    effort: list[float] = field(default_factory=list)
    """Playouts (MCTS) or depth reached (alpha-beta) of each of AGENT's moves."""

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
    return (centre - spread) / scale, (centre + spread) / scale


def effort_of(agent: Any) -> float | None:
    """What the agent's last move searched: MCTS playouts, or alpha-beta's depth reached."""
    if getattr(agent, "last", None) is not None:
        return float(agent.last.depth)
    iterations = getattr(agent, "iterations", None)
    return None if iterations is None else float(iterations)


def play(
    names: tuple[str, str],
    game: Game[Any, Any],
    seat: int,
    multiple: float,
    move_time: float,
    seed: int,
    forfeit: bool,
) -> dict[str, Any]:
    """One game, AGENT (`names[0]`) in `seat`; its record, `points` from AGENT's side."""
    ours, theirs = make_agent(names[0], game, seed), build(names[1], game, seed + 1)
    state = game.new_game(fresh_seed=lambda: seed)
    effort: list[float] = []
    over_time = 0
    while (outcome := state.outcome()) is None and state.ply < MAX_PLIES:
        if state.turn == seat:
            start = time.perf_counter()
            move = ours.choose(state, move_time)
            elapsed = time.perf_counter() - start
            if elapsed > move_time:
                over_time += 1
                if forfeit:
                    return {"points": 0.0, "over_time": 1, "plies": state.ply, "effort": effort}
            reached = effort_of(ours)
            if reached is not None:
                effort.append(reached)
        else:
            move = theirs.choose(state, move_time * multiple)
        reason = state.why_illegal(move)
        if reason is not None:
            raise RuntimeError(f"illegal move {game.format_move(move)}: {reason}")
        state = state.play(move)
    points = 0.5 if outcome is None else outcome.score(seat)
    return {"points": points, "over_time": over_time, "plies": state.ply, "effort": effort}


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
            record = play(
                names, game, seat, multiple, args.move_time, args.seed + number, args.forfeit
            )
            series.wins += record["points"] == 1
            series.draws += record["points"] == 0.5
            series.losses += record["points"] == 0
            series.over_time += record["over_time"]
            series.effort += record["effort"]
            record.update(
                game=game.name,
                agent=args.agent,
                opponent=args.opponent,
                multiple=multiple,
                seat=seat,
                load=os.getloadavg()[0],
            )
            print(json.dumps(record | {"effort": None}), file=sys.stderr, flush=True)
            if args.log is not None:
                with args.log.open("a") as log:
                    log.write(json.dumps(record) + "\n")
    print(f"{args.agent} at {args.move_time:g} s a move against {args.opponent}, {game.name}")
    for multiple, series in results.items():
        low, high = wilson(series.points, series.games)
        mean = sum(series.effort) / len(series.effort) if series.effort else float("nan")
        print(
            f"  {args.opponent} at {multiple:g}x: {series.wins} won, {series.draws} drawn, "
            f"{series.losses} lost ({series.points / series.games:.0%} of the points, "
            f"95% CI {low:.0%}-{high:.0%}), "
            f"{series.over_time} moves over time, mean depth/playouts a move {mean:.1f}"
        )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"{time.perf_counter() - started:.0f} s; load average at the end {load}")
    if any(series.points <= series.games / 2 for series in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
