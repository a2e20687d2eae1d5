"""What a connection has still to write, bounded in bytes, and the one writer task that writes it.

Every frame to a client goes through its outbox, so frames never interleave and a slow reader
stalls only itself. With nothing queued, a frame goes to the transport at once
(`server.connection.transport`): what it takes is written, and only the rest goes to the writer
task, behind which every later frame then queues, so frames keep their order.

The outbox is bounded in bytes, per client (`Limits.output_bytes`) and for all clients together
(`OutputBudget`): a client that stops reading while frames keep coming is cut off, with an
`output_limit` error saying why, rather than allowed to grow the server's memory.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

import trio

from arbiter.server.connection.peer import OnWritten
from arbiter.server.connection.transport import Transport

WRITE_BATCH = 64 * 1024
"""Bytes of waiting frames the writer joins into one write (a whole turn is far less)."""


class Client(Protocol):
    """A connection as its output is bounded: its backlog, and being cut off."""

    @property
    def closed(self) -> bool: ...

    @property
    def backlog(self) -> int: ...

    def cut_off(self, why: str) -> None:
        """Close the connection of a client that does not read, saying `why`."""
        ...


class OutputBudget:
    """The bytes queued for every client of one server, against `Limits.output_budget`.

    Each outbox reports what it queues and what its writer wrote. Past the budget, the client
    with the largest backlog is cut off (its queued frames dropped), then the next largest,
    until the total is back under it: what is cut is what a client did not read, so the clients
    that read keep their frames.
    """

    __slots__ = ("_backlogged", "limit", "total")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._backlogged: set[Client] = set()

    def grew(self, client: Client, size: int) -> None:
        self.total += size
        self._backlogged.add(client)
        while self.total > self.limit:
            open_ones = [other for other in self._backlogged if not other.closed]
            if not open_ones:
                return  # what is left is being written out or torn down
            largest = max(open_ones, key=lambda other: other.backlog)
            largest.cut_off(
                f"{largest.backlog} bytes are waiting for you to read them, the most of any"
                f" client while the server holds {self.total} for all (its budget is"
                f" {self.limit})"
            )

    def shrank(self, client: Client, size: int) -> None:
        self.total -= size
        if client.backlog == 0:
            self._backlogged.discard(client)

    def left(self, client: Client, backlog: int) -> None:
        """`client` was cut off: its backlog no longer counts, as it goes within seconds."""
        self.total -= backlog
        self._backlogged.discard(client)


class Outbox:
    """One connection's frames not yet written, and its writer task (`write_loop`)."""

    def __init__(
        self, transport: Transport, owner: Client, limit: int, budget: OutputBudget
    ) -> None:
        self._transport = transport
        self._owner = owner
        self._limit = limit
        self._budget = budget
        self.backlog = 0
        """Bytes handed to the writer task and not yet written (queued or being written)."""
        self._charged = True
        """Whether `backlog` counts against the budget: not once cut off (it is leaving)."""
        self._queue: deque[tuple[bytes, OnWritten | None]] = deque()
        """Frames for the writer task, with what to call once each is written."""
        self._closed = False
        self._wake_writer = trio.Event()
        self._writing = False
        """The writer task is in a write: part of a frame may be on the wire."""
        self._rest_first = False
        """The first frame queued is the rest of one the transport took in part."""

    def push(self, data: bytes, on_written: OnWritten | None) -> bool:
        """Write `data` now if the transport takes it, else queue it for the writer; a client
        too far behind is cut off. False when the connection failed."""
        if self.backlog == 0:
            rest = self._transport.write_now(data)
            if rest is None:  # the peer is gone; the reader sees it too and the seat defaults
                self.close()
                return False
            if not rest:
                if on_written is not None:
                    on_written(trio.current_time())
                return True
            self._rest_first = len(rest) < len(data)
            data = rest
        if self.backlog + len(data) > self._limit:
            self._owner.cut_off(self._over_limit(self.backlog + len(data)))
            return True
        self._append(data, on_written)
        self._budget.grew(self._owner, len(data))
        return True

    def reweigh(self, change: int) -> bool:
        """The bytes in the writer's hands weigh `change` more than the frames it took (or less,
        once written): a translating stream's. Counted as queued bytes are; False when that
        cut the client off (then the stream drops them, as queued frames are dropped)."""
        self.backlog += change
        if change <= 0 or not self._charged:
            self._release(-change)
            return True
        self._budget.grew(self._owner, change)
        if not self._charged:  # the server's budget cut this client off
            return False
        if self.backlog > self._limit:
            self._owner.cut_off(self._over_limit(self.backlog))
            return False
        return True

    def _over_limit(self, backlog: int) -> str:
        return (
            f"{backlog} bytes would be waiting for you to read them, over this server's limit"
            f" of {self._limit} per connection"
        )

    def _append(self, data: bytes, on_written: OnWritten | None) -> None:
        self._queue.append((data, on_written))
        self.backlog += len(data)
        self._wake_writer.set()

    def cut_off(self, last: bytes | None) -> None:
        """Drop the queued frames (all but the rest of one begun on the wire), and close with
        the frame `last` (the `output_limit` error), written at once if the transport takes
        it, else left to the writer."""
        kept = [self._queue[0]] if self._queue and self._rest_first else []
        dropped = sum(len(data) for data, _ in self._queue) - sum(len(data) for data, _ in kept)
        self._queue.clear()
        self._queue.extend(kept)
        self._budget.left(self._owner, self.backlog)  # what is not dropped goes within seconds
        self._charged = False
        self.backlog -= dropped
        if last is not None:
            if not self._writing and not self._queue:  # the wire is at a frame boundary
                last = self._transport.write_now(last) or b""
            if last:
                self._append(last, None)
        self.close()

    def close(self) -> None:
        """Take no more frames: the writer writes what is queued, then ends."""
        self._closed = True
        self._wake_writer.set()

    def discard(self) -> None:
        """The connection ended: what was not written never will be."""
        self._queue.clear()
        backlog, self.backlog = self.backlog, 0
        self._release(backlog)

    async def write_loop(self, cancel_scope: trio.CancelScope) -> None:
        """Write what is queued, every frame waiting at once (one system call for a whole
        turn), until the outbox is closed and empty; then cancel the connection's tasks."""
        try:
            while self._queue or not self._closed:
                if not self._queue:
                    self._wake_writer = trio.Event()
                    await self._wake_writer.wait()
                    continue
                batch = self._next_batch()
                data = b"".join(data for data, _ in batch)
                self._writing = True
                await self._transport.send_all(data)
                self._writing = False
                self.backlog -= len(data)
                self._release(len(data))
                now = trio.current_time()
                for _, on_written in batch:
                    if on_written is not None:
                        on_written(now)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        cancel_scope.cancel()

    def _next_batch(self) -> list[tuple[bytes, OnWritten | None]]:
        """The frames to write next: all that wait, up to `WRITE_BATCH` bytes (at least one).
        What is not yet being written can still be dropped if the client is cut off."""
        batch = [self._queue.popleft()]
        self._rest_first = False
        size = len(batch[0][0])
        while self._queue and size < WRITE_BATCH:
            batch.append(self._queue.popleft())
            size += len(batch[-1][0])
        return batch

    def _release(self, size: int) -> None:
        if self._charged:
            self._budget.shrank(self._owner, size)
