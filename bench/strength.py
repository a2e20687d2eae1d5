"""How strong each agent of a game is, and whether it keeps time: games at a fixed time per move.

    python bench/strength.py GAME [--agents A,B,...] [--vs NAME] [--games N]
                                  [--move-time SECONDS] [--seed S] [--server] [--load N]
                                  [--write-table]

Every pair of agents plays N games with each agent in each seat (2N per pair); with `--vs NAME`
each agent plays only NAME (`--vs openspiel-mcts`: OpenSpiel's C++ MCTS where OpenSpiel has
the game, Amazons, from the `bench` extra; in the other games the `openspiel` extra's agent of
that name, OpenSpiel's MCTSBot on our rules). A game with a random start (War of Life) uses one seed
for both seat orders, so each pairing meets the same starts from both sides. Prints the
win-rate matrix (the row agent's points per game against the column agent: win 1, draw 0.5,
loss or double forfeit 0), each agent's overall score and slowest move as a share of the
budget, then the ladder: wins, draws, losses, time losses, illegal moves, search speed (nodes a
second: alpha-beta's positions, MCTS's playouts, greedy's moves scored) and the depth reached
(alpha-beta's deepest finished iteration, mean and most). Exits 1 when any move was over its
time or illegal: the agents must keep time, and that is the point of `--load N`, which runs N
busy processes (pure Python spin loops) beside the games, started and stopped by the bench.
Each runs in a session of its own, as other people's work on a shared machine does: Linux's
autogroup scheduler shares the CPU between sessions first, so spinners in the bench's own session
would take their CPU from the bench alone, leaving the games far less than the same load from
other sessions does, and far longer stalls.

By default the games are played in this process: `choose(state, move_time)` is timed with the
wall clock and its move checked with `why_illegal`, which is fast. `--server` plays every game
through a real server and TCP clients instead (`client.referee.referee`), where the server's
clock and rules judge. `--write-table` writes the ladder into `docs/agents.md`, in this game's
part of its marked section.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on the path, and its server.py (the server benchmark)
# would hide the `server` package that `client.referee` imports.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import trio  # noqa: E402

from arbiter.agents import Agent, agents_for, make_agent  # noqa: E402
from arbiter.agents.search import FIXED_DEPTHS, AlphaBetaAgent, MCTSAgent, clock  # noqa: E402
from arbiter.client.referee import referee, seeded_options  # noqa: E402
from arbiter.games import Game, Outcome, get_game  # noqa: E402

OPENSPIEL = "openspiel-mcts"
OPENSPIEL_GAMES = ("amazons",)
SPIEL_LEAST_TIME = 0.01
"""Seconds OpenSpiel's `MCTSBot` gets for one action at least: stopped before its first
simulation (a few hundred microseconds on a loaded machine) its `Step` reads a child the root
does not have and the process dies of a segmentation fault. A move is three actions, so a
budget under about 0.1 s a move is raised to this."""
DOC = _HERE.parent / "docs" / "agents.md"
SPIN = "import os, sys\nparent = int(sys.argv[1])\nwhile os.getppid() == parent:\n    pass"
"""A busy process's program: one core's worth of pure Python work, until the bench is gone
(however it ended: a killed bench cannot stop them itself)."""
TIME_REASON = "ran out of time"
"""How the server's record names a time default (`server.play.match`)."""
ILLEGAL_REASON = "illegal move"


@dataclass
class Search:
    """What an agent's searches did over its moves (in-process games only)."""

    moves: int = 0
    nodes: int = 0
    seconds: float = 0.0
    depths: list[int] = field(default_factory=list)

    def add(self, agent: Agent, seconds: float) -> None:
        """The move `agent` just made in `seconds`, as far as it says what it did."""
        if isinstance(agent, AlphaBetaAgent) and agent.last is not None:
            self.nodes += agent.last.nodes
            self.depths.append(agent.last.depth)
        elif isinstance(agent, MCTSAgent):
            self.nodes += agent.iterations
        else:
            return
        self.moves += 1
        self.seconds += seconds

    def merge(self, other: Search) -> None:
        self.moves += other.moves
        self.nodes += other.nodes
        self.seconds += other.seconds
        self.depths += other.depths


