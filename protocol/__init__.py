"""Arbiter's wire protocol, sans-I/O: bytes in, messages out, and back (h11's design).

Nothing here opens a socket, reads a clock or imports trio; the server, the client, the fuzzer and
the tests all drive the same `Connection`. The spec for implementers in other languages is
docs/protocol.md.

The layers, lowest first; each private module imports only the ones above it in this list:

- `_errors`: stable error codes and who is to blame (`PeerError` vs `LocalProtocolError`).
- `_frames`: 4-byte length prefix + one msgpack map; the size limit; `NEED_DATA`/`CLOSED`.
- `_messages`: one checked dataclass per message type, its direction, wire map <-> message, and
  the version that brought each field (1 or 2).
- `_session`: the phase table (START -> GREETING -> OPEN, CLOSED) judging both directions.
- `_connection`: `Connection`, which strings the layers together for one role.

Beside the layers, `_time_control`: time controls (the codec of a match's `time` option and of
the command line's `move=5,clock=300+2`), game clocks and the lag allowance, as pure arithmetic
with every time passed in; the server enforces them and the clients show them.
"""

from arbiter.protocol._connection import Connection, Encoded
from arbiter.protocol._errors import (
    ERROR_CODES,
    FATAL_CODES,
    CodeInfo,
    ErrorCode,
    LocalProtocolError,
    PeerError,
    ProtocolError,
)
from arbiter.protocol._frames import (
    CLOSED,
    DEFAULT_MAX_FRAME,
    NEED_DATA,
    FrameDecoder,
    Sentinel,
    encode_frame,
)
from arbiter.protocol._messages import (
    CLIENT,
    MAX_ITEMS,
    MAX_LISTED,
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    SERVER,
    VERSIONS,
    CancelSeek,
    Error,
    FieldSpec,
    GameOver,
    Games,
    Hello,
    Host,
    HostEnded,
    ListGames,
    Lobby,
    LobbyListing,
    MatchStarted,
    Message,
    Move,
    MoveAccepted,
    MoveRefused,
    OpponentMoved,
    Ping,
    Pong,
    Position,
    Resign,
    Resumed,
    Role,
    Seek,
    SeekCancelled,
    Seeking,
    Tournament,
    TournamentCreate,
    TournamentStart,
    TournamentStatus,
    Watch,
    Watching,
    Welcome,
    Worker,
    YourTurn,
    message_from_wire,
)
from arbiter.protocol._session import TRANSITIONS, Phase
from arbiter.protocol._time_control import (
    WATCHDOG_MARGIN,
    WATCHDOG_MULTIPLE,
    Charge,
    LagQuota,
    SeatClock,
    TimeControl,
    TimeControlError,
)

__all__ = [
    "CLIENT",
    "CLOSED",
    "DEFAULT_MAX_FRAME",
    "ERROR_CODES",
    "FATAL_CODES",
    "MAX_ITEMS",
    "MAX_LISTED",
    "MESSAGE_TYPES",
    "NEED_DATA",
    "PROTOCOL_VERSION",
    "SERVER",
    "TRANSITIONS",
    "VERSIONS",
    "WATCHDOG_MARGIN",
    "WATCHDOG_MULTIPLE",
    "CancelSeek",
    "Charge",
    "CodeInfo",
    "Connection",
    "Encoded",
    "Error",
    "ErrorCode",
    "FieldSpec",
    "FrameDecoder",
    "GameOver",
    "Games",
    "Hello",
    "Host",
    "HostEnded",
    "LagQuota",
    "ListGames",
    "Lobby",
    "LobbyListing",
    "LocalProtocolError",
    "MatchStarted",
    "Message",
    "Move",
    "MoveAccepted",
    "MoveRefused",
    "OpponentMoved",
    "PeerError",
    "Phase",
    "Ping",
    "Pong",
    "Position",
    "ProtocolError",
    "Resign",
    "Resumed",
    "Role",
    "SeatClock",
    "Seek",
    "SeekCancelled",
    "Seeking",
    "Sentinel",
    "TimeControl",
    "TimeControlError",
    "Tournament",
    "TournamentCreate",
    "TournamentStart",
    "TournamentStatus",
    "Watch",
    "Watching",
    "Welcome",
    "Worker",
    "YourTurn",
    "encode_frame",
    "message_from_wire",
]
