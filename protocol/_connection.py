"""`Connection`: the one object the server, the client and the fuzzer hold per TCP connection.

Bytes in, messages out; messages in, bytes out. No socket, no clock, no trio: the caller moves the
bytes (h11's design), so the same object serves a trio server, a blocking client and a test that
pipes two connections together in memory.

`next_message` is the one door where peer data becomes messages, so it is where a check's
`LocalProtocolError` is relabelled `PeerError` (the peer is at fault). `send` lets it through:
there, the bug is ours.
"""

from __future__ import annotations

from arbiter.protocol._errors import LocalProtocolError
from arbiter.protocol._frames import (
    CLOSED,
    DEFAULT_MAX_FRAME,
    NEED_DATA,
    Closed,
    FrameDecoder,
    NeedData,
    encode_frame,
)
from arbiter.protocol._messages import Message, Role, blame_peer, message_class
from arbiter.protocol._session import Phase, Session


class Encoded:
    """A message encoded once, for many connections: `Connection.send` checks that its role
    may send the message now, as for the message itself, and returns this same frame. A
    snapshot every spectator of a match is shown is built and encoded once per move this way."""

    __slots__ = ("frame", "message")

    def __init__(self, message: Message) -> None:
        self.message = message
        self.frame = encode_frame(message.to_wire())


class Connection:
    """One end of a session, for either role; judges both directions with the same table.

    After a fatal `PeerError` (`dead` is True) every `next_message` raises it again, but `send`
    still works, so the one `error` frame that explains the hang-up can go out.
    """

    __slots__ = ("_frames", "_session", "max_frame", "our_role", "their_role")

    def __init__(self, role: Role, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        if not isinstance(role, Role):
            raise TypeError(f"role must be CLIENT or SERVER, not {role!r}")
        self.our_role = role
        self.their_role = role.peer
        self.max_frame = max_frame
        self._frames = FrameDecoder(max_frame)
        self._session = Session()

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
            self._session.check(self.their_role, cls)
            message = cls.from_wire(payload)
            self._session.process(self.their_role, cls)
        except LocalProtocolError as error:
            raise blame_peer(error, payload) from None
        return message

    def send(self, message: Message | Encoded) -> bytes:
        """The frame for `message`; `LocalProtocolError` if our role may not send it now.

        `max_frame` limits what we accept, not what we send: the receiver sets its own limit, and
        a long game's `game_over` may exceed 64 KiB for a client that raised its limit to get it.
        """
        if isinstance(message, Encoded):
            cls: type[Message] = type(message.message)
            self._session.check(self.our_role, cls)
            frame = message.frame
        elif isinstance(message, Message):
            cls = type(message)
            self._session.check(self.our_role, cls)
            frame = encode_frame(message.to_wire())
        else:
            raise TypeError(f"can only send protocol messages, not {message!r}")
        self._session.process(self.our_role, cls)
        return frame

    def __repr__(self) -> str:
        state = "dead" if self.dead else self.phase.value
        return f"<Connection {self.our_role.value} {state}>"
