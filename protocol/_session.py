"""The session's phases and every transition between them, as one table.

Theory of operation. A connection is in one phase at a time, shared by both ends: START (nothing
yet), GREETING (the client said `hello`, the server has not answered), OPEN (handshake done: the
lobby and matches), and CLOSED (the peer ended the stream). For each phase the table says, per
sender role, which message types may be sent and which phase each one leads to. A message not in
the row is `out_of_order`; a type the role never sends at all is `wrong_direction`.

Two house rules, taken from h11's `_state.py`:

- Every transition lives in this file. `Connection` asks `Session.after(sender, message)` for
  every message it sends or receives (and takes the phase once the frame is made or read) and
  never decides order on its own.
- The session never knows which side it is on. Our sends and the peer's messages go through the
  same table with the sender's role, so a client and a server judge one conversation alike, and a
  bug that makes us send out of order is caught by the same rule that catches a peer.

The end of the stream is not a message: `process_eof` moves any phase to CLOSED. Nothing may be
sent or received in CLOSED. The spec's session table and diagram are printed from `TRANSITIONS`
by docs/make_protocol_tables.py, so the prose cannot drift from the code.
"""

from __future__ import annotations

import enum

from arbiter.protocol._errors import ErrorCode, LocalProtocolError
from arbiter.protocol._messages import CLIENT, SERVER, Message, Role


class Phase(enum.Enum):
    START = "START"
    GREETING = "GREETING"
    OPEN = "OPEN"
    CLOSED = "CLOSED"

    __hash__ = object.__hash__  # as for `Role`: looked up on every frame

    def __repr__(self) -> str:
        return f"Phase.{self.name}"


START, GREETING, OPEN = Phase.START, Phase.GREETING, Phase.OPEN

_CLIENT_REQUESTS = (
    "list_games",
    "seek",
    "cancel_seek",
    "move",
    "resign",
    "watch",
    "lobby",
    "tournament_create",
    "tournament_start",
    "tournament_status",
    "submit_begin",
    "submit_part",
    "submit_end",
    "submissions",
    "retire",
    "submission_fetch",
    "worker",
    "host_ended",
    "out_of_cpu",
    "logs",
    "ladder",
    "ladder_join",
    "ladder_leave",
)
_SERVER_REPLIES = (
    "error",
    "games",
    "seeking",
    "seek_cancelled",
    "match_started",
    "your_turn",
    "move_accepted",
    "move_refused",
    "opponent_moved",
    "game_over",
    "watching",
    "resumed",
    "tournament",
    "lobby_listing",
    "submit_ready",
    "submitted",
    "submission_list",
    "retired",
    "archive_part",
    "match_logs",
    "ladder_table",
    "ladder_joined",
    "host",
)
_KEEPALIVE = ("ping", "pong")


def _stay(phase: Phase, *types: str) -> dict[str, Phase]:
    return dict.fromkeys(types, phase)


TRANSITIONS: dict[Phase, dict[Role, dict[str, Phase]]] = {
    # phase -> sender -> message type it may send -> the phase that follows
    START: {
        CLIENT: {"hello": GREETING, **_stay(START, *_KEEPALIVE)},
        SERVER: _stay(START, "error", *_KEEPALIVE),
    },
    GREETING: {
        CLIENT: _stay(GREETING, *_KEEPALIVE),
        SERVER: {"welcome": OPEN, **_stay(GREETING, "error", *_KEEPALIVE)},
    },
    OPEN: {
        CLIENT: _stay(OPEN, *_CLIENT_REQUESTS, *_KEEPALIVE),
        SERVER: _stay(OPEN, *_SERVER_REPLIES, *_KEEPALIVE),
    },
    Phase.CLOSED: {CLIENT: {}, SERVER: {}},
}

EOF_PHASE = Phase.CLOSED
"""Where the peer's end of stream leads, from every phase."""


class Session:
    """The phase of one connection, moved only by `TRANSITIONS` and the end of the stream."""

    __slots__ = ("phase",)

    def __init__(self) -> None:
        self.phase = START

    def check(self, sender: Role, message: type[Message]) -> None:
        """`LocalProtocolError` unless `sender` may send this type now; the phase is unchanged."""
        if sender not in message.SENDERS:
            raise LocalProtocolError(
                ErrorCode.WRONG_DIRECTION,
                f"a {sender.value} never sends {message.TYPE!r}: it goes from "
                f"{sender.peer.value} to {sender.value}",
            )
        allowed = TRANSITIONS[self.phase][sender]
        if message.TYPE not in allowed:
            raise LocalProtocolError(ErrorCode.OUT_OF_ORDER, self._refusal(sender, message.TYPE))

    def process(self, sender: Role, message: type[Message]) -> None:
        """Check, then take the transition `sender` sending this type makes."""
        self.phase = self.after(sender, message)

    def after(self, sender: Role, message: type[Message]) -> Phase:
        """The phase `sender` sending this type leads to, or `LocalProtocolError` unless it
        may send it now; the phase is unchanged (a sender takes it once the frame is made)."""
        self.check(sender, message)
        return TRANSITIONS[self.phase][sender][message.TYPE]

    def process_eof(self) -> None:
        self.phase = EOF_PHASE

    def _refusal(self, sender: Role, kind: str) -> str:
        allowed = TRANSITIONS[self.phase][sender]
        if self.phase is Phase.CLOSED:
            return f"{kind!r} after the end of the stream: the session is closed"
        when = {START: "before the handshake", GREETING: "during the handshake"}.get(
            self.phase, "after the handshake"
        )
        return (
            f"a {sender.value} may not send {kind!r} {when} (phase {self.phase.value}; "
            f"allowed: {', '.join(allowed)})"
        )
