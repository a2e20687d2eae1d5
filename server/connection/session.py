"""One connected client: a reader that turns bytes into requests, and one writer task.

The sans-I/O `protocol.Connection` does all parsing and checking; this module only moves bytes
and routes requests to the lobby and matches. Every frame to the client goes through one outbox
and one writer task, so frames never interleave and a slow reader stalls only itself. The outbox
is bounded in bytes, per client and for all clients together (`server.connection.limits`): a client
that stops reading while frames keep coming is cut off, with an `output_limit` error saying why,
rather than allowed to grow the server's memory.

Each frame is stamped with the time its last bytes were read, and the reader does not wait for
a slow request: one whose answer waits (a `watch` or a `seek` that goes to the database) is
answered by a task of its own while the reader goes on reading and stamping what comes behind it,
which is answered after it, in order. So a move that arrives behind a slow request is not charged
for the server's work on it, whether it came in the same segment or later. Requests answered at
once (a move, a ping) take no detour. The reader answers `hello` itself, slow as a token check is
(~100 ms): until the handshake is answered the wire cannot parse what follows, and frames that
came with the `hello` keep the stamp of their read.

The reader also holds the connection to the limits of an open network
(`server.connection.admission`): a `hello` within its deadline, a frame in progress arriving at a
minimum rate (both are the reader's cancel scope's deadline, set only while it waits for such bytes,
so a move that arrives whole sets none), and a token bucket refilled at each read and spent by each
frame (a subtraction and a comparison: well under a microsecond). The ping task drops a client that
answers no ping.

A session knows its lobby only as a `Router` (it hands it requests and says when it closed), so
this module does not depend on the lobby.
"""

from __future__ import annotations

import logging
import math
import os
import secrets
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Protocol, runtime_checkable

import trio

from arbiter import protocol
from arbiter.protocol import ErrorCode
from arbiter.server.connection.admission import DEFAULT, AddressShare, Admission
from arbiter.server.connection.limits import Limits
from arbiter.server.connection.peer import OnWritten

log = logging.getLogger(__name__)

RECEIVE_SIZE = 64 * 1024
WRITE_BATCH = 64 * 1024
"""Bytes of waiting frames the writer joins into one write (a whole turn is far less)."""
MAX_PEER_ERRORS = 20
"""Recoverable protocol errors (bad frames: any `error` the protocol layer raises, such as
`bad_msgpack`, `unknown_type` or `out_of_order`) tolerated from one client over its whole
connection before it is disconnected; the server's own refusals (`illegal_move`...) do not
count."""
FLUSH_SECONDS = 2.0
"""How long a closing connection may take to write its last frames (an error, a game over)."""
MAX_HELD = 256
"""Requests read and held behind a slow one before the reader stops reading (and TCP pushes back
on the client): what one connection can make the server hold is bounded."""
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
REQUEST_COSTS: dict[type[protocol.Message], float] = {
    protocol.Lobby: 50.0,
    protocol.TournamentCreate: 50.0,
    protocol.TournamentStatus: 20.0,
    protocol.Watch: 10.0,
    protocol.Seek: 20.0,
    protocol.ListGames: 10.0,
}
"""What a request spends of the token buckets, where it is not 1: roughly its cost to the
server in pings. A listing or a tournament's standings is built for the asker (up to a whole
64 KiB frame), a `watch` may show a whole game, a `seek` is matched against the open ones and
changes the listing (a bot seeks once a game: a few a second is plenty); `list_games` is encoded
once but its answer is some 3 KiB to write (a client asks once); a move or a ping costs little.
So the rate limits bound the server's work, not just the number of frames: a flood of the
dearest requests is refused as soon as a flood of pings would cost as much."""
REFUSED = -math.inf
"""The arrival held with the refusal of a request over a rate limit: the refusal keeps its
place."""
YIELD_EVERY = 64
"""Frames the reader answers from one read before it lets other tasks run: a client that sends
thousands of small frames at once (all within its rate) cannot hold the loop for all of them."""
RTT_SAMPLES = 8
"""Round trips kept; the estimate is their minimum, so one pong delayed by a busy client does
not count as network lag, and a client that delays pongs on purpose must delay all of them."""


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


