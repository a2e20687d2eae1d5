"""Followers of the lobby listing (`lobby` with `follow`): a fresh listing after each change,
coalesced.

Whatever changes what a listing shows (a seek opens or closes, a match starts, a move is played,
a match or a tournament game ends) calls `LobbyFeed.changed`, which only marks the listing dirty
and wakes the feed's task: a test and an assignment, cheap enough for every move, and nothing at
all while nobody follows. The task builds one listing, encodes it once and sends the same frame
to every follower, then sleeps out the rest of `interval` before it looks again: however many
moves are played, a follower is sent at most one listing per `interval` (besides the answer to
its own `lobby` request), and the last change is never more than `interval` late. A follower too
slow to read them is cut off by the server's output limits like any other client.

The web front of a later issue subscribes through the same facility: it needs a `Peer` to send
to, nothing more.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import trio

from arbiter import protocol
from arbiter.server.connection.peer import Peer

FOLLOW_SECONDS = 1.0
"""The least time between two listings pushed to followers."""


class LobbyFeed:
    def __init__(
        self, build: Callable[[], protocol.LobbyListing], interval: float = FOLLOW_SECONDS
    ) -> None:
        self._build = build
        """A listing as it stands now, with `following` true."""
        self.interval = interval
        self.followers: set[Peer] = set()
        self._dirty = False
        self._wake = trio.Event()
        self._sent_at = -math.inf

    def follow(self, peer: Peer) -> None:
        self.followers.add(peer)

    def unfollow(self, peer: Peer) -> None:
        self.followers.discard(peer)

    def changed(self) -> None:
        """Something a listing shows changed: followers get a fresh one, soon."""
        if self.followers and not self._dirty:
            self._dirty = True
            self._wake.set()

    async def run(self) -> None:
        """Send a listing to every follower after each change, at most one per `interval`."""
        while True:
            await self._wake.wait()
            self._wake = trio.Event()
            await trio.sleep_until(self._sent_at + self.interval)
            self._dirty = False
            if self.followers:
                frame = protocol.Encoded(self._build())
                for peer in self.followers:
                    peer.send(frame)
            self._sent_at = trio.current_time()
