"""What bench/abuse.py's attacks share: the server under attack, an attacker's connections, and
the verdict on how fast the server held an attack back.

Every attacker connects from an address of its own attack's range (`Target.address`), 127.0.x.y
on the loopback, as other machines would: a limit per address that holds one attack back must
not carry over to the next attack, the bots (127.0.0.2) or the bystanders' probes (127.0.0.4).
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h11
import trio
from frames import FrameStream
from trio_websocket import WebSocketConnection, wrap_client_stream

from arbiter import protocol
from arbiter.protocol import encode_frame

HOST = "127.0.0.1"
BOTS_FROM = "127.0.0.2"
BYSTANDERS_FROM = "127.0.0.4"
VERSION = protocol.PROTOCOL_VERSION
THROTTLING = {
    "rate_limited",
    "too_many_seeks",
    "too_many_connections",
    "output_limit",
    "already_watching",
    "ping_timeout",
}
"""Error codes that mean the server is holding an attacker back (others just answer it)."""
CLOSED = (EOFError, trio.BrokenResourceError, trio.ClosedResourceError, OSError)
"""What reading or writing a connection the server has closed raises."""


def holds_back(code: str) -> bool:
    """Whether an `error` code names a limit: the known ones, and any new `too_many_...`,
    `..._limit` or `..._limited` code."""
    return code in THROTTLING or code.startswith("too_") or code.endswith(("_limit", "_limited"))


@dataclass
class Target:
    """The server one session attacks, and the range of addresses the current attack uses."""

    port: int
    server_pid: int
    db: Path
    scratch: Path
    web_url: str | None = None
    tls: ssl.SSLContext | None = None
    """The client side of a TLS server (trusting its test certificate); None for plain TCP."""
    victim_token: str = ""
    live_matches: list[int] = field(default_factory=list)
    """The bots' matches, newest last."""
    subnet: int = 10
    """The current attack's addresses are 127.0.SUBNET.1 on."""
    long_game: Any = None
    """What an attack's `prepare` left for it (the long game `long-watch` watches)."""

    def address(self, index: int = 0) -> str:
        """The attack's `index`th source address (250 of them, then round again)."""
        return f"127.0.{self.subnet}.{1 + index % 250}"

    @property
    def web_host_port(self) -> tuple[str, int]:
        assert self.web_url is not None, "this attack needs the server's --http"
        host, port = self.web_url.removeprefix("http://").rsplit(":", 1)
        return host, int(port)


async def open_stream(port: int, tls: ssl.SSLContext | None, address: str) -> trio.abc.Stream:
    """A connection to the protocol port from `address`, TLS when `tls` is given."""
    stream = await trio.open_tcp_stream(HOST, port, local_address=address)
    if tls is None:
        return stream
    secure = trio.SSLStream(stream, tls, server_hostname=HOST)
    await secure.do_handshake()
    return secure


def client_tls(ca_file: Path) -> ssl.SSLContext:
    """A client's TLS context trusting the bench's own certificate authority."""
    return ssl.create_default_context(cafile=str(ca_file))


def socket_of(stream: trio.abc.Stream) -> trio.socket.SocketType:
    while isinstance(stream, trio.SSLStream):
        stream = stream.transport_stream
    assert isinstance(stream, trio.SocketStream)
    return stream.socket


class Link(FrameStream):
    """One connection speaking frames, with no checks of its own (an attacker's view)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        super().__init__(stream)
        self.opened = trio.current_time()
        self.sending = trio.Lock()
        """An attacker's flood and its pongs are two tasks writing one stream."""

    async def send(self, *payloads: dict[str, Any]) -> None:  # type: ignore[override]
        await self.send_bytes(b"".join(map(encode_frame, payloads)))

    async def send_bytes(self, data: bytes) -> None:
        async with self.sending:
            await self.stream.send_all(data)


@dataclass
class Verdict:
    """When the server first held the attack back: cut a connection or sent a limit's error."""

    started: float = field(default_factory=trio.current_time)
    cut: list[float] = field(default_factory=list)
    connections: int = 0
    notes: list[str] = field(default_factory=list)
    """What else the attack measured, a sentence each, printed under the table."""
    missed: list[str] = field(default_factory=list)
    """Goals of the attack's own it missed (a bystander refused...), for the table's verdict."""

    def note(self, since: float | None = None) -> None:
        """One connection held back now; `since` is its connect (default: the attack's start)."""
        self.cut.append(trio.current_time() - (self.started if since is None else since))

    def seconds(self) -> float | None:
        """Time until every attacking connection was held back, or None if one never was."""
        return max(self.cut) if self.cut and len(self.cut) >= self.connections else None


Run = Callable[[Target, Verdict, trio.Nursery], Awaitable[None]]


