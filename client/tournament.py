"""`arbiter tournament ...`: create, start, follow and play tournaments; run local ones.

Directors (admin accounts) `create` and `start`; anyone reads `status` and `standings`. A team
enters with `play`, which connects under its registered name and token and plays every game the
server seats it in, reconnecting if the server restarts, until it has no game left; its agent
is a built-in one, a Player module, or a program of any language (`cmd=...`, `client.entrants`).
`local` runs a whole tournament of such entrants through a real server on 127.0.0.1
(`client.tournament_local`), and `standings --db FILE` reads a kept one without a server.

Tokens come from `--token` or the `ARBITER_TOKEN` environment variable (which keeps them out of
the process list and the shell history).
"""

from __future__ import annotations

import argparse
import os
import ssl
import subprocess
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

import trio
from rich.console import Console

from arbiter import protocol
from arbiter.agents import Agent
from arbiter.client.connection import ClientConnection, ConnectionClosed
from arbiter.client.entrants import (
    ENTRANT_HELP,
    LocalEntrants,
    Program,
    normalized,
    parse_program,
)
from arbiter.client.options import add_server_option, positive_int, server_tls, time_control
from arbiter.client.player_module import PlayerCrashed, make_any_agent, play_seat
from arbiter.client.runner import GameRecord, MessageHook
from arbiter.client.sandbox.choice import add_sandbox_option, use_sandbox
from arbiter.client.sandbox.toolchain import SandboxUnavailable
from arbiter.client.tables import print_games, print_standings
from arbiter.client.tournament_follow import Follower, follower, request
from arbiter.client.tournament_local import LocalError, Plan, interrupted, plan, run_local
from arbiter.games import GAME_NAMES, Game, get_game
from arbiter.protocol import TimeControl
from arbiter.server.app import (
    DB_VARIABLE,
    StoreError,
    UnknownEntrant,
    environment,
    prepare_database,
    read_tournaments,
)

TOKEN_VARIABLE = "ARBITER_TOKEN"
RECONNECT_PAUSE = 0.5
PROGRAM_PAUSE = 1.0
"""Pause before running a program entrant again while its player has games left."""

OPTION_HELP = "a game option, e.g. no_capture_limit=20 (repeatable)"

T = TypeVar("T")
AgentMaker = Callable[[Game[Any, Any], int], Agent]


# -- talking to the server -----------------------------------------------------------------------


def games_left(status: protocol.Tournament, player: str) -> int:
    """Games `player` has not finished: the ones a client of its must still seek, and one more
    while a later round may pair it (`contending`)."""
    listed = sum(
        1
        for game in status.games
        if player in (game["first"], game["second"]) and game["status"] != "finished"
    )
    return listed + (player in (status.contending or []))


async def play_tournament(
    host: str,
    port: int,
    tournament: str,
    *,
    name: str,
    token: str,
    make_agent: AgentMaker,
    reconnect: float = 60.0,
    on_result: Callable[[GameRecord], None] | None = None,
    on_message: MessageHook | None = None,
    tls: ssl.SSLContext | None = None,
) -> list[GameRecord]:
    """Play every game `name` has in `tournament`; returns their records as this side saw them.

    A lost connection (the server restarting, say) is retried for `reconnect` seconds; then the
    error stands. A crashed agent or Player module loses its game (its connection closes, which
    the server scores as a crash), and the next game starts on a new connection.
    """
    records: list[GameRecord] = []
    while True:
        connection = await _connect(host, port, name, token, reconnect, tls)
        try:
            async with connection:
                await _play_games(
                    connection, tournament, make_agent, records, on_result, on_message
                )
            return records
        except* (ConnectionClosed, OSError, PlayerCrashed, AgentFailed):
            if reconnect <= 0:
                raise


class AgentFailed(Exception):
    """The agent raised: its seat crashes, as a crashed program's would."""


class _SeekWithdrawn(Exception):
    """The server withdrew our seek: no game of the tournament needs us any more."""


def _watching(on_message: MessageHook | None) -> MessageHook:
    """The caller's hook, and the end of waiting when the server withdraws our seek."""

    def hook(message: protocol.Message) -> None:
        if on_message is not None:
            on_message(message)
        if isinstance(message, protocol.SeekCancelled):
            raise _SeekWithdrawn

    return hook


async def _play_games(
    connection: ClientConnection,
    tournament: str,
    make_agent: AgentMaker,
    records: list[GameRecord],
    on_result: Callable[[GameRecord], None] | None,
    on_message: MessageHook | None,
) -> None:
    """Seek and play while a game is left; `ServerError`s propagate."""
    while True:
        status = await request(connection, protocol.TournamentStatus(tournament=tournament))
        if not games_left(status, connection.name):
            return
        game = get_game(status.game)
        try:
            record = await play_seat(
                connection,
                game,
                make_agent(game, len(records)),
                time_control=status.time,
                on_message=_watching(on_message),
            )
        except _SeekWithdrawn:
            continue
        records.append(record)
        if on_result is not None:
            on_result(record)


