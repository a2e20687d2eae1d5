"""A client's network round trip, measured with the server's own pings.

The estimate is what a move's lag compensation is charged against, so a client cannot talk it
up: it is the least of the last few round trips, and a ping's round trip counts from when the
ping was written to the socket, not when it was queued.
"""

from __future__ import annotations

from collections import deque
from functools import partial

from arbiter.server.connection.peer import OnWritten

RTT_SAMPLES = 8
"""Round trips kept; the estimate is their minimum, so one pong delayed by a busy client does
not count as network lag, and a client that delays pongs on purpose must delay all of them."""


class RoundTrips:
    """The pings in flight, the round trips measured, and when the client was last heard."""

    __slots__ = ("_next_nonce", "_sent", "heard_at", "round_trips", "rtt")

    def __init__(self) -> None:
        self.round_trips: deque[float] = deque(maxlen=RTT_SAMPLES)
        self.rtt = 0.0
        """Estimated round trip in seconds: the least of `round_trips` (0 before any)."""
        self.heard_at = 0.0
        """When the client last answered a ping (or was welcomed)."""
        self._sent: dict[int, float] = {}
        self._next_nonce = 1

    def ping(self) -> tuple[int, OnWritten]:
        """A new ping's nonce, and what to call when it is written (its round trip starts)."""
        nonce, self._next_nonce = self._next_nonce, self._next_nonce + 1
        self._sent = {n: t for n, t in self._sent.items() if n > nonce - RTT_SAMPLES}
        return nonce, partial(self._sent.__setitem__, nonce)

    def pong(self, nonce: int, arrived: float) -> None:
        self.heard_at = arrived
        sent = self._sent.pop(nonce, None)
        if sent is not None:
            self.round_trips.append(arrived - sent)
            self.rtt = min(self.round_trips)
