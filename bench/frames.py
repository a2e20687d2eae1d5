"""A benchmark client's frames: msgpack maps over a trio socket, without `protocol.Connection`'s
checks (the clients must cost less than the server they measure)."""

from __future__ import annotations

import os
from typing import Any

import trio

from arbiter.protocol import CLOSED, NEED_DATA, FrameDecoder, encode_frame


class FrameStream:
    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.decoder = FrameDecoder(max_frame=1 << 22)

    async def send(self, payload: dict[str, Any]) -> None:
        await self.stream.send_all(encode_frame(payload))

    def send_now(self, *payloads: dict[str, Any]) -> None:
        """Write frames at once, without yielding, as Arbiter's sessions do: a relay connection
        is written to by two tasks (its own and its opponent's), and trio refuses overlapping
        `send_all`s. Frames are small and clients keep reading, so the socket takes them whole."""
        assert isinstance(self.stream, trio.SocketStream), "send_now writes a plain socket"
        data = b"".join(map(encode_frame, payloads))
        if os.write(self.stream.socket.fileno(), data) != len(data):
            raise RuntimeError("a bench client stopped reading")

    async def receive(self) -> dict[str, Any]:
        while True:
            frame = self.decoder.next_frame()
            if frame is NEED_DATA:
                self.decoder.feed(await self.stream.receive_some(65536))
            elif frame is CLOSED:
                raise EOFError("server closed the connection")
            else:
                return frame
