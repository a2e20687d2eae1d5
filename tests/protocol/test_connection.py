"""`Connection` end to end: two connections wired through an in-memory pipe, no sockets.

Every test encodes with one end and decodes with the other (h11's helpers.py idea), and checks
that both ends agree on the phase after every message: one table judges both directions.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.protocol import (
    CLIENT,
    CLOSED,
    ERROR_CODES,
    MESSAGE_TYPES,
    NEED_DATA,
    PROTOCOL_VERSION,
    SERVER,
    Connection,
    Error,
    ErrorCode,
    GameOver,
    Games,
    Hello,
    ListGames,
    LocalProtocolError,
    Message,
    Move,
    MoveAccepted,
    PeerError,
    Phase,
    Ping,
    Pong,
    Resign,
    Role,
    Seek,
    Watch,
    Welcome,
    YourTurn,
    encode_frame,
)
from tests.protocol.test_messages import messages

HELLO = Hello(version=1, name="ann")
WELCOME = Welcome(version=1, session="s1", server="arbiter")
PING_FRAME = encode_frame(Ping(nonce=1).to_wire())


class Pair:
    """A client and a server `Connection` joined by an in-memory pipe."""

    def __init__(self, max_frame: int = 64 * 1024, version: int = 1) -> None:
        self.client = Connection(CLIENT, max_frame=max_frame)
        self.server = Connection(SERVER, max_frame=max_frame)
        self.hello = Hello(version=version, name="ann")
        self.welcome = Welcome(version=version, session="s1", server="arbiter")

    def end(self, role: Role) -> Connection:
        return self.client if role is CLIENT else self.server

    def send(self, sender: Role, message: Message) -> Message:
        """Send one message across; return what the other end decoded from the bytes."""
        data = self.end(sender).send(message)
        receiver = self.end(sender.peer)
        receiver.receive_data(data)
        received = receiver.next_message()
        assert receiver.next_message() is NEED_DATA
        assert self.client.phase is self.server.phase
        assert isinstance(received, Message)
        return received

    def handshake(self) -> Pair:
        self.send(CLIENT, self.hello)
        self.send(SERVER, self.welcome)
        assert self.client.phase is self.server.phase is Phase.OPEN
        return self

    def ready_for(self, message: Message) -> Pair:
        """Bring the pair to the phase in which `message` may be sent."""
        if message.TYPE == "hello":
            return self
        self.send(CLIENT, self.hello)
        return self if message.TYPE == "welcome" else self.send_welcome()

    def send_welcome(self) -> Pair:
        self.send(SERVER, self.welcome)
        return self


def opened() -> Pair:
    return Pair().handshake()


def peer_error(connection: Connection, data: bytes) -> PeerError:
    connection.receive_data(data)
    with pytest.raises(PeerError) as caught:
        connection.next_message()
    return caught.value


def frame_of_body(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


# -- exact bytes, both ways --------------------------------------------------------------------

WIRE_TABLE: list[tuple[Role, Message, str]] = [
    (
        CLIENT,
        Hello(version=1, name="ann"),
        "0000002d 85 a474797065 a568656c6c6f a776657273696f6e 01 a46e616d65 a3616e6e"
        " a5746f6b656e c0 a6726573756d65 c0",
    ),
    (
        SERVER,
        Welcome(version=1, session="s1", server="arbiter"),
        "00000031 84 a474797065 a777656c636f6d65 a776657273696f6e 01 a773657373696f6e"
        " a27331 a6736572766572 a761726269746572",
    ),
    (CLIENT, Ping(nonce=5), "00000012 82 a474797065 a470696e67 a56e6f6e6365 05"),
    (SERVER, Pong(nonce=5), "00000012 82 a474797065 a4706f6e67 a56e6f6e6365 05"),
    (CLIENT, ListGames(), "00000011 81 a474797065 aa6c6973745f67616d6573"),
    (
        CLIENT,
        Seek(game="kings-court", time={"move": 10.0}),
        "0000005a 87 a474797065 a47365656b a467616d65 ab6b696e67732d636f757274"
        " a76f7074696f6e73 80 a474696d65 81a46d6f7665cb4024000000000000 a568696e7473"
        " c3 a7696c6c6567616c a7666f7266656974 a86f70706f6e656e74 c0",
    ),
    (
        CLIENT,
        Move(match=7, move="B4C4"),
        "0000001c 83 a474797065 a46d6f7665 a56d61746368 07 a46d6f7665 a442344334",
    ),
    (CLIENT, Resign(match=70000), "00000018 82 a474797065 a672657369676e a56d61746368 ce00011170"),
    (CLIENT, Watch(match=300), "00000015 82 a474797065 a57761746368 a56d61746368 cd012c"),
    (
        SERVER,
        YourTurn(match=7, ply=0, state={"turn": 0}, legal=["B4C4", "B6C6"], time_left=10.0),
        "00000055 87 a474797065 a9796f75725f7475726e a56d61746368 07 a3706c79 00"
        " a57374617465 81a47475726e00 a56c6567616c 92a442344334a442364336"
        " a974696d655f6c656674 cb4024000000000000 a6636c6f636b73 c0",
    ),
    (
        SERVER,
        MoveAccepted(match=7, ply=1, move="B4C4", elapsed=0.5),
        "00000059 87 a474797065 ad6d6f76655f6163636570746564 a56d61746368 07 a3706c79"
        " 01 a46d6f7665 a442344334 a7656c6170736564 cb3fe0000000000000"
        " ac636f6d70656e736174696f6e cb0000000000000000 a6636c6f636b73 c0",
    ),
    (
        SERVER,
        Error(code="not_your_turn", message="wait", ref="move", match=7),
        "0000003c 85 a474797065 a56572726f72 a4636f6465 ad6e6f745f796f75725f7475726e"
        " a76d657373616765 a477616974 a3726566 a46d6f7665 a56d61746368 07",
    ),
    (
        SERVER,
        GameOver(
            match=7, result="win", winner="white", reason="resigned", state={}, moves=["B4C4"]
        ),
        "00000052 87 a474797065 a967616d655f6f766572 a56d61746368 07 a6726573756c74"
        " a377696e a677696e6e6572 a57768697465 a6726561736f6e a872657369676e6564"
        " a57374617465 80 a56d6f766573 91a442344334",
    ),
]


@pytest.mark.parametrize(("sender", "message", "hex_bytes"), WIRE_TABLE)
def test_send_gives_exactly_these_bytes(sender: Role, message: Message, hex_bytes: str) -> None:
    pair = Pair().ready_for(message)
    assert pair.end(sender).send(message) == bytes.fromhex(hex_bytes)


@pytest.mark.parametrize(("sender", "message", "hex_bytes"), WIRE_TABLE)
def test_these_bytes_decode_whole(sender: Role, message: Message, hex_bytes: str) -> None:
    receiver = Pair().ready_for(message).end(sender.peer)
    receiver.receive_data(bytes.fromhex(hex_bytes))
    assert receiver.next_message() == message
    assert receiver.next_message() is NEED_DATA


@pytest.mark.parametrize(("sender", "message", "hex_bytes"), WIRE_TABLE)
def test_these_bytes_decode_byte_by_byte(sender: Role, message: Message, hex_bytes: str) -> None:
    receiver = Pair().ready_for(message).end(sender.peer)
    data = bytes.fromhex(hex_bytes)
    for index in range(len(data) - 1):
        receiver.receive_data(data[index : index + 1])
        assert receiver.next_message() is NEED_DATA
    receiver.receive_data(data[-1:])
    assert receiver.next_message() == message


@pytest.mark.parametrize(("sender", "message", "hex_bytes"), WIRE_TABLE)
def test_these_bytes_decode_with_the_next_frame_trailing(
    sender: Role, message: Message, hex_bytes: str
) -> None:
    receiver = Pair().ready_for(message).end(sender.peer)
    receiver.receive_data(bytes.fromhex(hex_bytes) + PING_FRAME[:7])
    assert receiver.next_message() == message
    assert receiver.next_message() is NEED_DATA
    receiver.receive_data(PING_FRAME[7:])
    assert receiver.next_message() == Ping(nonce=1)


# -- every error code this package raises ------------------------------------------------------

MOVE = {"type": "move", "match": 1, "move": "B4C4"}
ERROR_INPUTS = [
    # (bytes an open server connection receives, code, fatal)
    ((65537).to_bytes(4, "big"), ErrorCode.FRAME_TOO_LARGE, True),
    (PING_FRAME[:9], ErrorCode.TRUNCATED_FRAME, True),  # then EOF, fed by the test
    (frame_of_body(b"\xc1"), ErrorCode.BAD_MSGPACK, False),
    (frame_of_body(b"\x91\x01"), ErrorCode.NOT_A_MAP, False),
    (encode_frame({"match": 1}), ErrorCode.MISSING_TYPE, False),
    (encode_frame({"type": "castle"}), ErrorCode.UNKNOWN_TYPE, False),
    (encode_frame({"type": "welcome"}), ErrorCode.WRONG_DIRECTION, False),
    (encode_frame(HELLO.to_wire()), ErrorCode.OUT_OF_ORDER, False),
    (encode_frame({"type": "move", "match": 1}), ErrorCode.MISSING_FIELD, False),
    (encode_frame({**MOVE, "promote": "Q"}), ErrorCode.UNKNOWN_FIELD, False),
    (encode_frame({**MOVE, "match": -1}), ErrorCode.BAD_FIELD, False),
    (encode_frame({"type": "retire", "name": "bot", "version": 1}), ErrorCode.NEEDS_VERSION, False),
]


def test_error_table_covers_every_code_this_package_raises() -> None:
    raised_here = {code for code, info in ERROR_CODES.items() if info.raised_by == "protocol"}
    assert {code for _, code, _ in ERROR_INPUTS} == raised_here


@pytest.mark.parametrize(("data", "code", "fatal"), ERROR_INPUTS)
def test_each_error_code_with_its_fatal_flag(data: bytes, code: ErrorCode, fatal: bool) -> None:
    server = opened().server
    server.receive_data(data)
    if code is ErrorCode.TRUNCATED_FRAME:
        server.receive_data(b"")
    with pytest.raises(PeerError) as caught:
        server.next_message()
    assert (caught.value.code, caught.value.fatal) == (code, fatal)
    assert server.dead == fatal
    assert ERROR_CODES[code].closes == fatal


@pytest.mark.parametrize(("data", "code", "fatal"), [e for e in ERROR_INPUTS if not e[2]])
def test_recoverable_error_skips_only_the_bad_frame(
    data: bytes, code: ErrorCode, fatal: bool
) -> None:
    server = opened().server
    error = peer_error(server, data + PING_FRAME)
    assert error.code is code
    assert server.next_message() == Ping(nonce=1)
    assert server.phase is Phase.OPEN


@pytest.mark.parametrize(("data", "code", "fatal"), [e for e in ERROR_INPUTS if e[2]])
def test_fatal_error_repeats_but_the_explanation_can_still_be_sent(
    data: bytes, code: ErrorCode, fatal: bool
) -> None:
    server = opened().server
    server.receive_data(data)
    server.receive_data(b"")
    with pytest.raises(PeerError) as first:
        server.next_message()
    for _ in range(3):
        with pytest.raises(PeerError) as again:
            server.next_message()
        assert again.value is first.value
    frame = server.send(Error.from_peer_error(first.value))
    client = Connection(CLIENT)
    client.receive_data(frame)
    received = client.next_message()
    assert isinstance(received, Error)
    assert received.code == code.value


def test_peer_error_quotes_the_frame_for_the_error_reply() -> None:
    server = opened().server
    error = peer_error(server, encode_frame({**MOVE, "match": 12, "move": 5}))
    assert Error.from_peer_error(error) == Error(
        code="bad_field", message=str(error), ref="move", match=12
    )


# -- order, both directions --------------------------------------------------------------------


def test_server_refuses_requests_before_hello_and_stays_in_start() -> None:
    pair = Pair()
    for request in (Move(match=1, move="B4C4"), ListGames(), Seek(game="amazons")):
        error = peer_error(pair.server, encode_frame(request.to_wire()))
        assert error.code is ErrorCode.OUT_OF_ORDER
        assert pair.server.phase is Phase.START
    pair.handshake()


def test_client_refuses_server_messages_before_welcome() -> None:
    pair = Pair()
    pair.send(CLIENT, HELLO)
    turn = YourTurn(match=1, ply=0, state={}, legal=None, time_left=1.0)
    error = peer_error(pair.client, encode_frame(turn.to_wire()))
    assert (error.code, error.ref, error.match) == (ErrorCode.OUT_OF_ORDER, "your_turn", 1)
    assert pair.client.phase is Phase.GREETING


def test_second_hello_and_second_welcome_are_refused_by_the_receiver() -> None:
    pair = opened()
    assert peer_error(pair.server, encode_frame(HELLO.to_wire())).code is ErrorCode.OUT_OF_ORDER
    assert peer_error(pair.client, encode_frame(WELCOME.to_wire())).code is ErrorCode.OUT_OF_ORDER


def test_client_refuses_a_message_only_clients_send() -> None:
    pair = opened()
    error = peer_error(pair.client, encode_frame(Move(match=1, move="a").to_wire()))
    assert error.code is ErrorCode.WRONG_DIRECTION


@pytest.mark.parametrize(
    ("role", "message", "code"),
    [
        (CLIENT, Move(match=1, move="B4C4"), ErrorCode.OUT_OF_ORDER),
        (CLIENT, ListGames(), ErrorCode.OUT_OF_ORDER),
        (SERVER, WELCOME, ErrorCode.OUT_OF_ORDER),  # welcome before hello
        (SERVER, Games(games=[]), ErrorCode.OUT_OF_ORDER),
        (CLIENT, WELCOME, ErrorCode.WRONG_DIRECTION),
        (SERVER, HELLO, ErrorCode.WRONG_DIRECTION),
    ],
)
def test_our_own_out_of_order_send_is_a_local_bug(
    role: Role, message: Message, code: ErrorCode
) -> None:
    connection = Connection(role)
    with pytest.raises(LocalProtocolError) as caught:
        connection.send(message)
    assert caught.value.code is code
    assert connection.phase is Phase.START


def test_our_own_second_hello_is_a_local_bug() -> None:
    pair = opened()
    with pytest.raises(LocalProtocolError):
        pair.client.send(HELLO)
    with pytest.raises(LocalProtocolError):
        pair.server.send(WELCOME)


def test_keepalive_and_errors_pass_before_the_handshake() -> None:
    pair = Pair()
    assert pair.send(CLIENT, Ping(nonce=3)) == Ping(nonce=3)
    assert pair.send(SERVER, Pong(nonce=3)) == Pong(nonce=3)
    assert pair.send(SERVER, Error(code="out_of_order", message="say hello")).TYPE == "error"
    pair.send(CLIENT, HELLO)
    assert pair.send(SERVER, Ping()) == Ping(nonce=0)
    assert pair.send(SERVER, Error(code="bad_name", message="taken")).TYPE == "error"
    assert pair.client.phase is Phase.GREETING


def test_a_refused_hello_does_not_start_the_handshake() -> None:
    pair = Pair()
    error = peer_error(pair.server, encode_frame({**HELLO.to_wire(), "name": ""}))
    assert error.code is ErrorCode.BAD_FIELD
    assert pair.server.phase is Phase.START
    pair.handshake()


def test_the_limit_is_the_receivers_own_so_big_frames_can_still_be_sent() -> None:
    moves = [f"A{n}B{n}" for n in range(20_000)]  # a very long game's record, > 64 KiB
    over = GameOver(match=1, result="draw", winner=None, reason="r", state={}, moves=moves)
    frame = opened().server.send(over)
    assert len(frame) > 64 * 1024
    roomy = Pair(max_frame=1024 * 1024).handshake()
    roomy.client.receive_data(frame)
    assert roomy.client.next_message() == over
    strict = opened().client
    error = peer_error(strict, frame)
    assert (error.code, error.fatal) == (ErrorCode.FRAME_TOO_LARGE, True)


def test_send_refuses_what_is_not_a_message() -> None:
    with pytest.raises(TypeError):
        Connection(CLIENT).send({"type": "ping"})  # type: ignore[arg-type]


def test_role_must_be_a_role() -> None:
    with pytest.raises(TypeError):
        Connection("client")  # type: ignore[arg-type]


# -- the end of the stream ---------------------------------------------------------------------


def test_clean_eof_closes_and_stays_closed() -> None:
    pair = opened()
    pair.server.receive_data(PING_FRAME)
    pair.server.receive_data(b"")
    assert pair.server.next_message() == Ping(nonce=1)
    assert pair.server.next_message() is CLOSED
    assert pair.server.next_message() is CLOSED
    assert pair.server.phase is Phase.CLOSED
    assert not pair.server.dead


def test_nothing_can_be_sent_after_the_peer_closed() -> None:
    pair = opened()
    pair.server.receive_data(b"")
    assert pair.server.next_message() is CLOSED
    with pytest.raises(LocalProtocolError) as caught:
        pair.server.send(Ping())
    assert caught.value.code is ErrorCode.OUT_OF_ORDER


def test_eof_in_the_middle_of_a_frame_is_fatal() -> None:
    server = opened().server
    server.receive_data(PING_FRAME[:-1])
    assert server.next_message() is NEED_DATA
    server.receive_data(b"")
    with pytest.raises(PeerError) as caught:
        server.next_message()
    assert (caught.value.code, caught.value.fatal, server.dead) == (
        ErrorCode.TRUNCATED_FRAME,
        True,
        True,
    )


def test_repr_names_role_and_phase() -> None:
    pair = opened()
    assert repr(pair.client) == "<Connection client v1 OPEN>"
    peer_error(pair.server, (10**6).to_bytes(4, "big"))
    assert repr(pair.server) == "<Connection server v1 dead>"


# -- a whole conversation ----------------------------------------------------------------------


def test_a_short_match_crosses_the_pipe_intact() -> None:
    pair = opened()
    script: list[tuple[Role, Message]] = [
        (CLIENT, Seek(game="kings-court", time={"move": 10})),
        (SERVER, YourTurn(match=1, ply=0, state={"b": [0, 1]}, legal=["B4C4"], time_left=10)),
        (CLIENT, Move(match=1, move="b4c4")),
        (SERVER, MoveAccepted(match=1, ply=1, move="B4C4", elapsed=0.25)),
        (CLIENT, Watch(match=1)),
        (CLIENT, Resign(match=1)),
        (
            SERVER,
            GameOver(
                match=1,
                result="win",
                winner="second",
                reason="first resigned",
                state={"b": [0, 1]},
                moves=["B4C4"],
            ),
        ),
    ]
    for sender, message in script:
        assert pair.send(sender, message) == message


# -- hypothesis --------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(message=messages(), data=st.data())
def test_any_valid_message_round_trips_through_send_and_next_message(
    message: Message, data: st.DataObject
) -> None:
    sender = data.draw(st.sampled_from(sorted(message.SENDERS, key=lambda role: role.value)))
    pair = Pair(version=PROTOCOL_VERSION).ready_for(message)
    frame = pair.end(sender).send(message)
    receiver = pair.end(sender.peer)
    receiver.receive_data(frame)
    received = receiver.next_message()
    assert received == message
    assert encode_frame(received.to_wire(PROTOCOL_VERSION)) == frame, "the encoding is canonical"
    assert pair.client.phase is pair.server.phase


FRAMES = st.one_of(
    messages().map(lambda message: encode_frame(message.to_wire())),
    st.binary(max_size=40).map(frame_of_body),
    st.binary(max_size=12),
)


@st.composite
def wire_soup(draw: st.DrawFn) -> bytes:
    """Mostly well-framed bytes, some valid messages, then maybe one byte changed."""
    soup = bytearray(b"".join(draw(st.lists(FRAMES, max_size=6))))
    if soup and draw(st.booleans()):
        soup[draw(st.integers(0, len(soup) - 1))] = draw(st.integers(0, 255))
    return bytes(soup)


def run_server_on(data: bytes, chunk: int, greet: bool) -> list[Any]:
    """Feed `data` to a server connection in chunks; every outcome it produced."""
    server = Connection(SERVER, max_frame=512)
    if greet:
        server.receive_data(encode_frame(HELLO.to_wire()))
    outcomes: list[Any] = []
    pieces = [data[i : i + chunk] for i in range(0, len(data), chunk)] + [b""]
    for piece in pieces:
        server.receive_data(piece)
        while True:
            try:
                outcome = server.next_message()
            except PeerError as error:  # anything else escaping fails the test
                outcomes.append(error)
                if error.fatal:
                    return outcomes
                continue
            outcomes.append(outcome)
            if outcome is NEED_DATA or outcome is CLOSED:
                break
    return outcomes


@pytest.mark.long
@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=400) | wire_soup(), chunk=st.integers(1, 64), greet=st.booleans())
def test_any_bytes_give_messages_sentinels_or_peer_errors(
    data: bytes, chunk: int, greet: bool
) -> None:
    outcomes = run_server_on(data, chunk, greet)
    for outcome in outcomes:
        assert isinstance(outcome, Message | PeerError) or outcome in (NEED_DATA, CLOSED)
        if isinstance(outcome, Message):
            assert SERVER not in outcome.SENDERS or outcome.TYPE in {"ping", "pong"}
    last = outcomes[-1]
    assert last is CLOSED or (isinstance(last, PeerError) and last.fatal)


def test_every_message_type_is_exercised_by_the_generators() -> None:
    assert set(MESSAGE_TYPES) == {cls.TYPE for cls in MESSAGE_TYPES.values()}
