"""The public surface of `protocol` that the server and client are written against."""

from __future__ import annotations

import ast
import copy
import pickle
from pathlib import Path

from arbiter import protocol
from arbiter.protocol import CLIENT, CLOSED, NEED_DATA, SERVER, Role

AGREED_NAMES = [
    "PROTOCOL_VERSION", "DEFAULT_MAX_FRAME", "Role", "CLIENT", "SERVER", "NEED_DATA", "CLOSED",
    "Connection", "encode_frame", "FrameDecoder", "ProtocolError", "PeerError",
    "LocalProtocolError", "ErrorCode", "Message", "MESSAGE_TYPES", "message_from_wire",
    "Hello", "ListGames", "Seek", "CancelSeek", "Move", "Resign", "Watch", "Ping", "Pong",
    "Welcome", "Error", "Games", "Seeking", "SeekCancelled", "MatchStarted", "YourTurn",
    "MoveAccepted", "MoveRefused", "OpponentMoved", "GameOver", "Watching",
    "TournamentCreate", "TournamentStart", "TournamentStatus", "Tournament",
]  # fmt: skip


def test_every_agreed_name_is_exported() -> None:
    for name in AGREED_NAMES:
        assert name in protocol.__all__, name
        assert getattr(protocol, name) is not None


def test_all_lists_only_real_names() -> None:
    for name in protocol.__all__:
        assert hasattr(protocol, name), name


def test_constants() -> None:
    assert protocol.VERSIONS == (1, 2)
    assert protocol.PROTOCOL_VERSION == 2
    assert protocol.DEFAULT_MAX_FRAME == 64 * 1024


def test_roles_and_their_aliases() -> None:
    assert CLIENT is Role.CLIENT
    assert SERVER is Role.SERVER
    assert CLIENT.peer is SERVER
    assert SERVER.peer is CLIENT
    connection = protocol.Connection(SERVER)
    assert (connection.our_role, connection.their_role) == (SERVER, CLIENT)
    assert connection.max_frame == protocol.DEFAULT_MAX_FRAME
    assert connection.phase is protocol.Phase.START
    assert not connection.dead


def test_sentinels_are_distinct_singletons_with_plain_reprs() -> None:
    assert NEED_DATA is not CLOSED
    assert (repr(NEED_DATA), repr(CLOSED), str(CLOSED)) == ("NEED_DATA", "CLOSED", "CLOSED")
    for sentinel in (NEED_DATA, CLOSED):
        assert copy.deepcopy(sentinel) is sentinel
        assert pickle.loads(pickle.dumps(sentinel)) is sentinel
        assert not isinstance(sentinel, protocol.Message)


def _room(module: str) -> str:
    """The top-level name a module belongs to; ours are `arbiter.<room>`."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "arbiter" else parts[0]


def test_protocol_stays_sans_io() -> None:
    imported = set()
    for path in Path(protocol.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {_room(alias.name) for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(_room(node.module))
    allowed = {"__future__", "collections", "dataclasses", "enum", "math", "struct", "typing"}
    allowed |= {"hashlib", "json", "posixpath", "re"}  # the submission archive's: no I/O either
    assert imported <= allowed | {"msgpack", "arbiter.protocol"}, imported - allowed
