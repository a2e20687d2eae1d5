"""How strong each agent of a game is: a round robin at a fixed time per move.

    python bench/strength.py GAME [--agents A,B,...] [--games N] [--move-time SECONDS]
                                  [--seed S] [--server] [--openspiel]

Every pair of agents plays N games with each agent in each seat (2N per pair); a game with a
random start (War of Life) uses one seed for both seat orders, so each pairing meets the same
starts from both sides. Prints the win-rate matrix (the row agent's points per game against the
column agent: win 1, draw 0.5, loss or double forfeit 0), each agent's overall score, its
slowest move as a share of the budget, and the two counts that must be zero: moves over the
time limit and illegal moves (either loses the game at once, as the server would rule).

By default the games are played in this process: `choose(state, move_time)` is timed with the
wall clock and its move checked with `why_illegal`, which is fast. `--server` plays every game
through a real server and TCP clients instead (`client.referee.referee`), where the server's
clock and rules judge. `--openspiel` (Amazons only; the `bench` extra) adds OpenSpiel's C++ MCTS
bot with random rollouts, driven move by move from our moves and given the same time per move.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on the path, and its server.py (the server benchmark)
# would hide the `server` package that `client.referee` imports.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import trio  # noqa: E402

from arbiter.agents import Agent, agents_for, make_agent  # noqa: E402
from arbiter.agents.search import FIXED_DEPTHS, clock  # noqa: E402
from arbiter.client.referee import referee, seeded_options  # noqa: E402
from arbiter.games import Game, Outcome, get_game  # noqa: E402

OPENSPIEL = "openspiel-mcts"
TIME_REASON = "ran out of time"
"""How the server's record names a time default (`server.match`)."""
ILLEGAL_REASON = "illegal move"


@dataclass
class Tally:
    """One agent's record over the round robin."""

    points: dict[str, float] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    time_losses: int = 0
    illegal: int = 0
    slowest: float | None = None
    """The longest move, as a share of the budget (in-process games only)."""

    def add(self, opponent: str, points: float) -> None:
        self.points[opponent] = self.points.get(opponent, 0.0) + points
        self.games[opponent] = self.games.get(opponent, 0) + 1


@dataclass(frozen=True)
class GameResult:
    points: tuple[float, float]
    plies: int
    reason: str
    time_loss: int | None = None
    """The seat that lost on time, if one did."""
    illegal: int | None = None
    """The seat that played an illegal move, if one did."""
    slowest: tuple[float, float] | None = None
    """Each seat's longest move as a share of the budget; None when the server timed them."""


def default_agents(game: Game[Any, Any]) -> list[str]:
    """Every agent of the game but the fixed-depth variants of `alphabeta`."""
    fixed = {f"alphabeta-d{depth}" for depth in FIXED_DEPTHS}
    return [info.name for info in agents_for(game.name) if info.name not in fixed]


def build(name: str, game: Game[Any, Any], seed: int) -> Agent:
    if name == OPENSPIEL:
        return OpenSpielMCTS(game, seed)
    return make_agent(name, game, seed)


def play_in_process(
    game: Game[Any, Any], names: tuple[str, str], seed: int, move_time: float
) -> GameResult:
    """One game, both agents called directly; over time or illegal loses as on the server."""
    state = game.initial_state(game.resolve_options(seeded_options(game, seed)))
    agents = [build(name, game, seed + seat) for seat, name in enumerate(names)]
    slowest = [0.0, 0.0]
    while (outcome := state.outcome()) is None:
        seat = state.turn
        start = time.perf_counter()
        move = agents[seat].choose(state, move_time)
        elapsed = time.perf_counter() - start
        slowest[seat] = max(slowest[seat], elapsed / move_time)
        if elapsed > move_time:
            return _default(state, seat, f"{TIME_REASON} ({elapsed:.3f} s)", slowest, time=True)
        reason = state.why_illegal(move)
        if reason is not None:
            return _default(state, seat, f"{ILLEGAL_REASON}: {reason}", slowest, time=False)
        state = state.play(move)
    points = (outcome.score(0), outcome.score(1))
    return GameResult(points, state.ply, outcome.reason, slowest=(slowest[0], slowest[1]))


def _default(state: Any, seat: int, reason: str, slowest: list[float], time: bool) -> GameResult:
    outcome = Outcome.win(1 - seat, reason)
    points = (outcome.score(0), outcome.score(1))
    loser = {"time_loss": seat} if time else {"illegal": seat}
    return GameResult(points, state.ply, reason, slowest=(slowest[0], slowest[1]), **loser)


def play_on_server(
    game: Game[Any, Any], names: tuple[str, str], seed: int, move_time: float
) -> GameResult:
    """One game through a real server on 127.0.0.1, judged by its clock and rules."""
    record = trio.run(
        lambda: referee(game.name, names, seed=seed, time_control=f"move={move_time}")
    )
    winner = None if record.winner is None else game.seat_index(record.winner)
    points = (0.0, 0.0) if record.result == "both_forfeit" else (0.5, 0.5)
    if winner is not None:
        points = (1.0, 0.0) if winner == 0 else (0.0, 1.0)
    loser = None if winner is None else 1 - winner
    return GameResult(
        points,
        len(record.moves),
        record.reason,
        time_loss=loser if TIME_REASON in record.reason else None,
        illegal=loser if ILLEGAL_REASON in record.reason else None,
    )


Player = Callable[[Game[Any, Any], tuple[str, str], int, float], GameResult]


