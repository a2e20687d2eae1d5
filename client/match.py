"""`arbiter match`: two agents or players, in colour-swapped pairs, until an SPRT decides.

    arbiter match A B --game GAME --sprt elo0=0 elo1=5 [--alpha 0.05 --beta 0.05]
                      [--max-games N] [--time CONTROL] [--seed S] [--db FILE]
    arbiter match A B --game GAME --games N [...]
    arbiter match A B --game GAME --sprt ... --server HOST:PORT --name ADMIN [--title NAME]

"Is A stronger than B?" is answered as engine developers answer it: each start is played twice,
A first and then B first, and a sequential probability ratio test on the pairs' scores
(`server.tournaments.sprt`) stops as soon as the evidence says H1 (A is `elo1` Elo points above
B) or H0 (only `elo0`), with error rates `alpha` and `beta`. Without `--sprt`, `--games N` plays
a fixed match (N rounded up to whole pairs) with the same report.

Every game is played through one real server on 127.0.0.1 by `client.referee.referee_on`, as
`arbiter ladder local`'s are: the server's clocks and rules judge, its records keep the games
(in `--db FILE` if given, to export and replay them), and nothing here is a second game loop.
Both games of a pair get the same seed, so a game with a random start (War of Life) starts the
same way twice.

A side that is a program (`cmd=COMMAND`), and every match on a server (`--server`: its players
or hosted versions), is played as a server's match instead (`client.match_served`): a program
speaks the protocol itself, and a server's players are its own. The report is the same.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from rich.console import Console

from arbiter import protocol
from arbiter.agents import AgentError, make_agent
from arbiter.client.connection import ClientConnection
from arbiter.client.entrants import ENTRANT_HELP, PROGRAM, parse_program
from arbiter.client.match_served import (
    SERVED_WAIT,
    Served,
    ServedPairHook,
    local_sides,
    match_name,
    match_request,
    play_here,
    play_served,
    served_pair_line,
    server_sides,
)
from arbiter.client.options import add_server_option, positive_int, server_tls, time_control
from arbiter.client.player_module import is_module_path, make_any_agent, player_name
from arbiter.client.referee import referee_on
from arbiter.client.runner import GameRecord
from arbiter.client.sandbox.choice import add_sandbox_option, use_sandbox
from arbiter.client.sandbox.toolchain import SandboxUnavailable
from arbiter.client.tables import score_text
from arbiter.client.tournament import TOKEN_VARIABLE
from arbiter.client.tournament_follow import games_bar
from arbiter.games import GAME_NAMES, Game, get_game
from arbiter.protocol import TimeControl
from arbiter.server.app import (
    DB_VARIABLE,
    MAX_PAIRS,
    Hypothesis,
    PairCount,
    Sprt,
    SprtError,
    SprtTerms,
    StoreError,
    UnknownEntrant,
    local_server,
    prepare_database,
    terms_to_wire,
)

DEFAULT_TIME = "move=0.2"
"""A match plays many games, so its default is a fast time control, not the game's own."""
SEED_RANGE = 2**31
SPRT_WORDS = ("elo0", "elo1")
UNDECIDED_GAMES = 2000
"""How many games an SPRT plays without `--max-games` before it stops undecided: tests far
apart decide in a few hundred, and one that has not decided by then is better rerun with
bounds that fit the difference."""


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """What a match plays: A against B in `game`, until `terms` decide (or `max_games`), or
    `games` games when there are no terms."""

    game: Game[Any, Any]
    players: tuple[str, str]
    terms: SprtTerms | None = None
    games: int | None = None
    max_games: int = UNDECIDED_GAMES
    time: TimeControl = field(default_factory=lambda: TimeControl.parse(DEFAULT_TIME))

    @property
    def pairs(self) -> int:
        """The most pairs the match plays."""
        return math.ceil((self.max_games if self.games is None else self.games) / 2)

    def names(self) -> tuple[str, str]:
        """The players' names on the server, told apart when both are the same agent."""
        first, second = (player_name(player) for player in self.players)
        return (first, f"{second}-2") if first == second else (first, second)


@dataclass(slots=True)
class MatchResult:
    """The pairs' count, the SPRT on it (none in a fixed match), every game's record (a served
    match's are the server's), and why it stopped before its end, if it did."""

    sprt: Sprt | None
    count: PairCount = field(default_factory=PairCount)
    records: list[GameRecord] = field(default_factory=list)
    stopped: str | None = None

    @classmethod
    def of_served(cls, served: Served) -> MatchResult:
        progress = served.progress
        return cls(progress.test, progress.count, stopped=progress.stopped)


