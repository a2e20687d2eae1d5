"""One connected client: a reader that turns bytes into requests, and what answers it.

The sans-I/O `protocol.Connection` does all parsing and checking; a session moves bytes and
routes requests to its `Router` (the lobby), so this module does not depend on the lobby. Its
parts each do one job: the transport moves bytes (`server.connection.transport`), the outbox
and its one writer task bound and write what goes out (`server.connection.outbox`), the request
budget paces what comes in (`server.connection.request_budget`), the read deadlines bound how
long the reader waits (`server.connection.read_deadlines`), requests behind a slow one wait
their turn (`server.connection.held_requests`), pings measure the round trip
(`server.connection.round_trips`), and the hang-up lets the frame that says why the server closed
reach a client still sending (`server.connection.hang_up`).

Each frame is stamped with the time its last bytes were read. Requests answered at once (a
move, a ping) take no detour; a slow one is answered in a task of its own while the reader goes
on reading. The reader answers `hello` itself, slow as a token check is (~100 ms): until the
handshake is answered the wire cannot parse what follows, and frames that came with the `hello`
keep the stamp of their read. The ping task drops a client that answers no ping.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol, runtime_checkable

import trio

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.connection.admission import DEFAULT, AddressShare, Admission
from arbiter.server.connection.hang_up import hang_up
from arbiter.server.connection.held_requests import HeldRequests
from arbiter.server.connection.limits import Limits
from arbiter.server.connection.outbox import Outbox, OutputBudget
from arbiter.server.connection.peer import OnWritten
from arbiter.server.connection.read_deadlines import ReadDeadlines
from arbiter.server.connection.request_budget import RequestBudget
from arbiter.server.connection.round_trips import RoundTrips
from arbiter.server.connection.transport import transport_for

log = logging.getLogger(__name__)

MAX_PEER_ERRORS = 20
"""Recoverable protocol errors (bad frames: any `error` the protocol layer raises, such as
`bad_msgpack`, `unknown_type` or `out_of_order`) tolerated from one client over its whole
connection before it is disconnected; the server's own refusals (`illegal_move`...) do not
count."""
FLUSH_SECONDS = 2.0
"""How long a closing connection may take to write its last frames (an error, a game over)."""
ANSWERED_BY_READER = frozenset(
    {
        protocol.Move,
        protocol.Resign,
        protocol.Ping,
        protocol.Pong,
        protocol.CancelSeek,
        protocol.ListGames,
        protocol.Hello,
    }
)
"""Requests the reader answers itself: all but `hello` never wait (the per-move path), and the
handshake must be answered before the wire can parse the next frame."""
YIELD_EVERY = 64
"""Frames the reader answers from one read before it lets other tasks run: a client that sends
thousands of small frames at once (all within its rate) cannot hold the loop for all of them."""


class Router(Protocol):
    """Where a session's requests go: the lobby."""

    async def handle(self, session: Session, message: protocol.Message, arrived: float) -> None:
        """Answer one request; `arrived` is when its frame's last bytes were read."""
        ...

    def forget(self, session: Session) -> None:
        """The session closed."""
        ...


@runtime_checkable
class Translating(Protocol):
    """A stream that sends something other than the bytes it is handed (a WebSocket sends JSON,
    larger than the frames it translates): the session gives it `reweigh`, so the byte caps
    count what is really sent."""

    reweigh: Callable[[int], bool]