def round_robin(
    game: Game[Any, Any], names: list[str], games: int, move_time: float, seed: int, play: Player
) -> dict[str, Tally]:
    tallies = {name: Tally() for name in names}
    for first, second in itertools.combinations(names, 2):
        for number in range(games):
            game_seed = seed + number
            for pair in ((first, second), (second, first)):
                result = play(game, pair, game_seed, move_time)
                _record(tallies, pair, result)
                print(
                    f"  {pair[0]} vs {pair[1]} (seed {game_seed}): {result.points[0]:g}-"
                    f"{result.points[1]:g} in {result.plies} plies, {result.reason}",
                    file=sys.stderr,
                    flush=True,
                )
    return tallies


def _record(tallies: dict[str, Tally], pair: tuple[str, str], result: GameResult) -> None:
    for seat, name in enumerate(pair):
        tally = tallies[name]
        tally.add(pair[1 - seat], result.points[seat])
        if result.slowest is not None:
            tally.slowest = max(tally.slowest or 0.0, result.slowest[seat])
        tally.time_losses += result.time_loss == seat
        tally.illegal += result.illegal == seat


def report(tallies: dict[str, Tally], move_time: float, mode: str) -> str:
    names = list(tallies)
    width = max(8, *(len(name) for name in names)) + 1
    lines = [
        f"win rate of the row agent against the column agent ({mode}, {move_time:g} s per move)",
        " " * width + "".join(f"{name:>{width}}" for name in names) + f"{'overall':>{width}}"
        f"{'over time':>{width}}{'illegal':>{width}}{'slowest':>{width}}",
    ]
    for name in names:
        tally = tallies[name]
        cells = []
        for other in names:
            games = tally.games.get(other, 0)
            cells.append("-" if not games else f"{tally.points[other] / games:.0%}")
        overall = sum(tally.points.values()) / max(1, sum(tally.games.values()))
        lines.append(
            f"{name:<{width}}"
            + "".join(f"{cell:>{width}}" for cell in cells)
            + f"{overall:>{width}.0%}{tally.time_losses:>{width}}{tally.illegal:>{width}}"
            + ("-" if tally.slowest is None else f"{tally.slowest:.0%}").rjust(width)
        )
    games = sum(sum(t.games.values()) for t in tallies.values()) // 2
    lines.append(f"{games} games; time losses and illegal moves must both be 0")
    return "\n".join(lines)


class OpenSpielMCTS:
    """OpenSpiel's C++ `MCTSBot` (UCT, one random rollout per leaf) playing our Amazons states.

    OpenSpiel splits a move into three actions (the amazon's square, its destination, the
    arrow's square), each numbered `row * 10 + column` with row 0 at the top, so our square
    `file + 10 * rank` is action `(9 - rank) * 10 + file`. Our states say nothing of the moves
    that led to them, so the bot keeps its own OpenSpiel state and catches up on the opponent's
    move by comparing our state with the one its own move left: one amazon moved, one arrow
    more. Each of its three decisions gets a third of the time our agents get for a move.
    """

    def __init__(self, game: Game[Any, Any], seed: int | None = None) -> None:
        import pyspiel  # type: ignore[import-not-found]  # the `bench` extra

        if game.name != "amazons":
            raise ValueError("OpenSpiel's bot is wired for Amazons only")
        self._pyspiel = pyspiel
        self._spiel_game = pyspiel.load_game("amazons")
        self._mirror = self._spiel_game.new_initial_state()
        self._known = game.new_game()
        self._seed = random.Random(seed).getrandbits(31)

    @staticmethod
    def action(square: int) -> int:
        return (9 - square // 10) * 10 + square % 10

    @staticmethod
    def square(action: int) -> int:
        return (9 - action // 10) * 10 + action % 10

    def choose(self, state: Any, budget: float) -> Any:
        self._catch_up(state)
        pyspiel = self._pyspiel
        bot = pyspiel.MCTSBot(
            self._spiel_game,
            pyspiel.RandomRolloutEvaluator(1, self._seed),
            2.0,  # uct_c, as OpenSpiel's own examples
            10**9,  # simulations: the clock stops it first
            1000,  # tree memory, MB
            True,  # solve: MCTS-Solver backs up proven results
            self._seed,
            False,
            pyspiel.ChildSelectionPolicy.UCT,
            clock.thinking_time(budget) / 3,
        )
        squares = []
        for _ in range(3):
            action = bot.step(self._mirror)
            self._mirror.apply_action(action)
            squares.append(self.square(action))
        move = (squares[0], squares[1], squares[2])
        self._known = state.play(move)
        return move

    def _catch_up(self, state: Any) -> None:
        if state == self._known:
            return
        before = self._known
        was, now = (before.black, state.black) if before.turn else (before.white, state.white)
        start, end = (was & ~now).bit_length() - 1, (now & ~was).bit_length() - 1
        arrow = (state.arrows & ~before.arrows).bit_length() - 1
        for square in (start, end, arrow):
            self._mirror.apply_action(self.action(square))
        self._known = state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--agents", help="comma-separated agent names (default: all but -dN)")
    parser.add_argument("--games", type=int, default=5, help="games per pair and seat order")
    parser.add_argument("--move-time", type=float, default=0.2, help="seconds per move")
    parser.add_argument("--seed", type=int, default=1, help="first seed (starts and agents)")
    parser.add_argument("--server", action="store_true", help="play through a real server")
    parser.add_argument("--openspiel", action="store_true", help="add OpenSpiel's MCTS (Amazons)")
    args = parser.parse_args()
    game = get_game(args.game)
    names = args.agents.split(",") if args.agents else default_agents(game)
    if args.openspiel:
        if args.server:
            parser.error("OpenSpiel's bot plays in process only")
        names.append(OPENSPIEL)
    play: Player = play_on_server if args.server else play_in_process
    started = time.perf_counter()
    tallies = round_robin(game, names, args.games, args.move_time, args.seed, play)
    mode = "through the server" if args.server else "in process"
    print(report(tallies, args.move_time, mode))
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
