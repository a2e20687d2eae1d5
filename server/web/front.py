"""The web front: pages and WebSockets served by hypercorn's trio worker, in the server's own
process and nursery (docs/web.md says why: no second event loop, no second client hop).

Every page is one HTML shell with its ES modules (`static/`, shipped in the wheel); the page's
path (`/match/12`, `/tournament/spring`, `/player/ann`) says which view the modules draw; a
signed-in author's pages (`/agents`: sign-in, uploads, versions) are built on the server
(`server.web.authors`). The
one live channel is `/socket`: each WebSocket is admitted and served like a TCP connection
(`server.play.admitted`), so the caps, the hello deadline, the request rate and the output bounds of
`server.connection.admission` and `server.connection.limits` hold for a browser as for any client.

HTTP is held to the same limits (`Door`): every TCP connection hypercorn serves counts against
the caps on connections (in all and per address) while it is open, every request spends its cost
from its address's request budget (429 past it; an address that keeps asking is barred, its
connections closed at the door, `Rationed`), and hypercorn's deadlines close a connection that does
not finish its request's headers (`keep_alive_timeout`) or sends nothing (`read_timeout`). The
records (`/records/...`) are the server's `Storage`'s to read (`server.web.stored`): a store
that fails is a 503 with a sentence, whichever engine keeps it.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import socket
import struct
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import trio
from hypercorn.app_wrappers import ASGIWrapper
from hypercorn.config import Config
from hypercorn.trio.statsd import StatsdLogger
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ASGIFramework, ConnectionState
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from arbiter import protocol
from arbiter.server.connection.admission import Admission, Doorway
from arbiter.server.play.admitted import serve_admitted
from arbiter.server.play.lobby import Lobby
from arbiter.server.storage.errors import StoreError
from arbiter.server.storage.interface import Storage
from arbiter.server.web.authors import AuthorPages
from arbiter.server.web.ladder_page import LadderPages
from arbiter.server.web.pages import Shared, shared_by_pages
from arbiter.server.web.socket import WebSocketStream
from arbiter.server.web.stored import Records

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
PAGES = ("/", "/match/{match:int}", "/tournament/{name}", "/player/{name}", "/play")
"""The paths that show the shell; its modules read the path."""
MESSAGE_SIZE = 4 * protocol.DEFAULT_MAX_FRAME
"""The largest WebSocket message hypercorn takes: the JSON of any frame a client may send, so a
message past the protocol's 64 KiB reaches the session and is refused `frame_too_large` with an
`error` frame. Past this, hypercorn closes with code 1009 (message too big) itself."""
RESET = struct.pack("ii", 1, 0)
"""SO_LINGER on, for 0 s: closing the socket resets the connection."""
REFUSAL_SECONDS = 1.0
"""How long a refused HTTP connection's answer may take to go out."""


@dataclass
class Door:
    """Every TCP connection of the web front, counted in the `Doorway` while it is open, by its
    client's (address, port); a WebSocket's is handed to its session, which counts it."""

    doorway: Doorway
    open: dict[tuple[str, int], trio.SocketStream] = field(default_factory=dict)
    counted: set[tuple[str, int]] = field(default_factory=set)

    def abort(self, client: tuple[str, int]) -> None:
        """Close `client`'s connection at once, with a reset: whatever hypercorn waits on it for
        ends, and what the kernel still holds for a client that does not read is dropped (a
        plain close would keep it, and the connection half-open behind it, for minutes)."""
        stream = self.open.get(client)
        if stream is not None:
            stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET)
            stream.socket.close()

    def cut(self, address: str, but: tuple[str, int]) -> None:
        """Close every HTTP connection of `address` at once but `but` (not its WebSockets:
        their sessions judge them)."""
        for client in [client for client in self.counted if client[0] == address]:
            if client != but:
                self.abort(client)

    def hand_over(self, client: tuple[str, int]) -> None:
        """`client`'s connection is a WebSocket now: its session counts it from here."""
        if client in self.counted:
            self.counted.discard(client)
            self.doorway.leave(client[0], trio.current_time())

    async def serve(
        self, serve_http: Callable[[trio.SocketStream], Awaitable[None]], stream: trio.SocketStream
    ) -> None:
        client: tuple[str, int] = stream.socket.getpeername()[:2]
        now = trio.current_time()
        barred = self.doorway.barred(client[0], now)
        if barred:
            await refuse(stream, 429, f"cut off for flooding: wait {math.ceil(barred)} s")
            return
        refusal = self.doorway.enter(client[0], now)
        if refusal is not None:
            await refuse(stream, 503, refusal)
            return
        self.open[client] = stream
        self.counted.add(client)
        try:
            await serve_http(stream)
        finally:
            del self.open[client]
            if client in self.counted:
                self.counted.discard(client)
                self.doorway.leave(client[0], trio.current_time())


