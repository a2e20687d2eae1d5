"""Shobu, with the rulings of docs/games/shobu.md: every rule of the game in one module.

Four 4x4 boards, named by owner and colour: black-dark, black-light, white-dark, white-light (the
original's `boards[home][colour]`). All four share one orientation: files a-d left to right,
rows 1-4 from Black's side to White's, so "north" (toward row 4) is the same direction on every
board. That matters because a turn is two moves in the same direction and distance on two
different boards.

A turn is one move object holding both halves (`Move`): the passive half on one of the mover's
homeboards, then the aggressive half on a board of the other colour. A passive move is only legal
when an aggressive move can follow, which is automatic once both halves travel together.

Representation, for speed: a square is an int 0-63 (board * 16 + row * 4 + column, row 0 nearest
Black) and each colour's stones are one int used as a bitset. Move generation shifts whole bitsets
one step at a time, so it finds every landing square of a direction in a dozen int operations.
Checking one move (`why_illegal`) and making it (`play`) use tables per square built at import
for each of the 16 vectors (8 directions x distance 1 or 2): the squares entered, the landing
square, and the square just beyond it where a pushed stone ends. The two ways of reading the
rules are independent, and the tests check that they agree on every candidate turn.

This module is the statement of the rules. games/native/shobu.c computes the same answers on the
same bitsets (turns, the legality of one, making one, the end, whole random playouts) many times
faster; where it is built, the state's methods ask it (`KERNEL`), and the tests play it against
the Python rules in lockstep.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from arbiter.games._base import Game, InvalidMoveError, Option, Outcome, Seat, State, StateDataError
from arbiter.games._bitboard import squares_of
from arbiter.games._boards import DIM, Boards, BoardSquare, Grid, Piece, Shape, Shown
from arbiter.games._native import kernel

Square = int
"""board * 16 + row * 4 + column: row 0 is row 1 (Black's side), column 0 is file a."""
Bitboard = int
"""One bit per `Square`."""

BLACK, WHITE = 0, 1
DARK, LIGHT = 0, 1
SEATS = ("black", "white")
COLOURS = ("dark", "light")
BOARD_NAMES = ("black-dark", "black-light", "white-dark", "white-light")
"""Board index = owner * 2 + colour, so a seat's homeboards are 2 * seat and 2 * seat + 1."""
BOARD_CODES = ("bd", "bl", "wd", "wl")
FILES = "abcd"
DIRECTIONS = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
DELTAS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
"""(column, row) steps of each direction; north is toward row 4, White's side."""
START_ROWS = ("WWWW", "....", "....", "BBBB")
"""Every board at the start, row 4 first: White's stones farthest from Black."""

ALL_SQUARES: Bitboard = (1 << 64) - 1
BOARD_MASK = tuple(0xFFFF << (16 * board) for board in range(4))
COLOUR_MASK = (BOARD_MASK[0] | BOARD_MASK[2], BOARD_MASK[1] | BOARD_MASK[3])
NO_CAPTURE_LIMIT = 100
"""Turns (both players together) without a stone pushed off that draw the game. Not in the seed:
positions arise where no stone can ever reach an opposing one (every stone on an edge file, say),
and random play finds them in about 4% of games. 100 turns, 50 each, as chess's 50-move rule."""
MAX_NO_CAPTURE_LIMIT = 2000
"""The longest no-capture limit a game may set, so that every game fits one message's move
list (65,536 moves). A player loses when one of its boards has no stone left, so at most 3 of
its 4 stones per board, 12 in all, are pushed off while the game goes on: 24 pushes for both,
then the one that ends it. Each of those 25 pushes ends a stretch of at most `limit` turns, and
a stretch that reaches the limit is a draw: at most 25 * limit + 25 turns, 50,025 here."""


def max_plies(no_capture_limit: int) -> int:
    """The longest game under `no_capture_limit`: 25 pushes off a board, each after at most
    `limit` turns that push nothing (see `MAX_NO_CAPTURE_LIMIT`)."""
    return 25 * (no_capture_limit + 1)


MAX_PLY = max_plies(MAX_NO_CAPTURE_LIMIT)
"""The longest game under any allowed option (tests check it fits the protocol's move list)."""


Move = tuple[Square, Square, int, int]
"""One whole turn: (passive stone, aggressive stone, direction, distance); both halves share the
direction (an index into DIRECTIONS) and the distance (1 or 2). A plain tuple, not a NamedTuple:
building one is ten times cheaper, and `legal_moves()` builds hundreds per position."""


def _square(board: int, column: int, row: int) -> Square | None:
    if 0 <= column < 4 and 0 <= row < 4:
        return board * 16 + row * 4 + column
    return None


def _steps(square: Square, vector: int) -> tuple[Square, ...] | None:
    """Squares entered one by one along `vector` (the last is the landing square), or None
    when the move would leave the board."""
    direction, distance = vector >> 1, (vector & 1) + 1
    (dc, dr), board = DELTAS[direction], square >> 4
    column, row = square & 3, (square >> 2) & 3
    steps = [_square(board, column + dc * i, row + dr * i) for i in range(1, distance + 1)]
    return None if None in steps else tuple(s for s in steps if s is not None)


def _beyond(square: Square, vector: int) -> Square | None:
    """Where a pushed stone ends: one step past the landing square (None: off the board)."""
    direction, distance = vector >> 1, (vector & 1) + 1
    (dc, dr), board = DELTAS[direction], square >> 4
    reach = distance + 1
    return _square(board, (square & 3) + dc * reach, ((square >> 2) & 3) + dr * reach)


def _mask(squares: Sequence[Square]) -> Bitboard:
    bits = 0
    for square in squares:
        bits |= 1 << square
    return bits


STEPS = tuple(tuple(_steps(square, vector) for square in range(64)) for vector in range(16))
"""STEPS[vector][square]: the squares a stone enters, landing square last; None off the board.
A vector is direction * 2 + distance - 1."""
PATH = tuple(tuple(0 if s is None else _mask(s) for s in row) for row in STEPS)
LANDING = tuple(tuple(-1 if s is None else s[-1] for s in row) for row in STEPS)
BEYOND = tuple(
    tuple(0 if (b := _beyond(square, vector)) is None else 1 << b for square in range(64))
    for vector in range(16)
)
"""BEYOND[vector][square]: bit of the square a pushed stone lands on; 0 pushes it off."""
SHIFTS = tuple(
    (
        _mask([s for s in range(64) if _square(0, (s & 3) + dc, ((s >> 2) & 3) + dr) is not None]),
        max(dr * 4 + dc, 0),
        max(-dr * 4 - dc, 0),
    )
    for dc, dr in DELTAS
)
"""SHIFTS[direction]: (squares that stay on their board after a step, left shift, right shift),
so one step of a whole bitset is `((bits & keep) << left) >> right`."""
REACH = tuple(((v & 1) + 1) * (DELTAS[v >> 1][1] * 4 + DELTAS[v >> 1][0]) for v in range(16))
"""REACH[vector]: landing square minus starting square."""
VECTOR_NAMES = tuple(f"{DIRECTIONS[v >> 1]}{(v & 1) + 1}" for v in range(16))
SQUARE_NAMES = tuple(f"{BOARD_CODES[s >> 4]}{FILES[s & 3]}{((s >> 2) & 3) + 1}" for s in range(64))
SQUARE_BY_NAME = {name: square for square, name in enumerate(SQUARE_NAMES)}
VECTOR_BY_NAME = {name: vector for vector, name in enumerate(VECTOR_NAMES)}


@functools.lru_cache(maxsize=1 << 14)
def _squares(bits: Bitboard) -> tuple[Square, ...]:
    """The squares of a bitset, low to high. Cached: the same few landing sets recur across
    positions, and a lookup is six times cheaper than walking the bits again."""
    return tuple(squares_of(bits))


def _where(square: Square) -> str:
    """A square as a sentence reads it: `c3 on black-dark`."""
    return f"{FILES[square & 3]}{((square >> 2) & 3) + 1} on {BOARD_NAMES[square >> 4]}"


def _step(bits: Bitboard, direction: int) -> Bitboard:
    """Every square of `bits` moved one step in `direction`; steps off a board are dropped."""
    keep, left, right = SHIFTS[direction]
    return ((bits & keep) << left) >> right


def _passive_landings(stones: Bitboard, occupied: Bitboard, direction: int) -> tuple[int, int]:
    """Where `stones` can land at distance 1 and 2 without pushing or passing any stone."""
    empty = ALL_SQUARES & ~occupied
    one = _step(stones, direction) & empty
    return one, _step(one, direction) & empty


def _aggressive_landings(own: Bitboard, opp: Bitboard, direction: int) -> tuple[int, int]:
    """Where `own` stones can land at distance 1 and 2 under the aggressive rule, all squares at
    once: no own stone on the path, at most one opposing stone on it, and that one pushed onto
    an empty square or off the board. Boards of either colour: the caller masks by colour."""
    stone_ahead = _step(own | opp, (direction + 4) & 7)  # the next square holds a stone
    one = _step(own, direction) & ~own
    two = _step(one, direction) & ~own
    over_opp = _step(one & opp, direction)  # landings two away whose first step met a stone
    two &= ~(over_opp & opp) & ~((over_opp | opp) & stone_ahead)
    return one & ~(opp & stone_ahead), two


class Kernel(Protocol):
    """games/native/shobu.c, which answers the hot questions of `ShobuState` on the same data.
    Each function takes the state first and answers as the state's method of the same name
    (`playout` as `random_playout`, from a seed, recording its turns in `record` if given), but
    `is_legal` and `ongoing` answer yes or no where `why_illegal` and `outcome` explain."""

    def legal_moves(self, state: ShobuState, /) -> list[Move]: ...
    def cleared_board(self, state: ShobuState, /) -> tuple[Seat, int] | None: ...
    def has_turn(self, state: ShobuState, /) -> bool: ...
    def ongoing(self, state: ShobuState, /) -> bool: ...
    def is_legal(self, state: ShobuState, move: Move, /) -> bool: ...
    def random_move(self, state: ShobuState, randrange: Callable[[int], int], /) -> Move: ...
    def play(self, state: ShobuState, move: Move, /) -> ShobuState: ...
    def playout(
        self, state: ShobuState, seed: int, max_plies: int, record: list[Move] | None, /
    ) -> ShobuState: ...
    def balance(self, mine: Bitboard, theirs: Bitboard, my_turn: bool, tempo: float, /) -> float:
        """agents/evaluations/shobu.py's `balance`: an evaluation's feature, computed here
        because the search asks it at every leaf."""


KERNEL = cast("Kernel | None", kernel("shobu"))
"""The compiled kernel, or None where it was not built: then the State's methods below run in
Python. The differential tests set it to None for a while to play the Python rules beside it."""


@dataclass(frozen=True, slots=True)
class ShobuState(State[Move]):
    """A position: each colour's stones as a bitset over the 64 squares, plus the counters.

    Shobu has no pass, so the seat to move is the parity of `ply`. `since_capture` counts the
    turns since a stone was last pushed off a board; at `no_capture_limit` the game is drawn
    (our rule, not the seed's: without it a game can go on for ever, see docs/games/shobu.md).
    """

    black: Bitboard
    white: Bitboard
    ply: int = 0
    since_capture: int = 0
    no_capture_limit: int = NO_CAPTURE_LIMIT

    @classmethod
    def from_rows(
        cls,
        boards: Mapping[str, Sequence[str]] | None = None,
        turn: str = "black",
        **counters: int,
    ) -> ShobuState:
        """A position from each board's four rows (row 4 first, cells `B`, `W`, `.`), for tests.

        Boards left out keep their starting rows. `counters` may set `ply` (by default the first
        ply with `turn` to move), `since_capture` and `no_capture_limit`. Bad rows raise
        `StateDataError`, as `state_from_data` would.
        """
        rows = {name: list(START_ROWS) for name in BOARD_NAMES}
        rows.update({name: list(given) for name, given in (boards or {}).items()})
        data = {"boards": rows, "turn": turn, "ply": SEATS.index(turn), "since_capture": 0}
        data["no_capture_limit"] = NO_CAPTURE_LIMIT
        return GAME.state_from_data(data | counters)

    @property
    def turn(self) -> Seat:
        return self.ply & 1

    def stones(self, seat: Seat) -> Bitboard:
        return self.white if seat else self.black

    def piece_count(self, seat: Seat) -> int:
        """Stones `seat` has left on all four boards."""
        return self.stones(seat).bit_count()

    def key(self) -> int:
        """The position packed into one int, for search tables: exact, so it never collides.

        Only the parity of `ply` matters to the future (whose turn it is); the no-capture limit
        is an option, the same for every position of one game.
        """
        return self.black | self.white << 64 | ((self.ply & 1) | self.since_capture << 1) << 128

    def board_counts(self, seat: Seat) -> tuple[int, int, int, int]:
        """Stones `seat` has on each board, in BOARD_NAMES order: the seed's evaluation weighs the
        balance board by board, since losing one board loses the game."""
        bits = self.stones(seat)
        return (
            (bits & BOARD_MASK[0]).bit_count(),
            (bits & BOARD_MASK[1]).bit_count(),
            (bits & BOARD_MASK[2]).bit_count(),
            (bits & BOARD_MASK[3]).bit_count(),
        )

    # --- the end --------------------------------------------------------------------------

    def cleared_board(self) -> tuple[Seat, int] | None:
        """(loser, board) when some board holds none of `loser`'s stones, else None.

        The seat to move is asked first: its opponent just moved and is the one who clears
        boards in play. The other case only arises in a position built by hand.
        """
        if KERNEL is not None:
            return KERNEL.cleared_board(self)
        for loser in (self.ply & 1, 1 - (self.ply & 1)):
            bits = self.stones(loser)
            for board in range(4):
                if not bits & BOARD_MASK[board]:
                    return loser, board
        return None

    def outcome(self) -> Outcome | None:
        if KERNEL is not None and KERNEL.ongoing(self):
            return None  # the reasons in words below are built only for an ended game
        cleared = self.cleared_board()
        if cleared is not None:
            loser, board = cleared
            reason = f"{SEATS[1 - loser]} cleared {BOARD_NAMES[board]} of {SEATS[loser]} stones"
            return Outcome.win(1 - loser, reason)
        if self.since_capture >= self.no_capture_limit:
            reason = f"{self.since_capture} turns in a row pushed no stone off a board"
            return Outcome.draw(reason)
        if not self.has_turn():
            return Outcome.win(1 - self.turn, f"{SEATS[self.turn]} has no legal turn")
        return None

    # --- legal turns ------------------------------------------------------------------------

    def _turn_groups(self) -> Iterator[tuple[int, Bitboard, Bitboard]]:
        """Legal turns grouped by vector and passive colour: (vector, passive landing squares,
        aggressive landing squares), the squares as bitsets.

        The two halves are on boards of different colours, so neither can affect the other: the
        turns of a group are exactly every passive with every aggressive. Walking groups lets
        `legal_moves`, `random_move` and `has_turn` share one generator, and the latter two never
        build turns they do not need.
        """
        mover = self.ply & 1
        own, opp = (self.white, self.black) if mover else (self.black, self.white)
        homes = (own & BOARD_MASK[2 * mover], own & BOARD_MASK[2 * mover + 1])
        for direction in range(8):
            passives = _passive_landings(homes[DARK] | homes[LIGHT], own | opp, direction)
            aggressives = _aggressive_landings(own, opp, direction)
            for vector in (2 * direction, 2 * direction + 1):
                landed = passives[vector & 1]
                for colour in (DARK, LIGHT):
                    passive = landed & BOARD_MASK[2 * mover + colour]
                    aggressive = aggressives[vector & 1] & COLOUR_MASK[1 - colour]
                    if passive and aggressive:
                        yield vector, passive, aggressive

    def _ended_by_stones_or_count(self) -> bool:
        """The cheap half of `outcome()`: the ends that need no move generation."""
        return self.since_capture >= self.no_capture_limit or self.cleared_board() is not None

    def legal_moves(self) -> list[Move]:
        if KERNEL is not None:
            return KERNEL.legal_moves(self)
        if self._ended_by_stones_or_count():
            return []
        moves = []
        for vector, passive, aggressive in self._turn_groups():
            direction, distance, back = vector >> 1, (vector & 1) + 1, REACH[vector]
            aggressives = [square - back for square in _squares(aggressive)]
            moves += [
                (p - back, a, direction, distance) for p in _squares(passive) for a in aggressives
            ]
        return moves

    def has_turn(self) -> bool:
        """Whether the seat to move has any legal turn (not asking whether the game is over)."""
        if KERNEL is not None:
            return KERNEL.has_turn(self)
        return next(self._turn_groups(), None) is not None

    def random_move(self, rng: random.Random) -> Move:
        """Uniform over `legal_moves()` (it returns `legal_moves()[i]` for a random i) without
        building the list: each group's size is the product of its two lists."""
        if KERNEL is not None:
            return KERNEL.random_move(self, rng.randrange)
        groups = [(v, p, a, a.bit_count()) for v, p, a in self._turn_groups()]
        index = rng.randrange(sum(p.bit_count() * count for _, p, _, count in groups))
        for vector, passive, aggressive, count in groups:
            size = passive.bit_count() * count
            if index < size:
                p, a = divmod(index, count)
                back = REACH[vector]
                p, a = _squares(passive)[p] - back, _squares(aggressive)[a] - back
                return p, a, vector >> 1, (vector & 1) + 1
            index -= size
        raise AssertionError("random index beyond the legal turns")

    def why_illegal(self, move: Move) -> str | None:
        if KERNEL is not None and KERNEL.is_legal(self, move):
            return None  # the reasons in words below are built only for an illegal turn
        if self._ended_by_stones_or_count():
            return "the game is over"
        reason = self._turn_problem(move)
        if reason is not None and not self.has_turn():
            return "the game is over"
        return reason

    def _turn_problem(self, move: Move) -> str | None:
        """The first rule `move` breaks, checked half by half in the order a player thinks."""
        mover = self.ply & 1
        passive, aggressive, direction, distance = move
        passive_board, aggressive_board = passive >> 4, aggressive >> 4
        if passive_board >> 1 != mover:
            homes = f"{BOARD_NAMES[2 * mover]} or {BOARD_NAMES[2 * mover + 1]}"
            return (
                f"the passive move must be on your homeboard {homes}, "
                f"not {BOARD_NAMES[passive_board]}"
            )
        if aggressive_board & 1 == passive_board & 1:
            return (
                f"the aggressive move must be on a {COLOURS[1 - (passive_board & 1)]} board, "
                f"the other colour from the passive move's {BOARD_NAMES[passive_board]}"
            )
        vector = direction * 2 + distance - 1
        return self._passive_problem(passive, vector) or self._aggressive_problem(
            aggressive, vector
        )

    def _stone_problem(self, square: Square, half: str) -> str | None:
        if self.stones(self.turn) >> square & 1:
            return None
        if self.stones(1 - self.turn) >> square & 1:
            return f"the {half} move's {_where(square)} is not your stone"
        return f"the {half} move's {_where(square)} is empty"

    def _passive_problem(self, square: Square, vector: int) -> str | None:
        problem = self._stone_problem(square, "passive")
        if problem is not None:
            return problem
        steps = STEPS[vector][square]
        if steps is None:
            return f"the passive move {VECTOR_NAMES[vector]} from {_where(square)} leaves the board"
        occupied = self.black | self.white
        for step in steps:
            if occupied >> step & 1:
                verb = "push" if step == steps[-1] else "pass over"
                return f"the passive move may not {verb} the stone on {_where(step)}"
        return None

    def _aggressive_problem(self, square: Square, vector: int) -> str | None:
        problem = self._stone_problem(square, "aggressive")
        if problem is not None:
            return problem
        steps = STEPS[vector][square]
        if steps is None:
            name = VECTOR_NAMES[vector]
            return f"the aggressive move {name} from {_where(square)} leaves the board"
        own, opp = self.stones(self.turn), self.stones(1 - self.turn)
        hits = []
        for step in steps:
            if own >> step & 1:
                return f"the aggressive move may not push your own stone on {_where(step)}"
            if opp >> step & 1:
                hits.append(step)
        if len(hits) > 1:
            first, second = (SQUARE_NAMES[s][2:] for s in hits)
            board = BOARD_NAMES[square >> 4]
            return f"the aggressive move may not push two stones ({first} and {second} on {board})"
        beyond = BEYOND[vector][square]
        if hits and beyond & (own | opp):
            target = _where(beyond.bit_length() - 1)
            return f"the stone on {_where(hits[0])} would be pushed into the stone on {target}"
        return None

    # --- making a turn ----------------------------------------------------------------------

    def play(self, move: Move) -> ShobuState:
        if KERNEL is not None:
            return KERNEL.play(self, move)
        passive, aggressive, direction, distance = move
        vector = direction * 2 + distance - 1
        landing = LANDING[vector]
        own, opp = (self.white, self.black) if self.ply & 1 else (self.black, self.white)
        own ^= (1 << passive) | (1 << landing[passive]) | (1 << aggressive)
        own ^= 1 << landing[aggressive]
        hit = PATH[vector][aggressive] & opp
        since_capture = self.since_capture + 1
        if hit:
            beyond = BEYOND[vector][aggressive]
            opp = (opp ^ hit) | beyond
            since_capture = since_capture if beyond else 0
        if self.ply & 1:
            own, opp = opp, own
        return ShobuState(own, opp, self.ply + 1, since_capture, self.no_capture_limit)

    def random_playout(self, rng: random.Random, max_plies: int) -> ShobuState:
        """The whole playout in the kernel when it is built, with its own generator seeded from
        `rng`: the same distribution as `random_move` (uniform over the legal turns), not the
        same turns."""
        if KERNEL is None:
            return State.random_playout(self, rng, max_plies)
        return KERNEL.playout(self, rng.getrandbits(64), max_plies, None)

    # --- data and pictures ------------------------------------------------------------------

    def board_rows(self, board: int) -> list[str]:
        """The board's rows as `B`/`W`/`.` strings, row 4 (White's side) first."""
        rows = []
        for row in range(3, -1, -1):
            cells = ""
            for column in range(4):
                bit = 1 << (board * 16 + row * 4 + column)
                cells += "B" if self.black & bit else "W" if self.white & bit else "."
            rows.append(cells)
        return rows

    def to_data(self) -> dict[str, Any]:
        boards = {name: self.board_rows(board) for board, name in enumerate(BOARD_NAMES)}
        return {
            "boards": boards,
            "turn": SEATS[self.turn],
            "ply": self.ply,
            "since_capture": self.since_capture,
            "no_capture_limit": self.no_capture_limit,
        }

    def render(self) -> str:
        top = _render_pair(self, 2, 3, label_above=True)
        bottom = _render_pair(self, 0, 1, label_above=False)
        rope = "~" * (2 * BLOCK_WIDTH + GAP) + "  rope"
        return "\n".join([*top, rope, *bottom, *self._status()])

    def _status(self) -> list[str]:
        """Stone counts per board (the game is lost board by board), counters and the turn."""
        counts = [
            f"{SEATS[seat]} {' '.join(map(str, self.board_counts(seat)))}"
            f" (total {self.piece_count(seat)})"
            for seat in (BLACK, WHITE)
        ]
        outcome = self.outcome()
        state = f"{SEATS[self.turn]} to move" if outcome is None else f"game over, {outcome.reason}"
        return [
            f"stones on {' '.join(BOARD_CODES)}: {', '.join(counts)}",
            f"ply {self.ply}, {self.since_capture} of {self.no_capture_limit} turns without a "
            f"capture: {state}",
        ]


BLOCK_WIDTH = 13
GAP = 6


def _render_board(state: ShobuState, board: int) -> list[str]:
    files = "   " + " ".join(FILES) + "   "
    rows = [
        f"{4 - i}  " + " ".join(cells) + f"  {4 - i}"
        for i, cells in enumerate(state.board_rows(board))
    ]
    return [files, *rows, files]


def _render_pair(state: ShobuState, left: int, right: int, label_above: bool) -> list[str]:
    """Two boards side by side, dark on the left, labelled on their owner's side of the rope."""
    label = "".join(
        f"   {BOARD_NAMES[b]} ({BOARD_CODES[b]})".ljust(BLOCK_WIDTH + GAP) for b in (left, right)
    )
    label = label.rstrip()
    blocks = zip(_render_board(state, left), _render_board(state, right), strict=True)
    lines = [(a + " " * GAP + b).rstrip() for a, b in blocks]
    return [label, *lines] if label_above else [*lines, label]


# --- the game ---------------------------------------------------------------------------------

NOTATION_HELP = """\
A turn is written as three words: the passive stone (board code and square), the aggressive \
stone (board code and square), then the shared direction and distance. Board codes: bd \
(black-dark), bl (black-light), wd (white-dark), wl (white-light). On every board files a-d run \
left to right and rows 1-4 from Black's side to White's. Directions are compass points with north \
toward White's side: n, ne, e, se, s, sw, w, nw; the distance is 1 or 2. Examples: `bda1 wla1 n2` \
(Black moves a1 on black-dark two squares north, then a1 on white-light two squares north), \
`wlb4 bdc4 s1`, `bdd1 blc1 nw1`. Case and extra spaces between words do not matter."""


# -- How a position looks --------------------------------------------------------------------

WOOD = {"dark": ("#8b5a2b", "on grey19"), "light": ("#e3c290", "on grey42")}
"""Each board's wood: its web colour and its terminal background."""


def _board_grid(board: int) -> Grid:
    """One board, titled by owner and colour, row 4 (White's side) first."""
    name, code = BOARD_NAMES[board], BOARD_CODES[board]
    ground, style = WOOD[COLOURS[board & 1]]
    return Grid(
        ("boards", name),
        tuple(FILES),
        tuple("4321"),
        ground=(ground,),
        style=style,
        title=f"{name} ({code})",
        prefix=f"{code}:",
    )


class ShobuBoards(Boards):
    """All four boards, White's homeboards across the rope from Black's; a turn's two halves
    marked on their boards; stones per board, as a game is lost board by board."""

    def move_squares(self, move: str) -> list[BoardSquare]:
        """Each stone's square and where it goes: the passive stone's, then the aggressive's."""
        try:
            passive, aggressive, direction, distance = GAME.parse_move(move)
        except InvalidMoveError:
            return []
        (column_step, row_step), squares = DELTAS[direction], []
        for start in (passive, aggressive):
            board, row, column = start >> 4, (start >> 2) & 3, start & 3
            row_to, column_to = row + row_step * distance, column + column_step * distance
            squares.append(BoardSquare(_DRAWN[board], 3 - row, column))
            if 0 <= row_to < 4 and 0 <= column_to < 4:
                squares.append(BoardSquare(_DRAWN[board], 3 - row_to, column_to))
        return squares

    def facts(self, shown: Shown) -> list[str]:
        data = shown.data
        per_board = {
            code: self.owner_counts(data["boards"][name])
            for code, name in zip(BOARD_CODES, BOARD_NAMES, strict=True)
        }
        lines = [
            f"{seat} stones: "
            + " ".join(f"{code} {per_board[code][index]}" for code in BOARD_CODES)
            for index, seat in enumerate(shown.seats)
        ]
        lines.append(
            f"no capture for {data['since_capture']} turns (limit {data['no_capture_limit']})"
        )
        return lines


_DRAWN_ORDER = (2, 3, 0, 1)
"""The boards as drawn, White's pair on top: grid i is board `_DRAWN_ORDER[i]`."""
_DRAWN = tuple(_DRAWN_ORDER.index(board) for board in range(4))
"""A board's grid."""

BOARDS = ShobuBoards(
    grids=tuple(_board_grid(board) for board in _DRAWN_ORDER),
    pieces=(
        Piece("B", BLACK, shape=Shape.STONE, fill="#222", stroke="#000"),
        Piece("W", WHITE, shape=Shape.STONE, fill="#fff"),
        Piece(".", style=DIM),
    ),
    bands=((0, 1), (2, 3)),
    separator="rope",
    clicks=3,
    planes=("B", "W"),
    plane_grids=_DRAWN,
    planes_bottom_up=True,
)


class ShobuGame(Game[ShobuState, Move]):
    name = "shobu"
    boards = BOARDS
    title = "Shobu"
    seats = SEATS
    max_move_text = len("bda1 wla1 ne2")
    notation_help = NOTATION_HELP

    options = (
        Option(
            "no_capture_limit",
            int,
            NO_CAPTURE_LIMIT,
            "turns of both players together without a stone pushed off a board that draw the game",
            minimum=1,
            maximum=MAX_NO_CAPTURE_LIMIT,
        ),
    )

    def initial_state(self, options: Mapping[str, Any]) -> ShobuState:
        limit = options.get("no_capture_limit", NO_CAPTURE_LIMIT)
        return ShobuState.from_rows(no_capture_limit=limit)

    def max_plies(self, options: Mapping[str, Any]) -> int:
        return max_plies(options.get("no_capture_limit", NO_CAPTURE_LIMIT))

    def parse_move(self, text: str) -> Move:
        words = text.lower().split()
        if len(words) != 3:
            raise InvalidMoveError(
                f"{text!r} is not a Shobu turn: write passive stone, aggressive stone and "
                f"direction with distance, as in 'bda1 wla1 n2'"
            )
        passive, aggressive = (_parse_square(text, word) for word in words[:2])
        vector = VECTOR_BY_NAME.get(words[2])
        if vector is None:
            raise InvalidMoveError(
                f"{text!r}: {words[2]!r} is not a direction (n, ne, e, se, s, sw, w, nw) "
                f"and distance (1 or 2)"
            )
        return passive, aggressive, vector >> 1, (vector & 1) + 1

    def format_move(self, move: Move) -> str:
        passive, aggressive, direction, distance = move
        return (
            f"{SQUARE_NAMES[passive]} {SQUARE_NAMES[aggressive]} "
            f"{VECTOR_NAMES[direction * 2 + distance - 1]}"
        )

    def state_from_data(self, data: Any) -> ShobuState:
        if not isinstance(data, dict) or set(data) != set(DATA_KEYS):
            raise StateDataError(
                f"Shobu state data must map exactly {', '.join(DATA_KEYS)}, not {data!r}"
            )
        ply, since, limit = (_count(data, key) for key in DATA_KEYS[2:])
        if data["turn"] != SEATS[ply & 1]:
            raise StateDataError(
                f"turn {data['turn']!r} does not match ply {ply}: black moves on even plies, "
                f"white on odd"
            )
        if limit < 1 or since > min(ply, limit):
            raise StateDataError(
                f"since_capture {since} must be at most ply {ply} and no_capture_limit {limit}, "
                f"which must be at least 1"
            )
        state = ShobuState(*_boards_from_data(data["boards"]), ply, since, limit)
        if 0 in state.board_counts(BLACK) and 0 in state.board_counts(WHITE):
            raise StateDataError(
                "both players have a board cleared of the other's stones; a game ends at the first"
            )
        return state


def _parse_square(text: str, word: str) -> Square:
    square = SQUARE_BY_NAME.get(word)
    if square is None:
        raise InvalidMoveError(
            f"{text!r}: {word!r} is not a board code (bd, bl, wd, wl) and a square a1-d4"
        )
    return square


DATA_KEYS = ("boards", "turn", "ply", "since_capture", "no_capture_limit")


def _count(data: dict[str, Any], key: str) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StateDataError(f"{key} must be a non-negative integer, not {value!r}")
    return value


def _boards_from_data(boards: Any) -> tuple[Bitboard, Bitboard]:
    if not isinstance(boards, dict) or set(boards) != set(BOARD_NAMES):
        raise StateDataError(f"boards must map each of {', '.join(BOARD_NAMES)} to its rows")
    black = white = 0
    for board, name in enumerate(BOARD_NAMES):
        board_black, board_white = _board_from_rows(name, boards[name])
        black |= board_black << (16 * board)
        white |= board_white << (16 * board)
    return black, white


def _board_from_rows(name: str, rows: Any) -> tuple[Bitboard, Bitboard]:
    """One board's stones (bits 0-15) from four rows, row 4 first, checked cell by cell."""
    if not isinstance(rows, list) or len(rows) != 4:
        raise StateDataError(f"board {name} must be a list of 4 rows, not {rows!r}")
    black = white = 0
    for i, cells in enumerate(rows):
        if not isinstance(cells, str) or len(cells) != 4 or set(cells) - set("BW."):
            raise StateDataError(
                f"board {name} row {4 - i} must be 4 cells of B, W or '.', not {cells!r}"
            )
        for column, cell in enumerate(cells):
            bit = 1 << ((3 - i) * 4 + column)
            black |= bit if cell == "B" else 0
            white |= bit if cell == "W" else 0
    for seat, bits in ((BLACK, black), (WHITE, white)):
        if bits.bit_count() > 4:
            raise StateDataError(
                f"board {name} holds {bits.bit_count()} {SEATS[seat]} stones; "
                f"a board starts with 4 of each and never gains one"
            )
    return black, white


GAME = ShobuGame()
ShobuState.game = GAME
