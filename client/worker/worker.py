"""`arbiter worker`: sign in under a worker account, host the seats the server assigns, report
each one's end.

The worker's own connection carries only `worker`, `host` and `host_ended`: each seat's frames
go through a connection of its relay (`seat`). When the worker's connection ends, so does the
worker, stopping every agent it runs; the server defaults the seats it hosted ("worker lost").
"""

from __future__ import annotations

import argparse
import os
import ssl
import sys
from collections.abc import Mapping

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ConnectionClosed, ServerError, TLSFailed
from arbiter.client.options import add_server_option, player_name_arg, positive_int, server_tls
from arbiter.client.worker.agent_process import Starter, start_plain
from arbiter.client.worker.seat import CannotRun, host_seat

MAX_ENDING = 1000
"""An ending sentence is cut to fit `host_ended.ending`."""


async def run_worker(
    server: tuple[str, int],
    name: str,
    token: str,
    slots: int,
    *,
    tls: ssl.SSLContext | None = None,
    programs: Mapping[str, str] | None = None,
    start: Starter = start_plain,
) -> None:
    """Host seats until the server closes the connection (`ConnectionClosed`) or refuses it
    (`ServerError`)."""
    connection = await ClientConnection.open(*server, name, token, tls=tls)
    async with connection, trio.open_nursery() as nursery:
        await connection.send(protocol.Worker(slots=slots))
        while True:
            message = await connection.receive()
            if isinstance(message, protocol.Host):
                nursery.start_soon(_hosted, connection, message, server, tls, programs or {}, start)


async def _hosted(
    connection: ClientConnection,
    host: protocol.Host,
    server: tuple[str, int],
    tls: ssl.SSLContext | None,
    programs: Mapping[str, str],
    start: Starter,
) -> None:
    try:
        ending = await host_seat(host, server, tls, programs, start)
    except (CannotRun, OSError) as error:
        ending = str(error)
    await connection.send(protocol.HostEnded(host=host.host, ending=ending[:MAX_ENDING]))


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    worker = commands.add_parser(
        "worker", help="run agents for a server (a worker account's token)"
    )
    add_server_option(worker, required=True)
    worker.add_argument("--name", required=True, type=player_name_arg, help="the worker account")
    worker.add_argument(
        "--token",
        default=os.environ.get("ARBITER_TOKEN"),
        help="the worker account's token (default: $ARBITER_TOKEN)",
    )
    worker.add_argument(
        "--slots", type=positive_int, default=1, help="seats hosted at once (default 1)"
    )
    worker.add_argument(
        "--program",
        action="append",
        default=[],
        type=_program,
        metavar="NAME=COMMAND",
        help="offer a program speaking the protocol under an agent's name (repeatable)",
    )
    worker.set_defaults(run=run_worker_command)


def _program(text: str) -> tuple[str, str]:
    name, equals, command = text.partition("=")
    if not equals or not name or not command:
        raise argparse.ArgumentTypeError(f"write NAME=COMMAND, not {text!r}")
    return name, command


def run_worker_command(args: argparse.Namespace) -> int:
    if not args.token:
        print("arbiter worker: give the worker account's token (--token or ARBITER_TOKEN)")
        return 2
    try:
        trio.run(
            lambda: run_worker(
                args.server,
                args.name,
                args.token,
                args.slots,
                tls=server_tls(args),
                programs=dict(args.program),
            )
        )
    except (ServerError, ConnectionClosed, TLSFailed, OSError) as error:
        print(f"arbiter worker: {error}", file=sys.stderr)
        return 1
    return 0
