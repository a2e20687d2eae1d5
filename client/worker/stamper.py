"""The rewriting a hosted agent's frames get on their way to the server, and the worker's own
word when a move runs out of CPU time: the one place its CPU figures are written.

Why the figure rides on the move. A hosted seat's clock counts the CPU seconds of its agent's
process tree, which only the worker can measure; the server must get that figure in a way the
agent cannot forge. The agent never talks to the server: inside its sandbox it reaches only the
sandbox's relay, whose channel the worker joins to a connection of its own (`sandbox.link`).
The agent's hello goes out with the seat's ticket, which the agent never sees, in place of
whatever token it sent. As the agent's `move` passes the stamper writes `cpu` over whatever
the agent put there: the tree's CPU seconds since its previous move in the match (since the
match began, for its first). The count runs between its turns too, so an agent that thinks
on its opponent's time pays for it from its own next move, and a worker's cores are shared
only by the moves under way. So the only connection that may carry a `cpu` figure for the
seat is the worker's own, and the server refuses the field from every other
(`server.play.lobby`). Writing the figure on the move itself keeps the move and its cost in
one frame: the server never waits for, or matches up, a second message.

Why the worker also speaks first. An agent that burns CPU past its allowance would be caught
only when it finally moved; on a loaded machine it burns slowly, and the wall-clock watchdog
would end its move first and blame sleeping. So while a move is under way the worker looks at
the tree's CPU (`overspent`, every `poll_interval`), and the moment the move has used more than
its allowance (`your_turn.time_left`, a CPU seat's allowance) it sends `out_of_cpu` with the
figure, which the server turns into the same time loss a late move gets. Any move the agent
sends for that turn afterwards is dropped: the worker has spoken for it. A move the server
refuses (an illegal move, where the seat may try again) reopens the watch for the retry, which
is charged only its own CPU, as the server charges it.

An agent that speaks protocol version 1 has no `cpu` field to carry and its connection no
`out_of_cpu`: its moves reach the server without a figure, and a seat on the CPU clock is then
charged each move's wall time, under the watchdog.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from arbiter import protocol
from arbiter.client.sandbox.link import Direction
from arbiter.protocol import HEADER

POLL_SHARE = 1 / 20
"""How often a move's CPU is looked at, as a share of its allowance: the figure the worker
reports passes the allowance by about this much at most on a core of its own."""
POLL_BOUNDS = (0.01, 0.1)
"""The shortest and longest wait between looks: each look reads the tree's /proc entries, and
a long allowance is still checked a few times a second."""
READS_FIELDS = frozenset({"your_turn", "move_refused"})
"""The server's frames whose fields the stamper reads; of the others it needs the type alone,
so they pass undecoded (`protocol.body_type`)."""
RETRY_CODES = frozenset({protocol.ErrorCode.ILLEGAL_MOVE, protocol.ErrorCode.INVALID_MOVE})
"""A `move_refused` with these codes leaves the seat's move under way (when its illegal-move
rule lets it retry)."""


class Stamper:
    """The rewriting of one agent connection's frames (`on_frame`, the link's frame seam), and
    the watch over the CPU of its move under way (`overspent`)."""

    def __init__(
        self, ticket: str, cpu_seconds: Callable[[], float], paired: trio.Event | None = None
    ) -> None:
        self._ticket = ticket
        self._cpu_seconds = cpu_seconds
        self._paired = paired if paired is not None else trio.Event()
        """Set when a match begins for the agent."""
        self._version = protocol.VERSIONS[0]
        self._turn_began = 0.0
        """The tree's CPU seconds when its latest move in the match passed (or the match
        began): what its next move is charged from."""
        self._match = 0
        """The match of the latest `your_turn`."""
        self._allowance: float | None = None
        """The CPU seconds the move under way may use; None while no move is under way."""
        self._answered: float | None = None
        """The allowance of the move the agent answered last, until the server rules on it."""
        self._spoken = False
        """The worker said the move under way is out of CPU time: the agent's move is late."""
        self._asked = trio.Event()
        """Set while a move is under way (`move_asked`)."""

    def on_frame(self, direction: Direction, body: bytes) -> bytes | None:
        """The body to pass on for a frame going `direction`; None to pass nothing. The
        agent's frames are decoded whole: how an untrusted peer ordered its map's keys decides
        nothing."""
        if direction is Direction.TO_AGENT:
            kind = protocol.body_type(body)
            if kind is not None and kind not in READS_FIELDS:
                self.from_server({"type": kind})
                return body
        try:
            frame = protocol.decode_body(body)
        except protocol.PeerError:
            return body  # the server judges it
        if not isinstance(frame, dict):
            return body
        if direction is Direction.TO_AGENT:
            self.from_server(frame)
            return body
        passed = self.to_server(frame)
        return None if passed is None else protocol.encode_frame(passed)[HEADER.size :]

    def to_server(self, frame: dict[Any, Any]) -> dict[Any, Any] | None:
        """The agent's frame as the server gets it; None for a move the worker has spoken
        for."""
        kind = frame.get("type")
        if kind == "move":
            if self._spoken:
                return None
            frame.pop("cpu", None)
            if self._version >= 2:
                spent = max(0.0, self._cpu_seconds() - self._turn_began)
                frame["cpu"] = spent
                self._turn_began += spent  # a refused move's retry costs only its own time
            self._answered, self._allowance = self._allowance, None
            self._asked = trio.Event()
        elif kind == "hello":
            frame["token"] = self._ticket
            version = frame.get("version")
            if type(version) is int and version in protocol.VERSIONS:
                self._version = version
        return frame

    def from_server(self, frame: dict[Any, Any]) -> None:
        """A frame on its way to the agent: a `match_started` starts the CPU count, a
        `your_turn` the watch over it."""
        kind = frame.get("type")
        if kind == "your_turn":
            time_left, match = frame.get("time_left"), frame.get("match")
            if self._version >= 2 and isinstance(time_left, int | float) and type(match) is int:
                self._ask(match, float(time_left))
        elif kind == "move_refused":
            if self._answered is not None and frame.get("code") in RETRY_CODES:
                self._ask(self._match, self._answered)
        elif kind == "game_over":
            self._allowance = self._answered = None
            self._spoken = False
            self._asked = trio.Event()
        elif kind == "match_started":
            self._turn_began = self._cpu_seconds()
            self._paired.set()

    def _ask(self, match: int, allowance: float) -> None:
        self._match, self._allowance, self._answered = match, allowance, None
        self._spoken = False
        self._asked.set()

    async def move_asked(self) -> None:
        """Wait until a move is under way (at once if one is)."""
        await self._asked.wait()

    def poll_interval(self) -> float:
        """How long to wait before looking at the move's CPU again."""
        shortest, longest = POLL_BOUNDS
        return min(longest, max(shortest, (self._allowance or 0.0) * POLL_SHARE))

    def overspent(self) -> bytes | None:
        """The body of an `out_of_cpu` frame if the move under way has used more CPU seconds
        than its allowance (then the move is over for the worker); else None."""
        if self._allowance is None:
            return None
        spent = self._cpu_seconds() - self._turn_began
        if spent <= self._allowance:
            return None
        self._allowance, self._spoken = None, True
        self._asked = trio.Event()
        message = protocol.OutOfCpu(match=self._match, cpu=spent)
        return protocol.encode_frame(message.to_wire(self._version))[HEADER.size :]