PairHook = Callable[[int, tuple[GameRecord, GameRecord], MatchResult], None]
"""Told of each finished pair: its number, its two records (A first, then B first), and the
match so far."""


def points_of(game: Game[Any, Any], record: GameRecord, seat: int) -> float:
    """What the player in `seat` scored in `record`: 1, 0.5 or 0. A game without a winner
    scores half each, a double forfeit (King's Court's 50-move rule) too: the test compares the
    two sides, and neither gained on the other; a default is the defaulter's loss."""
    if record.winner is None:
        return 0.5
    return 1.0 if game.seat_index(record.winner) == seat else 0.0


async def play_match(
    plan: MatchPlan,
    *,
    seed: int | None = None,
    db_path: str | Path | None = None,
    sandboxed: bool = False,
    on_pair: PairHook | None = None,
) -> MatchResult:
    """Play `plan` on one local server (its records in `db_path`, else a throwaway file):
    pair after pair, each start once with A first and once with B first, until the SPRT
    decides or the pairs run out."""
    game = plan.game
    result = MatchResult(None if plan.terms is None else Sprt(plan.terms))
    rng = random.Random(seed)
    names = plan.names()
    wire = plan.time.to_wire()
    async with local_server(db_path) as server:
        for number in range(1, plan.pairs + 1):
            start = rng.randrange(SEED_RANGE)
            records = []
            for first in (0, 1):
                order = (first, 1 - first)
                agents = tuple(
                    make_any_agent(plan.players[index], game, start + index, sandboxed=sandboxed)
                    for index in order
                )
                seats = (names[order[0]], names[order[1]])
                records.append(
                    await referee_on(
                        server, game, seats, (agents[0], agents[1]), seed=start, time=wire
                    )
                )
            result.records.extend(records)
            result.count.record(pair_points(game, (records[0], records[1])))
            decided = None if result.sprt is None else result.sprt.update(result.count.as_counts())
            if on_pair is not None:
                on_pair(number, (records[0], records[1]), result)
            if decided is not None:
                break
    return result


# -- what it prints ------------------------------------------------------------------------------


def status_line(plan: MatchPlan, result: MatchResult) -> str:
    """`games 24, score 15.5-8.5, LLR 1.23 [-2.94, 2.94], Elo +45.2 [+10.1, +80.3]`."""
    count = result.count
    games = 2 * count.pairs
    parts = [
        f"games {games}",
        f"score {score_text(count.points)}-{score_text(games - count.points)}",
    ]
    if result.sprt is not None:
        terms = result.sprt.terms
        parts.append(f"LLR {result.sprt.llr:.2f} [{terms.lower:.2f}, {terms.upper:.2f}]")
    parts.append(f"Elo {count.estimate().text()}")
    return ", ".join(parts)


def pair_points(game: Game[Any, Any], records: tuple[GameRecord, GameRecord]) -> float:
    """What A scored in a pair: first in its first game, second in its second."""
    return points_of(game, records[0], 0) + points_of(game, records[1], 1)


def pair_line(number: int, plan: MatchPlan, records: tuple[GameRecord, GameRecord]) -> str:
    """`pair 3: alphabeta 1.5-0.5 random (first: 1-0, white wins: ...; second: ...)`."""
    scored = pair_points(plan.game, records)
    a, b = plan.players
    told = "; ".join(
        f"{plan.names()[seat]} first: {record.summary()}" for seat, record in enumerate(records)
    )
    return f"pair {number}: {a} {score_text(scored)}-{score_text(2 - scored)} {b} ({told})"


def verdict(plan: MatchPlan, result: MatchResult) -> str:
    """The match's last line: the hypothesis accepted, or that none was."""
    a, b = plan.players
    games = 2 * result.count.pairs
    if result.stopped is not None:
        return f"stopped after {games} games counted: {result.stopped}"
    if result.sprt is None:
        return f"{a} vs {b}: {games} games played"
    terms = result.sprt.terms
    decided = result.sprt.decision
    if decided is not None:
        nearer, farther = (
            (terms.elo1, terms.elo0) if decided is Hypothesis.H1 else (terms.elo0, terms.elo1)
        )
        return (
            f"{decided.value} accepted after {games} games (elo0={terms.elo0:g}"
            f" elo1={terms.elo1:g}, alpha {terms.alpha:g}, beta {terms.beta:g}): {a}'s advantage"
            f" over {b} is nearer {nearer:+g} Elo than {farther:+g}"
        )
    return (
        f"no decision after {games} games (--max-games): LLR {result.sprt.llr:.2f} is"
        f" still between {terms.lower:.2f} and {terms.upper:.2f}"
    )


