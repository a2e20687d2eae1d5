"""The web front under the limits of TCP: a server in the test's process with small limits, real
HTTP and WebSockets on 127.0.0.1 (trio-websocket clients, raw sockets for what no browser
sends), real clocks."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import h11
import pytest
import trio
import wsproto
from trio_websocket import (
    HandshakeError,
    WebSocketConnection,
    open_websocket_url,
    wrap_client_stream,
)

from arbiter.server.app import WebFront, serve
from arbiter.server.connection.admission import Admission
from arbiter.server.connection.limits import Limits
from arbiter.server.web.front import PAGE_COST, RECORD_COST
from tests.web.bots import PacedMatch

HOST = "127.0.0.1"
HELLO = {"type": "hello", "version": 1, "name": "web-tester"}


@asynccontextmanager
async def web_server(
    tmp_path: Path, admission: Admission, limits: Limits | None = None
) -> AsyncIterator[tuple[int, str]]:
    """A server with its web front: its protocol port and its web front's `host:port`."""
    web = WebFront(0)
    async with trio.open_nursery() as nursery:
        start = partial(serve, HOST, 0, tmp_path / "web.db", admission=admission, limits=limits)
        listeners = await nursery.start(partial(start, web=web))
        yield listeners[0].socket.getsockname()[1], web.url.removeprefix("http://")
        nursery.cancel_scope.cancel()


async def heard(socket: WebSocketConnection, until: str) -> list[dict[str, Any]]:
    """The messages of `socket` up to the first of type `until` (or an `error`), pings
    answered."""
    messages = []
    while True:
        message = json.loads(await socket.get_message())
        if message["type"] == "ping":
            await socket.send_message(json.dumps({"type": "pong", "nonce": message["nonce"]}))
            continue
        messages.append(message)
        if message["type"] in (until, "error"):
            return messages


async def welcomed(web: str) -> bool:
    """Whether a new WebSocket from 127.0.0.1 is let in and welcomed. The test opens and
    closes its TCP stream itself: trio-websocket leaves the stream of a refused handshake open."""
    host, port = web.split(":")
    welcome = False
    async with await trio.open_tcp_stream(host, int(port)) as stream:
        try:
            with trio.fail_after(5):
                async with trio.open_nursery() as nursery:
                    socket = await wrap_client_stream(nursery, stream, web, "/socket")
                    await socket.send_message(json.dumps(HELLO))
                    welcome = (await heard(socket, "welcome"))[-1]["type"] == "welcome"
                    await socket.aclose()
        except* HandshakeError:
            pass
    return welcome


async def test_a_browser_that_stops_reading_is_cut_and_its_slot_freed(tmp_path: Path) -> None:
    admission = Admission(ping_seconds=0.5, pong_seconds=2.0, max_per_address=1)
    async with web_server(tmp_path, admission) as (_, web):
        socket = open_websocket_url(f"ws://{web}/socket")
        async with socket as silent:
            await silent.send_message(json.dumps(HELLO))
            began = trio.current_time()
            # it reads nothing more: its pings go unanswered, then the TCP window fills
            assert not await welcomed(web)  # its one slot is taken
            while not await welcomed(web):
                await trio.sleep(0.25)
                assert trio.current_time() - began < 10, "the silent page kept its slot"
            # cut at the ping timeout, plus at most the flush and the closing handshake
            assert trio.current_time() - began < 2.0 + 2.0 + 2.0 + 2.0


TCP_CLOSED_STATES = (7, 8)
"""TCP_CLOSE and TCP_CLOSE_WAIT in Linux's `tcp_info.tcpi_state`: the peer reset or closed."""


async def non_reader(web: str, *messages: dict[str, Any]) -> trio.SocketStream:
    """A raw WebSocket that sends `messages` after its handshake and never reads again, with a
    receive buffer as small as the kernel allows: what it is sent soon waits in the server's."""
    host, port = web.split(":")
    sock = trio.socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    await sock.connect((host, int(port)))
    stream = trio.SocketStream(sock)
    client = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
    await stream.send_all(client.send(wsproto.events.Request(host=web, target="/socket")))
    while not any(isinstance(e, wsproto.events.AcceptConnection) for e in client.events()):
        client.receive_data(await stream.receive_some(1))  # (not a byte past the handshake)
    for message in messages:
        await stream.send_all(client.send(wsproto.events.TextMessage(json.dumps(message))))
    return stream