async def refuse(stream: trio.SocketStream, status: int, sentence: str) -> None:
    """Answer a connection refused at the door with `status` and `sentence`, unread, and close
    it once the client has it: what the client sent is drained (not parsed) until it closes its
    side, or `REFUSAL_SECONDS` at most; closing over unread bytes would reset the connection
    and lose the answer."""
    body = sentence.encode()
    head = (
        f"HTTP/1.1 {status} Refused\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    with trio.move_on_after(REFUSAL_SECONDS), suppress(trio.BrokenResourceError):
        await stream.send_all(head.encode() + body)
        await stream.send_eof()
        while await stream.receive_some(65536):
            pass
    await trio.aclose_forcefully(stream)


PAGE_COST = 50.0
"""What an HTTP request for the shell or a file spends of its address's request budget, in the
protocol's units (`session.REQUEST_COSTS`: a ping costs 1). Hypercorn parses the request and
writes the answer in Python, a task and an ASGI exchange each: a millisecond of CPU or so per
request, some fifty times a protocol `list_games`. So one address gets 80 such requests a second
after a burst of as many (a page load is about fifteen), under a tenth of one core's time."""
RECORD_COST = 150.0
"""What a `/records/...` request spends: a read of the store on a thread besides the HTTP (about
three times a file's cost when not kept)."""


def cost_of(path: str) -> float:
    """An upload (a store write of up to 4 MiB) costs as a record's read; the rest as a page."""
    return RECORD_COST if path.startswith(("/records/", "/agents/upload")) else PAGE_COST


def plain_answer(status: int, sentence: str, *headers: tuple[bytes, bytes]) -> list[Any]:
    """The ASGI messages of a short text answer, built without a response object."""
    body = sentence.encode()
    head = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"%d" % len(body))]
    return [
        {"type": "http.response.start", "status": status, "headers": [*head, *headers]},
        {"type": "http.response.body", "body": body},
    ]


class Rationed:
    """Each HTTP request spends its cost (`cost_of`) from its address's request budget (the one
    its protocol connections spend from too); over it, 429 and a sentence. An address refused
    `max_refused` times in a row is barred for `flood_penalty_seconds`, like a protocol
    connection closed for flooding, and its HTTP connections are closed: a flooder's requests,
    even refused, cost the server the parsing of each, while a barred address's connections are
    closed at the door before any byte is read."""

    def __init__(self, app: ASGIApp, doorway: Doorway, door: Door) -> None:
        self.app = app
        self.doorway = doorway
        self.door = door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            address = scope["client"][0] if scope.get("client") else ""
            now = trio.current_time()
            share = self.doorway.share(address, now)
            if share.spend(now, cost_of(scope["path"])):
                share.refused = 0
            else:
                share.refused += 1
                barring = share.refused > self.doorway.admission.max_refused
                if barring:
                    self.doorway.bar(address, now)
                    share.refused = 0
                    self.door.cut(address, but=tuple(scope["client"]))
                for message in plain_answer(*self.refusal(address, barring)):
                    await send(message)
                return
        await self.app(scope, receive, send)

    def refusal(self, address: str, barring: bool) -> tuple[Any, ...]:
        """`plain_answer`'s arguments: a barred address's last answer closes its connection."""
        admission = self.doorway.admission
        if barring:
            seconds = math.ceil(admission.flood_penalty_seconds)
            sentence = f"{admission.max_refused} requests over the rate from {address} in a row"
            closing = (b"connection", b"close")  # hypercorn closes it once this is sent
            retry = (b"retry-after", b"%d" % seconds)
            return 429, f"{sentence}: barred for {seconds} s", retry, closing
        rate = admission.address_requests_per_second
        sentence = f"over {rate:g} requests/s (a page costs {PAGE_COST:g}) from {address}"
        return 429, f"{sentence}: wait a moment", (b"retry-after", b"1")


MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}


def shipped() -> dict[str, Response]:
    """The files of `static/`, read once and answered from memory: a handful of small files,
    the same for every request (and no file is opened per request, nor any path outside them
    served)."""
    return {
        path.name: Response(
            path.read_bytes(),
            media_type=MEDIA_TYPES[path.suffix],
            headers={"Cache-Control": "no-cache"},
        )
        for path in STATIC.iterdir()
        if path.suffix in MEDIA_TYPES
    }