@dataclass(frozen=True)
class Attack:
    """One attack of the bench: its coroutine (bounded in connections, frames and time) and
    what it needs of the server."""

    name: str
    run: Run
    server: str = "shared"
    """`shared`: runs on the session's one server; `tls`: on a TLS server's session; `own`: a
    fault, on a fresh server of its own (the fault may leave the server broken)."""
    fault: bool = False
    """A storage fault: judged by matches left `playing` and moves lost, not by a cut-off."""
    within_limits: bool = False
    """Heavy use that stays within every limit a client is given (many browsers watching a long
    game, each once, each reading all it is sent): nothing is owed a cut-off, so it is judged by
    the bystanders and the server's memory only."""
    min_seconds: float = 0.0
    prepare: Callable[[Target, trio.Nursery], Awaitable[None]] | None = None
    """Run before the measured phase, in a nursery that lasts through it (a long game's
    moves, played before anyone watches it)."""


async def connect(target: Target, verdict: Verdict, address: str | None = None) -> Link:
    verdict.connections += 1
    return Link(await open_stream(target.port, target.tls, address or target.address()))


async def hello(
    target: Target, verdict: Verdict, name: str, address: str | None = None, **extra: Any
) -> Link:
    link = await connect(target, verdict, address)
    await link.send({"type": "hello", "version": VERSION, "name": name, **extra})
    return link


async def watch_for_cut(link: Link, verdict: Verdict, answer_pings: bool = True) -> None:
    """Read until the server closes the connection or names a limit; note when."""
    try:
        while True:
            frame = await link.receive()
            if frame["type"] == "ping" and answer_pings:
                await link.send({"type": "pong", "nonce": frame["nonce"]})
            elif frame["type"] == "error" and holds_back(frame["code"]):
                break
    except CLOSED:
        pass
    verdict.note(link.opened)


FLOOD_BATCHES = 600
"""A flood's bound: a minute of batches."""


async def flood(link: Link, frames: Callable[[int], bytes], verdict: Verdict) -> None:
    """Send `frames(n)` (the nth batch) ten times a second while `watch_for_cut` reads the
    answers; stop when the server cuts the link or after `FLOOD_BATCHES`."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_cut_stops, link, verdict, nursery.cancel_scope)
        try:
            for batch in range(FLOOD_BATCHES):
                await link.send_bytes(frames(batch))
                await trio.sleep(0.1)
        except CLOSED:
            nursery.cancel_scope.cancel()


async def _cut_stops(link: Link, verdict: Verdict, scope: trio.CancelScope) -> None:
    await watch_for_cut(link, verdict)
    scope.cancel()


TCP_CLOSED_STATES = (7, 8)
"""TCP_CLOSE and TCP_CLOSE_WAIT in Linux's `tcp_info.tcpi_state`: the peer reset or closed."""


async def until_closed_unread(
    sock: trio.socket.SocketType, opened: float, verdict: Verdict
) -> None:
    """Wait, reading nothing, until the server closes the connection (seen in the kernel's
    TCP state, which reading would change)."""
    while True:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)
        if info[0] in TCP_CLOSED_STATES:
            verdict.note(opened)
            return
        await trio.sleep(0.1)


async def open_websocket(
    target: Target, nursery: trio.Nursery, address: str, queue: int = 16
) -> tuple[WebSocketConnection, trio.SocketStream]:
    """A browser's WebSocket to the web front's `/socket`, from `address`, and its TCP stream.
    With `queue` 0 the client's reader stops reading the socket as soon as one message waits
    (a non-reader)."""
    host, port = target.web_host_port
    stream = await trio.open_tcp_stream(host, port, local_address=address)
    websocket = await wrap_client_stream(
        nursery, stream, host, "/socket", message_queue_size=queue, max_message_size=1 << 26
    )
    return websocket, stream


class HttpLink:
    """One HTTP/1.1 keep-alive connection to the web front (h11, no checks of its own)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.http = h11.Connection(h11.CLIENT)
        self.opened = trio.current_time()

    @classmethod
    async def open(cls, target: Target, address: str) -> HttpLink:
        host, port = target.web_host_port
        return cls(await trio.open_tcp_stream(host, port, local_address=address))

    async def get(self, path: str) -> tuple[int, int]:
        """GET `path`: the status and the body's length; EOFError if the server hung up."""
        request = h11.Request(method="GET", target=path, headers=[("Host", HOST)])
        await self.stream.send_all(self.http.send(request) + self.http.send(h11.EndOfMessage()))
        status, size = 0, 0
        while True:
            event = self.http.next_event()
            if event is h11.NEED_DATA:
                data = await self.stream.receive_some(65536)
                if not data:
                    raise EOFError("the web front closed the connection")
                self.http.receive_data(data)
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                size += len(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self.http.start_next_cycle()
                return status, size
            elif isinstance(event, h11.ConnectionClosed):
                raise EOFError("the web front closed the connection")
