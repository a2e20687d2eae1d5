"""`arbiter tournament ...`: create, start, follow and play tournaments; run local ones.

Directors (admin accounts) `create` and `start`; anyone reads `status` and `standings`. A team
enters with `play`, which connects under its registered name and token and plays every game the
server seats it in, reconnecting if the server restarts, until it has no game left. `local` runs
a whole tournament of built-in agents through a real server on 127.0.0.1 and prints the table.

Tokens come from `--token` or the `ARBITER_TOKEN` environment variable (which keeps them out of
the process list and the shell history).
"""

from __future__ import annotations

import argparse
import os
import ssl
import sys
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import trio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arbiter import protocol
from arbiter.agents import Agent, agents_for
from arbiter.client.connection import ClientConnection, ConnectionClosed, ServerError
from arbiter.client.options import add_server_option, positive_int, server_tls, time_control
from arbiter.client.player_module import PlayerCrashed, make_any_agent, play_seat
from arbiter.client.runner import GameRecord, MessageHook
from arbiter.client.tables import print_games, print_standings
from arbiter.games import GAME_NAMES, Game, get_game
from arbiter.protocol import TimeControl
from arbiter.server.app import (
    DB_VARIABLE,
    AgentProgram,
    StorageError,
    admin_token,
    local_server,
    prepare_database,
)

TOKEN_VARIABLE = "ARBITER_TOKEN"
FOLLOW_SECONDS = 1.0
"""How often `status --follow` asks the server for news."""
RECONNECT_PAUSE = 0.5
LOCAL_NAME = "local"
LOCAL_DIRECTOR = "director"
LOCAL_WAIT = 60.0
"""How long a local tournament's game waits for its agents: their processes start in a second
or two, but a loaded machine may take longer."""

OPTION_HELP = "a game option, e.g. no_capture_limit=20 (repeatable)"

AgentMaker = Callable[[Game[Any, Any], int], Agent]


# -- talking to the server -----------------------------------------------------------------------


async def request(connection: ClientConnection, message: protocol.Message) -> protocol.Tournament:
    """Send a tournament request and return the `tournament` answer (`ServerError` on refusal)."""
    await connection.send(message)
    while True:
        answer = await connection.receive()
        if isinstance(answer, protocol.Tournament):
            return answer


def games_left(status: protocol.Tournament, player: str) -> int:
    """Games `player` has not finished: the ones a client of its must still seek."""
    return sum(
        1
        for game in status.games
        if player in (game["first"], game["second"]) and game["status"] != "finished"
    )


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


async def follow(
    connection: ClientConnection, tournament: str, progress: Progress | None
) -> protocol.Tournament:
    """Ask for the status until the tournament is finished, moving the progress bar."""
    task = None
    while True:
        status = await request(connection, protocol.TournamentStatus(tournament=tournament))
        done = sum(1 for game in status.games if game["status"] == "finished")
        if progress is not None:
            if task is None:
                task = progress.add_task(tournament, total=len(status.games))
            progress.update(task, completed=done, description=_playing(status))
        if status.status == "finished":
            return status
        await trio.sleep(FOLLOW_SECONDS)


def _playing(status: protocol.Tournament) -> str:
    live = [g for g in status.games if g["status"] == "playing"]
    if not live:
        return f"{status.name}: {status.status}"
    shown = ", ".join(f"{g['first']}-{g['second']}" for g in live[:3])
    return f"{status.name}: {shown}" + (" ..." if len(live) > 3 else "")


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


# -- a local tournament --------------------------------------------------------------------------


async def run_local(
    game: str,
    agents: list[str],
    *,
    rounds: int = 1,
    time: dict[str, float] | None = None,
    options: dict[str, Any] | None = None,
    concurrency: int = 1,
    db_path: str | Path | None = None,
    progress: Progress | None = None,
) -> protocol.Tournament:
    """A whole tournament of built-in agents through a real server on 127.0.0.1: the server
    runs each agent as its own client process, exactly as for a remote tournament."""
    with tempfile.TemporaryDirectory(prefix="arbiter-tournament-") as scratch:
        db = db_path or Path(scratch) / "tournament.db"
        token = admin_token(db, LOCAL_DIRECTOR)
        async with (
            local_server(db, local_agents=BuiltInAgents.arbiter()) as (host, port),
            await ClientConnection.open(host, port, LOCAL_DIRECTOR, token) as connection,
        ):
            create = protocol.TournamentCreate(
                name=await _fresh_name(connection),
                game=game,
                local=agents,
                options=options or {},
                time=time or {},
                rounds=rounds,
                concurrency=concurrency,
                wait=LOCAL_WAIT,
            )
            await request(connection, create)
            await request(connection, protocol.TournamentStart(tournament=create.name))
            return await follow(connection, create.name, progress)


class BuiltInAgents(AgentProgram):
    """The agents of this `arbiter` program, for a server started here: the names come from the
    registry in this process, and each agent runs as `arbiter tournament play` (make one with
    `BuiltInAgents.arbiter()`)."""

    async def names(self, game: str) -> Sequence[str]:
        return [info.name for info in agents_for(game)]


