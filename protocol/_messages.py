"""Every message of the protocol: one frozen dataclass per wire `type`, checked when built.

Checking in `__post_init__` means an invalid message cannot exist: the server cannot send a
negative ply by accident, and a message decoded from the wire has passed the very same checks.
The one way around them is `protocol.Trusted`, for the frames the server sends on every move,
built from its own values of the right types (`trusted_wire`): the checks are for what a peer
sends, and for what is built from what a peer sent.
Each field carries a `FieldSpec` (its wire type, its limits in words, and the check itself), so
the validator, the spec tables in docs/protocol.md and the hypothesis strategies in the tests
all read one description and cannot disagree.

A check raises `LocalProtocolError` (whoever built a bad message is at fault); the doors where peer
data enters relabel it `PeerError`. Direction (which role may send a type) lives on the class;
*when* it may be sent lives in `_session.py`.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self, TypeVar

from arbiter.protocol._errors import ErrorCode, LocalProtocolError, PeerError, short_repr

VERSIONS = (1, 2)
"""The protocol versions this package speaks, oldest first. Version 2 adds fields (the position
after each move, how and with which clocks a game ended) and the rule for growth: a client
ignores fields it does not know in what the server sends, so a field can be added to version 2
without a new version. The server is strict about what clients send in every version."""
PROTOCOL_VERSION = VERSIONS[-1]
"""The newest version: what our clients ask for in `hello`."""
FIRST_VERSION = VERSIONS[0]
"""The version a connection speaks until its `hello` says otherwise (every version's frames
before the handshake, `error`, `ping` and `pong`, are the same)."""

MAX_COUNT = 2**53
"""Ids, counters and seconds stay within the integers a double holds exactly (JavaScript, Lua)."""
NAME_LEN = 64
"""Names, codes, game and seat names: short identifiers."""
TEXT_LEN = 1024
"""Move text (each game caps it further), reasons and error sentences."""
TOKEN_LEN = 128
MAX_HOSTED_LOG = 16_000
"""Characters of a hosted agent's stderr a worker reports: a traceback's worth, well inside a
client's frame."""
MAX_ITEMS = 64 * 1024
"""Items in a move list; a 64 KiB frame could not hold more anyway."""
MAX_ENTRIES = 64
"""Entries in an options or time map."""
MAX_GAMES = 256
MAX_ENTRANTS = 64
"""Entrants of one tournament: 64 already make 4,032 games a round."""
MAX_LISTED = 50
"""Entries of each list of a lobby listing (the server also keeps each list under 20 KiB)."""
MAX_DEPTH = 32
"""Nesting of free-form data (game states); real states nest two or three levels."""
MSGPACK_INT = (-(2**63), 2**64 - 1)


class Role(enum.Enum):
    """Which end of the connection a peer is; the session table is indexed by the sender's role."""

    CLIENT = "client"
    SERVER = "server"

    # The session table looks a role up on every frame sent and received: members are
    # singletons, and Enum's own `__hash__` runs Python code.
    __hash__ = object.__hash__

    @property
    def peer(self) -> Role:
        return Role.SERVER if self is Role.CLIENT else Role.CLIENT

    def __repr__(self) -> str:
        return f"Role.{self.name}"


CLIENT = Role.CLIENT
SERVER = Role.SERVER
FROM_CLIENT = frozenset({CLIENT})
FROM_SERVER = frozenset({SERVER})
FROM_EITHER = frozenset({CLIENT, SERVER})


# -- field specs ---------------------------------------------------------------------------------


