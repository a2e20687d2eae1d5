"""The framing layer alone: length prefix, size limit, msgpack body, EOF handling."""

from __future__ import annotations

import itertools
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.protocol import (
    CLOSED,
    DEFAULT_MAX_FRAME,
    NEED_DATA,
    ErrorCode,
    FrameDecoder,
    LocalProtocolError,
    PeerError,
    body_type,
    decode_body,
    encode_frame,
)

PING = {"type": "ping", "nonce": 1}
# 00 00 00 12 | 82 (map, 2) | a4 "type" | a4 "ping" | a5 "nonce" | 01
PING_FRAME = bytes.fromhex("00000012 82 a474797065 a470696e67 a56e6f6e6365 01")


def frame_of_body(body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + body


def drain(decoder: FrameDecoder) -> list[Any]:
    """Every answer up to and including the first sentinel."""
    answers = []
    while True:
        answer = decoder.next_frame()
        answers.append(answer)
        if answer is NEED_DATA or answer is CLOSED:
            return answers


def test_encode_frame_is_length_prefix_then_msgpack_map() -> None:
    assert encode_frame(PING) == PING_FRAME
    assert msgpack.unpackb(PING_FRAME[4:]) == PING


def test_decoding_whole_frame() -> None:
    decoder = FrameDecoder()
    decoder.feed(PING_FRAME)
    assert drain(decoder) == [PING, NEED_DATA]
    assert decoder.buffered == 0


def test_decoding_byte_by_byte_needs_data_until_the_last_byte() -> None:
    decoder = FrameDecoder()
    for byte in PING_FRAME[:-1]:
        decoder.feed(bytes([byte]))
        assert decoder.next_frame() is NEED_DATA
    decoder.feed(PING_FRAME[-1:])
    assert drain(decoder) == [PING, NEED_DATA]


def test_decoding_leaves_trailing_bytes_of_the_next_frame() -> None:
    decoder = FrameDecoder()
    decoder.feed(PING_FRAME + PING_FRAME[:5])
    assert drain(decoder) == [PING, NEED_DATA]
    assert decoder.buffered == 5
    decoder.feed(PING_FRAME[5:])
    assert drain(decoder) == [PING, NEED_DATA]


def test_next_body_gives_each_frame_undecoded_with_the_same_answers_otherwise() -> None:
    decoder = FrameDecoder()
    decoder.feed(PING_FRAME + PING_FRAME[:5])
    assert decoder.next_body() == PING_FRAME[4:]
    assert decoder.next_body() is NEED_DATA
    decoder.feed(PING_FRAME[5:])
    decoder.feed(b"")
    assert decoder.next_body() == PING_FRAME[4:]
    assert decoder.next_body() is CLOSED


def test_next_body_raises_a_dead_decoders_error_again() -> None:
    decoder = FrameDecoder(max_frame=10)
    decoder.feed((11).to_bytes(4, "big"))
    with pytest.raises(PeerError) as caught:
        decoder.next_body()
    with pytest.raises(PeerError) as again:
        decoder.next_body()
    assert again.value is caught.value


def test_clean_eof_between_frames_is_closed_every_time() -> None:
    decoder = FrameDecoder()
    decoder.feed(PING_FRAME)
    decoder.feed(b"")
    assert drain(decoder) == [PING, CLOSED]
    assert decoder.next_frame() is CLOSED
    decoder.feed(b"")  # trio keeps returning b"" after EOF: harmless
    assert decoder.next_frame() is CLOSED


def test_data_after_eof_is_a_bug_of_the_caller() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"")
    with pytest.raises(LocalProtocolError) as caught:
        decoder.feed(b"\x00")
    assert caught.value.code is ErrorCode.OUT_OF_ORDER


def test_frame_of_exactly_the_limit_is_accepted() -> None:
    body = msgpack.packb({"k": "x" * 100})
    decoder = FrameDecoder(max_frame=len(body))
    decoder.feed(frame_of_body(body))
    assert decoder.next_frame() == {"k": "x" * 100}


def test_oversized_frame_is_refused_from_the_header_alone_and_kills_the_decoder() -> None:
    decoder = FrameDecoder(max_frame=100)
    decoder.feed((101).to_bytes(4, "big"))  # no body sent at all
    with pytest.raises(PeerError) as caught:
        decoder.next_frame()
    error = caught.value
    assert (error.code, error.fatal) == (ErrorCode.FRAME_TOO_LARGE, True)
    assert "101" in str(error)
    assert "100" in str(error)
    assert decoder.dead
    decoder.feed(PING_FRAME)  # dropped: the boundary is lost
    assert decoder.buffered == 0
    with pytest.raises(PeerError) as again:
        decoder.next_frame()
    assert again.value is error


def test_default_limit_is_64_kib() -> None:
    decoder = FrameDecoder()
    assert decoder.max_frame == DEFAULT_MAX_FRAME == 65536
    decoder.feed((65537).to_bytes(4, "big"))
    with pytest.raises(PeerError, match="65537"):
        decoder.next_frame()


