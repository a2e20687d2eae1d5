"""The client connection's own errors: a broken stream is `ConnectionClosed` both ways."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arbiter import protocol
from arbiter.client.connection import ClientConnection, ConnectionClosed


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
