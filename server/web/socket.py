"""One browser's WebSocket as the trio stream a `Session` serves, like a TCP socket's.

Each WebSocket message from the page becomes one frame for the session to read (`pages`); the
bytes the session writes are cut into frames and sent as one WebSocket message each. Nothing
else happens here: the session times the hello, counts requests, bounds what waits to be written
and closes the connection exactly as it does for a TCP client.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from contextlib import suppress
from typing import Any

import trio
from starlette.websockets import WebSocket, WebSocketDisconnect

from arbiter.server.web.pages import PageWire, Translations, from_page


class WebSocketStream(trio.abc.Stream):
    """A `trio.abc.Stream` over an accepted Starlette WebSocket."""

    def __init__(self, socket: WebSocket, translations: Translations) -> None:
        self._socket = socket
        self._wire = PageWire(translations)
        self._unread = b""
        self._closed = False

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        """The next frame the page sent (or its rest, past `max_bytes`); b"" once it left."""
        if not self._unread:
            self._unread = await self._next_frame()
        size = len(self._unread) if max_bytes is None else max_bytes
        data, self._unread = self._unread[:size], self._unread[size:]
        return data

    async def _next_frame(self) -> bytes:
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket is closed")
        try:
            message: MutableMapping[str, Any] = await self._socket.receive()
        except (WebSocketDisconnect, RuntimeError, OSError):
            return b""
        if message["type"] == "websocket.disconnect":
            return b""
        text = message.get("text")
        return from_page(text if text is not None else message.get("bytes") or b"")

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket is closed")
        try:
            for text in self._wire.feed(bytes(data)):
                await self._socket.send_text(text)
        except (WebSocketDisconnect, RuntimeError, OSError) as error:
            raise trio.BrokenResourceError("the page went away") from error

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        with suppress(RuntimeError, OSError):  # the page closed it first
            await self._socket.close()
        await trio.lowlevel.checkpoint()