@dataclass(eq=False)
class Session:
    """What the server knows of one connection."""

    stream: trio.abc.Stream
    lobby: Router
    admission: Admission = DEFAULT
    address: str = ""
    """The client's IP address ("" on a memory stream): where token checks are throttled."""
    limits: Limits = field(default_factory=Limits)
    share: AddressShare | None = None
    """The request bucket of all the connections from `address` (None: one of its own)."""
    output: OutputBudget | None = None
    """The server's output budget, shared by its sessions (None: this one's own)."""
    wire: protocol.Connection = field(default_factory=lambda: protocol.Connection(protocol.SERVER))
    name: str = ""
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    closed: bool = False
    why_closed: str = ""
    """Why the server closed the connection, for the log ("" when the client did)."""
    peer_errors: int = 0
    welcomed: trio.Event = field(default_factory=trio.Event)
    on_flood: Callable[[], None] | None = None
    """What bars the address of a client closed for sending over the rate limit (the
    doorway's bar), called as the flood is seen: its next connection is refused even while
    this one is still hanging up."""
    hosted: bool = False
    """A seat a worker hosts (signed in with the seat's ticket): its moves carry the CPU
    seconds the worker measured."""

    def __post_init__(self) -> None:
        budget = self.output or OutputBudget(self.limits.output_budget)
        self._transport = transport_for(self.stream)
        self._outbox = Outbox(self._transport, self, self.limits.output_bytes, budget)
        if isinstance(self.stream, Translating):
            self.stream.reweigh = self._outbox.reweigh
        self._scope: trio.CancelScope | None = None
        """The connection's tasks, to end once a cut-off client has had its last chance."""
        self._read_at = 0.0
        """When the bytes being parsed were read: the arrival of every frame they complete."""
        started = trio.current_time()
        self._deadlines = ReadDeadlines(self.admission, started)
        self._reading = trio.CancelScope()
        """Around the reader: its deadline is set while a `hello` or a frame is awaited."""
        self._receiving = False
        """True while the reader waits for bytes (where `drop` may cancel it)."""
        share = self.share or AddressShare(self.admission, started)
        self._requests = RequestBudget(self.admission, self.address, share)
        self._held = HeldRequests(self._answer, self.send)
        self._pings = RoundTrips()

    @property
    def backlog(self) -> int:
        """Bytes handed to the writer task and not yet written."""
        return self._outbox.backlog

    @property
    def rtt(self) -> float:
        """Estimated network round trip in seconds (0 before any was measured)."""
        return self._pings.rtt

    # -- frames out ----------------------------------------------------------------------

    def send(
        self, message: protocol.Message | protocol.Prepared, on_written: OnWritten | None = None
    ) -> None:
        """Send one frame without blocking; a client too far behind is cut off."""
        if self.closed or self.wire.phase is protocol.Phase.CLOSED:
            return
        if not self._outbox.push(self.wire.send(message), on_written):
            self.closed = True

    def send_many(
        self, frames: Sequence[tuple[protocol.Message | protocol.Prepared, OnWritten | None]]
    ) -> None:
        """Send several frames in one write: what one turn tells a client (its opponent's move
        and its own `your_turn`) arrives in one segment and wakes it once."""
        if len(frames) == 1:
            self.send(*frames[0])
            return
        if self.closed or self.wire.phase is protocol.Phase.CLOSED:
            return
        data = []
        callbacks = []
        for message, on_written in frames:
            data.append(self.wire.send(message))
            if on_written is not None:
                callbacks.append(on_written)
        written = callbacks[0] if len(callbacks) == 1 else None
        if len(callbacks) > 1:
            written = partial(_call_each, callbacks)
        if not self._outbox.push(b"".join(data), written):
            self.closed = True

    def send_error(
        self, code: ErrorCode, message: str, ref: str | None = None, match: int | None = None
    ) -> None:
        self.send(protocol.Error(code=code, message=message, ref=ref, match=match))

    # -- closing -------------------------------------------------------------------------

    def drop(self, code: ErrorCode, message: str, ref: str | None = None) -> None:
        """Close the connection with an `error` frame, whatever the reader is doing: at once if
        it waits for bytes, else once it has answered the request in hand."""
        if self.closed:
            return
        self.send_error(code, message, ref)
        self.why_closed = f"{code.value}: {message}"
        self.closed = True
        if self._receiving:
            self._reading.cancel()

    def cut_off(self, why: str) -> None:
        """Disconnect a client that does not read what it is sent: its queued frames are
        dropped, and an `output_limit` error saying `why` takes their place; the writer has
        `FLUSH_SECONDS` to write it before the connection closes."""
        if self.closed:
            return
        last = None
        if self.wire.phase is not protocol.Phase.CLOSED:
            error = protocol.Error(code=ErrorCode.OUTPUT_LIMIT, message=f"closing: {why}")
            last = self.wire.send(error)
        self._outbox.cut_off(last)
        self.why_closed = f"{ErrorCode.OUTPUT_LIMIT.value}: {why}"
        self.closed = True
        if self._scope is not None:
            deadline = trio.current_time() + FLUSH_SECONDS
            self._scope.deadline = min(self._scope.deadline, deadline)

    # -- the connection's tasks ----------------------------------------------------------

    async def run(self) -> None:
        """Serve the connection until it closes; then the lobby forgets it."""
        try:
            async with trio.open_nursery() as nursery:
                self._scope = nursery.cancel_scope
                nursery.start_soon(self._outbox.write_loop, nursery.cancel_scope)
                nursery.start_soon(self._ping_loop)
                try:
                    with self._reading:
                        await self._read_loop(nursery)
                    if self._reading.cancelled_caught and not self.closed:
                        self.drop(*self._deadlines.why(self.wire))
                    await self._held.finished()  # what was read before the end gets its answer
                finally:
                    self._outbox.close()
                    deadline = trio.current_time() + FLUSH_SECONDS
                    nursery.cancel_scope.deadline = min(nursery.cancel_scope.deadline, deadline)
        finally:
            self.closed = True
            self._outbox.discard()
            self.lobby.forget(self)
            await hang_up(self.stream)  # so that the last frame arrives, whatever the client sends

    def pong_received(self, nonce: int, arrived: float) -> None:
        self._pings.pong(nonce, arrived)

    async def _ping_loop(self) -> None:
        """Ping every `ping_seconds`; drop a client silent for `pong_seconds` (`ping_timeout`)."""
        await self.welcomed.wait()
        every, patience = self.admission.ping_seconds, self.admission.pong_seconds
        pings = self._pings
        next_ping = pings.heard_at = trio.current_time()
        while not self.closed:
            now = trio.current_time()
            if now >= pings.heard_at + patience:
                self.drop(
                    ErrorCode.PING_TIMEOUT,
                    f"no pong for {now - pings.heard_at:.1f} s (answer every ping within"
                    f" {patience:g} s): closing",
                )
                if self.backlog and self._scope is not None:
                    self._scope.cancel()  # it reads nothing: no last frame would reach it
                return
            if now >= next_ping:
                nonce, written = pings.ping()
                self.send(protocol.Ping(nonce=nonce), written)
                next_ping = now + every
            await trio.sleep_until(min(next_ping, pings.heard_at + patience))

    async def _read_loop(self, nursery: trio.Nursery) -> None:
        frame_began: float | None = None  # when the frame in progress began to arrive
        answered = 0  # frames answered since the reader last let other tasks run
        while not self.closed:
            try:
                message = self.wire.next_message()
            except protocol.PeerError as error:
                frame_began = None
                if not self._answer_peer_error(error):
                    return
                continue
            if message is protocol.NEED_DATA:
                if not self.wire.buffered:
                    frame_began = None
                elif frame_began is None:
                    frame_began = self._read_at
                if not await self._read(self._deadlines.deadline(self.wire, frame_began)):
                    return
                answered = 0
                continue
            frame_began = None
            if message is protocol.CLOSED:
                return
            answered += 1
            if answered % YIELD_EVERY == 0:
                await trio.lowlevel.checkpoint()
            if not await self._take(nursery, message):
                return

    async def _read(self, deadline: float) -> bool:
        """Read the next bytes into the wire, stamped and paid for; False at the end of the
        connection. The reader is cancelled at `deadline` (`run` then says why)."""
        self._receiving = True
        if deadline == math.inf:
            data = await self._transport.receive()
        else:
            self._reading.deadline = deadline
            try:
                data = await self._transport.receive()
            finally:
                self._reading.deadline = math.inf
        self._receiving = False
        if data is None:
            return False
        now = trio.current_time()
        self._requests.refill(now, self._read_at)
        self._read_at = now
        self.wire.receive_data(data)
        return True

    async def _take(self, nursery: trio.Nursery, message: protocol.Message) -> bool:
        """Answer a request now, hold it behind a slow one, or refuse it over a rate; False
        when the connection must close."""
        if not self._requests.spend(message):
            return self._refuse(message)
        if self._held.busy:
            await self._held.hold(message, self._read_at)
        elif type(message) in ANSWERED_BY_READER:
            await self._answer(message, self._read_at)
        else:
            self._held.begin(nursery, message, self._read_at)
        return True

    def _refuse(self, message: protocol.Message) -> bool:
        """Refuse a request over a rate; False when the connection must close."""
        limit = self._requests.over_which()
        if not self._requests.refuse():
            if self.on_flood is not None:
                self.on_flood()
            self.drop(
                ErrorCode.RATE_LIMITED,
                f"closing after {self._requests.refused - 1} requests over the rate limit"
                f" ({limit})",
            )
            return False
        refusal = protocol.Error(
            code=ErrorCode.RATE_LIMITED,
            message=f"over {limit}: this {message.TYPE} was dropped",
            ref=message.TYPE,
        )
        if self._held.busy:  # answered in its turn, behind the requests held before it
            self._held.hold_refusal(refusal)
        else:
            self.send(refusal)
        return True

    async def _answer(self, message: protocol.Message, arrived: float) -> None:
        try:
            await self.lobby.handle(self, message, arrived)
        except Exception:  # a bug answering one request must not stop the server
            log.exception("%s from %r failed", message.TYPE, self.name)
            self.send_error(
                ErrorCode.INTERNAL_ERROR,
                f"the server failed while answering this {message.TYPE} (logged there)",
                ref=message.TYPE,
            )

    def _answer_peer_error(self, error: protocol.PeerError) -> bool:
        """Answer a bad frame; False when the connection must close."""
        self.send(protocol.Error.from_peer_error(error))
        if error.fatal:
            self.why_closed = f"{error.code.value}: {error}"
            return False
        self.peer_errors += 1
        if self.peer_errors >= MAX_PEER_ERRORS:
            self.send_error(
                ErrorCode.TOO_MANY_ERRORS, f"closing after {self.peer_errors} malformed frames"
            )
            self.why_closed = f"{ErrorCode.TOO_MANY_ERRORS.value}: {self.peer_errors} bad frames"
            return False
        return True


def _call_each(callbacks: list[OnWritten], written_at: float) -> None:
    for callback in callbacks:
        callback(written_at)
