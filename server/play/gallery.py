"""Who watches one match, and the snapshot a newcomer is shown.

The `watching` frame is built and encoded once per move (and per change of a player's name)
however many spectators it is shown to: once for each first move shown (`moves_from`), which
spectators asking about the same place share (`messages.snapshot_start`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from arbiter import protocol
from arbiter.server.connection.peer import Peer


class Gallery:
    """The spectators of one match."""

    __slots__ = ("_peers", "_snapshot")

    def __init__(self) -> None:
        self._peers: set[Peer] = set()
        self._snapshot: tuple[tuple[object, ...], dict[int, protocol.Encoded]] | None = None
        """What the match shows (the move count and the players) and its snapshots so far, by
        their first move."""

    def __iter__(self) -> Iterator[Peer]:
        return iter(self._peers)

    def __bool__(self) -> bool:
        return bool(self._peers)

    def __contains__(self, peer: object) -> bool:
        return peer in self._peers

    def add(self, peer: Peer) -> bool:
        """Let `peer` watch; False for one that already does."""
        if peer in self._peers:
            return False
        self._peers.add(peer)
        return True

    def discard(self, peer: Peer) -> None:
        self._peers.discard(peer)

    def snapshot(
        self, shows: tuple[object, ...], moves_from: int, build: Callable[[], protocol.Watching]
    ) -> protocol.Encoded:
        """The `watching` frame of the match as it `shows` now from move `moves_from`, encoded;
        built by `build` only when what it shows changed."""
        if self._snapshot is None or self._snapshot[0] != shows:
            self._snapshot = (shows, {})
        built = self._snapshot[1]
        encoded = built.get(moves_from)
        if encoded is None:
            encoded = built[moves_from] = protocol.Encoded(build())
        return encoded
