"""One browser's WebSocket as the trio stream a `Session` serves, like a TCP socket's.

Each WebSocket message from the page becomes one frame for the session to read (`pages`); the
bytes the session writes are cut into frames and sent as one WebSocket message each. The session
times the hello, counts requests, bounds what waits to be written and closes the connection
exactly as it does for a TCP client. Two things are this module's own:

- What is sent is JSON, larger than the frames it translates (a position per move): the stream
  tells its session the difference (`Session.reweigh`), so the byte caps count what a page is
  really sent.
- Hypercorn writes a WebSocket message to its socket in a shielded scope: a send to a page that
  stopped reading cannot be cancelled. So messages go out from a task of their own (`pump`),
  which the session waits for in a way it can cancel; when the session ends, the connection's
  socket is reset under that task if it is stuck, which ends hypercorn's send and frees the
  connection.
- A page that stopped reading may leave the kernel's buffers full of what it was sent, and the
  closing handshake and the connection's end queued behind them: it would neither answer the
  close nor see the connection end, and hypercorn would hold it until its read timeout. So the
  handshake must complete (the page's close answered, the connection gone) within
  `CLOSE_SECONDS` of the session's end, or the connection is reset: its slot and whatever the
  kernel holds for it are freed at once, and the page sees the cut.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from contextlib import suppress
from typing import Any

import trio
from starlette.websockets import WebSocket, WebSocketDisconnect

from arbiter.server.web.pages import PageInput, PageWire, Shared

CLOSE_SECONDS = 1.0
"""How long the closing handshake may take (the close sent and the page's answer received)
before the connection is reset: a page that reads answers at once, a round trip."""
GONE = (WebSocketDisconnect, RuntimeError, OSError)
"""What Starlette and hypercorn raise on a WebSocket whose page went away."""


def _unweighed(change: int) -> bool:
    """The default `reweigh`: a stream not yet served by a session."""
    return True


class WebSocketStream(trio.abc.Stream):
    """A `trio.abc.Stream` over an accepted Starlette WebSocket; `abort` closes its TCP
    connection at once. Run `pump` beside the session that serves it."""

    def __init__(self, socket: WebSocket, shared: Shared, abort: Callable[[], None]) -> None:
        self._socket = socket
        self._wire = PageWire(shared)
        self._input = PageInput(shared.histories)
        self._abort = abort
        self._unread = b""
        self._closed = False
        self.reweigh: Callable[[int], bool] = _unweighed
        """Tells the session its writer holds `change` bytes more than it handed us (the JSON
        of the frames in hand, less their own bytes), or less, once they are written."""
        self._outgoing, self._to_send = trio.open_memory_channel[tuple[list[str], trio.Event]](0)
        self._sending = False
        """The pump is in a send: hypercorn may be stuck on a page that does not read."""
        self._broken = False
        self._page_left = False
        """The page's close (or its connection's end) has come: nothing more can reach it, and
        hypercorn would only refuse each message, at the cost of a repr of its text."""

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
        except GONE:
            self._page_left = True
            return b""
        if message["type"] == "websocket.disconnect":
            self._page_left = True
            return b""
        text = message.get("text")
        page_sent = text if text is not None else message.get("bytes") or b""
        return self._input.frame(page_sent)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket is closed")
        texts = await self._wire.feed(bytes(data))
        if not texts:
            return
        extra = sum(map(len, texts)) - len(data)  # JSON is ASCII: its length is its bytes
        if not self.reweigh(extra):  # over a byte cap: the session cut the page off
            self.reweigh(-extra)
            return
        try:
            sent = trio.Event()
            await self._outgoing.send((texts, sent))
            await sent.wait()
        except trio.ClosedResourceError:
            raise trio.ClosedResourceError("the WebSocket is closed") from None
        finally:
            self.reweigh(-extra)
        if self._broken:
            raise trio.BrokenResourceError("the page went away")

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def pump(self) -> None:
        """Send what `send_all` hands over until the stream is closed; then the closing
        handshake, within `CLOSE_SECONDS`, else the connection is reset."""
        async for texts, sent in self._to_send:
            try:
                for text in texts:
                    if self._closed or self._page_left:
                        break
                    self._sending = True
                    await self._socket.send_text(text)
                    self._sending = False
            except GONE:
                self._broken = True
            sent.set()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._abort_after, CLOSE_SECONDS)
            with suppress(*GONE):  # the page closed it first
                await self._socket.close()
                await self._answered()
            nursery.cancel_scope.cancel()

    async def _answered(self) -> None:
        """Until the page answers the close (what it sent meanwhile is dropped: its session
        is over), which ends the connection."""
        while (await self._socket.receive())["type"] != "websocket.disconnect":
            pass

    async def _abort_after(self, seconds: float) -> None:
        await trio.sleep(seconds)
        self._abort()

    async def aclose(self) -> None:
        """Close at once (this must not wait: a session's end calls it in a cancelled scope)."""
        if self._closed:
            return
        self._closed = True
        self._outgoing.close()
        if self._sending:  # stuck on a page that does not read: nothing more will go out
            self._abort()
        await trio.lowlevel.checkpoint()