# -- the command ---------------------------------------------------------------------------------


def check_player(player: str, game: Game[Any, Any]) -> None:
    """`AgentError` with a sentence for a name that is no agent of `game`, or a module path
    where there is no file, `UnknownEntrant` for a program that cannot be run; said before a
    server starts, and without starting a module or a program."""
    if parse_program(player) is not None:
        return
    if not is_module_path(player):
        make_agent(player, game)
    elif not Path(player).is_file():
        raise AgentError(f"no Player module at {player!r}: there is no such file")


def served_request(args: argparse.Namespace, plan: MatchPlan) -> protocol.TournamentCreate:
    """The match a server plays for the command line: its name (`--title`, else one from the
    seed), its sides (a server's players, or this machine's entrants), its pairs and terms."""
    a, b = args.players
    return match_request(
        args.title or match_name(args.seed),
        plan.game.name,
        server_sides(a, b) if args.server is not None else local_sides(a, b),
        pairs=plan.pairs,
        terms=None if plan.terms is None else terms_to_wire(plan.terms),
        time=plan.time.to_wire(),
        wait=args.wait,
    )


async def play_on_server(
    args: argparse.Namespace, plan: MatchPlan, on_pair: ServedPairHook, lines: Console
) -> MatchResult:
    """Play the match on `--server` as `--name`, first saying how its players join it."""
    create = served_request(args, plan)
    host, port = args.server
    async with await ClientConnection.open(
        host, port, args.name, args.token, tls=server_tls(args)
    ) as connection:
        lines.print(
            f"match {create.name!r} on {host}:{port}: its players play it with"
            f" `arbiter tournament play {create.name}`",
            soft_wrap=True,
        )
        return MatchResult.of_served(await play_served(connection, create, plan.terms, on_pair))


class ServedError(ValueError):
    """Options that do not go with a match on a server; the sentence says which."""


def check_served(args: argparse.Namespace) -> None:
    """`ServedError` for what a match on a server cannot take: a kept file (the server keeps
    its games), no admin name (a match is a tournament, which only an admin creates), more pairs
    than a match may have, or a side that is a program or a Player module (a server runs only
    its hosted versions: upload it with `arbiter submit`)."""
    if args.db is not None:
        raise ServedError("--db goes with a match on this machine: a server keeps its own games")
    if args.name is None:
        raise ServedError(
            "a match on a server is a tournament, which an admin creates: give --name and"
            " --token (or $ARBITER_TOKEN) of an admin account"
        )
    if args.players[0] == args.players[1]:
        raise ServedError(
            f"{args.players[0]!r} cannot play itself on a server: its games would need two"
            " connections under one name"
        )
    pairs = math.ceil((args.max_games if args.games is None else args.games) / 2)
    if pairs > MAX_PAIRS:
        raise ServedError(f"a match on a server plays at most {2 * MAX_PAIRS} games")
    for player in args.players:
        if player.startswith(PROGRAM) or player.endswith(".py"):
            raise ServedError(
                f"{player!r} runs on this machine: a server's match is between its registered"
                " players or its hosted versions (author/name, uploaded with `arbiter submit`)"
            )


def runs_code(players: Sequence[str]) -> bool:
    """Whether a side is a Player module or a program: the code the sandbox is for."""
    return any(is_module_path(p) or parse_program(p) is not None for p in players)


def sprt_terms(words: Sequence[str], alpha: float, beta: float) -> SprtTerms:
    """`elo0=X elo1=Y` with the error rates as an SPRT's terms; `SprtError` with a sentence for
    a word that is not one of them, a number that is not one, or terms that cannot decide."""
    given: dict[str, float] = {}
    for word in words:
        name, equals, value = word.partition("=")
        if not equals or name not in SPRT_WORDS:
            raise SprtError(f"--sprt takes elo0=X elo1=Y, and {word!r} is neither")
        if name in given:
            raise SprtError(f"--sprt was given {name} twice")
        try:
            given[name] = float(value)
        except ValueError:
            raise SprtError(f"{name} must be a number of Elo points, not {value!r}") from None
    missing = [name for name in SPRT_WORDS if name not in given]
    if missing:
        raise SprtError(f"--sprt needs {' and '.join(f'{name}=' for name in missing)} as well")
    return SprtTerms(given["elo0"], given["elo1"], alpha, beta)


