"""The server's public face: the one module of `server` that other rooms (the `arbiter` client,
the tests, the benchmarks) may import.

`serve` runs storage, lobby and the TCP listener under one nursery; it reports the bound
addresses through `task_status`, so `await nursery.start(serve, ...)` returns the real port even
for port 0. `local_server` is the same server on a free port of 127.0.0.1 for the length of an
`async with` block: what `arbiter referee`, `play`, `check` and `tournament local` referee on.

A client never opens the server's store itself: the few things it reads or writes there go
through the functions below (records for `export` and `replay`, tournaments for offline
standings, an admin's token for a local tournament's director), so the store's layout stays the
server's business. Whatever the store fails at, on either engine, is a `StoreError` with a
sentence: the one thing a command catches.

The ladder's core (`Ladder`, `pairings`, `kendall_tau`: pure, in `tournaments/`) is offered here
too: `arbiter ladder local` rates and pairs its agents' games with the rule a server's ladder uses;
and `unpaired`, the word the server's ladder table gives an entrant no longer paired.
"""

from __future__ import annotations

import logging
import socket
import ssl
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import ExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeAlias

import trio

from arbiter import protocol
from arbiter.protocol import DEFAULT_PORT
from arbiter.server.connection.admission import DEFAULT, UNLIMITED, Admission, Doorway, Handshakes
from arbiter.server.connection.hang_up import hang_up
from arbiter.server.connection.limits import Limits
from arbiter.server.play.admitted import serve_admitted
from arbiter.server.play.lobby import Lobby
from arbiter.server.play.local_workers import LocalWorkers, keep_workers
from arbiter.server.play.validation import validate_forever
from arbiter.server.storage import accounts
from arbiter.server.storage.connect import connect_storage
from arbiter.server.storage.engine import DB_HELP, DB_VARIABLE, default_db, open_database
from arbiter.server.storage.engine import open_read_only as open_records
from arbiter.server.storage.errors import DatabaseInUse, NotStored, StoreError, failing_as
from arbiter.server.storage.interface import Storage
from arbiter.server.storage.ladders import LadderSettings
from arbiter.server.storage.records import FullRecord, MoveRow, missing_records, read_records
from arbiter.server.storage.sql_connection import Connection
from arbiter.server.storage.tournament_rows import load_tournaments
from arbiter.server.tournaments.ladder import Ladder, LadderError, kendall_tau
from arbiter.server.tournaments.ladder_keeper import keep_ladders
from arbiter.server.tournaments.ladder_pairing import next_opening, pairings
from arbiter.server.tournaments.ladder_view import unpaired
from arbiter.server.tournaments.local_agents import (
    AgentProgram,
    LocalAgents,
    LocalAgentsError,
    UnknownEntrant,
    environment,
)
from arbiter.server.tournaments.paired_match import (
    MAX_PAIRS,
    MatchProgress,
    PairedGame,
    match_progress,
    terms_to_wire,
)
from arbiter.server.tournaments.sprt import Hypothesis, PairCount, Sprt, SprtError, SprtTerms
from arbiter.server.tournaments.standings import DEFAULT_KINDS, GameResult
from arbiter.server.tournaments.tournament import Desk, Tournament

__all__ = [
    "DB_HELP",
    "DB_VARIABLE",
    "DEFAULT_KINDS",
    "DEFAULT_PORT",
    "LOCAL_HOST",
    "MAX_PAIRS",
    "Admission",
    "AgentProgram",
    "DatabaseInUse",
    "FullRecord",
    "GameResult",
    "Hypothesis",
    "Ladder",
    "LadderError",
    "LadderSettings",
    "Limits",
    "LocalAgents",
    "LocalAgentsError",
    "LocalWorkers",
    "MatchProgress",
    "MoveRow",
    "PairCount",
    "PairedGame",
    "RecordsFile",
    "Sprt",
    "SprtError",
    "SprtTerms",
    "StoreError",
    "UnknownEntrant",
    "WebFront",
    "admin_token",
    "bound_port",
    "default_db",
    "environment",
    "kendall_tau",
    "local_server",
    "match_progress",
    "missing_records",
    "next_opening",
    "open_records",
    "pairings",
    "prepare_database",
    "read_records",
    "read_tournaments",
    "serve",
    "server_tls",
    "terms_to_wire",
    "unpaired",
]

LOCAL_HOST = "127.0.0.1"

HANDSHAKE_SECONDS = 10.0
"""How long a connection to a TLS server has to send its first byte and finish the handshake.
The handshake runs in the connection's own task, never in the accept loop; this bounds how long
a client that connects and then stalls (or a scanner) holds its socket and task."""

TLS_RECORD = 0x16
"""The first byte of a TLS handshake record. A plain Arbiter frame starts with its length's high
byte, 0 for any frame under 16 MiB: so one byte tells a plain client from a TLS one."""

log = logging.getLogger(__name__)

RecordsFile: TypeAlias = Connection
"""A server's store opened read-only by `open_records`, for `read_records`; close it after. A
read that fails raises `StoreError` (`Unreadable`), whichever engine keeps the store."""


