"""`arbiter ladder GAME`: a server's ladder as it stands; `arbiter ladder local`: a ladder of
built-in agents on this machine, paired as a server pairs.

    arbiter ladder GAME --server HOST:PORT [--section CLASS/SECTION]
    arbiter ladder local GAME --agents random,greedy,alphabeta [--games N] [--seed S]
                              [--time CONTROL] [--per-hour N]

`arbiter ladder GAME` asks the server (`ladder`, protocol version 2) and prints its table (with
`--section`, the table of a class section's ladder): each entrant's rank, its rating
(`mu - 3 sigma`, what the table ranks by), `mu` and `sigma` (how sure the rating is), its games
and its last game's match.

A ladder is not a round robin: after each game the next pair is drawn by the ladder's pairing
rule (`server.tournaments.ladder_pairing`: close ratings and uncertain entrants first, colours
balanced per pair, at most `--per-hour` games an entrant an hour) from the table as it stands,
and the game moves both players' ratings (`server.tournaments.ladder_ratings`). So the command
shows, on one machine and with agents whose strength is known, what a server's ladder does with
its entrants: how fast the table finds their order, and how sure it is.

Every game is played through one real server on 127.0.0.1 by `client.referee.referee_on`, the
agents in this process as `arbiter referee`'s are: the server's clocks and rules judge, and
nothing here is a second game loop. Each finished game prints a line; on a terminal a bar on
stderr keeps the count live; the table comes last.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import trio
from rich import box
from rich.console import Console
from rich.table import Table

from arbiter import protocol
from arbiter.agents import agents_for, make_agent
from arbiter.client.connection import ClientConnection
from arbiter.client.options import add_server_option, positive_int, server_tls, time_control
from arbiter.client.referee import referee_on
from arbiter.client.runner import GameRecord
from arbiter.client.tables import score_text
from arbiter.client.tournament_follow import games_bar
from arbiter.games import GAME_NAMES, Game, get_game
from arbiter.protocol import TimeControl
from arbiter.server.app import (
    GameResult,
    Ladder,
    LadderError,
    local_server,
    next_opening,
    pairings,
    unpaired,
)

SECTION_HELP = "the ladder of one section of a class (default: the game's own)"
DEFAULT_TIME = "move=0.2"
"""A ladder plays many games, so its default is a fast time control, not the game's own."""
DEFAULT_GAMES = 30
SEED_RANGE = 2**31
"""Each game's seed (its random start, if any, and its agents' choices) is drawn below this."""

GameHook = Callable[[int, tuple[str, str], GameRecord, Ladder], None]
"""Told of each finished game: its number, (first, second), its record and the table after it."""


def checked_entrants(game: Game[Any, Any], agents: Sequence[str]) -> list[str]:
    """The agents as a ladder takes them: built-in agents of `game`, two or more, each once;
    `LadderError` with a sentence otherwise."""
    known = [info.name for info in agents_for(game.name)]
    for agent in agents:
        if agent not in known:
            raise LadderError(
                f"no built-in agent {agent!r} for {game.name} (agents: {', '.join(known)})"
            )
    if len(agents) < 2:
        raise LadderError(f"a ladder needs two agents or more, not {len(agents)}")
    return list(Ladder(agents).entries)  # refuses a repeated one


async def play_ladder(
    game: Game[Any, Any],
    agents: Sequence[str],
    *,
    games: int,
    seed: int | None = None,
    time: TimeControl,
    per_hour: int | None = None,
    on_game: GameHook | None = None,
) -> Ladder:
    """Play `games` games among `agents` on one local server, each pair drawn by the ladder's
    pairing rule from the table as it stands; returns the ladder. With `per_hour`, a game waits
    for an entrant under its cap: the cap is counted on the real clock."""
    ladder = Ladder(checked_entrants(game, agents))
    rng = random.Random(seed)
    wire = time.to_wire()
    async with local_server() as server:
        for number in range(1, games + 1):
            chosen = pairings(ladder, rng, now=trio.current_time(), per_hour=per_hour)
            if not chosen and per_hour is not None:
                await trio.sleep_until(
                    next_opening(ladder, now=trio.current_time(), per_hour=per_hour)
                )
                chosen = pairings(ladder, rng, now=trio.current_time(), per_hour=per_hour)
            [pair] = chosen
            game_seed = rng.randrange(SEED_RANGE)
            players = (
                make_agent(pair[0], game, game_seed),
                make_agent(pair[1], game, game_seed + 1),
            )
            began = trio.current_time()
            record = await referee_on(server, game, pair, players, seed=game_seed, time=wire)
            ladder.record(game_result(game, pair, record), began)
            if on_game is not None:
                on_game(number, pair, record, ladder)
    return ladder


def game_result(game: Game[Any, Any], pair: tuple[str, str], record: GameRecord) -> GameResult:
    """A referee's record as the ladder takes it in."""
    winner = None if record.winner is None else game.seat_index(record.winner)
    return GameResult(pair[0], pair[1], record.result, winner)


# -- what it prints ------------------------------------------------------------------------------


