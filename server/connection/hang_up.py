"""Closing a connection the server ends so that its last frame arrives.

A TCP socket closed with received bytes still unread is reset, not closed: the reset makes the
peer's next write fail, so a client in the middle of sending (an upload, a burst of moves) meets
the reset before it reads the `error` frame that said why, and most clients stop there; and
what the kernel had not yet sent of that frame is thrown away. So the server half-closes first
(the peer reads the frame, then the end of the stream) and reads on, discarding, until the peer
closes its end too, for at most `LINGER_SECONDS` and `LINGER_BYTES`: a client that never stops
sending cannot hold the socket open.

Only TCP, plain or under TLS, lingers: a WebSocket has a closing handshake of its own.
"""

from __future__ import annotations

import trio

from arbiter.protocol.submission import MAX_ARCHIVE_BYTES

LINGER_SECONDS = 1.0
"""How long a closing connection reads what its peer still sends before it is closed anyway."""
LINGER_BYTES = 2 * MAX_ARCHIVE_BYTES
"""How much a closing connection reads and discards before it is closed anyway: enough for an
upload in flight, the most a client sends without waiting for an answer."""
DRAIN_SIZE = 64 * 1024


async def hang_up(stream: trio.abc.Stream) -> None:
    """Half-close `stream`, discard what its peer still sends (within the bounds), then close
    it; closed whatever happens, cancellation included."""
    try:
        tcp = _tcp_under(stream)
        if tcp is not None:
            with trio.move_on_after(LINGER_SECONDS):
                await _drain(tcp)
    finally:
        await trio.aclose_forcefully(stream)


def _tcp_under(stream: trio.abc.Stream) -> trio.SocketStream | None:
    """The TCP stream `stream` is or carries TLS over; None for any other kind."""
    if isinstance(stream, trio.SSLStream):
        stream = stream.transport_stream
    return stream if isinstance(stream, trio.SocketStream) else None


async def _drain(tcp: trio.SocketStream) -> None:
    """Send the end of the stream, then read until the peer's end or `LINGER_BYTES`."""
    left = LINGER_BYTES
    try:
        await tcp.send_eof()
        while left > 0:
            data = await tcp.receive_some(min(left, DRAIN_SIZE))
            if not data:
                return
            left -= len(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return  # the peer is gone already: nothing of ours can reach it any more