@pytest.mark.parametrize("cut", [1, 3, 4, 10, len(PING_FRAME) - 1])
def test_eof_inside_a_frame_is_fatal_truncation(cut: int) -> None:
    decoder = FrameDecoder()
    decoder.feed(PING_FRAME[:cut])
    assert decoder.next_frame() is NEED_DATA
    decoder.feed(b"")
    with pytest.raises(PeerError) as caught:
        decoder.next_frame()
    assert (caught.value.code, caught.value.fatal) == (ErrorCode.TRUNCATED_FRAME, True)
    with pytest.raises(PeerError) as again:
        decoder.next_frame()
    assert again.value is caught.value


@pytest.mark.parametrize(
    "body",
    [
        b"",  # an empty frame holds no value
        b"\xc1",  # the one byte msgpack never uses
        b"\x82\xa1a",  # map cut short inside its own frame
        msgpack.packb({"a": 1}) + b"\x00",  # a second value after the map
        b"\xa2\xff\xfe",  # a str that is not UTF-8
    ],
)
def test_bad_msgpack_skips_only_that_frame(body: bytes) -> None:
    decoder = FrameDecoder()
    decoder.feed(frame_of_body(body) + PING_FRAME)
    with pytest.raises(PeerError) as caught:
        decoder.next_frame()
    assert (caught.value.code, caught.value.fatal) == (ErrorCode.BAD_MSGPACK, False)
    assert drain(decoder) == [PING, NEED_DATA]


@pytest.mark.parametrize("value", [[1, 2], "ping", 7, None, True])
def test_not_a_map_skips_only_that_frame(value: Any) -> None:
    decoder = FrameDecoder()
    decoder.feed(frame_of_body(msgpack.packb(value)) + PING_FRAME)
    with pytest.raises(PeerError) as caught:
        decoder.next_frame()
    assert (caught.value.code, caught.value.fatal) == (ErrorCode.NOT_A_MAP, False)
    assert drain(decoder) == [PING, NEED_DATA]


def test_maps_with_any_keys_decode_so_the_schema_layer_can_name_the_problem() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_frame({1: "x", "type": "ping"}))  # type: ignore[dict-item]
    assert decoder.next_frame() == {1: "x", "type": "ping"}


def test_unencodable_payload_is_a_local_bug() -> None:
    with pytest.raises(LocalProtocolError) as caught:
        encode_frame({"type": "ping", "nonce": object()})
    assert caught.value.code is ErrorCode.BAD_FIELD
    with pytest.raises(LocalProtocolError):
        encode_frame({"n": 2**64})


def test_sender_refuses_a_frame_its_peer_would_refuse() -> None:
    with pytest.raises(LocalProtocolError) as caught:
        encode_frame({"s": "x" * 200}, max_frame=100)
    assert caught.value.code is ErrorCode.FRAME_TOO_LARGE


@pytest.mark.parametrize("limit", [0, -1, True, 1.5])
def test_limit_must_be_a_positive_int(limit: Any) -> None:
    with pytest.raises(ValueError, match="max_frame must be a positive integer"):
        FrameDecoder(max_frame=limit)


def test_consuming_many_frames_from_one_buffer_keeps_order() -> None:
    frames = [{"type": "ping", "nonce": n} for n in range(500)]
    decoder = FrameDecoder()
    decoder.feed(b"".join(encode_frame(f) for f in frames))
    assert drain(decoder)[:-1] == frames


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=300), cuts=st.lists(st.integers(0, 300), max_size=6))
def test_any_bytes_in_any_chunks_give_frames_sentinels_or_peer_errors(
    data: bytes, cuts: list[int]
) -> None:
    decoder = FrameDecoder(max_frame=256)
    bounds = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    chunks = [data[a:b] for a, b in itertools.pairwise(bounds)] + [b""]
    for chunk in chunks:
        decoder.feed(chunk)
        for _ in range(len(data) + 2):
            try:
                answer = decoder.next_frame()
            except PeerError as error:
                if error.fatal:
                    assert decoder.dead
                    return
                continue
            assert isinstance(answer, dict) or answer in (NEED_DATA, CLOSED)
            if answer is NEED_DATA or answer is CLOSED:
                break


PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


TYPE_NAMES = st.text("abcdefghijklmnopqrstuvwxyz_", max_size=40)
"""Type names as the protocol's are: short, lower case."""


@given(kind=TYPE_NAMES, rest=st.dictionaries(st.text(max_size=8), PLAIN, max_size=6))
def test_the_type_written_first_is_read_from_the_body_alone(
    kind: str, rest: dict[str, Any]
) -> None:
    frame = {"type": kind, **{key: value for key, value in rest.items() if key != "type"}}
    body = encode_frame(frame)[4:]
    assert body_type(body) == decode_body(body)["type"] == kind


@given(body=st.binary(max_size=80) | PLAIN.map(lambda value: msgpack.packb(value)))
def test_a_body_that_does_not_begin_with_its_type_reads_as_none_and_never_raises(
    body: bytes,
) -> None:
    kind = body_type(body)
    if kind is not None:  # it did begin so: a full decoding agrees, where the body decodes
        try:
            decoded = decode_body(body)
        except PeerError:
            return
        assert isinstance(decoded, dict)
        assert next(iter(decoded)) == "type"
