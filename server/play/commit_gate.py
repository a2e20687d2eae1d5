"""Frames held until the moves they announce are stored.

A match never lets a client hear of a move before it is committed (so a restarted server never
knows less than a client was told), yet never waits for the commit on the move path. What
one step of the match has to say is collected here (`tell`) with the writes it depends on
(`depends_on`); `flush` then sends it at once when nothing is pending, or hands it to the storage
writer, which releases it after the commit. Frames queue behind any still held, so each client
hears them in the order they were said, and each client gets one write per step (its opponent's
move and its own `your_turn` together).

The moment a step is released (handed to the connections) is told to whoever asked
(`on_release`): a move's deadline starts there, not when it was said, because the wait for the
commit is the server's (a stalled or restarted commit process, a slow disk), not the player's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

import trio

from arbiter import protocol
from arbiter.server.connection.peer import OnWritten, Peer

if TYPE_CHECKING:
    from arbiter.server.storage.interface import PendingWrite, Storage

Outgoing = tuple[Peer, protocol.Message | protocol.Prepared, OnWritten | None]
OnReleased = Callable[[float], None]
"""Called with the time a step's frames were handed to the connections."""


class CommitGate:
    """One match's outgoing frames, released in order once what they announce is stored."""

    __slots__ = (
        "_all_sent",
        "_held",
        "_on_lost_write",
        "_on_release",
        "_outgoing",
        "_storage",
        "_unstored",
        "lost_write",
        "stored",
    )

    def __init__(self, storage: Storage, on_lost_write: Callable[[BaseException], None]) -> None:
        self._storage = storage
        self._on_lost_write = on_lost_write
        """Told (once) the error of the first write that failed; nothing is sent after it."""
        self._outgoing: list[Outgoing] = []
        """Frames the step under way has to send; `flush` sends them once it is done."""
        self._unstored: list[PendingWrite] = []
        """Writes queued since the last flush: its frames wait for their commit."""
        self._on_release: list[OnReleased] = []
        """Who asked to be told when the step under way is released."""
        self._held = 0
        """Flushes waiting for a commit; later frames queue behind them, to keep their order."""
        self._all_sent: trio.Event | None = None
        self.lost_write: BaseException | None = None
        """The first write that could not be stored: the match cannot go on."""
        self.stored = 0
        """How many writes were stored, in order, before `lost_write`: the moves a client may
        have heard of."""

    def tell(
        self,
        peer: Peer,
        message: protocol.Message | protocol.Prepared,
        on_written: OnWritten | None = None,
    ) -> None:
        """Say `message` to `peer` at the next flush."""
        self._outgoing.append((peer, message, on_written))

    def depends_on(self, write: PendingWrite) -> None:
        """Hold what this step says until `write` is committed."""
        self._unstored.append(write)

    def on_release(self, callback: OnReleased) -> None:
        """Tell `callback` when what this step says is handed to the connections (at once if
        nothing holds it); never, if a write it waits for could not be stored."""
        self._on_release.append(callback)

    def flush(self) -> None:
        """Send what this step said: now, or once the writes it depends on are committed."""
        if not self._outgoing and not self._on_release:
            return
        frames, self._outgoing = self._outgoing, []
        released, self._on_release = self._on_release, []
        if not self._unstored and not self._held:
            _send_released(frames, released)
            return
        writes, self._unstored = self._unstored, []
        self._held += 1
        self._storage.after_commit(partial(self._release, frames, released, writes))

    def _release(
        self, frames: list[Outgoing], released: list[OnReleased], writes: Sequence[PendingWrite]
    ) -> None:
        """Called by the storage writer once `writes` are committed (or failed)."""
        self._held -= 1
        if self.lost_write is None:
            failed = next((write.error for write in writes if write.error is not None), None)
            if failed is None:
                self.stored += len(writes)
                _send_released(frames, released)
            else:
                self.lost_write = failed
                self._on_lost_write(failed)
        if not self._held and self._all_sent is not None:
            self._all_sent.set()

    async def drain(self) -> None:
        """Flush, and wait until nothing is held for a commit (then check `lost_write`)."""
        self.flush()
        if self._held:
            self._all_sent = trio.Event()
            await self._all_sent.wait()


def _send_released(frames: list[Outgoing], released: list[OnReleased]) -> None:
    """Tell who asked that the step is released, then send its frames, each peer's in one
    write, in the order they were said (a frame can be written at once, and the time it was
    written comes after the release)."""
    if released:
        now = trio.current_time()
        for callback in released:
            callback(now)
    by_peer: dict[Peer, list[tuple[protocol.Message | protocol.Prepared, OnWritten | None]]] = {}
    for peer, message, on_written in frames:
        by_peer.setdefault(peer, []).append((message, on_written))
    for peer, items in by_peer.items():
        peer.send_many(items)
