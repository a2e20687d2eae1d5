"""`Connection`: the one object the server, the client and the fuzzer hold per TCP connection.

Bytes in, messages out; messages in, bytes out. No socket, no clock, no trio: the caller moves the
bytes (h11's design), so the same object serves a trio server, a blocking client and a test that
pipes two connections together in memory.

`next_message` is the one door where peer data becomes messages, so it is where a check's
`LocalProtocolError` is relabelled `PeerError` (the peer is at fault). `send` lets it through:
there, the bug is ours.

The version is negotiated by `hello` alone: the client asks for one, and a server that speaks
it answers in it (`welcome.version`); the server refuses any other (`version_mismatch`, its
business, not this module's). So both ends set `version` from the `hello` that passes through
them, the client's when sent, the server's when received, and encode and decode every later
frame for that version.
"""

from __future__ import annotations

from typing import Any

from arbiter.protocol._errors import ErrorCode, LocalProtocolError
from arbiter.protocol._frames import (
    CLOSED,
    DEFAULT_MAX_FRAME,
    NEED_DATA,
    Closed,
    FrameDecoder,
    NeedData,
    encode_frame,
)
from arbiter.protocol._messages import (
    CLIENT,
    FIRST_VERSION,
    VERSIONS,
    Hello,
    Message,
    Role,
    blame_peer,
    message_class,
)
from arbiter.protocol._session import Phase, Session


class Prepared:
    """A message encoded once per version, however many connections it goes to: a version no
    receiver speaks is never encoded. `Connection.send` checks that its role may send `kind`
    now, as for a message itself, and returns the frame for its version."""

    __slots__ = ("_frames", "kind")

    def __init__(self, kind: type[Message]) -> None:
        self.kind = kind
        self._frames: dict[int, bytes] = {}

    def frame_for(self, version: int) -> bytes:
        frame = self._frames.get(version)
        if frame is None:
            frame = self._frames[version] = encode_frame(self._wire(version))
        return frame

    @property
    def frame(self) -> bytes:
        """The frame for the newest version."""
        return self.frame_for(VERSIONS[-1])

    def _wire(self, version: int) -> dict[str, Any]:
        raise NotImplementedError


class Encoded(Prepared):
    """A checked message, prepared for many connections: a snapshot every spectator of a
    match is shown is built and encoded once per move this way."""

    __slots__ = ("message",)

    def __init__(self, message: Message) -> None:
        super().__init__(type(message))
        self.message = message

    def _wire(self, version: int) -> dict[str, Any]:
        return self.message.to_wire(version)


class Trusted(Prepared):
    """A message of type `kind` that its sender builds from values it holds as the right types
    already, sent without the message's checks: the server's own frames of every move (ints,
    floats, the rules' move texts, a `Position` checked when built). The checks are for what a
    peer sends (`next_message`), and every client checks what it receives, so a frame of ours
    that broke a field's rule fails the tests that read it; checking values the server made
    itself would cost every move three times over. The frames are those of the checked message
    with the same values, byte for byte."""

    __slots__ = ("values",)

    def __init__(self, kind: type[Message], **values: Any) -> None:
        super().__init__(kind)
        self.values = values
        """Checked against the fields `kind` has when first encoded (`trusted_wire`)."""

    def _wire(self, version: int) -> dict[str, Any]:
        return self.kind.trusted_wire(self.values, version)


class Connection:
    """One end of a session, for either role; judges both directions with the same table.

    After a fatal `PeerError` (`dead` is True) every `next_message` raises it again, but `send`
    still works, so the one `error` frame that explains the hang-up can go out.
    """

    __slots__ = (
        "_frames",
        "_lenient",
        "_session",
        "max_frame",
        "our_role",
        "their_role",
        "version",
    )

    def __init__(self, role: Role, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        if not isinstance(role, Role):
            raise TypeError(f"role must be CLIENT or SERVER, not {role!r}")
        self.our_role = role
        self.their_role = role.peer
        self.max_frame = max_frame
        self.version = FIRST_VERSION
        """The version frames are encoded and decoded for: set by the `hello`."""
        self._lenient = False
        """Whether fields the version does not know are dropped rather than refused: only a
        client's, from version 2 (the server stays strict about what clients send)."""
        self._frames = FrameDecoder(max_frame)
        self._session = Session()

    def _negotiated(self, hello: Hello) -> None:
        """Speak the version `hello` asks for, if this package speaks it (a server refuses
        the others, answering in the first version, whose `error` every version shares)."""
        if hello.version in VERSIONS:
            self.version = hello.version
            self._lenient = self.our_role is CLIENT and hello.version >= 2

    @property
    def phase(self) -> Phase:
        return self._session.phase

    @property
    def dead(self) -> bool:
        """True after a fatal peer error: the frame boundary is lost, nothing more can be read."""
        return self._frames.dead

    @property
    def buffered(self) -> int:
        """Bytes received and not yet read as frames: after `NEED_DATA`, a frame in progress."""
        return self._frames.buffered

    def receive_data(self, data: bytes | bytearray) -> None:
        """Buffer bytes from the peer; `b""` means the peer closed its end (EOF)."""
        self._frames.feed(data)

    def next_message(self) -> Message | NeedData | Closed:
        """The next complete, checked message from the peer, `NEED_DATA`, or `CLOSED`.

        Raises `PeerError` for a bad frame. A non-fatal one has been consumed: call again to read
        the frame after it.
        """
        payload = self._frames.next_frame()
        if payload is NEED_DATA:
            return NEED_DATA
        if payload is CLOSED:
            self._session.process_eof()
            return CLOSED
        try:
            cls = message_class(payload)
            if self.version < cls.SINCE_VERSION:
                raise _needs_version(cls, self.version)
            after = self._session.after(self.their_role, cls)
            message = cls.from_wire(payload, self.version, self._lenient)
            self._session.phase = after
        except LocalProtocolError as error:
            raise blame_peer(error, payload) from None
        if cls is Hello:
            self._negotiated(message)  # type: ignore[arg-type]  # the class says it is one
        return message

    def send(self, message: Message | Prepared) -> bytes:
        """The frame for `message`; `LocalProtocolError` if our role may not send it now.

        `max_frame` limits what we accept, not what we send: the receiver sets its own limit, and
        a long game's `game_over` may exceed 64 KiB for a client that raised its limit to get it.
        """
        if isinstance(message, Prepared):
            cls: type[Message] = message.kind
        elif isinstance(message, Message):
            cls = type(message)
        else:
            raise TypeError(f"can only send protocol messages, not {message!r}")
        if self.version < cls.SINCE_VERSION:
            raise _needs_version(cls, self.version)
        after = self._session.after(self.our_role, cls)
        if isinstance(message, Prepared):
            frame = message.frame_for(self.version)
        else:
            frame = encode_frame(message.to_wire(self.version))
        self._session.phase = after
        if isinstance(message, Hello):
            self._negotiated(message)
        return frame

    def __repr__(self) -> str:
        state = "dead" if self.dead else self.phase.value
        return f"<Connection {self.our_role.value} v{self.version} {state}>"


def _needs_version(cls: type[Message], version: int) -> LocalProtocolError:
    """`needs_version` for a type of a later version than the session speaks: a client of an
    older version is told, not cut off, and never sees such a type from us."""
    return LocalProtocolError(
        ErrorCode.NEEDS_VERSION,
        f"{cls.TYPE!r} needs protocol version {cls.SINCE_VERSION}; this connection said hello"
        f" with version {version}",
    )
