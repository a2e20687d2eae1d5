"""`arbiter worker`: sign in under a worker account, host the seats the server assigns, report
each one's end.

The worker's own connection carries only `worker`, `host` and `host_ended`: each seat's frames
go through a connection of its own (`seat`); archives are fetched on the worker's own. When the
worker's connection ends, so does the worker, stopping every agent it runs; the server defaults
the seats it hosted ("worker lost").
"""

from __future__ import annotations

import argparse
import os
import ssl
import sys
import tempfile
from collections.abc import Awaitable, Mapping
from pathlib import Path

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ConnectionClosed, ServerError, TLSFailed
from arbiter.client.options import add_server_option, player_name_arg, positive_int, server_tls
from arbiter.client.sandbox.terminated import until_terminated
from arbiter.client.sandbox.toolchain import SandboxUnavailable, find_bwrap
from arbiter.client.worker.archives import Archives
from arbiter.client.worker.seat import CannotRun, Hosted, host_seat
from arbiter.protocol.submission import SubmissionError

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
    cache: Path | None = None,
) -> None:
    """Host seats until the server closes the connection (`ConnectionClosed`) or refuses it
    (`ServerError`). Submissions' archives are kept in `cache` (default: a temporary folder
    removed at the end)."""
    with tempfile.TemporaryDirectory(prefix="arbiter-worker-") as scratch:
        connection = await ClientConnection.open(*server, name, token, tls=tls)
        fetcher = Fetcher(connection)
        archives = Archives(cache or Path(scratch), fetcher.fetch)
        async with connection, trio.open_nursery() as nursery:
            await connection.send(protocol.Worker(slots=slots))
            while True:
                message = await connection.receive()
                fetcher.answer(message)
                if isinstance(message, protocol.Host):
                    seat = host_seat(message, server, tls, programs or {}, archives)
                    nursery.start_soon(_hosted, connection, message.host, seat)


class Fetcher:
    """Archives fetched part by part over the worker's own connection (a second one under the
    worker's name would replace it), one fetch at a time; the receiving loop hands over the
    answers (`answer`)."""

    def __init__(self, connection: ClientConnection) -> None:
        self._connection = connection
        self._lock = trio.Lock()
        self._answers, self._replies = trio.open_memory_channel[protocol.Message](1)

    def answer(self, message: protocol.Message) -> None:
        if isinstance(message, protocol.ArchivePart) or (
            isinstance(message, protocol.Error) and message.ref == "submission_fetch"
        ):
            self._answers.send_nowait(message)

    async def fetch(self, digest: str) -> bytes:
        async with self._lock:
            data, index, parts = bytearray(), 0, 1
            while index < parts:
                await self._connection.send(protocol.SubmissionFetch(hash=digest, index=index))
                reply = await self._replies.receive()
                if not isinstance(reply, protocol.ArchivePart):
                    assert isinstance(reply, protocol.Error)
                    raise SubmissionError(f"the server would not send {digest}: {reply.message}")
                data += reply.data
                parts, index = reply.parts, index + 1
            return bytes(data)


async def _hosted(connection: ClientConnection, host_id: int, seat: Awaitable[Hosted]) -> None:
    try:
        hosted = await seat
    except (CannotRun, SandboxUnavailable, ServerError, ConnectionClosed, OSError) as error:
        hosted = Hosted(str(error).split("\n", 1)[0], str(error))
    ending, log = hosted.ending[:MAX_ENDING], hosted.log[-protocol.MAX_HOSTED_LOG :]
    await connection.send(protocol.HostEnded(host=host_id, ending=ending, log=log or None))


def add_arguments(worker: argparse.ArgumentParser) -> None:
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
    worker.add_argument(
        "--cache",
        type=Path,
        help="keep submissions' archives in this folder (default: a temporary one)",
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
        find_bwrap()
    except SandboxUnavailable as error:
        print(f"arbiter worker: {error}", file=sys.stderr)
        return 2
    try:
        trio.run(
            until_terminated,
            lambda: run_worker(
                args.server,
                args.name,
                args.token,
                args.slots,
                tls=server_tls(args),
                programs=dict(args.program),
                cache=args.cache,
            ),
        )
    except (ServerError, ConnectionClosed, TLSFailed, OSError) as error:
        print(f"arbiter worker: {error}", file=sys.stderr)
        return 1
    return 0