async def until_closed_unread(stream: trio.SocketStream) -> None:
    """Until the server closes or resets `stream`, seen in the kernel's TCP state (which
    reading would change)."""
    while (  # noqa: ASYNC110 (the kernel's TCP state has no event to wait on, but reading)
        stream.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0] not in TCP_CLOSED_STATES
    ):
        await trio.sleep(0.05)


async def test_a_page_that_reads_nothing_is_reset_when_its_session_ends(tmp_path: Path) -> None:
    """It watches a finished match (KiB of JSON) and reads nothing: its session ends at the
    ping timeout, but the close and the connection's end wait in the server's kernel behind what
    it was sent; so the connection is reset within the closing handshake's time, long before
    hypercorn's read timeout (here the hello deadline), and its address is let in again."""
    admission = Admission(hello_seconds=30, ping_seconds=0.5, pong_seconds=1.5)
    async with web_server(tmp_path, admission) as (port, web):
        match = await trio.to_thread.run_sync(
            lambda: PacedMatch(port, "shobu", {"no_capture_limit": 10}, pause=0).start()
        )
        await trio.to_thread.run_sync(match.join, 60)
        watch = {"type": "watch", "match": match.match}
        began = time.monotonic()
        async with await non_reader(web, HELLO, watch, watch, watch) as stream:
            with trio.fail_after(15):
                await until_closed_unread(stream)
        # the ping timeout, the closing handshake's second, and a margin for a loaded machine
        assert time.monotonic() - began < 0.5 + 1.5 + 1.0 + 3.0
        assert await welcomed(web)


async def test_the_json_a_page_is_sent_counts_against_the_output_cap(tmp_path: Path) -> None:
    """A finished match's `watching` is a few hundred bytes as a frame, but several KiB as the
    page's JSON with its positions: over a cap between the two, the page is cut off."""
    async with web_server(tmp_path, Admission(), Limits(output_bytes=1500)) as (port, web):
        match = await trio.to_thread.run_sync(
            lambda: PacedMatch(port, "shobu", {"no_capture_limit": 10}, pause=0).start()
        )
        await trio.to_thread.run_sync(match.join, 60)
        assert match.over is not None
        assert len(match.moves) >= 10
        async with open_websocket_url(f"ws://{web}/socket") as socket:
            await socket.send_message(json.dumps(HELLO))
            await heard(socket, "welcome")
            await socket.send_message(json.dumps({"type": "watch", "match": match.match}))
            messages = await heard(socket, "watching")
        error = messages[-1]
        assert (error["type"], error["code"]) == ("error", "output_limit"), messages
        assert "limit of 1500" in error["message"]


async def test_an_oversize_message_gets_an_error_frame_before_the_close(tmp_path: Path) -> None:
    async with web_server(tmp_path, Admission()) as (_, web):
        async with open_websocket_url(f"ws://{web}/socket") as socket:
            await socket.send_message(json.dumps(HELLO))
            await heard(socket, "welcome")
            padding = "x" * (100 * 1024)
            await socket.send_message(json.dumps({"type": "ping", "nonce": 1, "pad": padding}))
            error = (await heard(socket, "error"))[-1]
        assert error["code"] == "frame_too_large", error


async def http_get(web: str, path: str, source: str = HOST) -> tuple[int, str]:
    """GET `path` from the address `source`; the status and the body."""
    host, port = web.split(":")
    stream = await trio.open_tcp_stream(host, int(port), local_address=source)
    async with stream:
        request = f"GET {path} HTTP/1.1\r\nHost: {web}\r\nConnection: close\r\n\r\n"
        await stream.send_all(request.encode())
        answer = b""
        while data := await stream.receive_some(65536):
            answer += data
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode()


