"""The server's hang-up (`server.connection.hang_up`) over real TCP: a client it closes while
the client is still sending reads the `error` frame and then the end of the stream, not a reset,
and a client that never stops sending is closed all the same."""

from __future__ import annotations

import trio

from arbiter import protocol
from arbiter.client.connection import ClientConnection
from arbiter.protocol import ErrorCode
from arbiter.protocol.submission import MAX_ARCHIVE_BYTES, content_hash, guess_manifest
from arbiter.server.connection.hang_up import LINGER_SECONDS
from tests.client.uploads import PLAYER
from tests.conftest import HOST, RunningServer
from tests.tournament.helpers import register

ROUNDS = 20


def upload_frames(wire: protocol.Connection) -> bytes:
    """A whole upload's frames but its end, 4 MiB: sent again and again, each `submit_begin`
    abandons the upload before it, so the server reads a stream that never ends."""
    part = b"x" * protocol.PART_BYTES
    parts = MAX_ARCHIVE_BYTES // protocol.PART_BYTES
    begin = protocol.SubmitBegin(
        game="kings-court",
        name="endless",
        manifest=guess_manifest({"agent.py": PLAYER}).to_wire(),
        hash=content_hash(part * parts),
        size=len(part) * parts,
    )
    frames = [wire.send(begin)]
    frames += [wire.send(protocol.SubmitPart(index=i, data=part)) for i in range(parts)]
    return b"".join(frames)


class Sender:
    """A registered client that sends uploads without pause and reads what comes meanwhile."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.wire = protocol.Connection(protocol.CLIENT)
        self.heard: list[protocol.Message] = []
        self.ended_by = ""
        """"end" when the server's end of the stream came, "reset" when a reset did."""
        self.ended_at = self.reset_at = 0.0
        self.sending = trio.Event()

    async def hello(self, name: str, token: str) -> protocol.Message | None:
        hello = protocol.Hello(version=protocol.PROTOCOL_VERSION, name=name, token=token)
        await self.stream.send_all(self.wire.send(hello))
        return await self.receive()

    async def send_forever(self) -> None:
        """Send until the server resets the connection (its hang-up's bounds are reached)."""
        frames = upload_frames(self.wire)
        try:
            while True:
                await self.stream.send_all(frames)
                self.sending.set()
        except trio.BrokenResourceError:
            self.reset_at = trio.current_time()

    async def receive(self) -> protocol.Message | None:
        """The next message, or None at the end of the stream (`ended_by` says which end)."""
        while True:
            message = self.wire.next_message()
            if message is protocol.CLOSED:
                self.ended_by = "end"
                return None
            if message is not protocol.NEED_DATA:
                assert isinstance(message, protocol.Message)
                return message
            try:
                self.wire.receive_data(await self.stream.receive_some())
            except trio.BrokenResourceError:
                self.ended_by = "reset"
                return None

    async def read_to_the_end(self) -> None:
        while (message := await self.receive()) is not None:
            self.heard.append(message)
        self.ended_at = trio.current_time()


async def test_a_client_replaced_while_sending_reads_why_then_the_end(
    server: RunningServer,
) -> None:
    """A second `hello` under the name closes the first connection while it sends an upload:
    every time, the first reads `session_replaced` and the end of the stream (a close with its
    bytes unread would have reset it, and a reset fails the client's sending before it reads),
    and the server still closes it within `LINGER_SECONDS` though it never stops sending."""
    token = register(server.db, "ann")["ann"]
    for _ in range(ROUNDS):
        sender = Sender(await trio.open_tcp_stream(HOST, server.port))
        try:
            assert isinstance(await sender.hello("ann", token), protocol.Welcome)
            with trio.fail_after(LINGER_SECONDS + 10):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(sender.read_to_the_end)
                    nursery.start_soon(sender.send_forever)
                    await sender.sending.wait()
                    newer = await ClientConnection.open(HOST, server.port, "ann", token)
                    await newer.aclose()
        finally:
            await sender.stream.aclose()
        last = sender.heard[-1]
        assert isinstance(last, protocol.Error), sender.heard
        assert last.code == ErrorCode.SESSION_REPLACED
        assert sender.ended_by == "end"
        assert sender.reset_at - sender.ended_at < LINGER_SECONDS + 1.0
