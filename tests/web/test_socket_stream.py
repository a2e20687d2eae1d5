"""A page's WebSocket stream over Starlette's WebSocket, driven over ASGI as hypercorn drives
it (the test is the ASGI server): what reaches the page, and nothing once it has left."""

from __future__ import annotations

import json
from typing import Any

import trio
from starlette.websockets import WebSocket

from arbiter.protocol import encode_frame
from arbiter.server.web.pages import shared_by_pages
from arbiter.server.web.socket import WebSocketStream


class AsgiServer:
    """The ASGI server's side of one WebSocket: what the page says, and what the app sends."""

    def __init__(self) -> None:
        self.to_app, self._from_page = trio.open_memory_channel[dict[str, Any]](16)
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        return await self._from_page.receive()

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def texts(self) -> list[Any]:
        return [json.loads(m["text"]) for m in self.sent if m["type"] == "websocket.send"]


def ping(nonce: int) -> bytes:
    return encode_frame({"type": "ping", "nonce": nonce})


async def test_a_page_that_has_left_is_sent_nothing_more() -> None:
    server = AsgiServer()
    socket = WebSocket({"type": "websocket", "path": "/socket"}, server.receive, server.send)
    await server.to_app.send({"type": "websocket.connect"})
    await socket.accept()
    stream = WebSocketStream(socket, shared_by_pages(), abort=lambda: None)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(stream.pump)
        await stream.send_all(ping(1) + ping(2))
        assert server.texts() == [{"type": "ping", "nonce": 1}, {"type": "ping", "nonce": 2}]
        await server.to_app.send({"type": "websocket.disconnect", "code": 1000})
        assert await stream.receive_some() == b""  # the page's close, as its session reads it
        await stream.send_all(ping(3) + ping(4))  # what the session had under way
        assert [text["nonce"] for text in server.texts()] == [1, 2]
        await stream.aclose()
    assert server.sent[-1]["type"] == "websocket.close"
