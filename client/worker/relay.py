"""The relay between a hosted agent and the server: the one channel its CPU figures travel on.

Why a relay, and why the figure rides on the move. A hosted seat's clock counts the CPU seconds
of its agent's process tree, which only the worker can measure; the server must get that figure
in a way the agent cannot forge. The agent never talks to the server: it connects to the worker
(`ARBITER_SERVER` names the relay's address), with a local one-time token. The relay signs in to
the server with the seat's ticket, which the agent never sees, and passes frames both ways. As
a `your_turn` goes to the agent it notes the tree's CPU seconds; as the agent's `move` passes it
writes `cpu`, the seconds since, over whatever the agent put there. So the only connection
that may carry a `cpu` figure for the seat is the worker's own, and the server refuses the
field from every other (`server.play.lobby`). Writing the figure on the move itself, rather
than on the worker's own connection beside it, keeps the move and its cost in one frame: the
server never waits for, or matches up, a second message.

An agent that speaks protocol version 1 has no `cpu` field to carry: its moves reach the server
without one, and a seat on the CPU clock is then charged each move's wall time.

`Stamper` is the rewriting, with no I/O; `relay` runs it between two streams.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from arbiter import protocol
from arbiter.client.connection import MAX_FRAME, RECEIVE_SIZE


class AgentRefused(Exception):
    """The agent's connection is not the one this seat was started with."""


class Stamper:
    """The rewriting of one agent connection's frames: its hello's token, its moves' cost."""

    def __init__(
        self,
        local_token: str,
        ticket: str,
        cpu_seconds: Callable[[], float],
        paired: trio.Event | None = None,
    ) -> None:
        self._local_token = local_token
        self._paired = paired if paired is not None else trio.Event()
        """Set when a match begins for the agent."""
        self._ticket = ticket
        self._cpu_seconds = cpu_seconds
        self._version = protocol.VERSIONS[0]
        self._turn_began = 0.0
        """The tree's CPU seconds when the latest `your_turn` went to the agent."""

    def to_server(self, frame: dict[Any, Any]) -> dict[Any, Any]:
        """The agent's frame as the server gets it; `AgentRefused` for a hello without the
        local token."""
        kind = frame.get("type")
        if kind == "move":
            frame.pop("cpu", None)
            if self._version >= 2:
                spent = max(0.0, self._cpu_seconds() - self._turn_began)
                frame["cpu"] = spent
                self._turn_began += spent  # a refused move's retry costs only its own time
        elif kind == "hello":
            if frame.get("token") != self._local_token:
                raise AgentRefused("the agent's hello did not carry the token it was given")
            frame["token"] = self._ticket
            version = frame.get("version")
            if type(version) is int and version in protocol.VERSIONS:
                self._version = version
        return frame

    def from_server(self, frame: dict[Any, Any]) -> None:
        """A frame on its way to the agent: a `your_turn` starts the move's CPU count."""
        kind = frame.get("type")
        if kind == "your_turn":
            self._turn_began = self._cpu_seconds()
        elif kind == "match_started":
            self._paired.set()


async def relay(agent: trio.abc.Stream, server: trio.abc.Stream, stamper: Stamper) -> None:
    """Pass frames both ways until either side closes (or the agent's hello is refused), then
    close both."""
    async with agent, server, trio.open_nursery() as nursery:
        nursery.start_soon(_agent_to_server, agent, server, stamper, nursery.cancel_scope)
        nursery.start_soon(_server_to_agent, server, agent, stamper, nursery.cancel_scope)


async def _agent_to_server(
    agent: trio.abc.Stream, server: trio.abc.Stream, stamper: Stamper, done: trio.CancelScope
) -> None:
    frames = protocol.FrameDecoder()  # the server's own limit on what a client sends
    try:
        while True:
            frame = frames.next_frame()
            if frame is protocol.NEED_DATA:
                frames.feed(await agent.receive_some(RECEIVE_SIZE))
            elif frame is protocol.CLOSED:
                break
            else:
                await server.send_all(protocol.encode_frame(stamper.to_server(frame)))
    except (protocol.PeerError, AgentRefused, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    done.cancel()


async def _server_to_agent(
    server: trio.abc.Stream, agent: trio.abc.Stream, stamper: Stamper, done: trio.CancelScope
) -> None:
    frames = protocol.FrameDecoder(MAX_FRAME)
    try:
        while True:
            frame = frames.next_frame()
            if frame is protocol.NEED_DATA:
                frames.feed(await server.receive_some(RECEIVE_SIZE))
            elif frame is protocol.CLOSED:
                break
            else:
                stamper.from_server(frame)
                await agent.send_all(protocol.encode_frame(frame))
    except (protocol.PeerError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    done.cancel()