def _bad(where: str, expected: str, value: object) -> LocalProtocolError:
    sentence = f"{where} must be {expected}, not {short_repr(value)}"
    return LocalProtocolError(ErrorCode.BAD_FIELD, sentence)


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field's wire type and limits, in words for the spec and as parameters for the check.

    `check(value, where)` returns the value to store (ints become floats for float fields, tuples
    become lists) or raises `LocalProtocolError(bad_field)` naming `where` (`move.match`).
    """

    kind: str
    wire: str
    limits: str
    check: Callable[[Any, str], Any]
    nullable: bool = False
    min_len: int = 0
    max_len: int = 0
    min_items: int = 0
    max_items: int = 0
    choices: tuple[str, ...] = ()
    printable: bool = False
    distinct: bool = False


def count() -> FieldSpec:
    def check(value: Any, where: str) -> int:
        if type(value) is int and 0 <= value <= MAX_COUNT:
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT:
            return int(value)
        raise _bad(where, "an integer from 0 to 2**53", value)

    return FieldSpec("count", "int", "0 to 2^53", check)


def seconds() -> FieldSpec:
    def check(value: Any, where: str) -> float:
        if type(value) is float and 0.0 <= value <= MAX_COUNT:
            return value  # the common case: every move carries three or four of these
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and 0 <= value <= MAX_COUNT  # false for NaN
        ):
            return float(value)
        raise _bad(where, "a number of seconds from 0 to 2**53", value)

    return FieldSpec("seconds", "float", "0 to 2^53, an int is accepted", check)


def clock_pair() -> FieldSpec:
    expected = "a list of two numbers of seconds (one per seat, in turn order)"

    def check(value: Any, where: str) -> list[float]:
        if not isinstance(value, list | tuple) or len(value) != 2:
            raise _bad(where, expected, value)
        for item in value:
            if (
                isinstance(item, bool)
                or not isinstance(item, int | float)
                or not 0 <= item <= MAX_COUNT
            ):
                raise _bad(where, expected, item)
        return [float(item) for item in value]

    return FieldSpec(
        "clocks", "array of 2 float", "2 items, 0 to 2^53 each", check, min_items=2, max_items=2
    )


def milliseconds_pair() -> FieldSpec:
    expected = "a list of two whole numbers of milliseconds (one per seat, in turn order)"

    def check(value: Any, where: str) -> list[int]:
        if not isinstance(value, list | tuple) or len(value) != 2:
            raise _bad(where, expected, value)
        for item in value:
            if isinstance(item, bool) or not isinstance(item, int) or not 0 <= item <= MAX_COUNT:
                raise _bad(where, expected, item)
        return value if type(value) is list else list(value)

    return FieldSpec(
        "clocks_ms", "array of 2 int", "2 items, 0 to 2^53 each", check, min_items=2, max_items=2
    )


def boolean() -> FieldSpec:
    def check(value: Any, where: str) -> bool:
        if isinstance(value, bool):
            return value
        raise _bad(where, "true or false", value)

    return FieldSpec("bool", "bool", "", check)


def _is_utf8(value: str) -> bool:
    """False for a string holding lone surrogates, which no peer could decode."""
    if value.isascii():
        return True
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


def text(max_len: int, min_len: int = 0, printable: bool = False) -> FieldSpec:
    expected = f"a string of {min_len} to {max_len} characters"
    if printable:
        expected = f"a string of {min_len} to {max_len} printable characters"

    def check(value: Any, where: str) -> str:
        if isinstance(value, str) and min_len <= len(value) <= max_len and _is_utf8(value):
            if printable and not value.isprintable():
                raise _bad(where, expected, value)
            return value if type(value) is str else str.__str__(value)
        raise _bad(where, expected, value)

    limits = f"{min_len}-{max_len} chars" if min_len else f"at most {max_len} chars"
    if printable:
        limits += ", printable"
    return FieldSpec(
        "text", "str", limits, check, min_len=min_len, max_len=max_len, printable=printable
    )


def choice(*choices: str) -> FieldSpec:
    expected = "one of " + ", ".join(repr(c) for c in choices)

    def check(value: Any, where: str) -> str:
        if isinstance(value, str) and value in choices:
            return str.__str__(value)
        raise _bad(where, expected, value)

    return FieldSpec("choice", "str", expected.replace("'", '"'), check, choices=choices)


def texts(max_len: int, max_items: int, min_items: int = 0, distinct: bool = False) -> FieldSpec:
    size = f"{max_items}" if min_items == max_items else f"{min_items} to {max_items}"
    expected = f"a list of {size} strings of at most {max_len} characters"
    if distinct:
        expected += ", all different"

    def check(value: Any, where: str) -> list[str]:
        if not isinstance(value, list | tuple) or not min_items <= len(value) <= max_items:
            raise _bad(where, expected, value)
        if (
            _ascii_strings(value)
            and max(map(len, value), default=0) <= max_len
            and (not distinct or len(set(value)) == len(value))
        ):
            return value if type(value) is list else list(value)
        for item in value:
            if not isinstance(item, str) or len(item) > max_len or not _is_utf8(item):
                raise _bad(where, expected, item)
        if distinct and len(set(value)) != len(value):
            raise _bad(where, expected, value)
        return value if type(value) is list else list(value)

    limits = f"{size} items of at most {max_len} chars" + (", distinct" if distinct else "")
    return FieldSpec(
        "texts",
        "array of str",
        limits,
        check,
        max_len=max_len,
        min_items=min_items,
        max_items=max_items,
        distinct=distinct,
    )


def _check_keys(value: Any, where: str, expected: str, max_entries: int) -> dict[str, Any]:
    if not isinstance(value, dict) or len(value) > max_entries:
        raise _bad(where, expected, value)
    for key in value:
        if not isinstance(key, str) or not 0 < len(key) <= NAME_LEN or not _is_utf8(key):
            raise _bad(where, expected, key)
    return value


def _is_scalar(value: Any) -> bool:
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int):
        return MSGPACK_INT[0] <= value <= MSGPACK_INT[1]
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str) and _is_utf8(value)


def options_map() -> FieldSpec:
    expected = (
        f"a map of at most {MAX_ENTRIES} option names (1 to {NAME_LEN} characters) to nil, "
        "booleans, integers, numbers or strings"
    )

    def check(value: Any, where: str) -> dict[str, Any]:
        _check_keys(value, where, expected, MAX_ENTRIES)
        for item in value.values():
            if not _is_scalar(item) or (isinstance(item, str) and len(item) > TEXT_LEN):
                raise _bad(where, expected, item)
        checked: dict[str, Any] = value
        return checked

    limits = f"at most {MAX_ENTRIES} entries; str keys; nil/bool/int/float/str values"
    return FieldSpec("options", "map", limits, check, max_items=MAX_ENTRIES)


def time_map() -> FieldSpec:
    expected = f"a map of at most {MAX_ENTRIES} names to numbers of seconds"

    def check(value: Any, where: str) -> dict[str, float]:
        _check_keys(value, where, expected, MAX_ENTRIES)
        converted = False
        for item in value.values():
            if isinstance(item, bool) or not isinstance(item, int | float):
                raise _bad(where, expected, item)
            if not -MAX_COUNT <= item <= MAX_COUNT:
                raise _bad(where, expected, item)
            converted = converted or type(item) is not float
        return {key: float(item) for key, item in value.items()} if converted else value

    limits = f"at most {MAX_ENTRIES} entries; str keys; number values (ints become floats)"
    return FieldSpec("time", "map", limits, check, max_items=MAX_ENTRIES)


def _ascii_strings(items: Any) -> bool:
    """True when every item is an ASCII string: the common case, checked in one pass of C.

    (Hint lists and board rows run through this on every move the server sends.)
    """
    try:
        return "".join(items).isascii()
    except TypeError:
        return False


def _is_plain(value: Any, depth: int) -> bool:
    """True for data msgpack carries and every language reads the same: no bytes, no ext types.

    The exact built-in types come first, each with one test: every state the server sends runs
    through here. Subclasses (an IntEnum, an OrderedDict) take the general path below.
    """
    kind = type(value)
    if kind is str:
        text: str = value
        return text.isascii() or _is_utf8(text)
    if kind is int:
        number: int = value
        return MSGPACK_INT[0] <= number <= MSGPACK_INT[1]
    if value is None or kind is bool:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list and depth < MAX_DEPTH:
        return _ascii_strings(value) or all(_is_plain(item, depth + 1) for item in value)
    if kind is dict and depth < MAX_DEPTH and _ascii_strings(value):  # the keys
        return all(_is_plain(item, depth + 1) for item in value.values())
    return _is_plain_subclass(value, depth)


def _is_plain_subclass(value: Any, depth: int) -> bool:
    if isinstance(value, str):
        return _is_utf8(value)
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return MSGPACK_INT[0] <= value <= MSGPACK_INT[1]
    if isinstance(value, float):
        return math.isfinite(value)
    if depth >= MAX_DEPTH:
        return False
    if isinstance(value, list | tuple):
        return all(_is_plain(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(
            isinstance(key, str) and _is_utf8(key) and _is_plain(item, depth + 1)
            for key, item in value.items()
        )
    return False


def data_map() -> FieldSpec:
    expected = (
        f"a map with string keys holding plain data (nil, bool, int, float, str, arrays, maps "
        f"with string keys; at most {MAX_DEPTH} levels deep)"
    )

    last: list[Any] = [None]
    """The map checked last: one move's position is carried by several frames (the mover's,
    the opponent's, the next turn's), and the server builds them all from the same map, so
    it is walked once. Only the same object passes unchecked, and nothing changes a map the
    rules handed out as a position's data."""

    def check(value: Any, where: str) -> dict[str, Any]:
        if value is last[0]:
            return value  # type: ignore[no-any-return]  # a map, checked when it came first
        if isinstance(value, dict) and _is_plain(value, 0):
            last[0] = value
            return value
        raise _bad(where, expected, value)

    return FieldSpec("data", "map", "str keys; plain data, at most 32 levels", check)


def maps(max_items: int) -> FieldSpec:
    expected = f"a list of at most {max_items} maps with string keys holding plain data"

    def check(value: Any, where: str) -> list[dict[str, Any]]:
        if not isinstance(value, list | tuple) or len(value) > max_items:
            raise _bad(where, expected, value)
        for item in value:
            if not isinstance(item, dict) or not _is_plain(item, 1):
                raise _bad(where, expected, item)
        return value if type(value) is list else list(value)

    return FieldSpec(
        "maps", "array of map", f"at most {max_items} items", check, max_items=max_items
    )


def blob(max_len: int) -> FieldSpec:
    expected = f"binary data (msgpack bin) of at most {max_len} bytes"

    def check(value: Any, where: str) -> bytes:
        if isinstance(value, bytes | bytearray) and len(value) <= max_len:
            return value if type(value) is bytes else bytes(value)
        raise _bad(where, expected, value)

    return FieldSpec("blob", "bin", f"at most {max_len} bytes", check, max_len=max_len)


def nullable(spec: FieldSpec) -> FieldSpec:
    inner = spec.check

    def check(value: Any, where: str) -> Any:
        return None if value is None else inner(value, where)

    return dataclasses.replace(spec, wire=f"{spec.wire} or nil", check=check, nullable=True)


PART_BYTES = 48 * 1024
"""Bytes of an archive one `submit_part` or `archive_part` carries: with its few fields, well
under the 64 KiB frame every receiver takes."""
MAX_SUBMISSIONS = 100
"""Entries of a `submission_list`: an author keeps 20 versions unretired by default, and 100
entries with their log's first lines stay well within one 64 KiB frame."""
COUNT = count()
SECONDS = seconds()
CLOCKS = clock_pair()
CLOCKS_MS = milliseconds_pair()
ILLEGAL = choice("forfeit", "retry")
BOOL = boolean()
NAME = text(NAME_LEN)
PLAYER_NAME = text(NAME_LEN, min_len=1, printable=True)
SECTION = text(2 * NAME_LEN + 1, min_len=3, printable=True)
"""A class's section, `CLASS/SECTION`: a class is named as an account is, a section is short."""
CODE = text(NAME_LEN, min_len=1)
SENTENCE = text(TEXT_LEN)
MOVE_TEXT = text(TEXT_LEN)
SEATS = texts(NAME_LEN, max_items=2, min_items=2, distinct=True)
PLAYERS = texts(NAME_LEN, max_items=2, min_items=2)
MOVES = texts(TEXT_LEN, max_items=MAX_ITEMS)
ENTRANTS = texts(NAME_LEN, max_items=MAX_ENTRANTS, distinct=True)
AGENTS = texts(TEXT_LEN, max_items=MAX_ENTRANTS)
"""A local entrant may be a Player module's path or a program's command line, not only a name."""
OPTIONS = options_map()
TIME = time_map()
DATA = data_map()
SHA256 = text(64, min_len=64)
"""A content hash: SHA-256 in lowercase hex (the server checks the digits)."""
PART = blob(PART_BYTES)
JUDGED_BY = texts(NAME_LEN, max_items=2, min_items=2)
"""Which clock judged each seat: `wall` or `cpu`."""


