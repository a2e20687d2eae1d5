"""Requests read behind a slow one, answered after it, in order, each with its own arrival.

The reader does not wait for a slow request: one whose answer waits (a `watch` or a `seek` that
goes to the database) is answered by a task of its own while the reader goes on reading and
stamping what comes behind it. So a move that arrives behind a slow request is not charged for
the server's work on it, whether it came in the same segment or later. What one connection can
make the server hold is bounded (`MAX_HELD`): past it, the reader stops reading, and TCP pushes
back on the client.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Awaitable, Callable

import trio

from arbiter import protocol

MAX_HELD = 256
"""Requests read and held behind a slow one before the reader stops reading (and TCP pushes back
on the client): what one connection can make the server hold is bounded."""
REFUSED = -math.inf
"""The arrival held with the refusal of a request over a rate limit: the refusal keeps its
place."""

Answer = Callable[[protocol.Message, float], Awaitable[None]]
"""Answer one request, given when its frame arrived."""


class HeldRequests:
    """The requests waiting behind the slow one in hand, if one is."""

    def __init__(self, answer: Answer, send: Callable[[protocol.Message], None]) -> None:
        self._answer = answer
        self._send = send
        self._held: deque[tuple[protocol.Message, float]] | None = None
        """Requests read, with their arrival, while a slow one is answered (None: none is)."""
        self._answered = trio.Event()
        """Set when the held requests are all answered."""
        self._room = trio.Event()
        """Set when the reader, stopped at `MAX_HELD`, may read on."""

    @property
    def busy(self) -> bool:
        """A slow request is being answered: what is read now waits behind it."""
        return self._held is not None

    def begin(self, nursery: trio.Nursery, slow: protocol.Message, arrived: float) -> None:
        """Answer `slow` in a task of its own; what is read meanwhile is held behind it."""
        self._held, self._answered = deque(), trio.Event()
        nursery.start_soon(self._answer_in_order, self._held, slow, arrived)

    async def hold(self, message: protocol.Message, arrived: float) -> None:
        """Hold `message` behind the slow request; past `MAX_HELD`, wait for room."""
        assert self._held is not None
        self._held.append((message, arrived))
        if len(self._held) >= MAX_HELD:
            self._room = trio.Event()
            await self._room.wait()

    def hold_refusal(self, refusal: protocol.Error) -> None:
        """Send `refusal` in its turn, behind the requests held before it."""
        assert self._held is not None
        self._held.append((refusal, REFUSED))

    async def finished(self) -> None:
        """Return once everything read has its answer."""
        if self._held is not None:
            await self._answered.wait()

    async def _answer_in_order(
        self, held: deque[tuple[protocol.Message, float]], slow: protocol.Message, arrived: float
    ) -> None:
        """Answer a slow request, then every request held behind it, each with its arrival."""
        await self._answer(slow, arrived)
        while held:
            message, arrived = held.popleft()
            if arrived == REFUSED:
                self._send(message)
            else:
                await self._answer(message, arrived)
            self._room.set()
        self._held = None
        self._answered.set()