UNREADABLE = "the records cannot be read now (the server's log says why): try again later"


def web_app(lobby: Lobby, doorway: Doorway, door: Door, storage: Storage) -> ASGIApp:
    """The pages, the static files, the WebSocket endpoint and the records of one server."""
    records = Records(storage)

    async def games_of(request: Request) -> JSONResponse:
        try:
            found = await records.games_of(request.path_params["name"])
        except StoreError:  # any of them, whichever engine: the log has the sentence
            return JSONResponse({"error": UNREADABLE}, status_code=503)
        return JSONResponse(found)

    files = shipped()
    not_there = Response("no such file", 404, media_type="text/plain")

    async def shell(request: Request) -> Response:
        return files["index.html"]

    async def static(request: Request) -> Response:
        return files.get(request.path_params["name"], not_there)

    routes: list[BaseRoute] = [Route(path, shell) for path in PAGES]
    socket = websocket_endpoint(lobby, doorway, door, shared_by_pages())
    routes.append(WebSocketRoute("/socket", socket))
    routes.append(Route("/records/player/{name}", games_of))
    routes.append(Route("/static/{name}", static))
    routes.extend(AuthorPages(lobby).routes())
    routes.extend(LadderPages(storage).routes())
    return Rationed(Starlette(routes=routes), doorway, door)


def websocket_endpoint(
    lobby: Lobby, doorway: Doorway, door: Door, shared: Shared
) -> Callable[[WebSocket], Awaitable[None]]:
    """Each browser's WebSocket served as a connection of the server's own, past the same door
    and caps as a TCP client's."""

    async def socket(websocket: WebSocket) -> None:
        client = websocket.client
        address, port = (client.host, client.port) if client is not None else ("", 0)
        door.hand_over((address, port))

        async def refuse(code: protocol.ErrorCode, sentence: str) -> None:
            await websocket.accept()
            error = protocol.Error(code=code, message=sentence).to_wire()
            await websocket.send_text(json.dumps(error))
            await websocket.close()

        async with trio.open_nursery() as nursery:
            stream = WebSocketStream(
                websocket, shared, functools.partial(door.abort, (address, port))
            )

            async def accept() -> trio.abc.Stream:
                await websocket.accept()
                nursery.start_soon(stream.pump)
                return stream

            try:
                await serve_admitted(lobby, doorway, address, f"{address}:{port}", refuse, accept)
            finally:
                await trio.aclose_forcefully(stream)

    return socket


def web_config(admission: Admission) -> Config:
    """Hypercorn's settings: no access log (a page's path is all it would say, and the server's
    own log has each connection); a request's headers within the hello deadline of connecting
    (or of the last response), and no connection silent for longer than a page is allowed
    between pongs (a page answers a ping every 2 s; a request sends its body at once)."""
    config = Config()
    config.accesslog = None
    config.errorlog = log
    config.include_server_header = False
    config.websocket_max_message_size = MESSAGE_SIZE
    config.keep_alive_timeout = admission.hello_seconds
    silent = max(admission.hello_seconds, admission.pong_seconds)
    config.read_timeout = None if math.isinf(silent) else math.ceil(silent)
    config.set_statsd_logger_class(StatsdLogger)
    return config


async def serve_web(
    lobby: Lobby,
    doorway: Doorway,
    host: str,
    port: int,
    storage: Storage,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the web front until cancelled; reports its address (`http://HOST:PORT`).

    Hypercorn's own `serve` would accept the connections itself; here each goes through the
    `Door` first (counted and capped like any connection) and then to hypercorn's `TCPServer`,
    which serves HTTP/1.1 and WebSockets on it."""
    door = Door(doorway)
    config = web_config(doorway.admission)
    # (Starlette types ASGI's messages as plain mappings, hypercorn as typed dicts)
    app = ASGIWrapper(cast(ASGIFramework, web_app(lobby, doorway, door, storage)))
    serve_http = functools.partial(TCPServer, app, config, WorkerContext(None), ConnectionState({}))
    listeners = await trio.open_tcp_listeners(port, host=host)
    bound = listeners[0].socket.getsockname()
    name = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    async with trio.open_nursery() as nursery:
        await nursery.start(
            trio.serve_listeners, functools.partial(door.serve, serve_http), listeners
        )
        task_status.started(f"http://{name}:{bound[1]}")
