"""How many games a ladder needs to find its agents' order: built-in agents of known strength.

    python bench/ladder.py [--games N] [--time CONTROL] [--seed S] [--only GAME]

For each game, one ladder (`arbiter ladder local`'s: the ladder's pairing rule, OpenSkill's
ratings, every game through a real server on 127.0.0.1) of agents whose order docs/agents.md's
strength table measured with clear margins, weakest first (`ORDERS`; Shobu twice: random <
greedy < alphabeta, and its levels easy < medium < hard). After every game the table's order is
compared with the known one by Kendall's tau. Printed per ladder: the games (and games per
agent) after which tau reached 1.0 and stayed there to the end, tau at the end, and the mean
sigma at the start, halfway and at the end (the uncertainty shrinking as games are added).

Exits 1 when a ladder ends with its order not recovered (tau below 1.0) or its mean sigma did
not shrink: the convergence the ladder is built for did not happen.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script, this folder comes first on the path, and its server.py (the server benchmark)
# would hide the `server` package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import trio  # noqa: E402

from arbiter.client.ladder import play_ladder  # noqa: E402
from arbiter.client.options import time_control  # noqa: E402
from arbiter.client.runner import GameRecord  # noqa: E402
from arbiter.games import GAME_NAMES, get_game  # noqa: E402
from arbiter.server.app import Ladder, kendall_tau  # noqa: E402
from arbiter.server.tournaments.ladder_ratings import Skill  # noqa: E402

FAST = "move=0.05"
"""The time control of most ladders: the orders hold at it, and a ladder plays many games."""


@dataclass(frozen=True)
class Known:
    """A ladder whose order is known: its game, its agents weakest first, its time control and
    how many games it plays."""

    game: str
    order: list[str]
    time: str = FAST
    games: int = 30


KNOWN = [
    # Amazons' alpha-beta, with hundreds of moves a position, searches no deeper than greedy's
    # one ply at 0.05 s: the strength table's 0.3 s separates them.
    Known("amazons", ["random", "greedy", "alphabeta"], "move=0.3"),
    Known("kings-court", ["random", "greedy", "alphabeta"]),
    Known("shobu", ["random", "greedy", "alphabeta"]),
    # Shobu's levels are the closest neighbours here: the table's 0.3 s, and more games.
    Known("shobu", ["easy", "medium", "hard"], "move=0.3", 40),
    # greedy wins little more than random at War of Life, and draws level with alphabeta at
    # Watch Your Back: MCTS stands between the two with clear margins in both.
    Known("war-of-life", ["random", "mcts", "alphabeta"]),
    Known("watch-your-back", ["random", "mcts", "alphabeta"]),
]
"""Ladders of agents in the order docs/agents.md's strength table measured with clear margins."""


@dataclass
class Watch:
    """Tau and the mean sigma after each game of one ladder."""

    order: list[str]
    taus: list[float] = field(default_factory=list)
    sigmas: list[float] = field(default_factory=list)

    def __call__(
        self, number: int, pair: tuple[str, str], record: GameRecord, ladder: Ladder
    ) -> None:
        ranking = [entry.name for entry in reversed(ladder.table())]  # weakest first
        self.taus.append(kendall_tau(ranking, self.order))
        self.sigmas.append(statistics.fmean(e.skill.sigma for e in ladder.table()))
        print(
            f"  {number:3d}. {pair[0]} vs {pair[1]}: {record.summary()}; tau {self.taus[-1]:+.2f}",
            file=sys.stderr,
            flush=True,
        )

    def settled(self) -> int | None:
        """The games after which tau was 1.0 to the end; None if it did not end at 1.0."""
        if not self.taus or self.taus[-1] < 1.0:
            return None
        games = len(self.taus)
        while games > 1 and self.taus[games - 2] == 1.0:
            games -= 1
        return games


def measure(game_name: str, order: list[str], games: int, control: str, seed: int) -> Watch:
    watch = Watch(order)
    game = get_game(game_name)
    trio.run(
        lambda: play_ladder(
            game, order, games=games, seed=seed, time=time_control(control), on_game=watch
        )
    )
    return watch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, help="games in each ladder (default: its own)")
    parser.add_argument("--time", help="time control of every game (default: each ladder's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=GAME_NAMES, help="one game's ladders only")
    args = parser.parse_args()
    failed = False
    print(f"seed {args.seed}")
    print(
        "| game | agents, weakest first | time | games | tau 1.0 from game | games per agent |"
        " final tau | mean sigma: start, half, end |"
    )
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    for known in KNOWN:
        if args.only not in (None, known.game):
            continue
        started = time.perf_counter()
        control, games = args.time or known.time, args.games or known.games
        watch = measure(known.game, known.order, games, control, args.seed)
        settled = watch.settled()
        per_agent = "-" if settled is None else f"{2 * settled / len(known.order):.1f}"
        start, half, end = Skill().sigma, watch.sigmas[len(watch.sigmas) // 2], watch.sigmas[-1]
        print(
            f"| {known.game} | {' < '.join(known.order)} | {control} | {games} |"
            f" {settled or '-'} | {per_agent} | {watch.taus[-1]:+.2f} |"
            f" {start:.2f}, {half:.2f}, {end:.2f} |",
            flush=True,
        )
        print(f"  ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
        failed |= settled is None or not end < half < start
    if failed:
        print(
            "FAILED: a ladder did not recover its order, or its uncertainty did not shrink",
            file=sys.stderr,
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