def meta(spec: FieldSpec, since: int = FIRST_VERSION) -> dict[str, Any]:
    """Dataclass field metadata carrying `spec`: `field(metadata=meta(COUNT))`.

    `since` is the first version whose frames carry the field. A later field defaults to None:
    a message built for (or read from) an older version has no value for it, and `to_wire`
    refuses to send it without one to a peer whose version carries it, unless it is nullable:
    a nullable later field may be left out, as nil.
    """
    return {"spec": spec, "since": since}


@dataclass(frozen=True, slots=True)
class Position:
    """A position the rules computed: the game's state as data and the seat to move (None once
    the game is over), so that no client replays the rules to draw a board.

    Checked once when built, then shared: the server builds one per move and every frame that
    announces the move (the mover's, the opponent's, the spectators') carries the same object,
    so the state's check runs once per move, not once per receiver.
    """

    state: dict[str, Any]
    to_move: str | None
    wire: dict[str, Any] = field(init=False, repr=False, compare=False)
    """The map sent, built once."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "state", DATA.check(self.state, "position.state"))
        object.__setattr__(self, "to_move", SEAT_TO_MOVE.check(self.to_move, "position.to_move"))
        object.__setattr__(self, "wire", {"state": self.state, "to_move": self.to_move})


SEAT_TO_MOVE = nullable(NAME)


def position() -> FieldSpec:
    expected = "a map with `state` (a map of plain data) and `to_move` (a seat name or nil)"

    def check(value: Any, where: str) -> Position:
        if type(value) is Position:
            return value
        if not isinstance(value, dict) or "state" not in value or "to_move" not in value:
            raise _bad(where, expected, value)
        return Position(
            DATA.check(value["state"], f"{where}.state"),
            SEAT_TO_MOVE.check(value["to_move"], f"{where}.to_move"),
        )

    return FieldSpec("position", "map", "`state`: map of plain data; `to_move`: str or nil", check)


POSITION = position()


# -- the message base ----------------------------------------------------------------------------

MESSAGE_TYPES: dict[str, type[Message]] = {}
"""Every message class by its wire `type`, in the order the spec lists them."""


class Message:
    """Base of every message: a frozen, slotted dataclass that checked its fields when built."""

    __slots__ = ()

    TYPE: ClassVar[str]
    """The wire `type`."""
    SENDERS: ClassVar[frozenset[Role]]
    """The roles that may send this type; the other direction is `wrong_direction`."""
    SINCE_VERSION: ClassVar[int] = FIRST_VERSION
    """The first version with this type: a connection of an older one neither sends nor
    receives it (`needs_version`)."""
    FIELDS: ClassVar[tuple[tuple[str, FieldSpec], ...]]
    REQUIRED: ClassVar[frozenset[str]]
    """The fields version 1 requires; a later version also requires the fields it added."""
    DEFAULTS: ClassVar[dict[str, Any]]
    SINCE: ClassVar[dict[str, int]]
    """The first version that carries each field."""
    _NAMES: ClassVar[dict[int, tuple[str, ...]]]
    """Per version, the fields its frames carry, in spec order."""
    _WIRE_NAMES: ClassVar[dict[int, frozenset[str]]]
    _REQUIRED: ClassVar[dict[int, frozenset[str]]]
    _LATER: ClassVar[dict[int, tuple[tuple[str, FieldSpec], ...]]]
    """Per version, the fields it carries that version 1 does not: sent only to its peers."""
    _CHECKS: ClassVar[tuple[tuple[str, Callable[[Any, str], Any], str], ...]]
    """(field, check, `type.field` for error sentences): the server builds three messages per
    move, so nothing here is looked up or formatted per message."""

    def __post_init__(self) -> None:
        for name, check, where in self._CHECKS:
            value = getattr(self, name)
            checked = check(value, where)
            if checked is not value:
                object.__setattr__(self, name, checked)
        self._check_together()

    def _check_together(self) -> None:
        """Rules that tie fields together; the single-field limits are in `FIELDS`."""

    def to_wire(self, version: int = FIRST_VERSION) -> dict[str, Any]:
        """The msgpack map for a peer of `version`: `type` first, then every field that version
        carries (optional ones too), in spec order."""
        wire: dict[str, Any] = {"type": self.TYPE}
        for name in self._NAMES[version]:
            wire[name] = getattr(self, name)
        return self._with_later_fields(wire, version)

    @classmethod
    def trusted_wire(
        cls, values: Mapping[str, Any], version: int = FIRST_VERSION
    ) -> dict[str, Any]:
        """The map `to_wire` would give for a message of these `values` (a field left out
        takes its default), built without the checks of the values: for values the sender holds
        as the right types already (`protocol.Trusted`), never for what a peer sent. A name the
        type does not have, or a required field left out, is still refused."""
        wire: dict[str, Any] = {"type": cls.TYPE}
        defaults, given = cls.DEFAULTS, 0
        for name in cls._NAMES[version]:
            if name in values:
                wire[name] = values[name]
                given += 1
            elif name in defaults:
                wire[name] = defaults[name]
            else:
                raise LocalProtocolError(
                    ErrorCode.MISSING_FIELD, f"{cls.TYPE} is missing required field {name!r}"
                )
        if given < len(values) and not values.keys() <= cls._WIRE_NAMES[VERSIONS[-1]]:
            unknown = ", ".join(sorted(values.keys() - cls._WIRE_NAMES[VERSIONS[-1]]))
            raise LocalProtocolError(ErrorCode.UNKNOWN_FIELD, f"{cls.TYPE} has no field {unknown}")
        return cls._with_later_fields(wire, version)

    @classmethod
    def _with_later_fields(cls, wire: dict[str, Any], version: int) -> dict[str, Any]:
        """`wire` with the fields of versions after the first checked for presence, and a
        `Position` as its map."""
        for name, spec in cls._LATER[version]:
            value = wire[name]
            if value is None and not spec.nullable:
                raise LocalProtocolError(
                    ErrorCode.MISSING_FIELD,
                    f"{cls.TYPE}.{name} is required in version {version} and was not given",
                )
            if type(value) is Position:
                wire[name] = value.wire
        return wire

    @classmethod
    def from_wire(
        cls, data: Mapping[Any, Any], version: int = FIRST_VERSION, lenient: bool = False
    ) -> Self:
        """Build from a wire map of `version`; `LocalProtocolError` here, relabelled by the
        caller for peers. `lenient` drops the fields the version does not define instead of
        refusing them (a client of version 2 reading the server)."""
        if data.get("type", cls.TYPE) != cls.TYPE:
            raise LocalProtocolError(
                ErrorCode.UNKNOWN_TYPE, f"a {short_repr(data.get('type'))} map is not a {cls.TYPE}"
            )
        known = cls._WIRE_NAMES[version]
        for key in data:
            if key not in known:
                if lenient:
                    data = {key: value for key, value in data.items() if key in known}
                    break
                names = ", ".join(cls._NAMES[version]) or "none"
                raise LocalProtocolError(
                    ErrorCode.UNKNOWN_FIELD,
                    f"{cls.TYPE} has no field {short_repr(key)} (fields: {names})",
                )
        required = cls._REQUIRED[version]
        missing = [name for name in cls._NAMES[version] if name in required and name not in data]
        if missing:
            raise LocalProtocolError(
                ErrorCode.MISSING_FIELD,
                f"{cls.TYPE} is missing required field {missing[0]!r}"
                + (f" (missing: {', '.join(missing)})" if len(missing) > 1 else ""),
            )
        return cls(**{key: value for key, value in data.items() if key != "type"})


M = TypeVar("M", bound=Message)


def _default_of(member: dataclasses.Field[Any]) -> Any:
    if member.default_factory is not dataclasses.MISSING:
        return member.default_factory()
    return member.default


def _later(spec: FieldSpec) -> Callable[[Any, str], Any]:
    """The check of a field a later version added: None stands for "not given" (a message for
    an older version), checked when sent (`Message.to_wire`). A nullable field's own check
    takes None already."""
    inner = spec.check
    if spec.nullable:
        return inner

    def check(value: Any, where: str) -> Any:
        return None if value is None else inner(value, where)

    return check


def _message(cls: type[M]) -> type[M]:
    """Register a message dataclass and record its field specs for checks, docs and tests."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]  # every Message is a dataclass
    cls.FIELDS = tuple((f.name, f.metadata["spec"]) for f in fields)
    cls.SINCE = {f.name: f.metadata["since"] for f in fields}
    for f in fields:
        if cls.SINCE[f.name] > FIRST_VERSION and f.default is not None:
            raise RuntimeError(f"{cls.TYPE}.{f.name} is a later field: its default must be None")
    cls.REQUIRED = frozenset(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    cls.DEFAULTS = {f.name: _default_of(f) for f in fields if f.name not in cls.REQUIRED}
    cls._NAMES, cls._WIRE_NAMES, cls._REQUIRED, cls._LATER = {}, {}, {}, {}
    for version in VERSIONS:
        names = tuple(f.name for f in fields if cls.SINCE[f.name] <= version)
        later = tuple((name, spec) for name, spec in cls.FIELDS if 1 < cls.SINCE[name] <= version)
        cls._NAMES[version] = names
        cls._WIRE_NAMES[version] = frozenset(names) | {"type"}
        cls._REQUIRED[version] = cls.REQUIRED | {name for name, spec in later if not spec.nullable}
        cls._LATER[version] = later
    cls._CHECKS = tuple(
        (
            name,
            spec.check if cls.SINCE[name] == FIRST_VERSION else _later(spec),
            f"{cls.TYPE}.{name}",
        )
        for name, spec in cls.FIELDS
    )
    if cls.TYPE in MESSAGE_TYPES:
        raise RuntimeError(f"message type {cls.TYPE!r} defined twice")
    MESSAGE_TYPES[cls.TYPE] = cls
    return cls


# -- client -> server ----------------------------------------------------------------------------


@_message
@dataclass(frozen=True, slots=True)
class Hello(Message):
    """The client's first message: the protocol version it speaks and the name it plays under.

    `token` identifies a returning player to a server that keeps accounts; the protocol layer
    passes it on unread. `resume` is the `session` of an earlier `welcome`: a client that lost
    its connection gets its seats back with it (a `resumed` frame per match) within the grace
    period, under the same `name` (and, for a registered name, with its `token`); this
    connection's `welcome` carries a new `session`.
    """

    TYPE: ClassVar[str] = "hello"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    version: int = field(metadata=meta(COUNT))
    name: str = field(metadata=meta(PLAYER_NAME))
    token: str | None = field(default=None, metadata=meta(nullable(text(TOKEN_LEN))))
    resume: str | None = field(default=None, metadata=meta(nullable(text(TOKEN_LEN))))


@_message
@dataclass(frozen=True, slots=True)
class ListGames(Message):
    """Ask which games the server referees, with their seats, options and notation."""

    TYPE: ClassVar[str] = "list_games"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT


@_message
@dataclass(frozen=True, slots=True)
class Seek(Message):
    """Ask for an opponent; the server pairs two compatible seeks into a match.

    `options` and `time` are only checked for shape here: their meaning is the game's and the
    server's business (`bad_option`, `bad_time_control`). `hints` asks for legal-move lists.
    `illegal` says what an illegal move costs: the game (`forfeit`, tournament rules) or only
    the move, refused while the clock runs on (`retry`, for people). `opponent` makes the seek
    a challenge: it pairs only with a seek by that player (whose own seek names nobody or names
    the challenger).
    """

    TYPE: ClassVar[str] = "seek"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    game: str = field(metadata=meta(NAME))
    options: dict[str, Any] = field(default_factory=dict, metadata=meta(OPTIONS))
    time: dict[str, float] = field(default_factory=dict, metadata=meta(TIME))
    hints: bool = field(default=True, metadata=meta(BOOL))
    illegal: str = field(default="forfeit", metadata=meta(ILLEGAL))
    opponent: str | None = field(default=None, metadata=meta(nullable(PLAYER_NAME)))


@_message
@dataclass(frozen=True, slots=True)
class CancelSeek(Message):
    """Withdraw an open seek before it is paired."""

    TYPE: ClassVar[str] = "cancel_seek"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    seek: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class Move(Message):
    """Play `move`, written in the game's notation, in `match`.

    From version 2, `cpu` is the CPU seconds the move cost its agent, written by the worker
    that hosts the seat as the move passes through it (see `worker`); the server refuses it
    from any other connection, whose moves cost their wall time.
    """

    TYPE: ClassVar[str] = "move"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    match: int = field(metadata=meta(COUNT))
    move: str = field(metadata=meta(MOVE_TEXT))
    cpu: float | None = field(default=None, metadata=meta(nullable(SECONDS), since=2))


@_message
@dataclass(frozen=True, slots=True)
class Resign(Message):
    """Give up `match`; the opponent wins at once."""

    TYPE: ClassVar[str] = "resign"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    match: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class Watch(Message):
    """Follow `match` as a spectator: a `watching` snapshot, then its moves as they happen.

    From version 2, a spectator that knows the match's first moves already may say how many
    (`since`): the snapshot then lists its moves from about there (`watching.moves_from`), so
    watching a long game again costs what its latest moves cost, not its whole length.
    """

    TYPE: ClassVar[str] = "watch"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    match: int = field(metadata=meta(COUNT))
    since: int | None = field(default=None, metadata=meta(nullable(COUNT), since=2))


@_message
@dataclass(frozen=True, slots=True)
class Lobby(Message):
    """Ask what is going on at the server: open seeks, live matches, tournaments.

    The answer is `lobby_listing`. With `follow` true, a fresh listing keeps coming whenever
    something changes, at most about one a second, until a `lobby` without `follow` (answered
    with one last listing) or the end of the connection.
    """

    TYPE: ClassVar[str] = "lobby"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    follow: bool = field(default=False, metadata=meta(BOOL))


@_message
@dataclass(frozen=True, slots=True)
class TournamentCreate(Message):
    """Create a tournament; only an admin account may (`not_allowed` otherwise).

    A tournament of `game`, by default a double round robin: every entrant plays every other
    twice per round, once in each seat, for `rounds` rounds, at most `concurrency` games at
    once. `players` are
    registered names, whose own clients play (they say `hello` with their token, then `seek`
    the game: the server seats them in their next game). `local` names entrants the server
    runs itself: built-in agents, and on a server that offers them (`arbiter tournament
    local`'s) Player module files and programs (`cmd=COMMAND`). Each plays under a seat name
    of its own, `local-` and its name (`random` twice enters `local-random` and
    `local-random-2`). `time` and `options` apply to every game (seeds left unset are
    drawn per pair of games, the same for both colours). A game that is due waits `wait`
    seconds for an absent player, who then defaults. The answer is `tournament`.

    (Version 2.) `format` chooses how entrants are paired (nil: the double round robin):
    `round-robin`; `gauntlet`, `challenger` (an entrant: a player, or a `local` entrant as
    given or by its seat name) against each other entrant, twice a round with colours swapped,
    for `rounds` rounds; `swiss`, `rounds` rounds paired by score (at most one fewer than the
    entrants); `knockout`, a bracket seeded in entrant order whose ties are `rounds` pairs of
    games with colours swapped; `match`, two entrants (`challenger` first if given: the one
    tested) in colour-swapped pairs of games, both of a pair on one start, a pair a round for
    `rounds` rounds, or fewer when the SPRT whose terms are the map `sprt` decides first
    (`elo0`, `elo1` in logistic Elo; `alpha`, `beta`, 0.05 if left out; no other format takes
    it); an entrant who does not come stops a match.
    docs/tournaments.md has their rules and tie-breaks, docs/sprt.md the test.
    """

    TYPE: ClassVar[str] = "tournament_create"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    name: str = field(metadata=meta(PLAYER_NAME))
    game: str = field(metadata=meta(NAME))
    players: list[str] = field(default_factory=list, metadata=meta(ENTRANTS))
    local: list[str] = field(default_factory=list, metadata=meta(AGENTS))
    options: dict[str, Any] = field(default_factory=dict, metadata=meta(OPTIONS))
    time: dict[str, float] = field(default_factory=dict, metadata=meta(TIME))
    rounds: int = field(default=1, metadata=meta(COUNT))
    concurrency: int = field(default=1, metadata=meta(COUNT))
    wait: float = field(default=60.0, metadata=meta(SECONDS))
    format: str | None = field(default=None, metadata=meta(nullable(NAME), since=2))
    challenger: str | None = field(default=None, metadata=meta(nullable(NAME), since=2))
    sprt: dict[str, Any] | None = field(default=None, metadata=meta(nullable(DATA), since=2))


@_message
@dataclass(frozen=True, slots=True)
class TournamentStart(Message):
    """Start a created tournament (admin accounts only); the answer is `tournament`."""

    TYPE: ClassVar[str] = "tournament_start"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    tournament: str = field(metadata=meta(PLAYER_NAME))


@_message
@dataclass(frozen=True, slots=True)
class TournamentStatus(Message):
    """Ask where a tournament stands (anyone may); the answer is `tournament`."""

    TYPE: ClassVar[str] = "tournament_status"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    tournament: str = field(metadata=meta(PLAYER_NAME))


# -- either direction ----------------------------------------------------------------------------


V2 = 2
"""The version the submission and worker messages came with."""


@_message
@dataclass(frozen=True, slots=True)
class Worker(Message):
    """(Version 2, from a `worker` account.) This connection hosts agents for the server:
    `slots` seats at a time. The server answers with `host` whenever it has a seat to host."""

    TYPE: ClassVar[str] = "worker"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    slots: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class HostEnded(Message):
    """(Version 2, from a worker.) The agent of hosting `host` ended, for the reason `ending`
    (a sentence: `exited with status 0`, `crash: memory limit 512 MiB exceeded`...); its slot
    is free again. `log` is the end of what the agent printed on stderr (a submission's build
    log first), for its author: at most `MAX_HOSTED_LOG` characters."""

    TYPE: ClassVar[str] = "host_ended"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    host: int = field(metadata=meta(COUNT))
    ending: str = field(metadata=meta(SENTENCE))
    log: str | None = field(default=None, metadata=meta(nullable(text(MAX_HOSTED_LOG))))


@_message
@dataclass(frozen=True, slots=True)
class OutOfCpu(Message):
    """(Version 2, from the worker hosting a seat, on the seat's connection.) The seat's move
    under way in `match` has used `cpu` CPU seconds, past the allowance its `your_turn` gave
    (`time_left`): the seat loses on time at once, and any move its agent sends after this is
    never passed on. The worker measures the CPU and sends this the moment the allowance is
    spent, so an agent that burns its CPU loses on CPU time even when the machine's other
    work keeps it from burning fast enough to reach the wall-clock watchdog first. The server
    refuses it from any other connection, and for a figure within the allowance."""

    TYPE: ClassVar[str] = "out_of_cpu"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    match: int = field(metadata=meta(COUNT))
    cpu: float = field(metadata=meta(SECONDS))


@_message
@dataclass(frozen=True, slots=True)
class SubmitBegin(Message):
    """Start uploading an agent (version 2, a registered player): `name` becomes a new version
    of the author's agent for `game`. `manifest` says how it runs (form, language, entry, run,
    sources: docs/hosted-agents.md); `hash` is the SHA-256 of the whole archive and `size` its
    bytes. Answered by `submit_ready`; then `submit_part` frames, then `submit_end`.
    """

    TYPE: ClassVar[str] = "submit_begin"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    game: str = field(metadata=meta(NAME))
    name: str = field(metadata=meta(PLAYER_NAME))
    manifest: dict[str, Any] = field(metadata=meta(DATA))
    hash: str = field(metadata=meta(SHA256))
    size: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class SubmitPart(Message):
    """The next piece of the archive being uploaded: `index` counts from 0, in order, each
    `data` at most 48 KiB. Not answered; a part out of order abandons the upload."""

    TYPE: ClassVar[str] = "submit_part"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    index: int = field(metadata=meta(COUNT))
    data: bytes = field(metadata=meta(PART))


@_message
@dataclass(frozen=True, slots=True)
class SubmitEnd(Message):
    """The archive is whole: the server checks its size and hash against `submit_begin`, then the
    archive itself, and answers `submitted` (or an `error`)."""

    TYPE: ClassVar[str] = "submit_end"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    parts: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class Submissions(Message):
    """List my uploaded versions (of `game`'s agents only, when named): `submission_list`."""

    TYPE: ClassVar[str] = "submissions"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    game: str | None = field(default=None, metadata=meta(nullable(NAME)))


@_message
@dataclass(frozen=True, slots=True)
class Retire(Message):
    """Retire one of my versions: it is kept with its games, and entered nowhere again."""

    TYPE: ClassVar[str] = "retire"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    name: str = field(metadata=meta(PLAYER_NAME))
    version: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class Logs(Message):
    """(Version 2, a registered player.) What the hosted agents of match `match` printed on
    stderr: the asker's own seats (its submissions'), or every hosted seat for an admin.
    Answered by `match_logs`, or an `error` saying why not."""

    TYPE: ClassVar[str] = "logs"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    match: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class SubmissionFetch(Message):
    """Fetch part `index` of an archive by its hash: its author's own, or any for an admin or a
    worker. Answered by one `archive_part`, which says how many parts there are: the fetcher
    asks for each in turn, so the server never queues a whole archive for a slow reader."""

    TYPE: ClassVar[str] = "submission_fetch"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    hash: str = field(metadata=meta(SHA256))
    index: int = field(default=0, metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class Ladder(Message):
    """(Version 2.) The server's ladder of `game` as it stands: answered by `ladder_table`, or
    an `error` saying the server keeps no ladder of that game."""

    TYPE: ClassVar[str] = "ladder"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    game: str = field(metadata=meta(NAME))
    section: str | None = field(default=None, metadata=meta(nullable(SECTION)))
    """`CLASS/SECTION` for the ladder of one section of a class; nil for the game's own."""


@_message
@dataclass(frozen=True, slots=True)
class LadderJoin(Message):
    """(Version 2.) Put this connection's registered player in the ladder of `game` (of one
    class's section with `section`, `CLASS/SECTION`): from now on its seeks for the game are
    kept for the ladder, which pairs it when it waits with one, under the ladder's terms. It
    leaves the ladder with `ladder_leave` or when the connection closes. Answered by
    `ladder_joined`, or an `error` saying why not."""

    TYPE: ClassVar[str] = "ladder_join"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    game: str = field(metadata=meta(NAME))
    section: str | None = field(default=None, metadata=meta(nullable(SECTION)))


@_message
@dataclass(frozen=True, slots=True)
class LadderLeave(Message):
    """(Version 2.) Take this connection's player out of the ladder of `game` (and `section`)
    it joined: its seeks are paired casually again. Answered by `ladder_joined` (`joined`
    false), or an `error` if it was not in that ladder."""

    TYPE: ClassVar[str] = "ladder_leave"
    SENDERS: ClassVar[frozenset[Role]] = FROM_CLIENT
    SINCE_VERSION: ClassVar[int] = V2
    game: str = field(metadata=meta(NAME))
    section: str | None = field(default=None, metadata=meta(nullable(SECTION)))


@_message
@dataclass(frozen=True, slots=True)
class Ping(Message):
    """Ask the peer to prove it is alive; it answers `pong` with the same nonce."""

    TYPE: ClassVar[str] = "ping"
    SENDERS: ClassVar[frozenset[Role]] = FROM_EITHER
    nonce: int = field(default=0, metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class Pong(Message):
    """The answer to `ping`, echoing its nonce."""

    TYPE: ClassVar[str] = "pong"
    SENDERS: ClassVar[frozenset[Role]] = FROM_EITHER
    nonce: int = field(default=0, metadata=meta(COUNT))


# -- server -> client ----------------------------------------------------------------------------


@_message
@dataclass(frozen=True, slots=True)
class Welcome(Message):
    """The handshake's answer: the server accepted `hello`; every request is open from now on.

    `session` is a bearer secret: whoever holds it (with the name) takes back this connection's
    seats after a disconnect, so a client keeps it to itself.
    """

    TYPE: ClassVar[str] = "welcome"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    version: int = field(metadata=meta(COUNT))
    session: str = field(metadata=meta(NAME))
    server: str = field(metadata=meta(NAME))


@_message
@dataclass(frozen=True, slots=True)
class Error(Message):
    """A request or frame was refused: a stable `code` for programs and a sentence for people.

    `ref` is the `type` of the offending frame when it was known, `match` its match id.
    """

    TYPE: ClassVar[str] = "error"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    code: str = field(metadata=meta(CODE))
    message: str = field(metadata=meta(SENTENCE))
    ref: str | None = field(default=None, metadata=meta(nullable(NAME)))
    match: int | None = field(default=None, metadata=meta(nullable(COUNT)))

    @classmethod
    def from_peer_error(cls, error: PeerError) -> Error:
        """The frame that answers a `PeerError`, with its code, sentence, ref and match."""
        return cls(code=error.code, message=str(error), ref=error.ref, match=error.match)


@_message
@dataclass(frozen=True, slots=True)
class Games(Message):
    """The answer to `list_games`: one map per game (name, title, seats, options, notation)."""

    TYPE: ClassVar[str] = "games"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    games: list[dict[str, Any]] = field(metadata=meta(maps(MAX_GAMES)))


@_message
@dataclass(frozen=True, slots=True)
class Seeking(Message):
    """The seek is open and waiting for an opponent; `seek` is the id `cancel_seek` takes.

    `options`, `time` and `opponent` echo the seek as the server understood it (`time` filled
    in with the game's default when the seek named none). A seek that finds a partner at once
    gets `match_started` instead.
    """

    TYPE: ClassVar[str] = "seeking"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    seek: int = field(metadata=meta(COUNT))
    game: str = field(metadata=meta(NAME))
    options: dict[str, Any] = field(metadata=meta(OPTIONS))
    time: dict[str, float] = field(metadata=meta(TIME))
    opponent: str | None = field(default=None, metadata=meta(nullable(PLAYER_NAME)))


@_message
@dataclass(frozen=True, slots=True)
class SeekCancelled(Message):
    """The seek is withdrawn (after `cancel_seek`)."""

    TYPE: ClassVar[str] = "seek_cancelled"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    seek: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class MatchStarted(Message):
    """A match begins: everything a client needs to follow it, including its own seat."""

    TYPE: ClassVar[str] = "match_started"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    match: int = field(metadata=meta(COUNT))
    game: str = field(metadata=meta(NAME))
    seat: str = field(metadata=meta(NAME))
    seats: list[str] = field(metadata=meta(SEATS))
    players: list[str] = field(metadata=meta(PLAYERS))
    options: dict[str, Any] = field(metadata=meta(OPTIONS))
    time: dict[str, float] = field(metadata=meta(TIME))
    hints: bool = field(metadata=meta(BOOL))
    state: dict[str, Any] = field(metadata=meta(DATA))
    illegal: str = field(default="forfeit", metadata=meta(ILLEGAL))

    def _check_together(self) -> None:
        if self.seat not in self.seats:
            raise _bad("match_started.seat", f"one of the seats {self.seats}", self.seat)


@_message
@dataclass(frozen=True, slots=True)
class YourTurn(Message):
    """The receiver is to move in `match`; its clock runs from the moment this frame is sent.

    `legal` lists the legal moves when the match has hints, else it is nil. `time_left` is the
    time for this move (the per-move limit or the game clock, whichever is shorter); `clocks`
    the game clocks of both seats in turn order (nil without a game clock).
    """

    TYPE: ClassVar[str] = "your_turn"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    match: int = field(metadata=meta(COUNT))
    ply: int = field(metadata=meta(COUNT))
    state: dict[str, Any] = field(metadata=meta(DATA))
    legal: list[str] | None = field(metadata=meta(nullable(MOVES)))
    time_left: float = field(metadata=meta(SECONDS))
    clocks: list[float] | None = field(default=None, metadata=meta(nullable(CLOCKS)))


@_message
@dataclass(frozen=True, slots=True)
class MoveAccepted(Message):
    """The receiver's move was played; `move` is its canonical notation, `elapsed` its time.

    `compensation` is the lag allowance the server granted this move (taken off `elapsed`
    before charging the clock); `clocks` the game clocks after the move (nil without one). From
    version 2, `position` is the position after the move and the seat to move in it.
    """

    TYPE: ClassVar[str] = "move_accepted"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    match: int = field(metadata=meta(COUNT))
    ply: int = field(metadata=meta(COUNT))
    move: str = field(metadata=meta(MOVE_TEXT))
    elapsed: float = field(metadata=meta(SECONDS))
    compensation: float = field(default=0.0, metadata=meta(SECONDS))
    clocks: list[float] | None = field(default=None, metadata=meta(nullable(CLOCKS)))
    position: Position | None = field(default=None, metadata=meta(POSITION, since=2))


@_message
@dataclass(frozen=True, slots=True)
class MoveRefused(Message):
    """The receiver's move was not played: `code` is `invalid_move`, `illegal_move`..."""

    TYPE: ClassVar[str] = "move_refused"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    match: int = field(metadata=meta(COUNT))
    move: str = field(metadata=meta(MOVE_TEXT))
    code: str = field(metadata=meta(CODE))
    reason: str = field(metadata=meta(SENTENCE))


@_message
@dataclass(frozen=True, slots=True)
class OpponentMoved(Message):
    """A move was played by `seat` (sent to its opponent and to spectators).

    From version 2, `position` is the position after the move and the seat to move in it.
    """

    TYPE: ClassVar[str] = "opponent_moved"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    match: int = field(metadata=meta(COUNT))
    ply: int = field(metadata=meta(COUNT))
    seat: str = field(metadata=meta(NAME))
    move: str = field(metadata=meta(MOVE_TEXT))
    elapsed: float = field(metadata=meta(SECONDS))
    compensation: float = field(default=0.0, metadata=meta(SECONDS))
    clocks: list[float] | None = field(default=None, metadata=meta(nullable(CLOCKS)))
    position: Position | None = field(default=None, metadata=meta(POSITION, since=2))


@_message
@dataclass(frozen=True, slots=True)
class GameOver(Message):
    """The match ended: the result, the winning seat for a win, the reason, the final position.

    From version 2, `termination` names how it ended, for programs (the reason is for people):
    `rule`, `draw-by-rule`, `double-forfeit`, `resignation`, `time`, `illegal-move`,
    `disconnect`, `absent`, `server-error` or `aborted` (nil only for a game its server stored
    before it recorded how games end); more may come, so a client treats one it does not know
    as an ending it cannot name. `clocks_ms` is each seat's game clock when it
    ended, in whole milliseconds in turn order (nil without a game clock). `judged_by` says
    which clock judged each seat, in turn order: `wall` (a connected player's time, with the
    lag allowance) or `cpu` (a hosted agent's CPU seconds); nil where its server did not say.
    """

    TYPE: ClassVar[str] = "game_over"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    match: int = field(metadata=meta(COUNT))
    result: str = field(metadata=meta(choice("win", "draw", "both_forfeit")))
    winner: str | None = field(metadata=meta(nullable(NAME)))
    reason: str = field(metadata=meta(SENTENCE))
    state: dict[str, Any] = field(metadata=meta(DATA))
    moves: list[str] = field(metadata=meta(MOVES))
    termination: str | None = field(default=None, metadata=meta(nullable(CODE), since=2))
    clocks_ms: list[int] | None = field(default=None, metadata=meta(nullable(CLOCKS_MS), since=2))
    judged_by: list[str] | None = field(default=None, metadata=meta(nullable(JUDGED_BY), since=2))

    def _check_together(self) -> None:
        if (self.result == "win") != (self.winner is not None):
            expected = "a seat name" if self.result == "win" else "nil"
            raise _bad(f"game_over.winner (result {self.result!r})", expected, self.winner)


@_message
@dataclass(frozen=True, slots=True)
class Watching(Message):
    """The snapshot a spectator starts from: the match so far, then `opponent_moved` frames.

    From version 2, `to_move` is the seat to move in `state` (nil once the game is over), and
    `moves` are the match's moves from number `moves_from` on (0: all of them; more than 0 only
    for a `watch` with `since`, and never more than `since`).
    """

    TYPE: ClassVar[str] = "watching"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    match: int = field(metadata=meta(COUNT))
    game: str = field(metadata=meta(NAME))
    seats: list[str] = field(metadata=meta(SEATS))
    players: list[str] = field(metadata=meta(PLAYERS))
    options: dict[str, Any] = field(metadata=meta(OPTIONS))
    time: dict[str, float] = field(metadata=meta(TIME))
    state: dict[str, Any] = field(metadata=meta(DATA))
    moves: list[str] = field(metadata=meta(MOVES))
    to_move: str | None = field(default=None, metadata=meta(SEAT_TO_MOVE, since=2))
    moves_from: int | None = field(default=None, metadata=meta(COUNT, since=2))


@_message
@dataclass(frozen=True, slots=True)
class Resumed(Message):
    """A reconnected client has its seat back (after `hello` with `resume`): the whole match.

    `to_move` says whether a `your_turn` follows at once; the clock of the seat to move never
    stopped while it was away.
    """

    TYPE: ClassVar[str] = "resumed"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    match: int = field(metadata=meta(COUNT))
    game: str = field(metadata=meta(NAME))
    seat: str = field(metadata=meta(NAME))
    seats: list[str] = field(metadata=meta(SEATS))
    players: list[str] = field(metadata=meta(PLAYERS))
    options: dict[str, Any] = field(metadata=meta(OPTIONS))
    time: dict[str, float] = field(metadata=meta(TIME))
    hints: bool = field(metadata=meta(BOOL))
    illegal: str = field(metadata=meta(ILLEGAL))
    state: dict[str, Any] = field(metadata=meta(DATA))
    moves: list[str] = field(metadata=meta(MOVES))
    clocks: list[float] | None = field(metadata=meta(nullable(CLOCKS)))
    to_move: bool = field(metadata=meta(BOOL))

    def _check_together(self) -> None:
        if self.seat not in self.seats:
            raise _bad("resumed.seat", f"one of the seats {self.seats}", self.seat)


@_message
@dataclass(frozen=True, slots=True)
class Tournament(Message):
    """A tournament as it stands: its settings, its schedule and its standings.

    `status` is `created`, `running` or `finished`. `entrants` lists every entrant in seeding
    order, `local` those of them that are built-in agents. Each `games` entry is a map: `number`,
    `round`, `first` and `second` (entrants, in seat order), `match` (nil until it begins),
    `status` (`waiting`, `playing`, `finished`), and once finished `result`, `winner` (the
    winning entrant, or nil), `reason`, `scores` (two numbers) and `defaults` (each seat's
    default kind: `crash`, `illegal`, `time`, `absent` or nil). Each `standings` entry, best
    first: `rank`, `player`, `points`, `games`, `wins`, `draws`, `losses`, `forfeits` (double
    forfeits), `defaults` (a map from kind to count), `tiebreak` (Sonneborn-Berger), `rating` and
    `margin` (Elo and its 95 % margin), `rated_games`, and `against`, the crosstable row: a map
    from each opponent to this player's scores against it, in game order. (Version 2.) `format`,
    the tournament's (`tournament_create`); standings entries also carry `buchholz` (the sum
    of the opponents' points) and `byes` (a Swiss tournament's, one point each); `contending`
    lists the entrants who may yet get games `games` does not list (a Swiss round or a knockout
    round not yet paired): their clients keep seeking. A knockout's `bracket` lists its ties
    round by round, each a map: `round`, `higher` and `lower` (the seeds; `lower` nil for a
    bye), `points` (each one's, tiebreak games included) and `winner` (nil until decided).
    A match's `sprt` (nil for a fixed match and other formats) is where its SPRT stands: its
    terms (`elo0`, `elo1`, `alpha`, `beta`), `llr` with its bounds `lower` and `upper`, `pairs`
    counted and `counts` (the pairs that scored 0, 0.5, 1, 1.5 and 2 for the first entrant),
    `decision` (`H0`, `H1`, or nil) and `stopped` (why it stopped undecided: an entrant who did
    not come).
    """

    TYPE: ClassVar[str] = "tournament"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    name: str = field(metadata=meta(PLAYER_NAME))
    game: str = field(metadata=meta(NAME))
    status: str = field(metadata=meta(choice("created", "running", "finished")))
    entrants: list[str] = field(metadata=meta(ENTRANTS))
    local: list[str] = field(metadata=meta(ENTRANTS))
    options: dict[str, Any] = field(metadata=meta(OPTIONS))
    time: dict[str, float] = field(metadata=meta(TIME))
    rounds: int = field(metadata=meta(COUNT))
    concurrency: int = field(metadata=meta(COUNT))
    wait: float = field(metadata=meta(SECONDS))
    games: list[dict[str, Any]] = field(metadata=meta(maps(MAX_ITEMS)))
    standings: list[dict[str, Any]] = field(metadata=meta(maps(MAX_ENTRANTS)))
    format: str | None = field(default=None, metadata=meta(nullable(NAME), since=2))
    contending: list[str] | None = field(default=None, metadata=meta(nullable(ENTRANTS), since=2))
    bracket: list[dict[str, Any]] | None = field(
        default=None, metadata=meta(nullable(maps(MAX_ITEMS)), since=2)
    )
    sprt: dict[str, Any] | None = field(default=None, metadata=meta(nullable(DATA), since=2))


@_message
@dataclass(frozen=True, slots=True)
class Host(Message):
    """(Version 2, to a worker.) Run an agent for a seat: `host` is this hosting's id, which
    `host_ended` reports back; `name` and `ticket` are the registered name the seat plays under
    and a token good for it alone, fresh for this hosting; `game` and `time` the game and the
    time control the seat will be judged on (CPU seconds); `run` what to run, a map with a
    `kind` (`agent`: a built-in agent named by `agent`; `submission`: an uploaded version, by its
    archive's `hash`) and that kind's fields; `tournament` the tournament whose games it plays,
    or `opponent` the player it challenges (one game). A worker that cannot run what `run`
    names says so in `host_ended`.
    """

    TYPE: ClassVar[str] = "host"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    host: int = field(metadata=meta(COUNT))
    name: str = field(metadata=meta(PLAYER_NAME))
    ticket: str = field(metadata=meta(text(TOKEN_LEN, min_len=1)))
    game: str = field(metadata=meta(NAME))
    time: dict[str, float] = field(metadata=meta(TIME))
    run: dict[str, Any] = field(metadata=meta(DATA))
    tournament: str | None = field(default=None, metadata=meta(nullable(PLAYER_NAME)))
    opponent: str | None = field(default=None, metadata=meta(nullable(PLAYER_NAME)))


LISTED = maps(MAX_LISTED)


@_message
@dataclass(frozen=True, slots=True)
class LobbyListing(Message):
    """The answer to `lobby`: what is going on at the server, oldest first in each list.

    Each `seeks` entry (open casual seeks) is a map: `seek` (its id), `player`, `game`,
    `options`, `time` (as in `seeking`), `opponent` (the challenged player, or nil) and
    `unpaired`: why it has not paired with the oldest other open seek of its game, e.g.
    `"alice seeks move=2, this seek move=10"`, or nil when there is none. Each `matches` entry
    (live matches): `match`, `game`, `seats`, `players` (in seat order), `ply` (moves played),
    `to_move` (the seat to move, nil before the first turn), `time_left` (that seat's seconds
    left for this move, nil before the first turn), `clocks` (both game clocks as they stand,
    the mover's running, nil without a game clock) and `time` (the control). Each
    `tournaments` entry: `name`, `game`, `status` (`created`, `running`, `finished`; unfinished
    ones first), `played` (games finished) and `games` (scheduled in all). A list holds at most
    50 entries (and 20 KiB); `seeks_left_out`, `matches_left_out` and `tournaments_left_out`
    count those not shown. `following` says whether more listings will follow.
    """

    TYPE: ClassVar[str] = "lobby_listing"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    seeks: list[dict[str, Any]] = field(metadata=meta(LISTED))
    matches: list[dict[str, Any]] = field(metadata=meta(LISTED))
    tournaments: list[dict[str, Any]] = field(metadata=meta(LISTED))
    seeks_left_out: int = field(default=0, metadata=meta(COUNT))
    matches_left_out: int = field(default=0, metadata=meta(COUNT))
    tournaments_left_out: int = field(default=0, metadata=meta(COUNT))
    following: bool = field(default=False, metadata=meta(BOOL))


SUBMISSION_ENTRIES = maps(MAX_SUBMISSIONS)
MAX_SEATS_LOGGED = 8
"""The most seat logs one `match_logs` carries: more than any game's seats."""


@_message
@dataclass(frozen=True, slots=True)
class SubmitReady(Message):
    """The upload `submit_begin` announced may come: `parts` frames of at most `part_bytes`."""

    TYPE: ClassVar[str] = "submit_ready"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    hash: str = field(metadata=meta(SHA256))
    parts: int = field(metadata=meta(COUNT))
    part_bytes: int = field(metadata=meta(COUNT))


@_message
@dataclass(frozen=True, slots=True)
class Submitted(Message):
    """The upload is stored: `submission` is its entry, as `submission_list` lists it."""

    TYPE: ClassVar[str] = "submitted"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    submission: dict[str, Any] = field(metadata=meta(DATA))


@_message
@dataclass(frozen=True, slots=True)
class SubmissionList(Message):
    """The answer to `submissions`, by name then version. Each entry: `name`, `version`, `game`,
    `form`, `language`, `hash`, `size`, `status` (`validating`, `ready`, `failed`, `retired`),
    `created` (seconds since the epoch) and `log` (the start of the validation game's verdict,
    at most 300 characters, or nil); at most 100 entries."""

    TYPE: ClassVar[str] = "submission_list"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    submissions: list[dict[str, Any]] = field(metadata=meta(SUBMISSION_ENTRIES))


MAX_LADDER_ENTRIES = 300
"""Entries of a `ladder_table`: each about a hundred bytes, so the table stays within one 64 KiB
frame; a ladder of more versions shows its best 300."""


@_message
@dataclass(frozen=True, slots=True)
class LadderTable(Message):
    """The answer to `ladder`: the entrants of `game`'s ladder, best first, each a map of `rank`,
    `entrant` (`author/name@vN`), `rating` (`mu - 3 sigma`, what the table ranks by), `mu`,
    `sigma` (the rating's uncertainty, a standard deviation), `games`, `last` (the match id of
    its latest game, or nil), `last_at` (when that game began, seconds since the epoch, or nil)
    `active` (false for a version retired or no longer ready: it keeps its line, and is
    paired no more) and `league` (its league's name, or nil when it has none: a boss, or a
    game without leagues). `running` says whether the server is playing the ladder's games now."""

    TYPE: ClassVar[str] = "ladder_table"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    game: str = field(metadata=meta(NAME))
    running: bool = field(metadata=meta(BOOL))
    entries: list[dict[str, Any]] = field(metadata=meta(maps(MAX_LADDER_ENTRIES)))
    section: str | None = field(default=None, metadata=meta(nullable(SECTION)))
    """The class's section whose ladder this is (`CLASS/SECTION`), nil for the game's own."""


@_message
@dataclass(frozen=True, slots=True)
class LadderJoined(Message):
    """The answer to `ladder_join` (`joined` true) and `ladder_leave` (false): whether the
    connection's player is now in the ladder of `game` (and `section`)."""

    TYPE: ClassVar[str] = "ladder_joined"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    game: str = field(metadata=meta(NAME))
    joined: bool = field(metadata=meta(BOOL))
    section: str | None = field(default=None, metadata=meta(nullable(SECTION)))


@_message
@dataclass(frozen=True, slots=True)
class Retired(Message):
    """The answer to `retire`: the version's entry, with status `retired`."""

    TYPE: ClassVar[str] = "retired"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    submission: dict[str, Any] = field(metadata=meta(DATA))


@_message
@dataclass(frozen=True, slots=True)
class MatchLogs(Message):
    """The answer to `logs`: one entry per hosted seat the asker may read, in seat order, each a
    map of `seat`, `player` (the seat's name), `author` (nil for a built-in agent) and `log` (the
    end of its stderr, a submission's build log first, at most `MAX_HOSTED_LOG` characters)."""

    TYPE: ClassVar[str] = "match_logs"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    match: int = field(metadata=meta(COUNT))
    logs: list[dict[str, Any]] = field(metadata=meta(maps(MAX_SEATS_LOGGED)))


@_message
@dataclass(frozen=True, slots=True)
class ArchivePart(Message):
    """The piece of an archive `submission_fetch` asked for: part `index` of `parts`."""

    TYPE: ClassVar[str] = "archive_part"
    SENDERS: ClassVar[frozenset[Role]] = FROM_SERVER
    SINCE_VERSION: ClassVar[int] = V2
    hash: str = field(metadata=meta(SHA256))
    index: int = field(metadata=meta(COUNT))
    parts: int = field(metadata=meta(COUNT))
    data: bytes = field(metadata=meta(PART))


# -- from the wire -------------------------------------------------------------------------------


def message_class(data: Any) -> type[Message]:
    """The class a wire map claims to be, from its `type` alone (`LocalProtocolError` if none)."""
    if not isinstance(data, dict):
        raise LocalProtocolError(
            ErrorCode.NOT_A_MAP, f"a message is a map, not {type(data).__name__} {short_repr(data)}"
        )
    if "type" not in data:
        raise LocalProtocolError(ErrorCode.MISSING_TYPE, "the map has no 'type' field")
    kind = data["type"]
    cls = MESSAGE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise LocalProtocolError(
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {short_repr(kind)} (types: {', '.join(MESSAGE_TYPES)})",
        )
    return cls


def blame_peer(error: LocalProtocolError, data: Any) -> PeerError:
    """Relabel a check's complaint about peer data, quoting the frame's type and match id."""
    ref = match = None
    if isinstance(data, dict):
        kind = data.get("type")
        if isinstance(kind, str) and len(kind) <= NAME_LEN:
            ref = kind
        number = data.get("match")
        if type(number) is int and 0 <= number <= MAX_COUNT:
            match = number
    return PeerError.blame_peer(error, ref=ref, match=match)


def message_from_wire(data: Any, version: int = FIRST_VERSION) -> Message:
    """The message a decoded wire map of `version` describes, strictly (every field known), or
    `PeerError` with a schema code."""
    try:
        return message_class(data).from_wire(data, version)
    except LocalProtocolError as error:
        raise blame_peer(error, data) from None