class OutputBudget:
    """The bytes queued for every client of one server, against `Limits.output_budget`.

    Each session reports what it queues and what its writer wrote. Past the budget, the client
    with the largest backlog is cut off (its queued frames dropped), then the next largest,
    until the total is back under it: what is cut is what a client did not read, so the clients
    that read keep their frames.
    """

    __slots__ = ("_backlogged", "limit", "total")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._backlogged: set[Session] = set()

    def grew(self, session: Session, size: int) -> None:
        self.total += size
        self._backlogged.add(session)
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

    def shrank(self, session: Session, size: int) -> None:
        self.total -= size
        if session.backlog == 0:
            self._backlogged.discard(session)

    def left(self, session: Session, backlog: int) -> None:
        """`session` was cut off: its backlog no longer counts, as it goes within seconds."""
        self.total -= backlog
        self._backlogged.discard(session)


@dataclass(eq=False)
class Session:
    """What the server knows of one connection.

    The stream is a TCP socket in service; any other trio stream (the tests' memory streams)
    goes through trio's own `send_all` and `receive_some` rather than the socket's descriptor.
    """

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
    round_trips: deque[float] = field(default_factory=lambda: deque(maxlen=RTT_SAMPLES))
    rtt: float = 0.0
    """Estimated network round trip in seconds: the least of `round_trips` (0 before any)."""
    _pings: dict[int, float] = field(default_factory=dict)
    _next_nonce: int = 1
    backlog: int = 0
    """Bytes handed to the writer task and not yet written (queued or being written)."""

    def __post_init__(self) -> None:
        if self.output is None:
            self.output = OutputBudget(self.limits.output_budget)
        self._budget = self.output
        self._charged = True
        """Whether `backlog` counts against the budget: not once cut off (it is leaving)."""
        self._outbox: deque[tuple[bytes, OnWritten | None]] = deque()
        """Frames for the writer task, with what to call once each is written."""
        self._outbox_closed = False
        self._wake_writer = trio.Event()
        self._writing = False
        """The writer task is in a write: part of a frame may be on the wire."""
        self._rest_first = False
        """The first frame queued is the rest of one the socket took in part."""
        self._scope: trio.CancelScope | None = None
        """The connection's tasks, to end once a cut-off client has had its last chance."""
        self._fd = (
            self.stream.socket.fileno() if isinstance(self.stream, trio.SocketStream) else None
        )
        if isinstance(self.stream, Translating):
            self.stream.reweigh = self.reweigh
        self._read_at = 0.0
        """When the bytes being parsed were read: the arrival of every frame they complete."""
        self._held: deque[tuple[protocol.Message, float]] | None = None
        """Requests read, with their arrival, while a slow one is answered (None: none is)."""
        self._answered = trio.Event()
        """Set when the held requests are all answered."""
        self._room = trio.Event()
        """Set when the reader, stopped at `MAX_HELD`, may read on."""
        self._started = trio.current_time()
        self._reading = trio.CancelScope()
        """Around the reader: its deadline is set while a `hello` or a frame is awaited."""
        self._receiving = False
        """True while the reader waits for bytes (where `drop` may cancel it)."""
        self._allowance = self.admission.request_burst
        """The token bucket: requests this connection may still send at once."""
        self._share = self.share or AddressShare(self.admission, self._started)
        self._refused = 0
        """Requests refused `rate_limited` since the bucket was last full."""
        self._heard_at = 0.0
        """When the client last answered a ping (or was welcomed)."""
        self.flooded = False
        """Closed for sending over the rate limit: its address is barred for a while."""

    def send(
        self, message: protocol.Message | protocol.Encoded, on_written: OnWritten | None = None
    ) -> None:
        """Send one frame without blocking; a client too far behind is cut off.

        With nothing queued, the frame goes straight to the socket (as asyncio's transports
        write): the kernel takes it whole unless the client has stopped reading. Only what the
        socket refuses goes to the writer task, behind which every later frame then queues, so
        frames keep their order. This saves two task switches on every move.
        """
        if self.closed or self.wire.phase is protocol.Phase.CLOSED:
            return
        self._send_data(self.wire.send(message), on_written)

    def send_many(
        self, frames: Sequence[tuple[protocol.Message | protocol.Encoded, OnWritten | None]]
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
        if len(callbacks) > 1:
            self._send_data(b"".join(data), partial(_call_each, callbacks))
        else:
            self._send_data(b"".join(data), callbacks[0] if callbacks else None)

    def _send_data(self, data: bytes, on_written: OnWritten | None) -> None:
        if self.backlog == 0:
            rest = self._write_now(data)
            if rest is None:  # the peer is gone; the reader sees it too and the seat defaults
                self._close_outbox()
                return
            if not rest:
                if on_written is not None:
                    on_written(trio.current_time())
                return
            self._rest_first = len(rest) < len(data)
            data = rest
        if self.backlog + len(data) > self.limits.output_bytes:
            self.cut_off(self._over_limit(self.backlog + len(data)))
            return
        self._queue(data, on_written)
        self._budget.grew(self, len(data))

    def reweigh(self, change: int) -> bool:
        """The bytes in the writer's hands weigh `change` more than the frames it took (or less,
        once written): a `Translating` stream's. Counted as queued bytes are; False when that
        cut the client off (then the stream drops them, as queued frames are dropped)."""
        self.backlog += change
        if change <= 0 or not self._charged:
            if self._charged:
                self._budget.shrank(self, -change)
            return True
        self._budget.grew(self, change)
        if not self._charged:  # the server's budget cut this client off
            return False
        if self.backlog > self.limits.output_bytes:
            self.cut_off(self._over_limit(self.backlog))
            return False
        return True

    def _over_limit(self, backlog: int) -> str:
        return (
            f"{backlog} bytes would be waiting for you to read them, over this server's limit"
            f" of {self.limits.output_bytes} per connection"
        )

    def _queue(self, data: bytes, on_written: OnWritten | None) -> None:
        self._outbox.append((data, on_written))
        self.backlog += len(data)
        self._wake_writer.set()

    def _write_now(self, data: bytes) -> bytes | None:
        """Write what the socket takes at once; return the rest (empty when all went), or None
        when the socket failed."""
        if self._fd is None:
            return data  # not a socket: the writer task sends it
        try:
            written = os.write(self._fd, data)
        except BlockingIOError:
            return data
        except OSError:
            return None
        return data[written:]

    def send_error(
        self, code: ErrorCode, message: str, ref: str | None = None, match: int | None = None
    ) -> None:
        self.send(protocol.Error(code=code, message=message, ref=ref, match=match))

    def pong_received(self, nonce: int, arrived: float) -> None:
        self._heard_at = arrived
        sent = self._pings.pop(nonce, None)
        if sent is not None:
            self.round_trips.append(arrived - sent)
            self.rtt = min(self.round_trips)

    async def _ping_loop(self) -> None:
        """Ping every `ping_seconds`; drop a client silent for `pong_seconds` (`ping_timeout`)."""
        await self.welcomed.wait()
        every, patience = self.admission.ping_seconds, self.admission.pong_seconds
        next_ping = self._heard_at = trio.current_time()
        while not self.closed:
            now = trio.current_time()
            if now >= self._heard_at + patience:
                self.drop(
                    ErrorCode.PING_TIMEOUT,
                    f"no pong for {now - self._heard_at:.1f} s (answer every ping within"
                    f" {patience:g} s): closing",
                )
                if self.backlog and self._scope is not None:
                    self._scope.cancel()  # it reads nothing: no last frame would reach it
                return
            if now >= next_ping:
                nonce, self._next_nonce = self._next_nonce, self._next_nonce + 1
                self._pings = {n: t for n, t in self._pings.items() if n > nonce - RTT_SAMPLES}
                self.send(protocol.Ping(nonce=nonce), partial(self._pings.__setitem__, nonce))
                next_ping = now + every
            await trio.sleep_until(min(next_ping, self._heard_at + patience))

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
        dropped, and an `output_limit` error saying `why` takes their place, written at once if
        the socket takes it, else left to the writer, which has `FLUSH_SECONDS` to write it
        before the connection closes."""
        if self.closed:
            return
        kept = [self._outbox[0]] if self._outbox and self._rest_first else []
        dropped = sum(len(data) for data, _ in self._outbox) - sum(len(data) for data, _ in kept)
        self._outbox.clear()
        self._outbox.extend(kept)
        self._budget.left(self, self.backlog)  # what is not dropped goes within seconds
        self._charged = False
        self.backlog -= dropped
        if self.wire.phase is not protocol.Phase.CLOSED:
            error = protocol.Error(code=ErrorCode.OUTPUT_LIMIT, message=f"closing: {why}")
            frame = self.wire.send(error)
            if not self._writing and not self._outbox:  # the wire is at a frame boundary
                frame = self._write_now(frame) or b""
            if frame:
                self._queue(frame, None)
        self.why_closed = f"{ErrorCode.OUTPUT_LIMIT.value}: {why}"
        self.closed = True
        self._close_outbox()
        if self._scope is not None:
            deadline = trio.current_time() + FLUSH_SECONDS
            self._scope.deadline = min(self._scope.deadline, deadline)

    def _close_outbox(self) -> None:
        self.closed = True
        self._outbox_closed = True
        self._wake_writer.set()

    async def run(self) -> None:
        """Serve the connection until it closes; then the lobby forgets it."""
        try:
            async with trio.open_nursery() as nursery:
                self._scope = nursery.cancel_scope
                nursery.start_soon(self._write_loop, nursery.cancel_scope)
                nursery.start_soon(self._ping_loop)
                try:
                    with self._reading:
                        await self._read_loop(nursery)
                    if self._reading.cancelled_caught and not self.closed:
                        self._timed_out()
                    if self._held is not None:  # what was read before the end gets its answer
                        await self._answered.wait()
                finally:
                    self._outbox_closed = True
                    self._wake_writer.set()
                    deadline = trio.current_time() + FLUSH_SECONDS
                    nursery.cancel_scope.deadline = min(nursery.cancel_scope.deadline, deadline)
        finally:
            self.closed = True
            self._outbox.clear()
            backlog, self.backlog = self.backlog, 0
            self._release(backlog)
            self.lobby.forget(self)
            await trio.aclose_forcefully(self.stream)

    async def _write_loop(self, cancel_scope: trio.CancelScope) -> None:
        """Write what is queued, every frame waiting at once (one system call for a whole
        turn), until the outbox is closed and empty."""
        try:
            while self._outbox or not self._outbox_closed:
                if not self._outbox:
                    self._wake_writer = trio.Event()
                    await self._wake_writer.wait()
                    continue
                batch = self._next_batch()
                data = b"".join(data for data, _ in batch)
                self._writing = True
                await self.stream.send_all(data)
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
        batch = [self._outbox.popleft()]
        self._rest_first = False
        size = len(batch[0][0])
        while self._outbox and size < WRITE_BATCH:
            batch.append(self._outbox.popleft())
            size += len(batch[-1][0])
        return batch

    def _release(self, size: int) -> None:
        if self._charged:
            self._budget.shrank(self, size)

    async def _read_loop(self, nursery: trio.Nursery) -> None:
        frame_began: float | None = None  # when the frame in progress began to arrive
        share = self._share
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
                self._receiving = True
                data = await self._receive(self._deadline(frame_began))
                self._receiving = False
                if data is None:
                    return
                answered = 0
                self._refill(trio.current_time())
                self.wire.receive_data(data)
                continue
            frame_began = None
            if message is protocol.CLOSED:
                return
            answered += 1
            if answered % YIELD_EVERY == 0:
                await trio.lowlevel.checkpoint()
            cost = REQUEST_COSTS.get(type(message), 1.0)
            self._allowance -= cost
            share.allowance -= cost
            if self._allowance < 0.0 or share.allowance < 0.0:
                if not self._refuse(message):
                    return
            elif self._held is not None:
                self._held.append((message, self._read_at))
                if len(self._held) >= MAX_HELD:
                    self._room = trio.Event()
                    await self._room.wait()
            elif type(message) in ANSWERED_BY_READER:
                await self._answer(message, self._read_at)
            else:
                self._held, self._answered = deque(), trio.Event()
                nursery.start_soon(self._answer_in_order, message, self._read_at)

    def _refill(self, now: float) -> None:
        """Stamp a read at `now`, and refill the token buckets for the time since the last."""
        self._share.refill(now)
        allowance = self._allowance + (now - self._read_at) * self.admission.requests_per_second
        burst = self.admission.request_burst
        if allowance >= burst:
            allowance = burst
            if self._share.allowance >= 0.0:
                self._refused = 0
        self._allowance = allowance
        self._read_at = now

    def _refuse(self, message: protocol.Message) -> bool:
        """Refuse a request over a rate; False when the connection must close."""
        self._refused += 1
        limit = self._over_which()
        if self._refused > self.admission.max_refused:
            self.flooded = True
            self.drop(
                ErrorCode.RATE_LIMITED,
                f"closing after {self._refused - 1} requests over the rate limit ({limit})",
            )
            return False
        refusal = protocol.Error(
            code=ErrorCode.RATE_LIMITED,
            message=f"over {limit}: this {message.TYPE} was dropped",
            ref=message.TYPE,
        )
        if self._held is not None:  # answered in its turn, behind the requests held before it
            self._held.append((refusal, REFUSED))
        else:
            self.send(refusal)
        return True

    def _over_which(self) -> str:
        """The rate limit a refused request broke, in words."""
        if self._allowance < 0.0:
            return f"{self.admission.requests_per_second:g} requests/s per connection"
        return (
            f"{self.admission.address_requests_per_second:g} requests/s from {self.address}"
            " across all its connections"
        )

    def _deadline(self, frame_began: float | None) -> float:
        """When the reader stops waiting: the frame in progress's deadline, or the hello's."""
        deadline = math.inf
        if frame_began is not None:
            allowed = self.admission.frame_seconds
            deadline = (
                frame_began + allowed + self.wire.buffered / self.admission.min_bytes_per_second
            )
        if self.wire.phase is protocol.Phase.START:
            return min(deadline, self._hello_deadline())
        return deadline

    def _hello_deadline(self) -> float:
        return self._started + self.admission.hello_seconds

    def _timed_out(self) -> None:
        """The reader's deadline passed: no `hello` in time, or a frame too slow."""
        if (
            self.wire.phase is protocol.Phase.START
            and trio.current_time() >= self._hello_deadline()
        ):
            self.drop(
                ErrorCode.HELLO_TIMEOUT,
                f"no hello within {self.admission.hello_seconds:g} s of connecting",
            )
        else:
            self.drop(
                ErrorCode.TOO_SLOW,
                f"a frame in progress came slower than"
                f" {self.admission.min_bytes_per_second:g} bytes/s",
            )

    async def _answer_in_order(self, slow: protocol.Message, arrived: float) -> None:
        """Answer a slow request, then every request held behind it, each with its arrival."""
        held = self._held
        assert held is not None
        await self._answer(slow, arrived)
        while held:
            message, arrived = held.popleft()
            if arrived == REFUSED:
                self.send(message)
            else:
                await self._answer(message, arrived)
            self._room.set()
        self._held = None
        self._answered.set()

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

    async def _receive(self, deadline: float) -> bytes | None:
        """The next bytes from the client (b"" at its end), or None if the socket failed; the
        reader is cancelled at `deadline` (`run` then says why).

        It waits for the socket to be readable before reading, where trio's `receive_some`
        reads first: a client's next frame comes only after it has heard from us, so reading at
        once finds nothing nearly every time and costs a system call per move.
        """
        if deadline == math.inf:
            return await self._receive_now()
        self._reading.deadline = deadline
        try:
            return await self._receive_now()
        finally:
            self._reading.deadline = math.inf

    async def _receive_now(self) -> bytes | None:
        if self._fd is None:
            try:
                return bytes(await self.stream.receive_some(RECEIVE_SIZE))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return None
        while True:
            try:
                await trio.lowlevel.wait_readable(self._fd)
                return os.read(self._fd, RECEIVE_SIZE)
            except BlockingIOError:
                continue
            except (OSError, trio.ClosedResourceError):
                return None

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