@dataclass
class Tally:
    """One agent's record over the games."""

    points: dict[str, float] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    time_losses: int = 0
    illegal: int = 0
    slowest: float | None = None
    """The longest move, as a share of the budget (in-process games only)."""
    search: Search = field(default_factory=Search)

    def add(self, opponent: str, points: float, other: float) -> None:
        self.points[opponent] = self.points.get(opponent, 0.0) + points
        self.games[opponent] = self.games.get(opponent, 0) + 1
        self.wins += points > other
        self.draws += points == other
        self.losses += points < other


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
    """Each seat's longest move as a share of its budget; None when the server timed them."""
    searches: tuple[Search, Search] = (Search(), Search())
    over_time: tuple[int, int] = (0, 0)
    """Each seat's moves over its budget (in-process games only): at most the one that lost,
    unless the game was played without forfeits."""


def default_agents(game: Game[Any, Any]) -> list[str]:
    """Every agent of the game but the fixed-effort variants: `alphabeta`'s fixed depths and
    OpenSpiel's fixed simulation counts (`openspiel-mcts-s100`...), which the clock rarely
    stops: the ladder ranks what plays under the clock."""
    fixed = {f"alphabeta-d{depth}" for depth in FIXED_DEPTHS}
    return [
        info.name
        for info in agents_for(game.name)
        if info.name not in fixed and not info.name.startswith(f"{OPENSPIEL}-s")
    ]


def build(name: str, game: Game[Any, Any], seed: int) -> Agent:
    """The agent `name`; `openspiel-mcts` is OpenSpiel's own C++ MCTS where OpenSpiel has the
    game, else the registry's (the `openspiel` extra's MCTSBot on our rules)."""
    if name == OPENSPIEL and game.name in OPENSPIEL_GAMES:
        return OpenSpielMCTS(game, seed)
    return make_agent(name, game, seed)


