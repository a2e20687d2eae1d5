"""The message schema: one checked dataclass per type, and wire maps to messages and back.

`messages()` draws valid messages of every type from the field specs themselves, so a new field
is covered by the properties without touching this file; test_connection.py reuses it.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter import protocol
from arbiter.protocol import (
    CLIENT,
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    SERVER,
    Error,
    ErrorCode,
    GameOver,
    Hello,
    LocalProtocolError,
    MatchStarted,
    Message,
    Move,
    PeerError,
    Ping,
    Position,
    Resumed,
    Seek,
    Watching,
    YourTurn,
    message_from_wire,
)
from arbiter.protocol._messages import MAX_COUNT, FieldSpec

SCHEMA_CODES = {
    ErrorCode.NOT_A_MAP,
    ErrorCode.MISSING_TYPE,
    ErrorCode.UNKNOWN_TYPE,
    ErrorCode.MISSING_FIELD,
    ErrorCode.UNKNOWN_FIELD,
    ErrorCode.BAD_FIELD,
}

# -- strategies drawn from the specs -----------------------------------------------------------

NAMES = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12)
PRINTABLE = st.characters(exclude_categories=("C", "Z"), include_characters=" ")
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
)
PLAIN = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=4),
    max_leaves=12,
)


def values_for(spec: FieldSpec) -> st.SearchStrategy[Any]:
    base = _base_values(spec)
    return st.none() | base if spec.nullable else base


def _text(spec: FieldSpec, cap: int = 80) -> st.SearchStrategy[str]:
    alphabet = PRINTABLE if spec.printable else st.characters(exclude_categories=("Cs",))
    return st.text(alphabet, min_size=spec.min_len, max_size=min(spec.max_len, cap))


def _base_values(spec: FieldSpec) -> st.SearchStrategy[Any]:
    match spec.kind:
        case "count":
            return st.integers(0, MAX_COUNT)
        case "seconds":
            return st.floats(0, MAX_COUNT) | st.integers(0, 10**6)
        case "bool":
            return st.booleans()
        case "clocks":
            return st.lists(st.floats(0, MAX_COUNT) | st.integers(0, 10**6), min_size=2, max_size=2)
        case "text":
            return _text(spec)
        case "choice":
            return st.sampled_from(spec.choices)
        case "texts":
            return st.lists(
                _text(spec, cap=12),
                min_size=spec.min_items,
                max_size=min(spec.max_items, 6),
                unique=spec.distinct,
            )
        case "options":
            return st.dictionaries(NAMES, SCALARS, max_size=4)
        case "time":
            numbers = st.floats(-1e6, 1e6) | st.integers(0, 10**6)
            return st.dictionaries(NAMES, numbers, max_size=3)
        case "data":
            return st.dictionaries(st.text(max_size=8), PLAIN, max_size=5)
        case "maps":
            return st.lists(st.dictionaries(NAMES, PLAIN, max_size=4), max_size=3)
        case "clocks_ms":
            return st.lists(st.integers(0, MAX_COUNT), min_size=2, max_size=2)
        case "blob":
            return st.binary(max_size=64)
        case "position":
            return st.builds(
                Position, st.dictionaries(st.text(max_size=8), PLAIN, max_size=5), st.none() | NAMES
            )
    raise AssertionError(f"no strategy for {spec.kind}")


@st.composite
def messages_of(draw: st.DrawFn, cls: type[Message]) -> Message:
    fields = {name: draw(values_for(spec)) for name, spec in cls.FIELDS}
    if cls in (MatchStarted, Resumed):
        fields["seat"] = draw(st.sampled_from(fields["seats"]))
    if cls is GameOver:
        fields["winner"] = draw(NAMES) if fields["result"] == "win" else None
    return cls(**fields)


def messages(types: list[type[Message]] | None = None) -> st.SearchStrategy[Message]:
    return st.sampled_from(types or list(MESSAGE_TYPES.values())).flatmap(messages_of)


def refused(data: Any) -> PeerError:
    with pytest.raises(PeerError) as caught:
        message_from_wire(data)
    assert not caught.value.fatal
    return caught.value


# -- the registry ------------------------------------------------------------------------------

CLIENT_TYPES = [
    "hello", "list_games", "seek", "cancel_seek", "move", "resign", "watch", "lobby",
    "tournament_create", "tournament_start", "tournament_status", "submit_begin", "submit_part",
    "submit_end", "submissions", "retire", "submission_fetch", "worker", "host_ended", "logs",
    "out_of_cpu", "ladder", "ladder_join", "ladder_leave",
]  # fmt: skip
SERVER_TYPES = [
    "welcome", "error", "games", "seeking", "seek_cancelled", "match_started", "your_turn",
    "move_accepted", "move_refused", "opponent_moved", "game_over", "watching", "resumed",
    "tournament", "lobby_listing", "submit_ready", "submitted", "submission_list", "retired",
    "archive_part", "host", "match_logs", "ladder_table", "ladder_joined",
]  # fmt: skip


def test_registry_holds_every_agreed_type_with_its_direction() -> None:
    assert set(MESSAGE_TYPES) == {*CLIENT_TYPES, "ping", "pong", *SERVER_TYPES}
    for kind in CLIENT_TYPES:
        assert {CLIENT} == MESSAGE_TYPES[kind].SENDERS, kind
    for kind in SERVER_TYPES:
        assert {SERVER} == MESSAGE_TYPES[kind].SENDERS, kind
    for kind in ("ping", "pong"):
        assert {CLIENT, SERVER} == MESSAGE_TYPES[kind].SENDERS


@pytest.mark.parametrize("kind", list(MESSAGE_TYPES))
def test_class_is_the_camel_case_of_its_type_and_exported(kind: str) -> None:
    cls = MESSAGE_TYPES[kind]
    assert kind == cls.TYPE
    assert cls.__name__ == "".join(part.title() for part in kind.split("_"))
    assert getattr(protocol, cls.__name__) is cls


@settings(max_examples=50, deadline=None)
@given(message=messages())
def test_messages_are_frozen_and_slotted(message: Message) -> None:
    assert not hasattr(message, "__dict__")
    if message.FIELDS:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(message, message.FIELDS[0][0], None)


# -- wire form ---------------------------------------------------------------------------------


def test_to_wire_puts_type_first_then_every_field_in_order() -> None:
    wire = Hello(version=1, name="ann").to_wire()
    assert list(wire.items()) == [
        ("type", "hello"),
        ("version", 1),
        ("name", "ann"),
        ("token", None),
        ("resume", None),
    ]


def test_optional_fields_may_be_left_out_on_the_wire() -> None:
    assert message_from_wire({"type": "ping"}) == Ping(nonce=0)
    assert message_from_wire({"type": "hello", "version": 1, "name": "ann"}) == Hello(1, "ann")
    seek = message_from_wire({"type": "seek", "game": "amazons"})
    assert seek == Seek(game="amazons", options={}, time={}, hints=True)
    error = message_from_wire({"type": "error", "code": "x", "message": "y"})
    assert error == Error(code="x", message="y", ref=None, match=None)


def test_defaults_are_fresh_per_message() -> None:
    assert Seek(game="a").options is not Seek(game="a").options


@settings(max_examples=300, deadline=None)
@given(message=messages())
def test_every_valid_message_survives_wire_map_and_msgpack(message: Message) -> None:
    wire = message.to_wire(PROTOCOL_VERSION)
    assert message_from_wire(wire, PROTOCOL_VERSION) == message
    decoded = msgpack.unpackb(msgpack.packb(wire), raw=False)
    assert message_from_wire(decoded, PROTOCOL_VERSION) == message


@settings(max_examples=300, deadline=None)
@given(message=messages())
def test_version_1_carries_exactly_the_fields_version_1_defined(message: Message) -> None:
    """What a version 1 peer gets of a message: its first fields alone, read back without the
    later ones."""
    later = {name: None for name, since in message.SINCE.items() if since > 1}
    wire = message.to_wire(1)
    assert list(wire) == ["type", *(name for name, _ in message.FIELDS if name not in later)]
    assert message_from_wire(wire) == dataclasses.replace(message, **later)  # type: ignore[type-var]


# -- schema errors from the wire ---------------------------------------------------------------


@pytest.mark.parametrize("data", [[], "move", 3, None])
def test_not_a_map(data: Any) -> None:
    assert refused(data).code is ErrorCode.NOT_A_MAP


def test_missing_type() -> None:
    error = refused({"match": 1, "move": "a1"})
    assert (error.code, error.ref, error.match) == (ErrorCode.MISSING_TYPE, None, 1)


@pytest.mark.parametrize("kind", ["castle", "", "MOVE", 3, None, ["move"]])
def test_unknown_type(kind: Any) -> None:
    error = refused({"type": kind})
    assert error.code is ErrorCode.UNKNOWN_TYPE
    assert "types: hello, list_games" in str(error)


def test_missing_field_names_it_and_quotes_the_frame() -> None:
    error = refused({"type": "move", "match": 4})
    assert (error.code, error.ref, error.match) == (ErrorCode.MISSING_FIELD, "move", 4)
    assert "'move'" in str(error)


def test_missing_fields_are_all_listed() -> None:
    error = refused({"type": "welcome"})
    assert error.code is ErrorCode.MISSING_FIELD
    assert "version, session, server" in str(error)


@pytest.mark.parametrize("key", ["mach", 1, "Type", b"type"])
def test_unknown_field(key: Any) -> None:
    error = refused({"type": "resign", "match": 2, key: 1})
    assert (error.code, error.ref, error.match) == (ErrorCode.UNKNOWN_FIELD, "resign", 2)
    assert "fields: match" in str(error)


def test_list_games_has_no_fields_at_all() -> None:
    assert refused({"type": "list_games", "game": "x"}).code is ErrorCode.UNKNOWN_FIELD


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


BAD_FIELDS = [
    # (type, field, bad value)
    ("move", "match", -1),
    ("move", "match", 2**53 + 1),
    ("move", "match", True),  # a bool is not an integer here
    ("move", "match", 1.0),
    ("move", "match", "1"),
    ("move", "move", "x" * 1025),
    ("move", "move", None),
    ("move", "move", b"B4C4"),
    ("hello", "version", -1),
    ("hello", "name", ""),
    ("hello", "name", "x" * 65),
    ("hello", "name", "ann\n"),
    ("hello", "name", "\x00"),
    ("hello", "token", "t" * 129),
    ("hello", "token", 5),
    ("seek", "game", "g" * 65),
    ("seek", "options", []),
    ("seek", "options", {"": 1}),
    ("seek", "options", {1: 1}),
    ("seek", "options", {"k" * 65: 1}),
    ("seek", "options", {"size": [8]}),
    ("seek", "options", {"size": {"a": 1}}),
    ("seek", "options", {f"o{i}": 1 for i in range(65)}),
    ("seek", "time", {"move": "10"}),
    ("seek", "time", {"move": True}),
    ("seek", "time", {"move": None}),
    ("seek", "time", {"move": math.nan}),
    ("seek", "time", {"move": math.inf}),
    ("seek", "hints", 1),
    ("seek", "hints", None),
    ("seek", "opponent", ""),
    ("seek", "opponent", "bob\n"),
    ("seek", "opponent", "b" * 65),
    ("lobby", "follow", 1),
    ("lobby", "follow", None),
    ("lobby_listing", "seeks", [1]),
    ("lobby_listing", "matches", [{"match": b"1"}]),
    ("lobby_listing", "tournaments", [{}] * 51),
    ("lobby_listing", "seeks_left_out", -1),
    ("ping", "nonce", -5),
    ("your_turn", "time_left", -0.5),
    ("your_turn", "time_left", math.nan),
    ("your_turn", "time_left", "10"),
    ("your_turn", "time_left", False),
    ("your_turn", "legal", "B4C4"),
    ("your_turn", "legal", ["B4C4", 7]),
    ("your_turn", "legal", ["x" * 1025]),
    ("your_turn", "state", []),
    ("your_turn", "state", {1: "a"}),
    ("your_turn", "state", {"bin": b"\x00"}),
    ("your_turn", "state", {"f": math.inf}),
    ("your_turn", "state", {"deep": nested(40)}),
    ("match_started", "seats", ["white"]),
    ("match_started", "seats", ["white", "white"]),
    ("match_started", "seats", ["a", "b", "c"]),
    ("match_started", "players", ["ann"]),
    ("match_started", "hints", "yes"),
    ("game_over", "result", "loss"),
    ("game_over", "result", "WIN"),
    ("game_over", "moves", None),
    ("games", "games", [1]),
    ("games", "games", [{1: 2}]),
    ("games", "games", {"name": "x"}),
    ("error", "code", ""),
    ("error", "message", "m" * 1025),
    ("error", "ref", "r" * 65),
]  # fmt: skip

VALID = {
    "move": {"match": 1, "move": "B4C4"},
    "hello": {"version": 1, "name": "ann", "token": None},
    "seek": {"game": "kings-court", "options": {}, "time": {}, "hints": True},
    "ping": {"nonce": 0},
    "your_turn": {"match": 1, "ply": 0, "state": {}, "legal": None, "time_left": 1.0},
    "match_started": {
        "match": 1, "game": "g", "seat": "white", "seats": ["white", "black"],
        "players": ["ann", "bob"], "options": {}, "time": {}, "hints": True, "state": {},
    },
    "game_over": {
        "match": 1, "result": "draw", "winner": None, "reason": "r", "state": {}, "moves": [],
    },
    "games": {"games": []},
    "lobby": {"follow": True},
    "lobby_listing": {"seeks": [], "matches": [], "tournaments": []},
    "error": {"code": "c", "message": "m", "ref": None, "match": None},
}  # fmt: skip


@pytest.mark.parametrize(("kind", "name", "value"), BAD_FIELDS)
def test_bad_field_from_the_wire(kind: str, name: str, value: Any) -> None:
    data = {"type": kind, **VALID[kind], name: value}
    error = refused(data)
    assert (error.code, error.ref) == (ErrorCode.BAD_FIELD, kind)
    assert str(error).startswith(f"{kind}.{name}")


@pytest.mark.parametrize(("kind", "name", "value"), BAD_FIELDS)
def test_bad_field_cannot_be_built_locally_either(kind: str, name: str, value: Any) -> None:
    with pytest.raises(LocalProtocolError) as caught:
        MESSAGE_TYPES[kind](**{**VALID[kind], name: value})
    assert caught.value.code is ErrorCode.BAD_FIELD


@pytest.mark.parametrize(
    ("kind", "name", "value"),
    [
        ("move", "match", 0),
        ("move", "match", 2**53),
        ("move", "move", "x" * 1024),
        ("move", "move", ""),
        ("hello", "name", "x" * 64),
        ("hello", "name", "Ann Lee"),
        ("hello", "name", "Zoë 王"),
        ("hello", "token", "t" * 128),
        ("seek", "options", {"seed": 2**64 - 1, "size": 8, "fast": True, "v": "x", "n": None}),
        ("seek", "time", {"move": 0.05, "base": 300}),
        ("seek", "opponent", "Zoë 王"),
        ("lobby_listing", "seeks", [{"seek": 1, "unpaired": None}] * 50),
        ("your_turn", "state", {"board": [[0, 1], [None, "x"]], "turn": 0, "f": 0.5}),
        ("your_turn", "legal", []),
        ("your_turn", "state", {"deep": nested(30)}),
        ("error", "code", "c" * 64),
    ],
)
def test_values_at_the_limits_are_accepted(kind: str, name: str, value: Any) -> None:
    message = message_from_wire({"type": kind, **VALID[kind], name: value})
    assert getattr(message, name) == value


def test_lone_surrogates_cannot_be_built_since_no_peer_could_decode_them() -> None:
    with pytest.raises(LocalProtocolError):
        Move(match=1, move="\ud800")
    with pytest.raises(LocalProtocolError):
        YourTurn(match=1, ply=0, state={"k": ["\udfff"]}, legal=None, time_left=1.0)


def test_float_fields_accept_ints_and_store_floats() -> None:
    turn = message_from_wire({"type": "your_turn", **VALID["your_turn"], "time_left": 10})
    assert isinstance(turn, YourTurn)
    assert type(turn.time_left) is float
    assert turn.time_left == 10.0
    seek = message_from_wire({"type": "seek", "game": "g", "time": {"move": 10, "inc": 0.5}})
    assert isinstance(seek, Seek)
    assert seek.time == {"move": 10.0, "inc": 0.5}
    assert all(type(v) is float for v in seek.time.values())


def test_tuples_from_game_code_become_lists_so_the_message_equals_its_decoded_copy() -> None:
    started = MatchStarted(
        match=1, game="g", seat="b", seats=("a", "b"), players=("ann", "bob"),  # type: ignore[arg-type]
        options={}, time={}, hints=False, state={},
    )  # fmt: skip
    assert started.seats == ["a", "b"]
    assert type(started.players) is list
    assert message_from_wire(started.to_wire()) == started


def test_str_enum_values_are_stored_as_plain_strings() -> None:
    error = Error(code=ErrorCode.ILLEGAL_MOVE, message="m")
    assert type(error.code) is str
    assert error.code == "illegal_move"


def test_match_started_seat_must_be_one_of_the_seats() -> None:
    data = {"type": "match_started", **VALID["match_started"], "seat": "red"}
    error = refused(data)
    assert error.code is ErrorCode.BAD_FIELD
    assert "match_started.seat" in str(error)


@pytest.mark.parametrize(
    ("result", "winner"), [("win", None), ("draw", "white"), ("both_forfeit", "black")]
)
def test_game_over_has_a_winner_exactly_for_a_win(result: str, winner: str | None) -> None:
    error = refused({"type": "game_over", **VALID["game_over"], "result": result, "winner": winner})
    assert error.code is ErrorCode.BAD_FIELD
    assert "game_over.winner" in str(error)


def test_game_over_winner_is_required_on_the_wire_even_when_nil() -> None:
    data = {"type": "game_over", **VALID["game_over"]}
    del data["winner"]
    assert refused(data).code is ErrorCode.MISSING_FIELD


def test_watching_needs_two_seats_and_two_players() -> None:
    data = {
        "type": "watching", "match": 3, "game": "amazons", "seats": ["white", "black"],
        "players": ["ann", "bob"], "options": {}, "time": {"move": 5.0},
        "state": {"board": []}, "moves": ["d1-d7/g7"],
    }  # fmt: skip
    assert isinstance(message_from_wire(data), Watching)
    assert refused({**data, "players": ["ann"]}).code is ErrorCode.BAD_FIELD


def test_error_answers_a_peer_error_with_its_code_sentence_and_context() -> None:
    peer = refused({"type": "move", "match": 9})
    assert Error.from_peer_error(peer) == Error(
        code="missing_field", message=str(peer), ref="move", match=9
    )


def test_refusal_sentences_are_short_even_for_huge_values() -> None:
    error = refused({"type": "move", "match": 1, "move": "x" * 60_000})
    assert len(str(error)) < 200


# -- hypothesis: arbitrary maps ----------------------------------------------------------------

FIELD_NAMES = sorted({name for cls in MESSAGE_TYPES.values() for name, _ in cls.FIELDS})
ANY_VALUE = PLAIN | st.binary(max_size=4) | st.integers(-(2**70), 2**70)
ANY_KEY = st.sampled_from(FIELD_NAMES) | st.text(max_size=6) | st.integers(-3, 3)
ANY_TYPE = st.sampled_from(list(MESSAGE_TYPES)) | st.text(max_size=12) | ANY_VALUE


def decoded(data: dict[Any, Any]) -> Message | PeerError:
    """The message `data` makes, or the error it earns: a property test accepts either."""
    try:
        return message_from_wire(data)
    except PeerError as error:
        return error


@pytest.mark.long
@settings(max_examples=500, deadline=None)
@given(kind=ANY_TYPE, fields=st.dictionaries(ANY_KEY, ANY_VALUE, max_size=8))
def test_any_map_gives_a_message_or_a_schema_error(kind: Any, fields: dict[Any, Any]) -> None:
    data = {"type": kind, **fields}
    message = decoded(data)
    if isinstance(message, PeerError):
        assert message.code in SCHEMA_CODES
        assert not message.fatal
        assert re.fullmatch(r"[^\n]{1,1024}", str(message))
    else:
        assert kind == message.TYPE
        assert message_from_wire(message.to_wire()) == message


@settings(max_examples=300, deadline=None)
@given(message=messages(), name=st.sampled_from(FIELD_NAMES), value=ANY_VALUE)
def test_one_field_changed_gives_a_message_or_a_schema_error(
    message: Message, name: str, value: Any
) -> None:
    data = {**message.to_wire(), name: value}
    again = decoded(data)
    if isinstance(again, PeerError):
        assert again.code in SCHEMA_CODES
    else:
        assert again.to_wire().keys() == message.to_wire().keys()
