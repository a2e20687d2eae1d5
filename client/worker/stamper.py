"""The rewriting a hosted agent's frames get on their way to the server: the one place its CPU
figures are written.

Why the figure rides on the move. A hosted seat's clock counts the CPU seconds of its agent's
process tree, which only the worker can measure; the server must get that figure in a way the
agent cannot forge. The agent never talks to the server: inside its sandbox it reaches only the
sandbox's relay, whose channel the worker joins to a connection of its own (`sandbox.link`).
The agent's hello goes out with the seat's ticket, which the agent never sees, in place of
whatever token it sent. As a `your_turn` goes to the agent the stamper notes the tree's CPU
seconds; as the agent's `move` passes it writes `cpu`, the seconds since, over whatever the
agent put there. So the only connection that may carry a `cpu` figure for the seat is the
worker's own, and the server refuses the field from every other (`server.play.lobby`). Writing
the figure on the move itself keeps the move and its cost in one frame: the server never waits
for, or matches up, a second message.

An agent that speaks protocol version 1 has no `cpu` field to carry: its moves reach the server
without one, and a seat on the CPU clock is then charged each move's wall time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from arbiter import protocol
from arbiter.client.sandbox.link import Direction
from arbiter.protocol import HEADER


class Stamper:
    """The rewriting of one agent connection's frames (`on_frame`, the link's frame seam)."""

    def __init__(
        self, ticket: str, cpu_seconds: Callable[[], float], paired: trio.Event | None = None
    ) -> None:
        self._ticket = ticket
        self._cpu_seconds = cpu_seconds
        self._paired = paired if paired is not None else trio.Event()
        """Set when a match begins for the agent."""
        self._version = protocol.VERSIONS[0]
        self._turn_began = 0.0
        """The tree's CPU seconds when the latest `your_turn` went to the agent."""

    def on_frame(self, direction: Direction, body: bytes) -> bytes:
        """The body to pass on for a frame going `direction`."""
        try:
            frame = protocol.decode_body(body)
        except protocol.PeerError:
            return body  # the server judges it
        if not isinstance(frame, dict):
            return body
        if direction is Direction.TO_AGENT:
            self.from_server(frame)
            return body
        return protocol.encode_frame(self.to_server(frame))[HEADER.size :]

    def to_server(self, frame: dict[Any, Any]) -> dict[Any, Any]:
        """The agent's frame as the server gets it."""
        kind = frame.get("type")
        if kind == "move":
            frame.pop("cpu", None)
            if self._version >= 2:
                spent = max(0.0, self._cpu_seconds() - self._turn_began)
                frame["cpu"] = spent
                self._turn_began += spent  # a refused move's retry costs only its own time
        elif kind == "hello":
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
