"""How long the reader waits for bytes: the `hello` within its deadline of the connection's
start, and a frame in progress at a minimum rate.

Both are the reader's cancel scope's deadline, set only while it waits for such bytes, so a move
that arrives whole sets none.
"""

from __future__ import annotations

import math

import trio

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.connection.admission import Admission


class ReadDeadlines:
    """The deadlines of one connection's reader, and why it timed out."""

    __slots__ = ("admission", "started")

    def __init__(self, admission: Admission, started: float) -> None:
        self.admission = admission
        self.started = started

    def deadline(self, wire: protocol.Connection, frame_began: float | None) -> float:
        """When the reader stops waiting: the frame in progress's deadline (it began to
        arrive at `frame_began`), or the hello's."""
        deadline = math.inf
        if frame_began is not None:
            allowed = self.admission.frame_seconds
            deadline = frame_began + allowed + wire.buffered / self.admission.min_bytes_per_second
        if wire.phase is protocol.Phase.START:
            return min(deadline, self._hello_deadline())
        return deadline

    def _hello_deadline(self) -> float:
        return self.started + self.admission.hello_seconds

    def why(self, wire: protocol.Connection) -> tuple[ErrorCode, str]:
        """Why the reader's deadline passed: no `hello` in time, or a frame too slow."""
        if wire.phase is protocol.Phase.START and trio.current_time() >= self._hello_deadline():
            return (
                ErrorCode.HELLO_TIMEOUT,
                f"no hello within {self.admission.hello_seconds:g} s of connecting",
            )
        return (
            ErrorCode.TOO_SLOW,
            f"a frame in progress came slower than {self.admission.min_bytes_per_second:g} bytes/s",
        )
