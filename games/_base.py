"""The one surface every game offers.

The server, the agents, the human client and the tests never branch on a game's name: they hold a
`Game` (the rules of one game: its name, seats, options, notation) and a `State` (one position,
immutable). A game module subclasses both and registers one `Game` instance in `games.REGISTRY`.

Two ways to make a move, as python-chess has `push` next to `is_legal`:

- `State.apply(move)` checks legality first and raises `IllegalMoveError` with a reason a person
  can read. The server and clients use it.
- `State.play(move)` trusts the caller (the move came from `legal_moves()`), and is the fast path
  agents use while searching.

States are values: `play` returns a new state and never mutates the old one, so a search can keep
any position it has seen, and `==` compares positions (the data round-trip relies on it).
"""

from __future__ import annotations

import enum
import functools
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypeVar

from arbiter.games._boards import Boards
from arbiter.games._memo import Memo

Seat = int
"""A seat by its index in `Game.seats`: 0 moves first."""

MoveT = TypeVar("MoveT", bound=Hashable)
StateT = TypeVar("StateT", bound="State[Any]")


class GameError(ValueError):
    """Base of every error a rules module raises; the message quotes the bad input."""


class InvalidMoveError(GameError):
    """The text is not a move in this game's notation (a syntax error)."""


class IllegalMoveError(GameError):
    """The move is well formed but not legal in this position."""


class OptionError(GameError):
    """A game option is unknown, of the wrong type or out of range."""


class StateDataError(GameError):
    """Plain data that does not describe a valid state of this game."""