@contextmanager
def busy_processes(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`count` processes spinning beside the games, each in its own session (see the module's
    docstring), stopped (and reaped) however the block ends."""
    command = [sys.executable, "-c", SPIN, str(os.getpid())]
    spinners = [subprocess.Popen(command, start_new_session=True) for _ in range(count)]
    try:
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()


def play_in_process(
    game: Game[Any, Any],
    names: tuple[str, str],
    seed: int,
    move_time: float | tuple[float, float],
    make: Callable[[str, Game[Any, Any], int], Agent] | None = None,
    forfeit: bool = True,
) -> GameResult:
    """One game, both agents called directly (made by `make`, else `build`), each seat given
    its own budget where `move_time` is a pair. A move over its budget or an illegal move loses,
    as on the server; without `forfeit` a move over its budget is only counted."""
    state = game.initial_state(game.resolve_options(seeded_options(game, seed)))
    make = make or build
    budgets = move_time if isinstance(move_time, tuple) else (move_time, move_time)
    agents = [make(name, game, seed + seat) for seat, name in enumerate(names)]
    played = _Played()
    while (outcome := state.outcome()) is None:
        seat = state.turn
        start = time.perf_counter()
        move = agents[seat].choose(state, budgets[seat])
        elapsed = time.perf_counter() - start
        played.slowest[seat] = max(played.slowest[seat], elapsed / budgets[seat])
        played.searches[seat].add(agents[seat], elapsed)
        if elapsed > budgets[seat]:
            played.over_time[seat] += 1
            if forfeit:
                return played.default(state, seat, f"{TIME_REASON} ({elapsed:.3f} s)", True)
        reason = state.why_illegal(move)
        if reason is not None:
            return played.default(state, seat, f"{ILLEGAL_REASON}: {reason}", False)
        state = state.play(move)
    return played.result((outcome.score(0), outcome.score(1)), state.ply, outcome.reason)


@dataclass
class _Played:
    """What `play_in_process` notes of each seat's moves as the game goes."""

    slowest: list[float] = field(default_factory=lambda: [0.0, 0.0])
    over_time: list[int] = field(default_factory=lambda: [0, 0])
    searches: tuple[Search, Search] = field(default_factory=lambda: (Search(), Search()))

    def result(
        self,
        points: tuple[float, float],
        plies: int,
        reason: str,
        time_loss: int | None = None,
        illegal: int | None = None,
    ) -> GameResult:
        slowest = (self.slowest[0], self.slowest[1])
        over_time = (self.over_time[0], self.over_time[1])
        return GameResult(
            points, plies, reason, time_loss, illegal, slowest, self.searches, over_time
        )

    def default(self, state: Any, seat: int, reason: str, time: bool) -> GameResult:
        """The game lost by `seat`: on time, or by an illegal move."""
        outcome = Outcome.win(1 - seat, reason)
        points = (outcome.score(0), outcome.score(1))
        time_loss, illegal = (seat, None) if time else (None, seat)
        return self.result(points, state.ply, reason, time_loss, illegal)


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


def pairings(names: list[str], opponent: str | None) -> list[tuple[str, str]]:
    """Every pair of `names`, or each of them against `opponent` alone."""
    if opponent is None:
        return list(itertools.combinations(names, 2))
    return [(name, opponent) for name in names if name != opponent]


def round_robin(
    game: Game[Any, Any],
    names: list[str],
    games: int,
    move_time: float,
    seed: int,
    play: Player,
    opponent: str | None = None,
) -> dict[str, Tally]:
    everyone = names if opponent is None or opponent in names else [*names, opponent]
    tallies = {name: Tally() for name in everyone}
    for first, second in pairings(names, opponent):
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
        tally.add(pair[1 - seat], result.points[seat], result.points[1 - seat])
        tally.search.merge(result.searches[seat])
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


LADDER_HEADER = (
    "| agent | games | won | drawn | lost | time losses | illegal | nodes/s | depth (mean, max) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
)


def ladder(tallies: dict[str, Tally]) -> list[str]:
    """The ladder as Markdown table rows, strongest (most points a game) first."""

    def score(name: str) -> float:
        tally = tallies[name]
        return sum(tally.points.values()) / max(1, sum(tally.games.values()))

    rows = list(LADDER_HEADER)
    for name in sorted(tallies, key=score, reverse=True):
        t, search = tallies[name], tallies[name].search
        speed = f"{search.nodes / search.seconds:,.0f}" if search.seconds else "-"
        depths = search.depths
        depth = f"{sum(depths) / len(depths):.1f}, {max(depths)}" if depths else "-"
        rows.append(
            f"| {name} | {sum(t.games.values())} | {t.wins} | {t.draws} | {t.losses} "
            f"| {t.time_losses} | {t.illegal} | {speed} | {depth} |"
        )
    return rows


PART = re.compile(r"<!-- strength:([a-z-]+) -->\n(.*?)<!-- /strength:\1 -->\n?", re.DOTALL)
"""One game's part of the strength section in `docs/agents.md`."""


def write_table(path: Path, game: str, heading: str, rows: list[str]) -> None:
    """Put `rows` under `heading` as `game`'s part of the file's strength section, replacing
    what an earlier run wrote there; the other games' parts and the section's prose are kept."""
    text = path.read_text(encoding="utf-8")
    begin, end = "<!-- strength:begin -->", "<!-- strength:end -->"
    if begin not in text or end not in text:
        raise SystemExit(f"{path} has no {begin} ... {end} section to write the table into")
    head, rest = text.split(begin, 1)
    section, tail = rest.split(end, 1)
    parts = dict(PART.findall(section))
    parts[game] = f"{heading}\n\n" + "\n".join(rows) + "\n"
    prose = PART.sub("", section).strip("\n")
    body = "".join(
        f"<!-- strength:{name} -->\n{parts[name]}<!-- /strength:{name} -->\n\n"
        for name in sorted(parts)
    )
    path.write_text(f"{head}{begin}\n{prose}\n\n{body}{end}{tail}", encoding="utf-8")


class OpenSpielMCTS:
    """OpenSpiel's C++ `MCTSBot` (UCT, one random rollout per leaf) playing our Amazons states.

    OpenSpiel splits a move into three actions (the amazon's square, its destination, the
    arrow's square), each numbered `row * 10 + column` with row 0 at the top, as the bridge's
    Amazons encoding numbers them (`bridges/encodings/amazons.py`). Our states say nothing of
    the moves that led to them, so the bot keeps its own OpenSpiel state and catches up on the
    opponent's move by comparing our state with the one its own move left: one amazon moved, one
    arrow more. Each of its three decisions gets a third of the time our agents get for a move.
    """

    def __init__(self, game: Game[Any, Any], seed: int | None = None) -> None:
        import pyspiel  # type: ignore[import-not-found]  # the `bench` extra

        if game.name != "amazons":
            raise ValueError("OpenSpiel's bot is wired for Amazons only")
        self._pyspiel = pyspiel
        self._spiel_game = pyspiel.load_game("amazons")
        self.action(0)  # loads the bridge's map (and numpy) now, not in the bot's first timed move
        self._mirror = self._spiel_game.new_initial_state()
        self._known = game.new_game()
        self._seed = random.Random(seed).getrandbits(31)

    @staticmethod
    def action(square: int) -> int:
        """OpenSpiel's action for our square, by the bridge's map (imported here: the bridge
        needs numpy, which comes with OpenSpiel, and the rest of this bench does not)."""
        from arbiter.bridges.encodings.amazons import action

        return action(square)

    square = action
    """Our square for OpenSpiel's action: the map is its own inverse."""

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
            max(SPIEL_LEAST_TIME, clock.thinking_time(budget) / 3),
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
    parser.add_argument("--vs", metavar="NAME", help=f"each agent plays NAME only ({OPENSPIEL})")
    parser.add_argument("--games", type=int, default=5, help="games per pair and seat order")
    parser.add_argument("--move-time", type=float, default=0.2, help="seconds per move")
    parser.add_argument("--seed", type=int, default=1, help="first seed (starts and agents)")
    parser.add_argument("--server", action="store_true", help="play through a real server")
    parser.add_argument("--load", type=int, default=0, metavar="N", help="N busy processes")
    parser.add_argument("--write-table", action="store_true", help=f"write the ladder to {DOC}")
    args = parser.parse_args()
    game = get_game(args.game)
    names = args.agents.split(",") if args.agents else default_agents(game)
    if args.vs == OPENSPIEL and game.name in OPENSPIEL_GAMES and args.server:
        parser.error("OpenSpiel's C++ bot plays in process only")
    play: Player = play_on_server if args.server else play_in_process
    started = time.perf_counter()
    with busy_processes(args.load):
        load_before = os.getloadavg()[0]
        tallies = round_robin(
            game, names, args.games, args.move_time, args.seed, play, opponent=args.vs
        )
        load_after = os.getloadavg()[0]
    mode = "through the server" if args.server else "in process"
    conditions = (
        f"{game.name}, {args.move_time:g} s a move, {mode}, {args.load} busy processes, "
        f"load average {load_before:.1f} to {load_after:.1f} on {os.cpu_count()} cores"
    )
    print(report(tallies, args.move_time, mode))
    inside = clock.LATENESS.recent()[0]
    print(f"{conditions}; {time.perf_counter() - started:.0f} s")
    late, stall = max(inside, default=0.0), max(clock.LATENESS.stalls(), default=0.0)
    print(
        f"worst lateness past a deadline, recent moves: {late * 1000:.0f} ms;"
        f" longest stall between two clock checks: {stall * 1000:.0f} ms"
    )
    rows = ladder(tallies)
    print("\n".join(rows))
    if args.write_table:
        write_table(
            DOC,
            game.name,
            f"{game.title}: {conditions}, {args.games} game{'s' * (args.games != 1)} a pairing"
            " and seat order.",
            rows,
        )
    failures = sum(t.time_losses + t.illegal for t in tallies.values())
    if failures:
        print(f"FAILED: {failures} games lost on time or by an illegal move", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