async def test_http_over_an_addresss_budget_is_refused_while_others_are_served(
    tmp_path: Path,
) -> None:
    """A file costs `PAGE_COST` of the budget, a record `RECORD_COST`: a burst of five files'
    worth is five files, or fewer records."""
    admission = Admission(address_requests_per_second=1, address_request_burst=5 * PAGE_COST)
    async with web_server(tmp_path, admission) as (_, web):
        answers = [await http_get(web, "/static/style.css") for _ in range(7)]
        statuses = [status for status, _ in answers]
        assert statuses[:5] == [200] * 5, statuses
        assert 429 in statuses, statuses
        refusal = next(body for status, body in answers if status == 429)
        assert "requests/s (a page costs 50) from 127.0.0.1" in refusal
        assert (await http_get(web, "/static/style.css", source="127.0.0.2"))[0] == 200
        records = [(await http_get(web, "/records/player/x", "127.0.0.3"))[0] for _ in range(4)]
        assert records.count(429) == 4 - int(5 * PAGE_COST // RECORD_COST), records


async def test_an_address_that_keeps_asking_over_its_budget_is_barred_and_cut(
    tmp_path: Path,
) -> None:
    """Past `max_refused` refusals in a row, the address is barred: its open keep-alive
    connection is closed, and a new one is answered 429 at the door and closed, the address's
    WebSockets too; other addresses are served."""
    admission = Admission(
        address_requests_per_second=4 * PAGE_COST,  # the address's debt is paid within the bar
        address_request_burst=2 * PAGE_COST,
        max_refused=3,
        flood_penalty_seconds=2.0,
    )
    async with web_server(tmp_path, admission) as (_, web):
        host, port = web.split(":")
        statuses, bodies = [], []
        async with await trio.open_tcp_stream(host, int(port)) as stream:
            http = h11.Connection(h11.CLIENT)
            with trio.fail_after(10):
                while http.their_state is not h11.MUST_CLOSE:
                    request = h11.Request(method="GET", target="/", headers=[("Host", web)])
                    await stream.send_all(http.send(request) + http.send(h11.EndOfMessage()))
                    status, body = await h11_answer(stream, http)
                    statuses.append(status)
                    bodies.append(body)
                    if http.their_state is h11.DONE:
                        http.start_next_cycle()
                assert await stream.receive_some(65536) == b""  # closed after the last answer
        assert statuses == [200, 200, 429, 429, 429, 429], statuses
        assert "3 requests over the rate from 127.0.0.1 in a row: barred for 2 s" in bodies[-1]
        began = time.monotonic()
        status, body = await http_get(web, "/")
        assert status == 429, body
        assert "cut off for flooding: wait 2 s" in body
        assert not await welcomed(web)
        assert (await http_get(web, "/", source="127.0.0.2"))[0] == 200
        # When the cut-off ends is what is measured: ask until the server answers again.
        while (await http_get(web, "/"))[0] != 200:  # noqa: ASYNC110
            await trio.sleep(0.5)
        assert 1.0 < time.monotonic() - began < 5.0


async def h11_answer(stream: trio.SocketStream, http: h11.Connection) -> tuple[int, str]:
    """The status and body of the answer to the request sent on `http`."""
    status, body = 0, b""
    while True:
        event = http.next_event()
        if event is h11.NEED_DATA:
            http.receive_data(await stream.receive_some(65536))
        elif isinstance(event, h11.Response):
            status = event.status_code
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            return status, body.decode()


@pytest.mark.parametrize(
    "unfinished",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n",  # headers never finished
        b"POST /records/player/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n",  # body
    ],
)
async def test_a_request_never_finished_is_closed_within_its_deadline(
    tmp_path: Path, unfinished: bytes
) -> None:
    admission = Admission(hello_seconds=1.0, pong_seconds=2.0)
    async with web_server(tmp_path, admission) as (_, web):
        host, port = web.split(":")
        began = time.monotonic()
        async with await trio.open_tcp_stream(host, int(port)) as stream:
            await stream.send_all(unfinished)
            with trio.fail_after(10):
                while await stream.receive_some(65536):
                    pass  # (an answer may come first: the server then closes)
        assert time.monotonic() - began < 2.0 + 2.0


async def test_a_store_that_cannot_be_read_is_a_503_sentence(tmp_path: Path) -> None:
    """A store that cannot be read (here: its file removed under the server) is a clear 503."""
    async with web_server(tmp_path, Admission()) as (_, web):
        (tmp_path / "web.db").rename(tmp_path / "moved.db")
        status, body = await http_get(web, "/records/player/ann")
    assert status == 503
    assert "cannot be read now" in json.loads(body)["error"]