async def _fresh_name(connection: ClientConnection) -> str:
    """`local`, or `local-2`... when a kept `--db` file has run local tournaments before."""
    name, number = LOCAL_NAME, 1
    while True:
        try:
            await request(connection, protocol.TournamentStatus(tournament=name))
        except ServerError as error:
            if error.code == protocol.ErrorCode.UNKNOWN_TOURNAMENT:
                return name
            raise
        number += 1
        name = f"{LOCAL_NAME}-{number}"


# -- the command line ----------------------------------------------------------------------------


def add_parsers(commands: Any) -> None:
    """`arbiter tournament ...`, registered by `client.cli`."""
    tournament = commands.add_parser("tournament", help="create, run, follow and play tournaments")
    actions = tournament.add_subparsers(required=True, metavar="ACTION")

    create = actions.add_parser("create", help="create a double round robin (admin accounts)")
    create.add_argument("tournament", metavar="NAME")
    create.add_argument("--game", required=True, choices=GAME_NAMES)
    create.add_argument("--players", type=_names, default=[], help="registered names: a,b,c")
    create.add_argument("--local", type=_names, default=[], help="built-in agents: greedy,random")
    create.add_argument("--time", type=time_control, help="move=2, clock=60+1...")
    create.add_argument("--rounds", type=positive_int, default=1)
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
    status.add_argument("--follow", action="store_true", help="a progress bar until it ends")
    status.set_defaults(run=_run_status)

    table = actions.add_parser("standings", help="standings, crosstable and ratings")
    table.add_argument("tournament", metavar="NAME")
    table.set_defaults(run=_run_standings)

    play = actions.add_parser("play", help="play your games in a tournament with an agent")
    play.add_argument("tournament", metavar="NAME")
    play.add_argument("--agent", required=True, help="a built-in agent or a Player MODULE.py")
    play.add_argument("--seed", type=int, help="seed for the agent's random choices")
    play.add_argument("--reconnect", type=float, default=60.0, help="seconds to keep retrying")

    for action in (create, start, status, table, play):
        add_server_option(action, required=True)
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

    local = actions.add_parser("local", help="a tournament of built-in agents on this machine")
    local.add_argument("game", choices=GAME_NAMES)
    local.add_argument("agents", nargs="+", metavar="AGENT")
    local.add_argument("--rounds", type=positive_int, default=1)
    local.add_argument("--time", type=time_control, help="default: the game's")
    local.add_argument("--concurrency", type=positive_int, default=1, help="games at once")
    local.add_argument(
        "--option", type=_option, action="append", default=[], metavar="K=V", help=OPTION_HELP
    )
    local.add_argument(
        "--db",
        default=os.environ.get(DB_VARIABLE),
        help="keep the records in this SQLite file or postgresql:// database (default:"
        f" ${DB_VARIABLE}, else a throwaway file)",
    )
    local.set_defaults(run=_run_local)


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

    async def watch() -> protocol.Tournament:
        async with await _open(args) as connection:
            with progress_bar(console) as progress:
                return await follow(connection, args.tournament, progress)

    print_standings(trio.run(watch), console)
    return 0


def _run_standings(args: argparse.Namespace) -> int:
    status = trio.run(_ask, args, protocol.TournamentStatus(tournament=args.tournament))
    print_standings(status, Console())
    return 0


def _run_play(args: argparse.Namespace) -> int:
    if not args.token:
        print(
            f"arbiter: a tournament seat needs its token: --token or ${TOKEN_VARIABLE}",
            file=sys.stderr,
        )
        return 2
    host, port = args.server

    def agent_for(game: Game[Any, Any], number: int) -> Agent:
        return make_any_agent(args.agent, game, None if args.seed is None else args.seed + number)

    def report(record: GameRecord) -> None:
        print(f"match {record.match}: {args.name} as {record.seat}: {record.summary()}", flush=True)

    play = partial(
        play_tournament,
        host,
        port,
        args.tournament,
        name=args.name,
        token=args.token,
        make_agent=agent_for,
        reconnect=args.reconnect,
        on_result=report,
        tls=server_tls(args),
    )
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


def _run_local(args: argparse.Namespace) -> int:
    if args.db is not None:  # a file to keep: checked (and made, if new) before anything runs
        try:
            prepare_database(args.db)
        except StorageError as error:
            print(f"arbiter: cannot keep the records in {str(args.db)!r}: {error}", file=sys.stderr)
            return 1
    console = Console(stderr=not sys.stdout.isatty())
    with progress_bar(console) as progress:
        status = trio.run(
            partial(
                run_local,
                args.game,
                args.agents,
                rounds=args.rounds,
                time=_wire(args.time),
                options=dict(args.option),
                concurrency=args.concurrency,
                db_path=args.db,
                progress=progress,
            )
        )
    print_standings(status, Console())
    return 0
