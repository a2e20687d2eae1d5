"""Frames held until the moves they announce are stored.

A match never lets a client hear of a move before it is committed (DESIGN.md: a restarted server
never knows less than a client was told), yet never waits for the commit on the move path. What
one step of the match has to say is collected here (`tell`) with the writes it depends on
(`depends_on`); `flush` then sends it at once when nothing is pending, or hands it to the storage
writer, which releases it after the commit. Frames queue behind any still held, so each client
hears them in the order they were said, and each client gets one write per step (its opponent's
move and its own `your_turn` together).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

import trio

from arbiter import protocol
from arbiter.server.peer import OnWritten, Peer

if TYPE_CHECKING:
    from arbiter.server.storage import PendingWrite, Storage

Outgoing = tuple[Peer, protocol.Message | protocol.Encoded, OnWritten | None]


class CommitGate:
    """One match's outgoing frames, released in order once what they announce is stored."""

    __slots__ = (
        "_all_sent",
        "_held",
        "_on_lost_write",
        "_outgoing",
        "_storage",
        "_unstored",
        "lost_write",
    )

    def __init__(self, storage: Storage, on_lost_write: Callable[[BaseException], None]) -> None:
        self._storage = storage
        self._on_lost_write = on_lost_write
        """Told (once) the error of the first write that failed; nothing is sent after it."""
        self._outgoing: list[Outgoing] = []
        """Frames the step under way has to send; `flush` sends them once it is done."""
        self._unstored: list[PendingWrite] = []
        """Writes queued since the last flush: its frames wait for their commit."""
        self._held = 0
        """Flushes waiting for a commit; later frames queue behind them, to keep their order."""
        self._all_sent: trio.Event | None = None
        self.lost_write: BaseException | None = None
        """The first write that could not be stored: the match cannot go on."""

    def tell(
        self,
        peer: Peer,
        message: protocol.Message | protocol.Encoded,
        on_written: OnWritten | None = None,
    ) -> None:
        """Say `message` to `peer` at the next flush."""
        self._outgoing.append((peer, message, on_written))

    def depends_on(self, write: PendingWrite) -> None:
        """Hold what this step says until `write` is committed."""
        self._unstored.append(write)

    def flush(self) -> None:
        """Send what this step said: now, or once the writes it depends on are committed."""
        if not self._outgoing:
            return
        frames, self._outgoing = self._outgoing, []
        if not self._unstored and not self._held:
            _send_grouped(frames)
            return
        writes, self._unstored = self._unstored, []
        self._held += 1
        self._storage.after_commit(partial(self._release, frames, writes))

    def _release(self, frames: list[Outgoing], writes: Sequence[PendingWrite]) -> None:
        """Called by the storage writer once `writes` are committed (or failed)."""
        self._held -= 1
        failed = next((write.error for write in writes if write.error is not None), None)
        if failed is not None and self.lost_write is None:
            self.lost_write = failed
            self._on_lost_write(failed)
        if self.lost_write is None:
            _send_grouped(frames)
        if not self._held and self._all_sent is not None:
            self._all_sent.set()

    async def drain(self) -> None:
        """Flush, and wait until nothing is held for a commit (then check `lost_write`)."""
        self.flush()
        if self._held:
            self._all_sent = trio.Event()
            await self._all_sent.wait()


def _send_grouped(frames: list[Outgoing]) -> None:
    """Each peer's frames in one write, in the order they were said."""
    by_peer: dict[Peer, list[tuple[protocol.Message | protocol.Encoded, OnWritten | None]]] = {}
    for peer, message, on_written in frames:
        by_peer.setdefault(peer, []).append((message, on_written))
    for peer, items in by_peer.items():
        peer.send_many(items)