def add_parser(commands: Any) -> None:
    match = commands.add_parser(
        "match", help="two agents in colour-swapped pairs, until an SPRT decides or N games"
    )
    match.add_argument(
        "players",
        nargs=2,
        metavar="AGENT",
        help=f"{ENTRANT_HELP}; with --server, a registered player or a hosted version"
        " (author/name[@vN])",
    )
    match.add_argument("--game", required=True, choices=GAME_NAMES)
    length = match.add_mutually_exclusive_group(required=True)
    length.add_argument(
        "--sprt",
        nargs="+",
        metavar="eloN=X",
        help="test H0: elo0 against H1: elo1 (logistic Elo of the first agent over the second)",
    )
    length.add_argument(
        "--games", type=positive_int, help="a fixed match of N games (rounded up to pairs)"
    )
    match.add_argument("--alpha", type=float, default=0.05, help="the chance of a false H1")
    match.add_argument("--beta", type=float, default=0.05, help="the chance of a false H0")
    match.add_argument(
        "--max-games",
        type=positive_int,
        default=UNDECIDED_GAMES,
        metavar="N",
        help="stop an SPRT undecided after N games (default: %(default)s)",
    )
    match.add_argument(
        "--time",
        type=time_control,
        default=time_control(DEFAULT_TIME),
        help=f"time control (default: {DEFAULT_TIME})",
    )
    match.add_argument("--seed", type=int, help="seed for the starts and the agents")
    match.add_argument(
        "--db",
        default=None,
        help=f"keep the games in this SQLite file or postgresql:// database (${DB_VARIABLE}"
        " is not read: a match's games go where it is told)",
    )
    add_sandbox_option(match)
    add_server_option(match, help="play the match on this server (HOST[:PORT]), by its players")
    match.add_argument(
        "--name",
        default=os.environ.get("ARBITER_NAME"),
        help="with --server: your admin account's name, as a match is a tournament"
        " (default: $ARBITER_NAME)",
    )
    match.add_argument(
        "--token",
        default=os.environ.get(TOKEN_VARIABLE) or None,
        help=f"default: ${TOKEN_VARIABLE}",
    )
    match.add_argument(
        "--title",
        help="with --server: the match's name there, which its players' clients play"
        " (`arbiter tournament play NAME`); default: match-SEED or a random one",
    )
    match.add_argument(
        "--wait",
        type=float,
        default=SERVED_WAIT,
        help="seconds a served match's game waits for an entrant before the match stops"
        " (default: %(default)s)",
    )
    match.set_defaults(run=run_match)


def run_match(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    served = args.server is not None
    try:
        terms = None if args.sprt is None else sprt_terms(args.sprt, args.alpha, args.beta)
        if served:
            check_served(args)
        else:
            for player in args.players:
                check_player(player, game)
        sandboxed = not served and runs_code(args.players) and use_sandbox(args)
        if args.db is not None:
            prepare_database(args.db)
    except (SprtError, AgentError, SandboxUnavailable, UnknownEntrant, ServedError) as error:
        print(f"arbiter: {error}", file=sys.stderr)
        return 2
    except StoreError as error:
        print(f"arbiter: cannot keep the games in {str(args.db)!r}: {error}", file=sys.stderr)
        return 1
    plan = MatchPlan(
        game,
        (args.players[0], args.players[1]),
        terms=terms,
        games=args.games,
        max_games=args.max_games,
        time=args.time,
    )
    lines = Console(highlight=False)
    bar = games_bar(Console(stderr=True))
    task = bar.add_task("match", total=2 * plan.pairs)

    def shown(number: int, records: tuple[GameRecord, GameRecord], result: MatchResult) -> None:
        lines.print(pair_line(number, plan, records), soft_wrap=True)
        bar.update(task, completed=2 * number, description=status_line(plan, result))

    def shown_served(number: int, games: Sequence[dict[str, Any]], served: Served) -> None:
        result = MatchResult.of_served(served)
        lines.print(served_pair_line(number, games, served), soft_wrap=True)
        bar.update(task, completed=2 * number, description=status_line(plan, result))

    async def play() -> MatchResult:
        if served:
            return await play_on_server(args, plan, shown_served, lines)
        if not any(player.startswith(PROGRAM) for player in args.players):
            return await play_match(
                plan, seed=args.seed, db_path=args.db, sandboxed=sandboxed, on_pair=shown
            )
        create = served_request(args, plan)
        here = await play_here(
            create, plan.terms, db_path=args.db, sandboxed=sandboxed, on_pair=shown_served
        )
        return MatchResult.of_served(here)

    with bar:
        result = trio.run(play)
    lines.print(status_line(plan, result), soft_wrap=True)
    lines.print(verdict(plan, result), soft_wrap=True)
    return 0