def ladder_table(ladder: Ladder, title: str) -> Table:
    """The table, best first: the conservative rating it ranks by, and its `mu` and `sigma`."""
    table = Table(
        title=title,
        caption="rating: mu - 3 sigma, what the entrant is almost surely above; ± one sigma",
        box=box.SIMPLE_HEAVY,
    )
    for header in ("#", "entrant", "rating", "mu", "±", "games"):
        table.add_column(header, justify="left" if header == "entrant" else "right")
    for rank, entry in enumerate(ladder.table(), 1):
        skill = entry.skill
        table.add_row(
            str(rank),
            entry.name,
            f"{skill.ordinal:.1f}",
            f"{skill.mu:.1f}",
            f"{skill.sigma:.1f}",
            str(entry.games),
        )
    return table


def game_line(number: int, total: int, pair: tuple[str, str], record: GameRecord) -> str:
    """`[5/30] greedy vs random: 1-0, white wins: black has no legal move`."""
    result = game_result(get_game(record.game), pair, record)
    score = "-".join(score_text(points) for points in result.scores)
    return f"[{number}/{total}] {pair[0]} vs {pair[1]}: {score}, {record.summary()}"


# -- the command ---------------------------------------------------------------------------------


def add_arguments(ladder: argparse.ArgumentParser) -> None:
    actions = ladder.add_subparsers(required=True, metavar="ACTION")
    local = actions.add_parser("local", help="a ladder of built-in agents on this machine")
    local.add_argument("game", choices=GAME_NAMES)
    local.add_argument(
        "--agents",
        required=True,
        type=_names,
        help="built-in agents, two or more: random,greedy,alphabeta",
    )
    local.add_argument(
        "--games",
        type=positive_int,
        default=DEFAULT_GAMES,
        help="games in all (default: %(default)s)",
    )
    local.add_argument("--seed", type=int, help="seed for the pairing and the games")
    local.add_argument(
        "--time",
        type=time_control,
        default=time_control(DEFAULT_TIME),
        help=f"time control (default: {DEFAULT_TIME})",
    )
    local.add_argument(
        "--per-hour",
        type=positive_int,
        metavar="N",
        help="at most N games an entrant begins in any hour (default: no cap)",
    )
    local.set_defaults(run=run_local)
    for name in GAME_NAMES:
        shown = actions.add_parser(name, help=f"the server's {name} ladder")
        add_server_option(shown, required=True)
        shown.add_argument(
            "--name",
            default=os.environ.get("ARBITER_NAME", "spectator"),
            help="the name to connect under (default: $ARBITER_NAME or spectator)",
        )
        shown.add_argument("--token", default=os.environ.get("ARBITER_TOKEN") or None)
        shown.add_argument("--section", metavar="CLASS/SECTION", help=SECTION_HELP)
        shown.set_defaults(run=run_table, game=name)


def run_table(args: argparse.Namespace) -> int:
    """Ask the server for its ladder of `args.game` and print the table."""
    answer = trio.run(_ask_table, args)
    Console(highlight=False).print(server_table(answer))
    return 0


async def _ask_table(args: argparse.Namespace) -> protocol.LadderTable:
    host, port = args.server
    async with await ClientConnection.open(
        host, port, args.name, args.token, tls=server_tls(args)
    ) as connection:
        await connection.send(protocol.Ladder(game=args.game, section=args.section))
        while True:
            answer = await connection.receive()
            if isinstance(answer, protocol.LadderTable):
                return answer


def server_table(answer: protocol.LadderTable) -> Table:
    """The server's ladder: one row per version, best first; a retired one says so."""
    state = "running" if answer.running else "not running"
    which = answer.game if answer.section is None else f"{answer.game} {answer.section}"
    table = Table(title=f"{which} ladder ({state})", box=box.SIMPLE_HEAD)
    for heading in ("rank", "entrant", "rating", "mu", "sigma", "games", "last game", "league"):
        table.add_column(heading, justify="left" if heading == "entrant" else "right")
    for entry in answer.entries:
        name = entry["entrant"] + ("" if entry["active"] else f" ({unpaired(entry['entrant'])})")
        last = "-"
        if entry["last"] is not None:
            began = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry["last_at"]))
            last = f"match {entry['last']}, {began}"
        table.add_row(
            str(entry["rank"]),
            name,
            f"{entry['rating']:.2f}",
            f"{entry['mu']:.2f}",
            f"{entry['sigma']:.2f}",
            str(entry["games"]),
            last,
            entry.get("league") or "-",
        )
    return table


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def run_local(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    try:
        checked_entrants(game, args.agents)
    except LadderError as error:
        print(f"arbiter: {error}", file=sys.stderr)
        return 2
    lines = Console(highlight=False)
    bar = games_bar(Console(stderr=True))
    task = bar.add_task("ladder", total=args.games)

    def shown(number: int, pair: tuple[str, str], record: GameRecord, ladder: Ladder) -> None:
        lines.print(game_line(number, args.games, pair, record), soft_wrap=True)
        leader = ladder.table()[0]
        bar.update(
            task,
            completed=number,
            description=f"{game.name} ladder, leading: {leader.name} {leader.skill.ordinal:.1f}",
        )

    with bar:
        ladder = trio.run(
            lambda: play_ladder(
                game,
                args.agents,
                games=args.games,
                seed=args.seed,
                time=args.time,
                per_hour=args.per_hour,
                on_game=shown,
            )
        )
    lines.print(ladder_table(ladder, f"{game.name} ladder: {args.games} games"))
    return 0