async def play_program(
    host: str,
    port: int,
    tournament: str,
    *,
    name: str,
    token: str,
    program: Program,
    reconnect: float = 60.0,
    tls: ssl.SSLContext | None = None,
) -> int:
    """Play `name`'s games with a program (`cmd=`): run it, told where to connect and as whom
    in its environment (`server.app.environment`), again whenever it exits while `name` has
    games left. Returns how many times it ran."""
    runs = 0
    while True:
        async with await _connect(host, port, name, token, reconnect, tls) as connection:
            status = await request(connection, protocol.TournamentStatus(tournament=tournament))
        if not games_left(status, name):
            return runs
        if runs:
            await trio.sleep(PROGRAM_PAUSE)
        told = environment((host, port), name, token, status.game, tournament)
        await trio.run_process(
            program.command, env={**os.environ, **told}, stdin=subprocess.DEVNULL, check=False
        )
        runs += 1


async def _connect(
    host: str, port: int, name: str, token: str, patience: float, tls: ssl.SSLContext | None
) -> ClientConnection:
    """Connect, retrying for `patience` seconds while nothing listens there (a failed TLS
    handshake is not retried: the same certificate would fail again)."""
    with trio.move_on_after(patience):
        while True:
            try:
                return await ClientConnection.open(host, port, name, token, tls=tls)
            except (OSError, ConnectionClosed):
                await trio.sleep(RECONNECT_PAUSE)
    return await ClientConnection.open(host, port, name, token, tls=tls)


# -- the command line ----------------------------------------------------------------------------


def add_parsers(commands: Any) -> None:
    """`arbiter tournament ...`, registered by `client.cli`."""
    tournament = commands.add_parser("tournament", help="create, run, follow and play tournaments")
    actions = tournament.add_subparsers(required=True, metavar="ACTION")

    create = actions.add_parser("create", help="create a tournament (admin accounts)")
    create.add_argument("tournament", metavar="NAME")
    create.add_argument("--game", required=True, choices=GAME_NAMES)
    create.add_argument("--players", type=_names, default=[], help="registered names: a,b,c")
    create.add_argument(
        "--local", type=_names, default=[], help="built-in agents the server runs: greedy,random"
    )
    create.add_argument("--time", type=time_control, help="move=2, clock=60+1...")
    create.add_argument("--rounds", type=positive_int, default=1, help=ROUNDS_HELP)
    _add_format_options(create)
    create.add_argument("--concurrency", type=positive_int, default=1, help="games at once")
    create.add_argument("--wait", type=float, default=60.0, help="seconds to wait for a player")
    create.add_argument(
        "--option", type=_option, action="append", default=[], metavar="K=V", help=OPTION_HELP
    )
    create.set_defaults(run=_run_create)

    start = actions.add_parser("start", help="start a created tournament (admin accounts)")
    start.add_argument("tournament", metavar="NAME")
    start.set_defaults(run=_run_start)

    status = actions.add_parser("status", help="progress and the games of a tournament")
    status.add_argument("tournament", metavar="NAME")
    status.add_argument(
        "--follow", action="store_true", help="each result and a progress bar until it ends"
    )
    status.set_defaults(run=_run_status)

    table = actions.add_parser("standings", help="standings, crosstable and ratings")
    table.add_argument("tournament", metavar="NAME", nargs="?")
    table.add_argument("--tournament", dest="named", metavar="NAME", help="the same as NAME")
    table.add_argument(
        "--db",
        help="read a server's file or postgresql:// database, no server needed (default NAME: its"
        " last)",
    )
    table.set_defaults(run=_run_standings)

    play = actions.add_parser("play", help="play your games in a tournament with an agent")
    play.add_argument("tournament", metavar="NAME")
    play.add_argument("--agent", required=True, help=ENTRANT_HELP)
    play.add_argument("--seed", type=int, help="seed for the agent's random choices")
    play.add_argument("--reconnect", type=float, default=60.0, help="seconds to keep retrying")

    for action in (create, start, status, table, play):
        add_server_option(action, required=action is not table)
        action.add_argument(
            "--name",
            default=os.environ.get("ARBITER_NAME", "spectator"),
            help="your name on the server (default: $ARBITER_NAME, else spectator)",
        )
        action.add_argument(
            "--token",
            default=os.environ.get(TOKEN_VARIABLE) or None,
            help=f"your registered name's token (default: ${TOKEN_VARIABLE})",
        )
    play.set_defaults(run=_run_play)

    local = actions.add_parser("local", help="a tournament of your agents on this machine")
    local.add_argument("game", choices=GAME_NAMES)
    local.add_argument("agents", nargs="+", metavar="ENTRANT", help=ENTRANT_HELP)
    local.add_argument("--rounds", type=positive_int, default=1, help=ROUNDS_HELP)
    _add_format_options(local)
    local.add_argument("--time", type=time_control, help="default: the game's")
    local.add_argument("--concurrency", type=positive_int, default=1, help="games at once")
    local.add_argument(
        "--option", type=_option, action="append", default=[], metavar="K=V", help=OPTION_HELP
    )
    local.add_argument(
        "--db",
        default=os.environ.get(DB_VARIABLE),
        help="keep the records in this SQLite file or postgresql:// database, where a rerun"
        f" resumes (default: ${DB_VARIABLE}, else a throwaway file)",
    )
    local.add_argument("--new", action="store_true", help="another tournament in the --db file")
    add_sandbox_option(local)
    local.set_defaults(run=_run_local)


