"""The lowest layer: frames on a byte stream, and msgpack inside them.

A frame is a 4-byte big-endian unsigned length N, then N bytes holding exactly one msgpack map.
The length comes first so a receiver can refuse an oversized frame from its header alone, before
buffering or decoding anything, and so a malformed body costs only that frame: its end is known,
and decoding resumes at the next header.

Nothing here knows message types or session phases; the fuzzer and the benchmarks drive
`FrameDecoder` directly.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Mapping
from typing import Any, Final, Literal, NoReturn

import msgpack

from arbiter.protocol._errors import ErrorCode, LocalProtocolError, PeerError, short_repr

HEADER = struct.Struct(">I")
"""The length prefix: 4 bytes, big-endian, unsigned."""

DEFAULT_MAX_FRAME = 64 * 1024
"""Largest frame body (the length in the header) a connection accepts by default.

The largest legitimate frame a client sends is tiny; the largest the server sends in play is a
`your_turn` carrying an Amazons legal-move list: 2,176 moves at the opening, 19,879 bytes with
the state. 64 KiB leaves three times that, yet a hostile peer cannot make us buffer more than
64 KiB per connection (h11 caps headers at 16 KiB for the same reason: bound what an
unauthenticated peer can make us hold). Only the move list of a very long finished game
(`game_over`, `watching`) can be larger; a client that wants those raises its own limit.
"""

MAX_HEADER_VALUE = 2**32 - 1


class Sentinel(enum.Enum):
    """Answers from `next_frame`/`next_message` that are not data: more bytes needed, or the end."""

    NEED_DATA = "NEED_DATA"
    CLOSED = "CLOSED"

    def __repr__(self) -> str:
        return self.value

    __str__ = __repr__


NEED_DATA: Final = Sentinel.NEED_DATA
"""No complete frame is buffered yet: call `receive_data` with more bytes, then ask again."""
CLOSED: Final = Sentinel.CLOSED
"""The peer closed the stream cleanly, between frames; nothing more will come."""

NeedData = Literal[Sentinel.NEED_DATA]
Closed = Literal[Sentinel.CLOSED]


def encode_frame(payload: Mapping[str, Any], max_frame: int | None = None) -> bytes:
    """One frame holding `payload`; `LocalProtocolError` if it cannot be encoded or is too big.

    `max_frame` lets a sender refuse what its peer would refuse anyway, so an oversized message is
    caught as our bug here rather than as a disconnect on the other side.
    """
    try:
        body: bytes = msgpack.packb(payload, use_bin_type=True)
    except (TypeError, ValueError, OverflowError) as error:
        raise LocalProtocolError(
            ErrorCode.BAD_FIELD, f"cannot encode {short_repr(payload)} as msgpack: {error}"
        ) from None
    limit = MAX_HEADER_VALUE if max_frame is None else max_frame
    if len(body) > limit:
        raise LocalProtocolError(
            ErrorCode.FRAME_TOO_LARGE,
            f"a {len(body)}-byte frame is over the {limit}-byte limit ({short_repr(payload)})",
        )
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes | bytearray) -> Any:
    """The one msgpack value in a frame body, or `PeerError(bad_msgpack)`."""
    if not body:
        raise PeerError(ErrorCode.BAD_MSGPACK, "empty frame: a frame must hold one msgpack map")
    try:
        return msgpack.unpackb(body, raw=False, strict_map_key=False, use_list=True)
    except (ValueError, TypeError, msgpack.UnpackException) as error:
        # ValueError covers msgpack's FormatError, StackError, ExtraData and bad UTF-8;
        # TypeError an unhashable map key (a map used as a key).
        sentence = f"frame body is not valid msgpack: {error}"
        raise PeerError(ErrorCode.BAD_MSGPACK, sentence) from None


TYPE_PREFIX_BYTES = 64
"""Bytes of a body read for its type: a map's header, the key `type` and a type name of up to
50 bytes (the protocol's are under 25)."""


def body_type(body: bytes | bytearray) -> Any:
    """The `type` of a frame body that names it first, as every message this package writes
    does (`Message.to_wire`), read from the body's first bytes alone; None for a body that does
    not begin so (or whose type is too long to read there): decode that one whole.

    For a relay that acts on a few types and passes the rest on unread: a long game's
    `game_over` or a tournament's status then costs it nothing to pass. A peer that is not
    trusted to write maps this way (a duplicate `type` key later on would win in a full
    decoding) must be decoded whole."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(bytes(body[:TYPE_PREFIX_BYTES]))
    try:
        if unpacker.read_map_header() < 1 or unpacker.unpack() != "type":
            return None
        return unpacker.unpack()
    except (ValueError, TypeError, msgpack.UnpackException):  # OutOfData among them
        return None


class FrameDecoder:
    """Cuts a byte stream into frame payloads (decoded msgpack maps), refusing bad ones.

    `feed(b"")` marks the end of the stream. A fatal error (oversized header, EOF inside a frame)
    kills the decoder: the frame boundary is lost, so every later call raises the same error. Any
    other error consumed exactly the bad frame, and the next call carries on after it.
    """

    __slots__ = ("_buffer", "_eof", "_error", "_start", "max_frame")

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        if isinstance(max_frame, bool) or not isinstance(max_frame, int) or max_frame < 1:
            raise ValueError(f"max_frame must be a positive integer, not {max_frame!r}")
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._start = 0  # consumed bytes at the front, dropped lazily to keep consuming O(1)
        self._eof = False
        self._error: PeerError | None = None

    @property
    def dead(self) -> bool:
        return self._error is not None

    @property
    def buffered(self) -> int:
        """Bytes received and not yet consumed as frames."""
        return len(self._buffer) - self._start

    def feed(self, data: bytes | bytearray) -> None:
        if not data:
            self._eof = True
            return
        if self._eof:
            raise LocalProtocolError(
                ErrorCode.OUT_OF_ORDER, "received data after the end of the stream"
            )
        if self._error is not None:
            return  # nothing after a lost frame boundary can be read; do not hoard it
        if self._start:
            del self._buffer[: self._start]
            self._start = 0
        self._buffer += data

    def next_frame(self) -> dict[Any, Any] | NeedData | Closed:
        """The next frame's map, `NEED_DATA`, `CLOSED` (clean EOF) or `PeerError`."""
        body = self.next_body()
        if body is NEED_DATA or body is CLOSED:
            return body
        payload = decode_body(body)
        if not isinstance(payload, dict):
            kind = type(payload).__name__
            raise PeerError(
                ErrorCode.NOT_A_MAP, f"a frame must hold a map, not {kind} {short_repr(payload)}"
            )
        return payload

    def next_body(self) -> bytearray | NeedData | Closed:
        """The next frame's body as it came, not decoded, or what `next_frame` answers instead:
        for a reader that keys or passes on frames as bytes and decodes only some (the web
        front's translations, shared by every page that gets the same frame)."""
        if self._error is not None:
            raise self._error
        available = len(self._buffer) - self._start
        if available < HEADER.size:
            if not self._eof:
                return NEED_DATA
            if available == 0:
                return CLOSED
            self._die(
                ErrorCode.TRUNCATED_FRAME,
                f"stream ended after {available} of a frame header's {HEADER.size} bytes",
            )
        (size,) = HEADER.unpack_from(self._buffer, self._start)
        if size > self.max_frame:
            self._die(
                ErrorCode.FRAME_TOO_LARGE,
                f"frame of {size} bytes announced; the limit is {self.max_frame}",
            )
        end = self._start + HEADER.size + size
        if len(self._buffer) < end:
            if not self._eof:
                return NEED_DATA
            self._die(
                ErrorCode.TRUNCATED_FRAME,
                f"stream ended {end - len(self._buffer)} bytes short of a {size}-byte frame",
            )
        body = self._buffer[self._start + HEADER.size : end]
        self._start = end
        return body

    def _die(self, code: ErrorCode, message: str) -> NoReturn:
        self._error = PeerError(code, message)
        self._buffer = bytearray()
        self._start = 0
        raise self._error
