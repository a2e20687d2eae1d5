"""Error codes and the two ways a protocol error can be someone's fault.

Blame decides what happens next, so it is in the type (h11 splits its errors the same way):

- `PeerError`: the bytes the peer sent are wrong. The server answers with an `error` frame carrying
  `err.code` and `str(err)` and, when `err.fatal`, closes the connection.
- `LocalProtocolError`: our own code built or sent something the protocol forbids. That is a bug
  on this side, never the peer's, so nothing is sent: it should crash loudly in tests.

Inside this package only `LocalProtocolError` is raised while checking a message; the two public
doors where peer data enters (`Connection.next_message` and `message_from_wire`) relabel it as a
`PeerError` with the same code. So one validator serves both directions and judges both alike.

Codes are the wire's stable vocabulary: a client in another language switches on the string, so
a code is never renamed or reused for another meaning (add new ones instead).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

MAX_SENTENCE = 1024
"""Longest error sentence, so any `str(err)` fits the `message` field of an `error` frame."""


class ErrorCode(enum.StrEnum):
    # Framing and schema: raised by this package on bad peer input.
    FRAME_TOO_LARGE = "frame_too_large"
    TRUNCATED_FRAME = "truncated_frame"
    BAD_MSGPACK = "bad_msgpack"
    NOT_A_MAP = "not_a_map"
    MISSING_TYPE = "missing_type"
    UNKNOWN_TYPE = "unknown_type"
    WRONG_DIRECTION = "wrong_direction"
    OUT_OF_ORDER = "out_of_order"
    MISSING_FIELD = "missing_field"
    UNKNOWN_FIELD = "unknown_field"
    BAD_FIELD = "bad_field"
    NEEDS_VERSION = "needs_version"
    # Meaning: decided by the server, defined here so that they are stable and documented.
    VERSION_MISMATCH = "version_mismatch"
    BAD_NAME = "bad_name"
    UNKNOWN_GAME = "unknown_game"
    BAD_OPTION = "bad_option"
    BAD_TIME_CONTROL = "bad_time_control"
    UNKNOWN_SEEK = "unknown_seek"
    TOO_MANY_SEEKS = "too_many_seeks"
    BAD_OPPONENT = "bad_opponent"
    UNKNOWN_SESSION = "unknown_session"
    UNKNOWN_MATCH = "unknown_match"
    NOT_YOUR_MATCH = "not_your_match"
    NOT_YOUR_TURN = "not_your_turn"
    INVALID_MOVE = "invalid_move"
    ILLEGAL_MOVE = "illegal_move"
    GAME_OVER = "game_over"
    ALREADY_WATCHING = "already_watching"
    UNKNOWN_TOURNAMENT = "unknown_tournament"
    BAD_TOURNAMENT = "bad_tournament"
    NOT_ALLOWED = "not_allowed"
    BAD_SUBMISSION = "bad_submission"
    UNKNOWN_SUBMISSION = "unknown_submission"
    TOO_MANY_ERRORS = "too_many_errors"
    HELLO_TIMEOUT = "hello_timeout"
    TOO_SLOW = "too_slow"
    PING_TIMEOUT = "ping_timeout"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    RATE_LIMITED = "rate_limited"
    SESSION_REPLACED = "session_replaced"
    OUTPUT_LIMIT = "output_limit"
    SERVER_SHUTDOWN = "server_shutdown"
    INTERNAL_ERROR = "internal_error"


FATAL_CODES = frozenset({ErrorCode.FRAME_TOO_LARGE, ErrorCode.TRUNCATED_FRAME})
"""Peer errors after which the byte stream cannot be trusted: the frame boundary is lost."""


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """What a code means, for the spec: who raises it and whether the server then hangs up."""

    raised_by: str  # "protocol" (this package, on bad peer input) or "server"
    closes: bool
    meaning: str


ERROR_CODES: dict[ErrorCode, CodeInfo] = {
    ErrorCode.FRAME_TOO_LARGE: CodeInfo(
        "protocol",
        True,
        "A frame's length header exceeds the receiver's limit (64 KiB by default). Refused from "
        "the 4-byte header alone, before the body is read, so the stream cannot be resynchronised.",
    ),
    ErrorCode.TRUNCATED_FRAME: CodeInfo(
        "protocol", True, "The stream ended (EOF) inside a frame: after part of a header or body."
    ),
    ErrorCode.BAD_MSGPACK: CodeInfo(
        "protocol",
        False,
        "The frame body is not exactly one well-formed msgpack value (or is empty, or has bytes "
        "after the value).",
    ),
    ErrorCode.NOT_A_MAP: CodeInfo(
        "protocol", False, "The frame body is valid msgpack but not a map."
    ),
    ErrorCode.MISSING_TYPE: CodeInfo("protocol", False, "The map has no `type` field."),
    ErrorCode.UNKNOWN_TYPE: CodeInfo(
        "protocol", False, "`type` is not a string naming a message type of this protocol."
    ),
    ErrorCode.WRONG_DIRECTION: CodeInfo(
        "protocol",
        False,
        "The message type exists but the sender's role never sends it (a client sending "
        "`your_turn`, a server sending `move`).",
    ),
    ErrorCode.OUT_OF_ORDER: CodeInfo(
        "protocol",
        False,
        "The message is not allowed in the session's current phase (anything but `hello`, `ping` "
        "or `pong` before the handshake, a second `hello`...). The phase does not change.",
    ),
    ErrorCode.MISSING_FIELD: CodeInfo(
        "protocol", False, "A required field of the message type is absent."
    ),
    ErrorCode.UNKNOWN_FIELD: CodeInfo(
        "protocol", False, "The map has a field the message type does not define."
    ),
    ErrorCode.BAD_FIELD: CodeInfo(
        "protocol",
        False,
        "A field has the wrong type or is out of its limits (string too long, integer out of "
        "range, list too long, map with non-string keys...).",
    ),
    ErrorCode.NEEDS_VERSION: CodeInfo(
        "protocol",
        False,
        "The message type belongs to a later protocol version than the one the connection's "
        "`hello` asked for (a version 1 client sending `submit_begin`); say hello with that "
        "version to use it.",
    ),
    ErrorCode.VERSION_MISMATCH: CodeInfo(
        "server",
        True,
        "`hello.version` is not the server's protocol version; the error message names it.",
    ),
    ErrorCode.BAD_NAME: CodeInfo(
        "server",
        True,
        "The server refuses `hello.name` (or the token): a registered player's name without its "
        "token, a token that is not that name's, or a token with an unregistered name. A "
        "handshake cannot be retried on the same connection, so the server closes it.",
    ),
    ErrorCode.UNKNOWN_GAME: CodeInfo("server", False, "`seek.game` names no game of this server."),
    ErrorCode.BAD_OPTION: CodeInfo(
        "server", False, "A `seek` option is unknown to the game or has a bad value."
    ),
    ErrorCode.BAD_TIME_CONTROL: CodeInfo(
        "server", False, "The `seek.time` map is not a time control the server can enforce."
    ),
    ErrorCode.UNKNOWN_SEEK: CodeInfo(
        "server", False, "`cancel_seek` names no open seek of this connection."
    ),
    ErrorCode.TOO_MANY_SEEKS: CodeInfo(
        "server",
        False,
        "A `seek` past the open seeks one connection may hold (32 by default), or one address "
        "across its connections (64), or past the server's total when no address holds more "
        "than the seeker's; the sentence says which. Cancel one, or wait for one to be paired. "
        "Also sent, with `seek_cancelled` after it, when a full table's room is made by "
        "withdrawing the newest seek of the address holding the most.",
    ),
    ErrorCode.BAD_OPPONENT: CodeInfo(
        "server",
        False,
        "A `seek` whose `opponent` is the seeker's own name: a player cannot challenge itself.",
    ),
    ErrorCode.UNKNOWN_SESSION: CodeInfo(
        "server",
        False,
        "`hello.resume` names no session with seats to take back (never had one, grace period"
        " over, or its games ended); the connection goes on as a new session.",
    ),
    ErrorCode.UNKNOWN_MATCH: CodeInfo("server", False, "No match has this id."),
    ErrorCode.NOT_YOUR_MATCH: CodeInfo(
        "server", False, "A `move` or `resign` for a match this connection does not play in."
    ),
    ErrorCode.NOT_YOUR_TURN: CodeInfo(
        "server", False, "A move sent while the opponent is to move."
    ),
    ErrorCode.INVALID_MOVE: CodeInfo(
        "server",
        False,
        "The move text is not in the game's notation (also the `code` of a `move_refused`).",
    ),
    ErrorCode.ILLEGAL_MOVE: CodeInfo(
        "server",
        False,
        "The move is well formed but not legal in the position (also the `code` of a "
        "`move_refused`).",
    ),
    ErrorCode.GAME_OVER: CodeInfo("server", False, "The match has already finished."),
    ErrorCode.ALREADY_WATCHING: CodeInfo(
        "server",
        False,
        "A `watch` of a match this connection already watches, or of a finished match it was "
        "shown already (a finished match does not change): it was shown the match then (and, "
        "while the match is played, goes on receiving its moves), so nothing is sent again.",
    ),
    ErrorCode.UNKNOWN_TOURNAMENT: CodeInfo(
        "server", False, "`tournament_start` or `tournament_status` names no tournament."
    ),
    ErrorCode.BAD_TOURNAMENT: CodeInfo(
        "server",
        False,
        "A `tournament_create` the server cannot run (name taken, an entrant not registered, "
        "fewer than two entrants, an unknown agent, zero rounds, an unknown format, a gauntlet "
        "without its challenger, a Swiss of more rounds than entrants less one...), or a "
        "`tournament_start` of "
        "one already started; the sentence says which.",
    ),
    ErrorCode.NOT_ALLOWED: CodeInfo(
        "server",
        False,
        "The request needs an admin account (`hello` with an admin's name and token), or, for "
        "the submission messages, a registered player's (another's archive: an admin's or a "
        "worker's).",
    ),
    ErrorCode.BAD_SUBMISSION: CodeInfo(
        "server",
        False,
        "An upload that cannot be stored, and is dropped: its archive is refused (unknown form, "
        "entry missing, a path leaving its folder, too many files, over 4 MiB, a binary where "
        "sources are expected), a part out of order, a size or hash that is not the one "
        "`submit_begin` announced, an upload too slow, one identical to a kept version, or past "
        "the author's limits; the sentence says which.",
    ),
    ErrorCode.UNKNOWN_SUBMISSION: CodeInfo(
        "server",
        False,
        "`retire` names no version of the author's, or one retired already; "
        "`submission_fetch` names no stored archive; `submit_part` or `submit_end` with no "
        "upload begun.",
    ),
    ErrorCode.TOO_MANY_ERRORS: CodeInfo(
        "server", True, "The server hangs up after 20 bad frames on one connection."
    ),
    ErrorCode.HELLO_TIMEOUT: CodeInfo(
        "server",
        True,
        "No complete `hello` within the server's handshake deadline (5 s by default) of the "
        "connection's start.",
    ),
    ErrorCode.TOO_SLOW: CodeInfo(
        "server",
        True,
        "A frame in progress arrived too slowly: after 5 s (by default) a frame's bytes must "
        "keep coming at 1 KiB/s on average since its first byte.",
    ),
    ErrorCode.PING_TIMEOUT: CodeInfo(
        "server",
        True,
        "The client answered no `ping` for the server's stated time (8 s by default; pings "
        "go out every 2 s). A seat it held goes to the grace period, as on a disconnect.",
    ),
    ErrorCode.TOO_MANY_CONNECTIONS: CodeInfo(
        "server",
        True,
        "The server is full, or the client's IP address has as many connections open as the "
        "server allows one address (64 by default). Sent at once, before anything is read.",
    ),
    ErrorCode.RATE_LIMITED: CodeInfo(
        "server",
        False,
        "Too many requests: this one was dropped unanswered (a connection may send 1,000 a "
        "second, 5,000 at once); after 200 such refusals without a pause the server hangs up "
        "with this code, and the address may not connect for 10 s (a connection from it is "
        "refused with this code at once). Also the answer to a `hello` with a token from an "
        "address whose recent token checks failed, until its backoff passes, or while the "
        "server has seconds of token checks waiting (the sentence says when to retry); that "
        "`hello` is closed.",
    ),
    ErrorCode.SESSION_REPLACED: CodeInfo(
        "server",
        True,
        "Another connection said `hello` with this connection's registered name and token: "
        "the newer one is kept, this one closes (its seats go to the grace period, resumable "
        "with its `session`).",
    ),
    ErrorCode.OUTPUT_LIMIT: CodeInfo(
        "server",
        True,
        "The client did not read what the server sent it: the frames waiting for it passed the "
        "server's limit per connection (4 MiB by default), or it had the most waiting when all "
        "clients together passed the server's budget. Its waiting frames are dropped for this "
        "one, sent if the socket takes it within 2 seconds, and the connection closes.",
    ),
    ErrorCode.SERVER_SHUTDOWN: CodeInfo(
        "server", True, "The server is stopping; the connection closes after this frame."
    ),
    ErrorCode.INTERNAL_ERROR: CodeInfo(
        "server",
        False,
        "The server failed while handling the request (a bug, or its storage failed); the "
        "sentence says what became of it (a seek that could not start its match is withdrawn; a "
        "match that stops this way has no winner). The connection stays open.",
    ),
}


def short_repr(value: object, limit: int = 60) -> str:
    """A repr cut to `limit` characters, so hostile input cannot bloat an error sentence."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _sentence(message: str) -> str:
    if len(message) <= MAX_SENTENCE:
        return message
    return message[: MAX_SENTENCE - 3] + "..."


class ProtocolError(Exception):
    """Base of every error of this package: a stable `code` plus a sentence for people."""

    code: ErrorCode

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(_sentence(message))
        self.code = ErrorCode(code)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code.value!r}, {str(self)!r})"


class LocalProtocolError(ProtocolError):
    """Our side built or sent something the protocol forbids: a bug here, not the peer's fault."""


class PeerError(ProtocolError):
    """The peer sent bytes that break the protocol; answer with an `error` frame.

    `fatal` is derived from the code, never chosen, so a code always means the same thing. `ref`
    and `match` are copied from the offending frame when it had them, to fill the `error` reply.
    """

    fatal: bool
    ref: str | None
    match: int | None

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        *,
        ref: str | None = None,
        match: int | None = None,
    ) -> None:
        super().__init__(code, message)
        self.fatal = self.code in FATAL_CODES
        self.ref = ref
        self.match = match

    @classmethod
    def blame_peer(
        cls, error: LocalProtocolError, ref: str | None = None, match: int | None = None
    ) -> PeerError:
        """The same complaint about data that came from the peer (h11's relabelling door)."""
        return cls(error.code, str(error), ref=ref, match=match)
