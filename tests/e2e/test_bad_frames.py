"""A server facing garbage on the wire: each fault earns its error code and the server stays up."""

from __future__ import annotations

import struct

import msgpack
import trio

from tests.e2e.helpers import Dial, frame, hello, packed, seek


async def test_oversized_frame_is_refused_from_its_header_and_the_connection_closed(
    dial: Dial,
) -> None:
    peer = await dial.raw()
    await peer.stream.send_all(struct.pack(">I", 10 * 1024 * 1024))  # a header, no body
    with trio.fail_after(5):
        error = await peer.read_frame()
        assert error is not None
        assert error["code"] == "frame_too_large"
        assert await peer.read_frame() is None


async def test_recoverable_garbage_gets_error_codes_and_the_connection_goes_on(
    dial: Dial,
) -> None:
    peer = await dial.raw()
    await hello(peer)
    cases = [
        (frame(b"\xc1"), "bad_msgpack"),
        (frame(msgpack.packb([1, 2, 3])), "not_a_map"),
        (packed(name="no type"), "missing_type"),
        (packed(type="teleport"), "unknown_type"),
        (
            packed(type="your_turn", match=1, ply=0, state={}, legal=None, time_left=1.0),
            "wrong_direction",
        ),
        (packed(type="move", match=1), "missing_field"),
        (packed(type="move", match="one", move="B4C4"), "bad_field"),
        (packed(type="move", match=1, move="B4C4", extra=1), "unknown_field"),
        (packed(type="hello", version=1, name="again"), "out_of_order"),
        (packed(type="move", match=99, move="B4C4"), "unknown_match"),
        (packed(type="seek", game="chess"), "unknown_game"),
        (packed(type="seek", game="kings-court", options={"board": 9}), "bad_option"),
        (packed(type="seek", game="kings-court", time={"move": -1}), "bad_time_control"),
    ]
    with trio.fail_after(10):
        for data, code in cases:
            await peer.stream.send_all(data)
            error = await peer.read_frame()
            assert error is not None, code
            assert error["type"] == "error", (code, error)
            assert error["code"] == code, (code, error)
            assert isinstance(error["message"], str)
            assert error["message"]
        await peer.stream.send_all(packed(type="ping", nonce=42))
        assert await peer.read_frame() == {"type": "pong", "nonce": 42}


async def test_requests_before_the_handshake_are_out_of_order(dial: Dial) -> None:
    peer = await dial.raw()
    await peer.stream.send_all(packed(type="seek", game="kings-court"))
    with trio.fail_after(5):
        error = await peer.read_frame()
    assert error is not None
    assert error["code"] == "out_of_order"


async def test_wrong_protocol_version_is_refused(dial: Dial) -> None:
    peer = await dial.raw()
    await peer.stream.send_all(packed(type="hello", version=99, name="future"))
    with trio.fail_after(5):
        error = await peer.read_frame()
        assert error is not None
        assert error["code"] == "version_mismatch"
        assert await peer.read_frame() is None


async def test_too_many_bad_frames_close_the_connection(dial: Dial) -> None:
    peer = await dial.raw()
    await peer.stream.send_all(frame(b"\xc1") * 25)
    codes = []
    with trio.fail_after(5):
        while (error := await peer.read_frame()) is not None:
            codes.append(error["code"])
    assert codes[-1] == "too_many_errors"
    assert codes.count("bad_msgpack") == len(codes) - 1 < 25


async def test_the_server_still_pairs_players_after_all_that(dial: Dial) -> None:
    for junk in (struct.pack(">I", 1 << 30), frame(b"\xc1") * 30, b"\x00\x00"):
        peer = await dial.raw()
        await peer.stream.send_all(junk)
        await peer.stream.aclose()
    first, second = await dial.client("a"), await dial.client("b")
    assert (await seek(first)).TYPE == "seeking"
    assert (await seek(second)).TYPE == "match_started"
