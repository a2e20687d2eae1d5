"""What a match needs of a connected client: a small interface, so `server.play.match` does not
depend on `server.connection.session` (the connection's I/O) and can be driven by anything that
sends.

`Session` is the one implementation in the server; it satisfies `Peer` structurally.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from arbiter import protocol

OnWritten = Callable[[float], None]
"""Called by the writer with the time a frame was written to the socket: when a move's clock
starts."""


class Peer(Protocol):
    """One client as a match sees it: a name, a round trip, and frames out."""

    @property
    def name(self) -> str: ...

    @property
    def rtt(self) -> float:
        """Estimated network round trip in seconds (0 before any was measured)."""
        ...

    @property
    def closed(self) -> bool: ...

    def send(
        self, message: protocol.Message | protocol.Prepared, on_written: OnWritten | None = None
    ) -> None:
        """Send one frame without blocking."""
        ...

    def send_many(
        self, frames: Sequence[tuple[protocol.Message | protocol.Prepared, OnWritten | None]]
    ) -> None:
        """Send several frames in one write, in order."""
        ...