def data_int(key: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """`value`, a state data's integer `key`, checked to lie in `minimum..maximum`; one sentence
    (`StateDataError`) for every game when it does not (a bool is not an integer here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise StateDataError(f"{key!r} must be an integer, not {value!r}")
    if value < minimum:
        raise StateDataError(f"{key!r} must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        raise StateDataError(f"{key!r} must be at most {maximum}, not {value}")
    return value


class Result(enum.Enum):
    WIN = "win"
    DRAW = "draw"
    BOTH_FORFEIT = "both_forfeit"


class Termination(enum.StrEnum):
    """Why a game ended, as a fixed kind beside the reason in words (python-chess's idea).

    The rules end a game with the first three; the referee ends it with the rest. Records store
    the value, so tests and tools compare kinds, never sentences.
    """

    RULE = "rule"  # the board decided a winner (no piece in the Court, no legal move...)
    DRAW_BY_RULE = "draw-by-rule"  # the rules call it a draw (stalemate, the move limit...)
    DOUBLE_FORFEIT = "double-forfeit"  # the rules forfeit both (King's Court's 50 moves)
    RESIGNATION = "resignation"
    TIME = "time"  # a seat ran out of time
    ILLEGAL_MOVE = "illegal-move"  # an illegal move or a move out of turn, under `forfeit`
    DISCONNECT = "disconnect"  # a seat's connection stayed away past its grace period (a
    # crashed agent, whose socket closes, is one: the referee cannot tell the two apart)
    ABSENT = "absent"  # a tournament player did not come to play
    SERVER_ERROR = "server-error"  # the match could not go on (its storage failed)
    ABORTED = "aborted"  # a casual match in play when its server stopped: no result, no scores


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the result, the winning seat (only for `WIN`), a reason in words and
    its kind."""

    result: Result
    winner: Seat | None
    reason: str
    termination: Termination = Termination.RULE

    def __post_init__(self) -> None:
        if (self.result is Result.WIN) != (self.winner is not None):
            raise ValueError(f"a {self.result.value} outcome cannot have winner {self.winner!r}")

    @classmethod
    def win(cls, winner: Seat, reason: str, termination: Termination = Termination.RULE) -> Outcome:
        return cls(Result.WIN, winner, reason, termination)

    @classmethod
    def draw(cls, reason: str, termination: Termination = Termination.DRAW_BY_RULE) -> Outcome:
        return cls(Result.DRAW, None, reason, termination)

    @classmethod
    def both_forfeit(
        cls, reason: str, termination: Termination = Termination.DOUBLE_FORFEIT
    ) -> Outcome:
        return cls(Result.BOTH_FORFEIT, None, reason, termination)

    def score(self, seat: Seat) -> float:
        """Points for `seat`: win 1, loss 0, draw 0.5, double forfeit 0 (nobody earns a forfeit)."""
        if self.result is Result.WIN:
            return 1.0 if seat == self.winner else 0.0
        return 0.5 if self.result is Result.DRAW else 0.0


@dataclass(frozen=True, slots=True)
class Option:
    """One option a game accepts, with its type, default and allowed range.

    An option with `is_seed=True` chooses a random start. Its default is None, meaning "draw a
    fresh seed": `Game.resolve_options` fills it from a caller-supplied source, so the game itself
    stays deterministic and the resolved options (seed included) are what a match records.
    """

    name: str
    kind: type  # int, bool or str
    default: Any
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | None = None
    is_seed: bool = False

    def check(self, value: Any) -> Any:
        """Return `value` if it is acceptable for this option, else raise `OptionError`."""
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise OptionError(f"option {self.name!r} takes an integer, not {value!r}")
        if self.kind is not int and not isinstance(value, self.kind):
            raise OptionError(f"option {self.name!r} takes a {self.kind.__name__}, not {value!r}")
        too_low = self.minimum is not None and value < self.minimum
        if too_low or (self.maximum is not None and value > self.maximum):
            raise OptionError(f"option {self.name!r} must be {self._range()}, not {value}")
        if self.choices is not None and value not in self.choices:
            raise OptionError(f"option {self.name!r} must be one of {self.choices}, not {value!r}")
        return value

    def _range(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f"from {self.minimum} to {self.maximum}"
        if self.minimum is not None:
            return f"at least {self.minimum}"
        return f"at most {self.maximum}"


class State(ABC, Generic[MoveT]):
    """One position of a game, immutable. Subclasses are frozen, slotted dataclasses."""

    __slots__ = ()

    game: ClassVar[Game[Any, Any]]

    @property
    @abstractmethod
    def turn(self) -> Seat:
        """The seat to move (meaningless once the game is over)."""

    @property
    @abstractmethod
    def ply(self) -> int:
        """Moves played so far by both seats (passes included)."""

    @abstractmethod
    def legal_moves(self) -> list[MoveT]:
        """Every legal move for the seat to move, in a fixed order; empty once the game is over."""

    @abstractmethod
    def why_illegal(self, move: MoveT) -> str | None:
        """None when `move` is legal here, else the reason it is not, in words.

        Must agree exactly with `legal_moves()` (a property test checks it), but is usually
        cheaper: the server checks one move, it need not enumerate all of them.
        """

    @abstractmethod
    def play(self, move: MoveT) -> Self:
        """The state after `move`, which the caller guarantees is legal (not checked)."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """None while the game goes on; else how it ended, judged in the game's documented order."""

    @abstractmethod
    def to_data(self) -> dict[str, Any]:
        """Plain msgpack-able data; `game.state_from_data(s.to_data()) == s`."""

    @abstractmethod
    def render(self) -> str:
        """A text picture for terminals and logs, with coordinates on the edges."""

    def apply(self, move: MoveT) -> Self:
        """The state after `move`, or `IllegalMoveError` saying why it is not legal here."""
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move {self.game.format_move(move)}: {reason}")
        return self.play(move)

    def is_over(self) -> bool:
        return self.outcome() is not None

    def random_move(self, rng: random.Random) -> MoveT:
        """A legal move drawn at random, for playouts; the game must not be over.

        Uniform over `legal_moves()` by default. A game whose move list is huge (Amazons) may
        override it with a cheaper hierarchical draw (a piece, then a target), which is not
        uniform over moves but is what playout-based agents and OpenSpiel's playouts do.
        """
        return rng.choice(self.legal_moves())

    def random_playout(self, rng: random.Random, max_plies: int) -> Self:
        """The state after random moves (`random_move`) until the game ends or `max_plies` more
        have been played.

        Playout-based agents spend most of their time here, so a game with a compiled kernel
        runs the whole loop in it: one call instead of a call and a new state per ply.
        """
        state = self
        for _ in range(max_plies):
            if state.outcome() is not None:
                break
            state = state.play(state.random_move(rng))
        return state

    def key(self) -> int:
        """A fast key for a search's transposition table, equal for equal positions.

        Searches reach one position by many move orders and look it up by this key millions of
        times, so it must be cheap. This default is the state's hash: fast, but two positions
        may share one, so a table keyed by it must treat a stored move as a hint to check. A
        game may return an exact key instead (its bitboards and counters packed into one int):
        then equal keys mean the same future for two positions of one game (same options).
        """
        return hash(self)


def describe_options(options: Mapping[str, Any]) -> str:
    """Options as people read them, in one spelling for the server's sentences and the clients:
    `no_capture_limit=20,seed=3`, or `default options` for none."""
    if not options:
        return "default options"
    return ",".join(f"{name}={json.dumps(value)}" for name, value in sorted(options.items()))


def as_tuples(value: Any) -> Any:
    """Lists back to tuples, all the way down (JSON and msgpack have no tuples), so `[3, 4]` and
    `(3, 4)` are the same; anything else as is."""
    if isinstance(value, list | tuple):
        return tuple(as_tuples(part) for part in value)
    return value


class Game(ABC, Generic[StateT, MoveT]):
    """The rules of one game: identity, seats, options, start, notation and data form."""

    name: ClassVar[str]
    """Registry key, lowercase with dashes: `kings-court`."""
    title: ClassVar[str]
    """How people write it: `King's Court`."""
    seats: ClassVar[tuple[str, str]]
    """Seat names in turn order: seat 0 moves first."""
    options: ClassVar[tuple[Option, ...]] = ()
    boards: ClassVar[Boards]
    """How its positions look: what every drawing and observation of them is made from."""
    max_move_text: ClassVar[int]
    """Length of the longest legal move text; the server refuses longer text unparsed."""
    notation_help: ClassVar[str]
    """A paragraph explaining the move notation, with examples."""
    default_time_control: ClassVar[str] = "move=10"
    """The time control a program's seek without one gets (the `move=5`/`clock=300+2` form)."""
    person_time_control: ClassVar[str] = "clock=600+5"
    """A person's default: ten minutes and five seconds a move, a game clock (ten seconds a
    move is too short to read a board, and a person thinks long on some moves, not all)."""
    can_both_forfeit: ClassVar[bool] = False
    """Whether the rules can end a game with both seats forfeited (`Result.BOTH_FORFEIT`): a
    tool that scores games must then not assume one seat's loss is the other's win."""

    @abstractmethod
    def initial_state(self, options: Mapping[str, Any]) -> StateT:
        """The start position for resolved options (see `resolve_options`)."""

    @abstractmethod
    def max_plies(self, options: Mapping[str, Any]) -> int:
        """The longest game the rules allow under `options` (a missing one at its default), in
        plies, whatever the players do: every game ends by its own rules, and tools that need
        the bound (a move list's size, OpenSpiel's game length, the termination tests) ask here.
        Each game derives it from its end rules beside its constants."""

    @abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """The move written as `text`, or `InvalidMoveError`; no position needed."""

    @abstractmethod
    def format_move(self, move: MoveT) -> str:
        """Canonical notation; `parse_move(format_move(m)) == m`."""

    move_texts_kept: ClassVar[int] = 1 << 14
    """How many move texts `format_moves` remembers; 0 for a game whose moves rarely recur."""

    def format_moves(self, moves: Iterable[MoveT]) -> list[str]:
        """`format_move` of each, remembered: the server formats every legal move of every
        position it sends as hints, and in most games the same moves recur from position to
        position (a lookup is several times cheaper than formatting). Moves must be hashable."""
        if not self.move_texts_kept:
            return [self.format_move(move) for move in moves]
        return list(map(self._move_texts.__getitem__, moves))

    @functools.cached_property
    def _move_texts(self) -> Memo[MoveT, str]:
        return Memo(self.format_move, limit=self.move_texts_kept)

    @abstractmethod
    def state_from_data(self, data: Any) -> StateT:
        """Rebuild a state from `State.to_data()` output, or `StateDataError`."""

    def resolve_options(
        self, given: Mapping[str, Any], fresh_seed: Callable[[], int] | None = None
    ) -> dict[str, Any]:
        """Every option with a checked value: unknown names and bad values raise `OptionError`.

        Seed options left unset are drawn from `fresh_seed`; without one they stay unset and
        `initial_state` refuses them, so a random start is never taken by accident.
        """
        known = {option.name: option for option in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise OptionError(f"{self.name} has no option {unknown[0]!r} (options: {names})")
        resolved: dict[str, Any] = {}
        for name, option in known.items():
            value = given.get(name, option.default)
            if value is None and option.is_seed and fresh_seed is not None:
                value = fresh_seed()
            resolved[name] = value if value is None else option.check(value)
        return resolved

    def new_game(self, fresh_seed: Callable[[], int] | None = None, **options: Any) -> StateT:
        """A start position from keyword options: the short way for tests and scripts."""
        return self.initial_state(self.resolve_options(options, fresh_seed))

    def apply_text(self, state: StateT, text: str) -> tuple[MoveT, StateT]:
        """Parse and apply move text: `InvalidMoveError` or `IllegalMoveError` on refusal."""
        text = text.strip()
        if len(text) > self.max_move_text:
            raise InvalidMoveError(
                f"move text of {len(text)} characters is longer than any {self.title} move "
                f"({self.max_move_text})"
            )
        move = self.parse_move(text)
        return move, state.apply(move)

    def replay(self, options: Mapping[str, Any], texts: Iterable[str]) -> StateT:
        """The position a stored game's move texts reach from its start, each move checked."""
        state = self.initial_state(options)
        for text in texts:
            _, state = self.apply_text(state, text)
        return state

    # -- the original referee's Player API (what `client.player_module` speaks) -----------------
    # A Player class answers `action(turns)` and hears `update(action)`; each game's original
    # API wrote moves its own way. These defaults use the game's notation; a game whose original
    # API had another form (Watch Your Back!'s tuples and None) overrides all four together.

    legacy_start: ClassVar[bool] = True
    """Whether a Player's optional `start(state)` is called with the start position."""

    def legacy_action(self, move: MoveT) -> Any:
        """`move` as a Player's `update()` receives it: its notation here."""
        return self.format_move(move)

    def parse_legacy_action(self, action: Any) -> MoveT:
        """The move a Player's `action()` returned (any tuples in it arrive as lists), or
        `InvalidMoveError`; `parse_legacy_action(legacy_action(m)) == m`."""
        if not isinstance(action, str):
            raise InvalidMoveError(f"not a move in {self.title} notation, which is text")
        return self.parse_move(action)

    def legacy_turns(self, state: StateT) -> int:
        """The `turns` a Player's `action()` is given: moves made so far."""
        return state.ply

    def seat_index(self, name: str) -> Seat:
        try:
            return self.seats.index(name)
        except ValueError:
            raise GameError(f"{self.name} has no seat {name!r} (seats: {self.seats})") from None

    def __repr__(self) -> str:
        return f"<Game {self.name}>"
