"""Error codes are the wire's stable vocabulary; blame and fatality follow from the code."""

from __future__ import annotations

import pytest

from arbiter.protocol import (
    ERROR_CODES,
    FATAL_CODES,
    ErrorCode,
    LocalProtocolError,
    PeerError,
    ProtocolError,
)
from arbiter.protocol._errors import MAX_SENTENCE, short_repr

WIRE_CODES = {
    "frame_too_large", "truncated_frame", "bad_msgpack", "not_a_map", "missing_type",
    "unknown_type", "wrong_direction", "out_of_order", "missing_field", "unknown_field",
    "bad_field", "version_mismatch", "bad_name", "unknown_game", "bad_option",
    "bad_time_control", "unknown_seek", "unknown_session", "unknown_match", "not_your_match",
    "not_your_turn", "invalid_move", "illegal_move", "game_over", "unknown_tournament",
    "bad_tournament", "not_allowed", "too_many_errors", "server_shutdown", "internal_error",
    "hello_timeout", "too_slow", "ping_timeout", "too_many_connections", "rate_limited",
    "session_replaced",
    "output_limit", "too_many_seeks", "already_watching", "bad_opponent", "needs_version",
    "bad_submission", "unknown_submission",
}  # fmt: skip


def test_every_agreed_code_exists_with_its_exact_wire_string() -> None:
    assert {code.value for code in ErrorCode} == WIRE_CODES
    assert ErrorCode("bad_field") is ErrorCode.BAD_FIELD
    assert ErrorCode.BAD_FIELD == "bad_field"  # a StrEnum: the wire carries the plain string


def test_every_code_is_documented_with_who_raises_it_and_whether_it_closes() -> None:
    assert list(ERROR_CODES) == list(ErrorCode)
    for code, info in ERROR_CODES.items():
        assert info.raised_by in {"protocol", "server"}, code
        assert info.meaning.endswith("."), code


def test_fatal_codes_are_the_two_that_lose_the_frame_boundary() -> None:
    assert {ErrorCode.FRAME_TOO_LARGE, ErrorCode.TRUNCATED_FRAME} == FATAL_CODES
    for code in FATAL_CODES:
        assert ERROR_CODES[code].closes


@pytest.mark.parametrize("code", list(ErrorCode))
def test_peer_error_fatality_follows_from_its_code(code: ErrorCode) -> None:
    assert PeerError(code, "x").fatal == (code in FATAL_CODES)


def test_error_carries_code_sentence_and_context() -> None:
    error = PeerError("bad_field", "move.match must be an integer", ref="move", match=3)
    assert error.code is ErrorCode.BAD_FIELD
    assert str(error) == "move.match must be an integer"
    assert (error.ref, error.match, error.fatal) == ("move", 3, False)
    assert repr(error) == "PeerError('bad_field', 'move.match must be an integer')"


def test_blame_is_in_the_type() -> None:
    assert issubclass(PeerError, ProtocolError)
    assert issubclass(LocalProtocolError, ProtocolError)
    assert not issubclass(LocalProtocolError, PeerError)
    assert not issubclass(PeerError, LocalProtocolError)


def test_relabelling_a_local_complaint_keeps_code_and_sentence() -> None:
    local = LocalProtocolError(ErrorCode.OUT_OF_ORDER, "a client may not send 'move'")
    peer = PeerError.blame_peer(local, ref="move", match=1)
    assert isinstance(peer, PeerError)
    assert (peer.code, str(peer), peer.ref, peer.match) == (local.code, str(local), "move", 1)


def test_unknown_code_is_refused_when_raising() -> None:
    with pytest.raises(ValueError, match="'no_such_code' is not a valid ErrorCode"):
        LocalProtocolError("no_such_code", "x")


def test_sentence_always_fits_an_error_frame() -> None:
    error = PeerError(ErrorCode.BAD_FIELD, "x" * 5000)
    assert len(str(error)) == MAX_SENTENCE
    assert str(error).endswith("...")


def test_short_repr_cuts_hostile_values() -> None:
    assert short_repr("abc") == "'abc'"
    assert len(short_repr("y" * 1000)) == 60
