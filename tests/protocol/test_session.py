"""The phase table: every transition, and refusals judged the same whichever side asks."""

from __future__ import annotations

import pytest

from arbiter.protocol import (
    CLIENT,
    MESSAGE_TYPES,
    SERVER,
    TRANSITIONS,
    ErrorCode,
    LocalProtocolError,
)
from arbiter.protocol._session import Phase, Session

START, GREETING, OPEN, CLOSED = Phase.START, Phase.GREETING, Phase.OPEN, Phase.CLOSED
CLIENT_REQUESTS = {
    "list_games", "seek", "cancel_seek", "move", "resign", "watch", "lobby",
    "tournament_create", "tournament_start", "tournament_status", "submit_begin", "submit_part",
    "submit_end", "submissions", "retire", "submission_fetch", "worker", "host_ended", "logs",
    "out_of_cpu", "ladder", "ladder_join", "ladder_leave",
}  # fmt: skip
SERVER_REPLIES = {
    "error", "games", "seeking", "seek_cancelled", "match_started", "your_turn",
    "move_accepted", "move_refused", "opponent_moved", "game_over", "watching", "resumed",
    "tournament", "lobby_listing", "submit_ready", "submitted", "submission_list", "retired",
    "archive_part", "host", "match_logs", "ladder_table", "ladder_joined",
}  # fmt: skip


def session_in(phase: Phase) -> Session:
    session = Session()
    session.phase = phase
    return session


def refusal(session: Session, sender: object, kind: str) -> LocalProtocolError:
    before = session.phase
    with pytest.raises(LocalProtocolError) as caught:
        session.process(sender, MESSAGE_TYPES[kind])  # type: ignore[arg-type]
    assert session.phase is before, "a refused message must not move the phase"
    return caught.value


# -- the table as agreed -----------------------------------------------------------------------


def test_table_has_exactly_the_agreed_rows() -> None:
    allowed = {
        (phase, role): set(rows[role]) for phase, rows in TRANSITIONS.items() for role in rows
    }
    assert allowed == {
        (START, CLIENT): {"hello", "ping", "pong"},
        (START, SERVER): {"error", "ping", "pong"},
        (GREETING, CLIENT): {"ping", "pong"},
        (GREETING, SERVER): {"welcome", "error", "ping", "pong"},
        (OPEN, CLIENT): CLIENT_REQUESTS | {"ping", "pong"},
        (OPEN, SERVER): SERVER_REPLIES | {"ping", "pong"},
        (CLOSED, CLIENT): set(),
        (CLOSED, SERVER): set(),
    }


def test_only_hello_and_welcome_move_the_phase() -> None:
    moves = {
        (phase, kind, after)
        for phase, rows in TRANSITIONS.items()
        for row in rows.values()
        for kind, after in row.items()
        if after is not phase
    }
    assert moves == {(START, "hello", GREETING), (GREETING, "welcome", OPEN)}


def test_table_agrees_with_the_message_directions() -> None:
    for phase, rows in TRANSITIONS.items():
        for role, row in rows.items():
            for kind in row:
                assert role in MESSAGE_TYPES[kind].SENDERS, (phase, role, kind)


def test_every_message_is_allowed_somewhere_for_each_of_its_senders() -> None:
    for kind, cls in MESSAGE_TYPES.items():
        for role in cls.SENDERS:
            assert any(kind in rows[role] for rows in TRANSITIONS.values()), (kind, role)


# -- transitions -------------------------------------------------------------------------------


def test_handshake_walks_start_greeting_open() -> None:
    session = Session()
    assert session.phase is START
    session.process(CLIENT, MESSAGE_TYPES["hello"])
    assert session.phase is GREETING
    session.process(SERVER, MESSAGE_TYPES["welcome"])
    assert session.phase is OPEN


@pytest.mark.parametrize("phase", list(Phase))
def test_eof_closes_from_every_phase(phase: Phase) -> None:
    session = session_in(phase)
    session.process_eof()
    assert session.phase is CLOSED


@pytest.mark.parametrize("phase", [START, GREETING, OPEN])
@pytest.mark.parametrize("kind", ["ping", "pong"])
def test_keepalive_is_allowed_both_ways_until_closed(phase: Phase, kind: str) -> None:
    session = session_in(phase)
    session.process(CLIENT, MESSAGE_TYPES[kind])
    session.process(SERVER, MESSAGE_TYPES[kind])
    assert session.phase is phase


def test_server_may_refuse_before_and_during_the_handshake() -> None:
    for phase in (START, GREETING):
        session = session_in(phase)
        session.process(SERVER, MESSAGE_TYPES["error"])
        assert session.phase is phase, "an error does not move the phase"


def test_check_alone_never_moves_the_phase() -> None:
    session = Session()
    session.check(CLIENT, MESSAGE_TYPES["hello"])
    assert session.phase is START


# -- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(CLIENT_REQUESTS))
def test_client_requests_before_the_handshake_are_out_of_order(kind: str) -> None:
    for phase in (START, GREETING):
        error = refusal(session_in(phase), CLIENT, kind)
        assert error.code is ErrorCode.OUT_OF_ORDER


@pytest.mark.parametrize("kind", sorted(SERVER_REPLIES - {"error"}))
def test_server_messages_before_welcome_are_out_of_order(kind: str) -> None:
    for phase in (START, GREETING):
        assert refusal(session_in(phase), SERVER, kind).code is ErrorCode.OUT_OF_ORDER


def test_second_hello_and_second_welcome_are_out_of_order() -> None:
    assert refusal(session_in(GREETING), CLIENT, "hello").code is ErrorCode.OUT_OF_ORDER
    assert refusal(session_in(OPEN), CLIENT, "hello").code is ErrorCode.OUT_OF_ORDER
    assert refusal(session_in(OPEN), SERVER, "welcome").code is ErrorCode.OUT_OF_ORDER


def test_welcome_before_hello_is_out_of_order() -> None:
    assert refusal(Session(), SERVER, "welcome").code is ErrorCode.OUT_OF_ORDER


@pytest.mark.parametrize("role", [CLIENT, SERVER])
def test_nothing_may_be_sent_once_closed(role: object) -> None:
    error = refusal(session_in(CLOSED), role, "ping")
    assert error.code is ErrorCode.OUT_OF_ORDER
    assert "closed" in str(error)


@pytest.mark.parametrize(
    ("sender", "kind"),
    [(CLIENT, "your_turn"), (CLIENT, "welcome"), (CLIENT, "error"), (SERVER, "move")],
)
def test_a_type_the_sender_never_sends_is_wrong_direction_in_any_phase(
    sender: object, kind: str
) -> None:
    for phase in (START, GREETING, OPEN):
        error = refusal(session_in(phase), sender, kind)
        assert error.code is ErrorCode.WRONG_DIRECTION


def test_refusal_sentence_says_what_was_allowed() -> None:
    error = refusal(Session(), CLIENT, "move")
    assert str(error) == (
        "a client may not send 'move' before the handshake (phase START; "
        "allowed: hello, ping, pong)"
    )