@dataclass
class WebFront:
    """The web front a server may serve beside its protocol port (`arbiter-server --http`)."""

    port: int
    """The HTTP port; 0 picks a free one."""
    url: str = ""
    """Its address, `http://HOST:PORT`, set by `serve` once it listens."""


async def serve(
    host: str,
    port: int,
    db_path: str | Path,
    *,
    grace: float = 10.0,
    local_agents: LocalAgents | None = None,
    admission: Admission = DEFAULT,
    tls: ssl.SSLContext | None = None,
    limits: Limits | None = None,
    web: WebFront | None = None,
    workers: LocalWorkers | None = None,
    ladders: Sequence[LadderSettings] = (),
    task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve until cancelled. Matches still in play at shutdown stay unfinished in the store;
    the next start resumes the tournament games among them and aborts the casual ones.

    `local_agents` runs the built-in agents a tournament enters with `local`; by default, those
    of the `arbiter` program installed beside this interpreter (`AgentProgram.arbiter()`).
    `admission` holds the limits on connections and their requests (`server.connection.admission`);
    `limits` bounds what clients can make the server hold (`server.connection.limits`; defaults if
    None). With `tls` (see `server_tls`) every connection is TLS, its handshake paced per address
    and server-wide (`admission.Handshakes`); a plain client is told so in one `error` frame.
    With `web`, the web front (`server.web`) serves pages and WebSockets on
    its port of `host` too, and `web.url` is set once it listens. With `workers`, worker
    processes of its own (by default `arbiter worker`) host the agents its tournaments and
    `hosted:` challenges run (`server.play.local_workers`).
    """
    storage = connect_storage(db_path)
    try:
        listeners = await trio.open_tcp_listeners(port, host=host)
        async with trio.open_nursery() as nursery:
            await nursery.start(storage.run_writer)
            lobby = Lobby(storage, nursery, grace, admission, limits)
            await nursery.start(lobby.stalls.run)
            address = listeners[0].socket.getsockname()[:2]
            desk = _desk(lobby, storage, nursery, local_agents or AgentProgram.arbiter(), address)
            _host_agents(nursery, lobby, desk, workers, ladders, address)
            doorway = Doorway(admission)
            secure = None if tls is None else (tls, Handshakes(admission, trio.current_time()))
            serve_one = partial(_serve_connection, lobby, doorway, secure)
            await nursery.start(trio.serve_listeners, serve_one, listeners)
            if web is not None:
                from arbiter.server.web.front import serve_web  # only a web server loads it

                web.url = await nursery.start(serve_web, lobby, doorway, host, web.port, storage)
            task_status.started(listeners)
    finally:
        storage.close()


def _host_agents(
    nursery: trio.Nursery,
    lobby: Lobby,
    desk: Desk,
    workers: LocalWorkers | None,
    ladders: Sequence[LadderSettings],
    address: tuple[str, int],
) -> None:
    """Start the server's own `workers` (if any), the validation of new submissions, which the
    lobby's workers play, and the ladders they play (`server.tournaments.ladder_keeper`): the
    `ladders` of the flags, stored as running, and every other the store says is running."""
    storage = desk.storage
    if workers is not None and workers.count > 0:
        lobby.workers.expected = True
        program = workers.program or AgentProgram.arbiter()
        nursery.start_soon(keep_workers, workers, program, storage, address)
    nursery.start_soon(validate_forever, storage, lobby.workers)
    nursery.start_soon(keep_ladders, desk, lobby.workers, ladders)


def _desk(
    lobby: Lobby,
    storage: Storage,
    nursery: trio.Nursery,
    local_agents: LocalAgents,
    address: tuple[str, int],
) -> Desk:
    """The tournaments' desk, plugged into `lobby` and loading the stored tournaments: it runs
    `local_agents` itself, or has the lobby's workers run its entrants, and tells them the
    server's `address`."""
    desk = Desk(lobby.live, lobby.seeks, storage, nursery)
    desk.local_agents = local_agents
    desk.workers = lobby.workers
    desk.learn_address(address)
    lobby.plug_in(desk)
    nursery.start_soon(desk.load)
    return desk


REFUSAL_SECONDS = 1.0
"""How long a refused connection's one `error` frame may take to go out."""


async def _serve_connection(
    lobby: Lobby,
    doorway: Doorway,
    tls: tuple[ssl.SSLContext, Handshakes] | None,
    stream: trio.SocketStream,
) -> None:
    """Serve one accepted TCP connection (its TLS handshake in its own task, with `tls`: the
    settings, and the pace handshakes begin at)."""
    address, port = stream.socket.getpeername()[:2]
    address = str(address)  # the IP is what the limits count

    async def secure() -> trio.abc.Stream | None:
        return stream if tls is None else await _handshake(stream, address, *tls)

    try:
        await serve_admitted(
            lobby, doorway, address, f"{address}:{port}", partial(_refuse, stream), secure
        )
    finally:
        await trio.aclose_forcefully(stream)  # a failed handshake leaves it open; twice is harmless


async def _refuse(stream: trio.SocketStream, code: protocol.ErrorCode, refusal: str) -> None:
    """One `error` frame, then close: nothing is read, nothing is kept."""
    error = protocol.Error(code=code, message=refusal)
    with trio.move_on_after(REFUSAL_SECONDS):
        try:
            await stream.send_all(protocol.Connection(protocol.SERVER).send(error))
            await stream.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
    await trio.aclose_forcefully(stream)


async def _handshake(
    stream: trio.SocketStream, address: str, tls: ssl.SSLContext, handshakes: Handshakes
) -> trio.SSLStream[Any] | None:
    """The connection's TLS stream once its handshake is done; None (`_serve_connection` closes
    the socket) if it fails, takes longer than `HANDSHAKE_SECONDS`, or the client speaks plain
    Arbiter, which is answered with an `error` frame saying so. The handshake begins at its
    turn (`admission.Handshakes`); if that would come after the deadline, the socket is closed
    at once: before a handshake there is no way to tell a TLS client why."""
    deadline = trio.current_time() + HANDSHAKE_SECONDS
    with trio.move_on_at(deadline):
        try:
            first = await stream.socket.recv(1, socket.MSG_PEEK)
        except OSError:
            return None
        if first and first[0] != TLS_RECORD:
            await _refuse_plain(stream)
            return None
        now = trio.current_time()
        turn = handshakes.turn(address, now, deadline - now)
        if turn is None:
            log.debug("TLS handshake from %s refused: over the handshake rate", address)
            return None
        await trio.sleep_until(turn)
        secure = trio.SSLStream(stream, tls, server_side=True)
        try:
            await secure.do_handshake()
        except (trio.BrokenResourceError, trio.ClosedResourceError) as error:
            log.debug("TLS handshake failed: %s", error.__cause__ or error)
            return None
        return secure
    log.debug("TLS handshake timed out after %s s", HANDSHAKE_SECONDS)
    return None


async def _refuse_plain(stream: trio.SocketStream) -> None:
    wire = protocol.Connection(protocol.SERVER)
    refusal = protocol.Error(
        code=protocol.ErrorCode.NOT_ALLOWED,
        message="this server speaks TLS: connect with --tls",
    )
    with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
        await stream.send_all(wire.send(refusal))
    await hang_up(stream)  # its hello is unread: a plain close would reset it


def server_tls(cert: str | Path, key: str | Path) -> ssl.SSLContext:
    """A server's TLS settings from its certificate chain and private key, both PEM files (as
    Let's Encrypt writes them: fullchain.pem and privkey.pem). `OSError` if a file cannot be
    read, `ssl.SSLError` if they are no certificate and key, or do not match."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context


def bound_port(listeners: list[trio.SocketListener]) -> int:
    port: int = listeners[0].socket.getsockname()[1]
    return port


@asynccontextmanager
async def local_server(
    db_path: str | Path | None = None,
    *,
    grace: float = 0.0,
    local_agents: LocalAgents | None = None,
    admission: Admission = UNLIMITED,
) -> AsyncIterator[tuple[str, int]]:
    """A server on a free port of 127.0.0.1 while the block runs; yields its (host, port).

    Without `db_path` the records go to a temporary file, removed with its folder on the way
    out; with one, no folder is made (a process killed in the block leaves nothing behind).
    `grace` defaults to none: in one process there is no network to come back over; nor are
    there limits on its own connections (`UNLIMITED`).
    """
    with ExitStack() as scratch:
        db = db_path
        if db is None:
            folder = scratch.enter_context(tempfile.TemporaryDirectory(prefix="arbiter-local-"))
            db = Path(folder) / "arbiter.db"
        async with trio.open_nursery() as nursery:
            start = partial(serve, LOCAL_HOST, 0, db, grace=grace, admission=admission)
            start = partial(start, local_agents=local_agents)
            listeners = await nursery.start(start)
            try:
                yield LOCAL_HOST, bound_port(listeners)
            finally:
                nursery.cancel_scope.cancel()


def prepare_database(db_path: str | Path) -> None:
    """Make (or check) a server's store before a server runs on it; `StoreError` if it cannot
    be one."""
    open_database(db_path).close()


def admin_token(db_path: str | Path, name: str) -> str:
    """A fresh token for the admin `name` in a server's file, registering it on first use (what
    `arbiter-server admin add NAME --role admin` or `admin token NAME` print). `StoreError` if
    the store cannot be opened or does not take it."""
    db = open_database(db_path)
    try:
        with failing_as(NotStored, db.Error):
            if accounts.find(db, name) is None:
                return accounts.create(db, name, "admin")
            return accounts.renew(db, name)
    finally:
        db.close()


def read_tournaments(db_path: str | Path) -> list[protocol.Tournament]:
    """Every tournament in a server's file, oldest first, as `tournament_status` describes it
    (standings included), read without a server: safe beside a running one. `StoreError` if
    the store cannot be read."""
    db = open_records(db_path)
    try:
        stored = load_tournaments(db)
    finally:
        db.close()
    return [Tournament(one.row, one.games).message() for one in stored]