ROUNDS_HELP = (
    "round robin and gauntlet: how many times each pair plays twice; swiss: its rounds;"
    " knockout: pairs of games a tie"
)


def _add_format_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        default=None,
        help="round-robin (the default), swiss, gauntlet, knockout or match (docs/tournaments.md)",
    )
    parser.add_argument(
        "--challenger", help="a gauntlet's entrant who plays each of the others", metavar="ENTRANT"
    )


def _as_entrant(challenger: str | None, given: list[str], entrants: list[str]) -> str | None:
    """The challenger as the server knows the entrant: a file's path as normalized."""
    if challenger in given:
        return entrants[given.index(challenger)]
    return challenger


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected names separated by commas, not {text!r}")
    return names


def _wire(control: TimeControl | None) -> dict[str, float]:
    return {} if control is None else control.to_wire()


def _option(text: str) -> tuple[str, Any]:
    """`name=value`: an integer, true/false, or text."""
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    if value.lower() in ("true", "false"):
        return name, value.lower() == "true"
    try:
        return name, int(value)
    except ValueError:
        return name, value


async def _ask(args: argparse.Namespace, message: protocol.Message) -> protocol.Tournament:
    async with await _open(args) as connection:
        return await request(connection, message)


async def _open(args: argparse.Namespace) -> ClientConnection:
    """The connection `--server`, `--tls`, `--name` and `--token` ask for."""
    host, port = args.server
    return await ClientConnection.open(host, port, args.name, args.token, tls=server_tls(args))


def _run_create(args: argparse.Namespace) -> int:
    message = protocol.TournamentCreate(
        name=args.tournament,
        game=args.game,
        players=args.players,
        local=args.local,
        options=dict(args.option),
        time=_wire(args.time),
        rounds=args.rounds,
        concurrency=args.concurrency,
        wait=args.wait,
        format=args.format,
        challenger=args.challenger,
    )
    status = trio.run(_ask, args, message)
    print(f"created {status.name}: {len(status.entrants)} entrants, {len(status.games)} games")
    return 0


def _run_start(args: argparse.Namespace) -> int:
    status = trio.run(_ask, args, protocol.TournamentStart(tournament=args.tournament))
    print(f"started {status.name}: {len(status.games)} games")
    return 0


def _run_status(args: argparse.Namespace) -> int:
    console = Console()
    if not args.follow:
        status = trio.run(_ask, args, protocol.TournamentStatus(tournament=args.tournament))
        print_games(status, console)
        return 0

    async def watch(following: Follower) -> protocol.Tournament:
        async with await _open(args) as connection:
            return await following.follow(connection, args.tournament)

    with follower() as following:
        status = trio.run(watch, following)
    print_standings(status, console)
    return 0


def _run_standings(args: argparse.Namespace) -> int:
    name = args.named or args.tournament
    if args.db is not None:
        return _print_kept_standings(args.db, name)
    if args.server is None or name is None:
        print(
            "arbiter: standings need a tournament NAME and --server HOST:PORT, or --db FILE",
            file=sys.stderr,
        )
        return 2
    status = trio.run(_ask, args, protocol.TournamentStatus(tournament=name))
    print_standings(status, Console())
    return 0


