"""One connection from the door to its end, whatever carries it (TCP, TLS, a WebSocket).

The caps of `server.connection.admission.Doorway` are checked before anything is read; a connection
let in is served by a `Session`, and the log has a line when it opens and one when it closes, with
the name it gave and why it closed. `server.app` (TCP and TLS) and `server.web` (WebSockets) differ
only in how they refuse a connection and how they open its stream.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable

import trio

from arbiter import protocol
from arbiter.server.common import logs
from arbiter.server.connection.admission import Doorway
from arbiter.server.connection.session import Session
from arbiter.server.play.lobby import Lobby

log = logging.getLogger("arbiter.server.app")

Refuse = Callable[[protocol.ErrorCode, str], Awaitable[None]]
"""Tell a connection it is refused, in one `error` frame, and close it."""
Open = Callable[[], Awaitable[trio.abc.Stream | None]]
"""The connection's stream once ready (a TLS handshake done...), or None when it failed."""


async def serve_admitted(
    lobby: Lobby, doorway: Doorway, address: str, peer: str, refuse: Refuse, open_stream: Open
) -> None:
    """Serve one connection from `address` (`peer` is address and port, for the log), or
    refuse it at once past a connection cap or while its address is barred for flooding."""
    logs.event(log, "connection_opened", peer=peer)
    barred = doorway.barred(address, trio.current_time())
    if barred:
        await refuse(
            protocol.ErrorCode.RATE_LIMITED, f"cut off for flooding: wait {math.ceil(barred)} s"
        )
        logs.event(log, "connection_closed", peer=peer, why="refused: still barred")
        return
    refusal = doorway.enter(address, trio.current_time())
    if refusal is not None:
        await refuse(protocol.ErrorCode.TOO_MANY_CONNECTIONS, refusal)
        logs.event(log, "connection_closed", peer=peer, why=f"refused: {refusal}")
        return
    session = None
    why = "the server stopped"
    try:
        stream = await open_stream()
        why = "no TLS handshake"
        if stream is not None:
            share = doorway.share(address, trio.current_time())
            session = Session(
                stream,
                lobby,
                doorway.admission,
                address,
                lobby.limits,
                share,
                lobby.output,
                on_flood=lambda: doorway.bar(address, trio.current_time()),
            )
            why = "the server stopped"
            await session.run()
            why = session.why_closed or "the client closed it"
    finally:
        doorway.leave(address, trio.current_time())
        name = "" if session is None else session.name
        logs.event(log, "connection_closed", peer=peer, name=name, why=why)
