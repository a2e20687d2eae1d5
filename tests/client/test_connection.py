"""The client connection's own errors: a broken stream is `ConnectionClosed` both ways, unless the
server sent the `error` that says why before it broke."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ConnectionClosed, ServerError
from arbiter.protocol import ErrorCode
from tests.conftest import HOST


async def test_a_reset_while_sending_is_connection_closed() -> None:
    """What a reconnecting client meets when the server dies between accept and hello: it
    retries on ConnectionClosed, and a raw trio error would have ended it instead."""
    ours, theirs = trio.testing.memory_stream_pair()
    await theirs.aclose()
    connection = ClientConnection(ours, "alice", "")
    with pytest.raises(ConnectionClosed, match="reset"):
        await connection.send(protocol.Ping(nonce=1))


async def test_a_reset_while_receiving_is_connection_closed() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    await theirs.aclose()
    with pytest.raises(ConnectionClosed):
        await ClientConnection(ours, "alice", "").receive()


class Peer:
    """The server's end of a lockstep stream: nothing the client writes completes until read."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.wire = protocol.Connection(protocol.SERVER)

    async def hear(self) -> protocol.Message:
        while (message := self.wire.next_message()) is protocol.NEED_DATA:
            self.wire.receive_data(await self.stream.receive_some(1024))
        assert isinstance(message, protocol.Message)
        return message

    async def say(self, message: protocol.Message) -> None:
        await self.stream.send_all(self.wire.send(message))


async def test_a_ping_answered_while_another_task_sends_waits_its_turn() -> None:
    """An agent sends its move from one task while another receives; a ping arriving then is
    answered after the move, not refused as a second writer on the same stream."""
    ours, theirs = trio.testing.lockstep_stream_pair()
    connection = ClientConnection(ours, "alice", "")
    server = Peer(theirs)
    hello = protocol.Hello(version=protocol.PROTOCOL_VERSION, name="alice")
    move = protocol.Move(match=1, move="a1")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(connection.send, hello)
        assert await server.hear() == hello
        nursery.start_soon(connection.receive)
        await server.say(
            protocol.Welcome(version=protocol.PROTOCOL_VERSION, session="s", server="x")
        )
        nursery.start_soon(connection.send, move)  # blocks: the server is not reading
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(connection.receive)
        await server.say(protocol.Ping(nonce=7))  # the receiver answers while the move is held
        await trio.testing.wait_all_tasks_blocked()
        assert [await server.hear(), await server.hear()] == [move, protocol.Pong(nonce=7)]
        nursery.cancel_scope.cancel()


async def test_a_send_reset_after_an_error_frame_raises_that_error() -> None:
    """A server that closes with the client's bytes unread resets the connection (one older
    than the hang-up, or one past its bounds): the client's next send fails, and the `error`
    frame that came before the reset is what it reports, over real TCP."""
    listener = trio.socket.socket()
    await listener.bind((HOST, 0))
    listener.listen()
    stream = await trio.open_tcp_stream(HOST, listener.getsockname()[1])
    server, _ = await listener.accept()
    listener.close()
    connection = ClientConnection(stream, "ann", "")
    try:
        await connection.send(protocol.Hello(version=protocol.PROTOCOL_VERSION, name="ann"))
        replaced = protocol.Error(code=ErrorCode.SESSION_REPLACED, message="a newer one came")
        await server.send(protocol.Connection(protocol.SERVER).send(replaced))
        await trio.lowlevel.wait_readable(server)  # the hello: unread, so the close resets
        server.close()
        with pytest.raises(ServerError) as raised:
            await _ping_until_a_send_fails(connection)
        assert (raised.value.code, raised.value.message) == (replaced.code, replaced.message)
    finally:
        server.close()
        await connection.aclose()


async def _ping_until_a_send_fails(connection: ClientConnection) -> None:
    """Send pings for up to a second: the first may go before the reset arrives."""
    for nonce in range(1000):
        await connection.send(protocol.Ping(nonce=nonce))
        await trio.sleep(0.001)
