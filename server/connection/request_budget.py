"""How many requests a connection may still send: its own token bucket and its address's.

Each frame spends its cost (`REQUEST_COSTS`) from both buckets, refilled at each read: a
subtraction and a comparison per frame, so the per-move path pays well under a microsecond. A
request over either rate is refused with `rate_limited`; a client that keeps sending past
`Admission.max_refused` refusals is flooding, and is closed and its address barred for a while.
"""

from __future__ import annotations

from arbiter import protocol
from arbiter.server.connection.admission import AddressShare, Admission

REQUEST_COSTS: dict[type[protocol.Message], float] = {
    protocol.Lobby: 50.0,
    protocol.TournamentCreate: 50.0,
    protocol.TournamentStatus: 20.0,
    protocol.Ladder: 20.0,
    protocol.LadderJoin: 10.0,
    protocol.Watch: 10.0,
    protocol.Seek: 20.0,
    protocol.ListGames: 10.0,
    protocol.SubmitEnd: 20.0,
    protocol.Submissions: 10.0,
    protocol.Retire: 10.0,
    protocol.SubmissionFetch: 5.0,
    protocol.SubmitPart: 2.0,
}
"""What a request spends of the token buckets, where it is not 1: roughly its cost to the
server in pings. A listing or a tournament's standings is built for the asker (up to a whole
64 KiB frame), a `watch` may show a whole game, a `seek` is matched against the open ones and
changes the listing (a bot seeks once a game: a few a second is plenty); `list_games` is encoded
once but its answer is some 3 KiB to write (a client asks once); an upload's end hashes and
checks its archive on a thread and stores it (and an author's uploads an hour are capped in the
store besides), each of its parts and each part fetched moves 48 KiB; a move or a ping costs
little.
So the rate limits bound the server's work, not just the number of frames: a flood of the
dearest requests is refused as soon as a flood of pings would cost as much."""


class RequestBudget:
    """One connection's token bucket, and the bucket of its address it shares."""

    __slots__ = ("_allowance", "_share", "address", "admission", "refused")

    def __init__(self, admission: Admission, address: str, share: AddressShare) -> None:
        self.admission = admission
        self.address = address
        self._share = share
        self._allowance = admission.request_burst
        """Requests this connection may still send at once."""
        self.refused = 0
        """Requests refused `rate_limited` since the bucket was last full."""

    def refill(self, now: float, since: float) -> None:
        """Refill both buckets for the time from the last read (`since`) to this one (`now`)."""
        self._share.refill(now)
        allowance = self._allowance + (now - since) * self.admission.requests_per_second
        burst = self.admission.request_burst
        if allowance >= burst:
            allowance = burst
            if self._share.allowance >= 0.0:
                self.refused = 0
        self._allowance = allowance

    def spend(self, message: protocol.Message) -> bool:
        """Spend what `message` costs; False when that is over a rate."""
        cost = REQUEST_COSTS.get(type(message), 1.0)
        self._allowance -= cost
        self._share.allowance -= cost
        return self._allowance >= 0.0 and self._share.allowance >= 0.0

    def refuse(self) -> bool:
        """Count a refusal; False when the client is flooding (refused too often)."""
        self.refused += 1
        return self.refused <= self.admission.max_refused

    def over_which(self) -> str:
        """The rate limit a refused request broke, in words."""
        if self._allowance < 0.0:
            return f"{self.admission.requests_per_second:g} requests/s per connection"
        return (
            f"{self.admission.address_requests_per_second:g} requests/s from {self.address}"
            " across all its connections"
        )
