"""The bytes of one connection in and out, whatever carries them: TCP, TLS, a WebSocket, a
memory stream.

A session sends every frame one way (`server.connection.outbox`): what the stream takes at once
is written at once, and the rest waits for the writer task. Only what a stream can take without
waiting differs, so it is the one thing a transport says besides moving bytes: a TCP socket
takes what its kernel buffer has room for (as asyncio's transports write), sparing the writer
task's two switches on every move; a stream that cannot write without waiting (TLS, a
WebSocket, the tests' memory streams) takes nothing at once, and its writer sends it all.
"""

from __future__ import annotations

import os

import trio

RECEIVE_SIZE = 64 * 1024


class Transport:
    """Any trio stream: everything goes through its `send_all` and `receive_some`."""

    __slots__ = ("stream",)

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream

    def write_now(self, data: bytes) -> bytes | None:
        """Write what the stream takes without waiting; the rest (empty when all went), or
        None when the connection failed."""
        return data

    async def send_all(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def receive(self) -> bytes | None:
        """The next bytes from the client (b"" at its end), or None if the connection failed."""
        try:
            return bytes(await self.stream.receive_some(RECEIVE_SIZE))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return None


class SocketTransport(Transport):
    """A TCP socket, written at once as far as its buffer takes, read once readable.

    It waits for the socket to be readable before reading, where trio's `receive_some` reads
    first: a client's next frame comes only after it has heard from us, so reading at once finds
    nothing nearly every time and costs a system call per move.
    """

    __slots__ = ("_fd",)

    def __init__(self, stream: trio.SocketStream) -> None:
        super().__init__(stream)
        self._fd = stream.socket.fileno()

    def write_now(self, data: bytes) -> bytes | None:
        try:
            written = os.write(self._fd, data)
        except BlockingIOError:
            return data
        except OSError:
            return None
        return data[written:]

    async def receive(self) -> bytes | None:
        while True:
            try:
                await trio.lowlevel.wait_readable(self._fd)
                return os.read(self._fd, RECEIVE_SIZE)
            except BlockingIOError:
                continue
            except (OSError, trio.ClosedResourceError):
                return None


def transport_for(stream: trio.abc.Stream) -> Transport:
    if isinstance(stream, trio.SocketStream):
        return SocketTransport(stream)
    return Transport(stream)
