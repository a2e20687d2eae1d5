"""The outside end of a sandbox's one channel: its stdio joined to a real connection to the
server.

Inside, the relay (`relay.py`) carries the agent's one TCP connection over the sandbox's stdin
and stdout; here those two streams are joined to a TCP (or TLS) connection to the server. Bytes
pass unchanged, in the order they came, each chunk written on as soon as it is read, and each
direction's end is passed on as it comes.

The connection to the server is dialled when the agent first speaks, not when the sandbox
starts: a server closes a connection that says no hello within seconds, and an interpreter on a
loaded machine (or a big agent's imports) can take that long to start. An agent that ends
without a word is never connected at all.

Where frames pass, `on_frame` is given each complete frame's body and its direction, cut by
the protocol's own frame decoder, and returns the body to pass on in its place, or None to pass
nothing: the seam where a worker accounts for each move (a frame from the server asks for a move,
the agent's next frame answers it, and carries its cost on). A hook that only watches returns the
body it was given. Without a hook nothing is decoded and chunks pass as they come.

The worker may also speak for itself on the same connection (`from_worker`: frame bodies it
sends toward the server, such as a seat's move out of CPU time). Its frames go between the
agent's whole frames, never inside one, which only a link that cuts frames can promise: so they
need a hook. Every send toward the server takes one lock, since a trio stream refuses a second
send while one is under way (`BusyResourceError`).
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Awaitable, Callable

import trio

from arbiter.protocol import HEADER, FrameDecoder, PeerError

CHUNK = 65536
HOOK_MAX_FRAME = 16 * 1024 * 1024
"""Largest frame the hook's decoder follows: above the server's own limits for any frame it
sends, so a long game's `game_over` is still seen; past it, frames are forwarded but no longer
reported."""


class Direction(enum.Enum):
    """Which way a frame went."""

    TO_SERVER = "to_server"
    TO_AGENT = "to_agent"


FrameHook = Callable[[Direction, bytes], bytes | None]
"""Given a frame's body and its direction, the body to pass on instead (None: nothing)."""
Dial = Callable[[], Awaitable[trio.abc.Stream]]
"""Opens the connection to the server (`OSError` if it cannot)."""


async def link(
    agent_out: trio.abc.ReceiveStream,
    agent_in: trio.abc.SendStream,
    dial: Dial,
    on_frame: FrameHook | None = None,
    from_worker: trio.abc.ReceiveChannel[bytes] | None = None,
) -> None:
    """Join the sandbox's stdout (`agent_out`) and stdin (`agent_in`) to the server `dial`
    connects to once the agent first speaks, with the bodies `from_worker` gives sent toward
    the server too, until both directions have ended and `from_worker` is closed; closes the
    server's stream. Where `dial` fails, the agent's side is ended and its `OSError` raised."""
    if from_worker is not None and on_frame is None:
        raise ValueError("the worker's frames go between the agent's: that needs a frame hook")
    to_agent = _Outlet(agent_in)
    first = await _first_words(agent_out)
    if not first:  # it ended without a word: nothing to connect
        await to_agent.end()
        if from_worker is not None:
            await from_worker.aclose()
        return
    try:
        server = await dial()
    except OSError:
        await to_agent.end()
        raise
    upstream = _Outlet(server)
    async with server, trio.open_nursery() as nursery:
        if from_worker is not None:
            nursery.start_soon(_send_frames, from_worker, upstream)
        nursery.start_soon(_pump, agent_out, upstream, Direction.TO_SERVER, on_frame, first)
        nursery.start_soon(_pump, server, to_agent, Direction.TO_AGENT, on_frame)


async def _first_words(agent_out: trio.abc.ReceiveStream) -> bytes:
    """The agent's first bytes; empty if it ended without any."""
    try:
        return bytes(await agent_out.receive_some(CHUNK))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return b""


class _Outlet:
    """A stream's sending side, shared by the tasks that send on it: one send at a time."""

    def __init__(self, sink: trio.abc.SendStream) -> None:
        self._sink = sink
        self._lock = trio.StrictFIFOLock()

    async def send_all(self, data: bytes | bytearray) -> None:
        async with self._lock:
            await self._sink.send_all(data)

    async def end(self) -> None:
        """Pass the end on: half-close the stream where it can, else close it (closing is safe
        beside a send, and must happen even when cancelled: it takes no lock)."""
        if not isinstance(self._sink, trio.abc.HalfCloseableStream):
            await self._sink.aclose()
            return
        async with self._lock:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await self._sink.send_eof()


async def _pump(
    source: trio.abc.ReceiveStream,
    sink: _Outlet,
    direction: Direction,
    on_frame: FrameHook | None,
    first: bytes = b"",
) -> None:
    """Copy `first`, then `source`, to `sink`, then pass the end on."""
    frames = _Frames(direction, on_frame) if on_frame is not None else None
    try:
        data = first or await source.receive_some(CHUNK)
        while data:
            await sink.send_all(data if frames is None else frames.feed(data))
            data = await source.receive_some(CHUNK)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        await sink.end()


async def _send_frames(bodies: trio.abc.ReceiveChannel[bytes], sink: _Outlet) -> None:
    """Frame and send each body the worker gives, until it closes its channel."""
    async with bodies:
        async for body in bodies:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await sink.send_all(HEADER.pack(len(body)) + body)


class _Frames:
    """Cuts one direction's bytes into frames for the hook and frames what it returns, until
    the bytes stop making sense: from then on they pass unchanged (the server judges bad
    frames; the hook has nothing to follow)."""

    def __init__(self, direction: Direction, on_frame: FrameHook) -> None:
        self._decoder: FrameDecoder | None = FrameDecoder(max_frame=HOOK_MAX_FRAME)
        self._direction = direction
        self._on_frame = on_frame
        self._unsent = bytearray()
        """The bytes fed and not yet cut into a frame: sent as they are if the frames break."""

    def feed(self, data: bytes | bytearray) -> bytes:
        """What to send on for `data`: the hook's bodies of the frames it completes."""
        if self._decoder is None:
            return bytes(data)
        self._decoder.feed(data)
        self._unsent += data
        out = bytearray()
        try:
            while isinstance(body := self._decoder.next_body(), bytearray):
                del self._unsent[: HEADER.size + len(body)]
                passed = self._on_frame(self._direction, bytes(body))
                if passed is not None:
                    out += HEADER.pack(len(passed)) + passed
        except PeerError:
            self._decoder = None
            out += self._unsent
        return bytes(out)
