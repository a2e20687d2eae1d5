"""Versions 1 and 2 on one `Connection`: negotiated by `hello`, version 1's frames unchanged,
and version 2's rule for growth (a client ignores fields it does not know in what the server
sends; the server stays strict about what clients send)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arbiter.protocol import (
    CLIENT,
    SERVER,
    VERSIONS,
    Connection,
    Encoded,
    ErrorCode,
    GameOver,
    LocalProtocolError,
    Message,
    MoveAccepted,
    OpponentMoved,
    PeerError,
    Phase,
    Position,
    Retire,
    SubmissionList,
    Trusted,
    encode_frame,
)
from tests.protocol.test_connection import Pair
from tests.protocol.test_messages import PLAIN, messages

OVER = GameOver(
    match=3,
    result="win",
    winner="black",
    reason="white ran out of time (game clock 60+0)",
    state={"board": ["..", "wb"]},
    moves=["A1A2"],
    termination="time",
    clocks_ms=[0, 41_250],
)
V1_OVER = dataclasses.replace(OVER, termination=None, clocks_ms=None)
"""`OVER` as a version 1 client is told it: without the fields version 2 added."""


@pytest.mark.parametrize("version", VERSIONS)
def test_both_ends_speak_the_version_the_hello_asked_for(version: int) -> None:
    pair = Pair(version=version).handshake()
    assert pair.client.version == pair.server.version == version


def test_a_version_the_package_does_not_speak_leaves_the_server_in_the_first() -> None:
    """The server answers it with `version_mismatch`, an `error` every version shares."""
    pair = Pair(version=3)
    pair.send(CLIENT, pair.hello)
    assert pair.server.version == 1


def test_version_1_frames_are_the_frames_version_1_always_had() -> None:
    """A message holding version 2's fields goes to a version 1 peer byte for byte as a message
    without them, and a version 1 peer decodes it as that message."""
    v1 = Pair(version=1).handshake()
    frame = v1.server.send(OVER)
    assert frame == encode_frame(V1_OVER.to_wire())
    v1.client.receive_data(frame)
    assert v1.client.next_message() == V1_OVER


def test_version_2_carries_how_the_game_ended_and_the_final_clocks() -> None:
    assert Pair(version=2).ready_for(OVER).send(SERVER, OVER) == OVER


def test_a_message_missing_a_field_of_version_2_cannot_be_sent_in_version_2() -> None:
    accepted = MoveAccepted(match=1, ply=1, move="A1B1", elapsed=0.5)
    pair = Pair(version=2).ready_for(accepted)
    with pytest.raises(LocalProtocolError) as caught:
        pair.server.send(accepted)
    assert caught.value.code is ErrorCode.MISSING_FIELD
    assert "move_accepted.position" in str(caught.value)


def test_one_position_is_shared_by_every_frame_of_a_move_and_encoded_per_version() -> None:
    position = Position({"board": ["w.", ".b"]}, "black")
    accepted = MoveAccepted(match=1, ply=1, move="A1B1", elapsed=0.5, position=position)
    moved = OpponentMoved(match=1, ply=1, seat="white", move="A1B1", elapsed=0.5, position=position)
    assert accepted.position is moved.position is position, "checked once, not once a frame"
    shared = Encoded(moved)
    frames = {version: Pair(version=version).ready_for(moved) for version in VERSIONS}
    sent = {version: pair.server.send(shared) for version, pair in frames.items()}
    assert sent[1] == encode_frame(moved.to_wire(1))
    assert sent[2] == encode_frame(moved.to_wire(2))
    assert moved.to_wire(2)["position"] == {"state": {"board": ["w.", ".b"]}, "to_move": "black"}
    assert shared.frame_for(2) is sent[2], "encoded once per version"


def test_a_position_is_checked_when_built() -> None:
    with pytest.raises(LocalProtocolError) as caught:
        Position({"board": b"bytes"}, None)
    assert caught.value.code is ErrorCode.BAD_FIELD


UNKNOWN_NAMES = st.text(min_size=1, max_size=12).filter(lambda name: name != "type")


def with_unknown_field(message: Message, version: int, name: str, value: Any) -> dict[str, Any]:
    wire = message.to_wire(version)
    return {**wire, name: value} if name not in wire else wire


def server_messages_of_version_2() -> st.SearchStrategy[Message]:
    return messages().filter(lambda message: SERVER in message.SENDERS)


@settings(max_examples=200, deadline=None)
@given(message=server_messages_of_version_2(), name=UNKNOWN_NAMES, value=PLAIN)
def test_a_version_2_client_ignores_fields_it_does_not_know(
    message: Message, name: str, value: Any
) -> None:
    pair = Pair(version=2).ready_for(message)
    frame = encode_frame(with_unknown_field(message, 2, name, value))
    pair.client.receive_data(frame)
    assert pair.client.next_message() == message


@settings(max_examples=200, deadline=None)
@given(message=server_messages_of_version_2(), name=UNKNOWN_NAMES, value=PLAIN)
def test_a_version_1_client_refuses_fields_it_does_not_know(
    message: Message, name: str, value: Any
) -> None:
    assume(message.SINCE_VERSION == 1)
    pair = Pair(version=1).ready_for(message)
    wire = with_unknown_field(message, 1, name, value)
    pair.client.receive_data(encode_frame(wire))
    if len(wire) == len(message.to_wire(1)):
        return  # the name drawn is a field of the message
    with pytest.raises(PeerError) as caught:
        pair.client.next_message()
    assert caught.value.code is ErrorCode.UNKNOWN_FIELD


@settings(max_examples=200, deadline=None)
@given(
    message=messages().filter(lambda message: CLIENT in message.SENDERS),
    version=st.sampled_from(VERSIONS),
    name=UNKNOWN_NAMES,
    value=PLAIN,
)
def test_the_server_refuses_fields_it_does_not_know_in_every_version(
    message: Message, version: int, name: str, value: Any
) -> None:
    version = max(version, message.SINCE_VERSION)
    pair = Pair(version=version).ready_for(message)
    if message.TYPE == "hello":
        pair = Pair(version=version)
        message = pair.hello
    wire = with_unknown_field(message, version, name, value)
    if len(wire) == len(message.to_wire(version)):
        return  # the name drawn is a field of the message
    pair.server.receive_data(encode_frame(wire))
    with pytest.raises(PeerError) as caught:
        pair.server.next_message()
    assert caught.value.code is ErrorCode.UNKNOWN_FIELD


def test_a_client_of_version_2_still_refuses_a_bad_value_in_a_known_field() -> None:
    pair = Pair(version=2).ready_for(OVER)
    wire = {**OVER.to_wire(2), "clocks_ms": [1.5, 2]}
    pair.client.receive_data(encode_frame(wire))
    with pytest.raises(PeerError) as caught:
        pair.client.next_message()
    assert caught.value.code is ErrorCode.BAD_FIELD


def test_connection_repr_names_its_version() -> None:
    assert repr(Connection(SERVER)) == "<Connection server v1 START>"


def test_a_version_1_client_is_told_a_type_needs_version_2_and_stays_open() -> None:
    pair = Pair(version=1).handshake()
    with pytest.raises(LocalProtocolError, match="needs protocol version 2"):
        pair.client.send(Retire(name="bot", version=1))
    pair.server.receive_data(encode_frame({"type": "submissions", "game": None}))
    with pytest.raises(PeerError) as caught:
        pair.server.next_message()
    assert (caught.value.code, caught.value.fatal) == (ErrorCode.NEEDS_VERSION, False)
    assert pair.server.phase is Phase.OPEN
    with pytest.raises(LocalProtocolError, match="needs protocol version 2"):
        pair.server.send(SubmissionList(submissions=[]))


@settings(max_examples=300, deadline=None)
@given(message=server_messages_of_version_2())
def test_a_trusted_frame_is_the_checked_messages_frame_byte_for_byte(message: Message) -> None:
    values = {name: getattr(message, name) for name, _ in message.FIELDS}
    trusted = Trusted(type(message), **values)
    for version in VERSIONS:
        if version < message.SINCE_VERSION:
            continue
        pair = Pair(version=version).ready_for(message)
        try:
            expected: bytes | ErrorCode = encode_frame(message.to_wire(version))
        except LocalProtocolError as refused:  # a later field left out
            expected = refused.code
        try:
            sent: bytes | ErrorCode = pair.server.send(trusted)
        except LocalProtocolError as refused:
            sent = refused.code
        assert sent == expected


def test_a_trusted_frame_takes_the_defaults_and_names_what_it_lacks() -> None:
    position = Position({"board": ["w.", ".b"]}, "black")
    left_out = Trusted(MoveAccepted, match=1, ply=1, move="A1B1", elapsed=0.5, position=position)
    checked = MoveAccepted(match=1, ply=1, move="A1B1", elapsed=0.5, position=position)
    assert all(left_out.frame_for(v) == encode_frame(checked.to_wire(v)) for v in VERSIONS)
    with pytest.raises(LocalProtocolError) as caught:
        Trusted(MoveAccepted, match=1, ply=1, move="A1B1", elapsed=0.5, speed=3).frame_for(1)
    assert caught.value.code is ErrorCode.UNKNOWN_FIELD
    assert "speed" in str(caught.value)
    with pytest.raises(LocalProtocolError) as caught:
        Trusted(MoveAccepted, match=1, ply=1, elapsed=0.5).frame_for(1)
    assert caught.value.code is ErrorCode.MISSING_FIELD
    assert "move" in str(caught.value)
    with pytest.raises(LocalProtocolError) as caught:  # the client never sends it
        Pair(version=2).handshake().client.send(left_out)
    assert caught.value.code is ErrorCode.WRONG_DIRECTION