def _print_kept_standings(db: str, name: str | None) -> int:
    """The standings of tournament `name` (else the last) in a server's file, read offline."""
    try:
        kept = read_tournaments(db)
    except StoreError as error:
        print(f"arbiter: cannot read tournaments from {str(db)!r}: {error}", file=sys.stderr)
        return 1
    found = [status for status in kept if name in (None, status.name)]
    if not found:
        names = ", ".join(status.name for status in kept) or "none"
        wanted = "no tournament" if name is None else f"no tournament {name!r}"
        print(f"arbiter: {str(db)!r} holds {wanted} (tournaments: {names})", file=sys.stderr)
        return 1
    print_standings(found[-1], Console())
    return 0


def _run_play(args: argparse.Namespace) -> int:
    if not args.token:
        print(
            f"arbiter: a tournament seat needs its token: --token or ${TOKEN_VARIABLE}",
            file=sys.stderr,
        )
        return 2
    try:
        program = parse_program(args.agent)
    except UnknownEntrant as error:
        print(f"arbiter: {error}", file=sys.stderr)
        return 2
    if program is not None:
        return _play_with_program(args, program)

    def agent_for(game: Game[Any, Any], number: int) -> Agent:
        return make_any_agent(args.agent, game, None if args.seed is None else args.seed + number)

    def report(record: GameRecord) -> None:
        print(f"match {record.match}: {args.name} as {record.seat}: {record.summary()}", flush=True)

    play = _as_seat(args, play_tournament, make_agent=agent_for, on_result=report)
    lost: BaseException | None = None
    try:
        records = trio.run(play)
    except* (ConnectionClosed, OSError, PlayerCrashed, AgentFailed) as group:
        lost = group
        while isinstance(lost, BaseExceptionGroup):
            lost = lost.exceptions[0]
    if lost is not None:
        print(f"arbiter: {args.name} stops playing: {lost}", file=sys.stderr)
        return 1
    print(f"{args.name}: no game left in {args.tournament} ({len(records)} played here)")
    return 0


def _as_seat(
    args: argparse.Namespace, play: Callable[..., Awaitable[T]], **how: Any
) -> Callable[[], Awaitable[T]]:
    """`play` (`play_tournament` or `play_program`) for the seat `tournament play` names: its
    server, tournament, name, token, patience to reconnect and TLS."""
    host, port = args.server
    seat = {"name": args.name, "token": args.token, "reconnect": args.reconnect}
    return partial(play, host, port, args.tournament, **seat, tls=server_tls(args), **how)


def _play_with_program(args: argparse.Namespace, program: Program) -> int:
    runs = trio.run(_as_seat(args, play_program, program=program))
    times = "once" if runs == 1 else f"{runs} times"
    print(f"{args.name}: no game left in {args.tournament} (the program ran {times})")
    return 0


def _run_local(args: argparse.Namespace) -> int:
    try:
        sandboxed = use_sandbox(args)
    except SandboxUnavailable as error:
        print(f"arbiter: {error}", file=sys.stderr)
        return 2
    try:
        trio.run(_check_entrants, args.game, args.agents)
        agents = [normalized(agent) for agent in args.agents]
        if args.db is not None:  # a file to keep: checked (and made, if new) before anything runs
            prepare_database(args.db)
        chosen = plan(args.db, args.game, args.new)
    except StoreError as error:
        print(f"arbiter: cannot keep the records in {str(args.db)!r}: {error}", file=sys.stderr)
        return 1
    except (LocalError, UnknownEntrant) as error:
        print(f"arbiter: {error}", file=sys.stderr)
        return 2
    run = partial(
        run_local,
        args.game,
        agents,
        rounds=args.rounds,
        format=args.format,
        challenger=_as_entrant(args.challenger, args.agents, agents),
        time=_wire(args.time),
        options=dict(args.option),
        concurrency=args.concurrency,
        db_path=args.db,
        sandboxed=sandboxed,
    )
    with follower() as following:
        announcement = chosen.announcement(args.db)
        if announcement is not None:
            following.lines.print(announcement, soft_wrap=True)
        status = _until_interrupted(run, following, chosen)
    if status is None:
        print(f"arbiter: {interrupted(following, args.db)}", file=sys.stderr)
        return 130
    print_standings(status, Console())
    return 0


async def _check_entrants(game: str, agents: list[str]) -> None:
    """Each entrant one this command can run (`UnknownEntrant` if not), named in the user's
    words before a server starts."""
    launcher = LocalEntrants.arbiter()
    for agent in agents:
        await launcher.entrant(game, agent)


def _until_interrupted(
    run: Callable[[Follower, Plan], Awaitable[protocol.Tournament]],
    following: Follower,
    chosen: Plan,
) -> protocol.Tournament | None:
    """The tournament's finished status, or None after Ctrl-C."""
    status = None
    try:
        status = trio.run(run, following, chosen)
    except* KeyboardInterrupt:
        pass
    return status
