"""Game of the Amazons: every rule, the notation and the data form (docs/games/amazons.md).

Squares are ints 0..99, `file + 10 * rank` with a1 = 0 and j10 = 99, so a set of squares is a
Python int used as a bitboard. A state is three bitboards (white amazons, black amazons, arrows)
and the seat to move; nothing else is needed, because every move adds exactly one arrow, so the
number of moves played is the number of arrows.

Speed drives the shape of the move generator: agents search millions of positions, and a start
position alone has 2176 moves. The eight rays of every square are built once at import, each with
its bitboard mask, so the squares an amazon or an arrow can reach along a ray come from one AND
and one bit scan (the nearest blocker) and a slice of the ray, never a square-by-square walk.

One fact of the rules keeps the end test and the playouts cheap: an amazon that has moved can
always shoot its arrow back along its path to the square it just left. So a player can complete
a move exactly when one of their amazons has an empty neighbour, and every destination has an
arrow.

Where the compiled kernel (games/native/amazons.c) is built, the end test, move generation and
whole random playouts run in it; this module stays the rules' statement, and a differential test
(tests/games/test_native_amazons.py) plays the two in lockstep.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeAlias, cast

from arbiter.games._base import (
    Game,
    InvalidMoveError,
    Outcome,
    Seat,
    State,
    StateDataError,
)
from arbiter.games._bitboard import Bitboard, squares_of
from arbiter.games._boards import DIM, Boards, Grid, Piece, Shape, Shown
from arbiter.games._native import kernel
from arbiter.games._picture import framed_grid

Square: TypeAlias = int
"""0..99: `file + 10 * rank`, both counted from 0, so a1 = 0, j1 = 9, a10 = 90."""
Move: TypeAlias = tuple[Square, Square, Square]
"""(from, to, arrow): the amazon's queen move, then the arrow shot from where it landed."""

SIZE = 10
FILES = "abcdefghij"
SEATS = ("white", "black")
WHITE, BLACK = 0, 1

EMPTY_CHAR, WHITE_CHAR, BLACK_CHAR, ARROW_CHAR = ".", "W", "B", "x"
CELL_CHARS = EMPTY_CHAR + WHITE_CHAR + BLACK_CHAR + ARROW_CHAR

START_ROWS = (
    "...B..B...",
    "..........",
    "..........",
    "B........B",
    "..........",
    "..........",
    "W........W",
    "..........",
    "..........",
    "...W..W...",
)
"""The standard start, top row (rank 10) first: White a4 d1 g1 j4, Black a7 d10 g10 j7."""

AMAZONS_PER_SIDE = 4
MAX_PLY = SIZE * SIZE - 2 * AMAZONS_PER_SIDE
"""The longest game: every move burns an empty square with its arrow, and the amazons stand on
eight of the hundred."""

# Queen directions as (file step, rank step), in the order moves are generated: north first,
# then clockwise.
_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


class Kernel(Protocol):
    """What games/native/amazons.c offers: a position goes in as (white, black, arrows, to_move)."""

    def legal_moves(
        self, white: Bitboard, black: Bitboard, arrows: Bitboard, to_move: Seat, /
    ) -> list[Move]: ...

    def can_move(
        self, white: Bitboard, black: Bitboard, arrows: Bitboard, to_move: Seat, /
    ) -> bool: ...

    def playout(
        self,
        white: Bitboard,
        black: Bitboard,
        arrows: Bitboard,
        to_move: Seat,
        seed: int,
        max_plies: int,
        record: list[Move] | None,
        /,
    ) -> tuple[Bitboard, Bitboard, Bitboard, Seat]:
        """The position after random moves drawn as `AmazonsState.random_move` draws them; each
        move played is appended to `record` when it is a list."""

    def territory(
        self, mine: Bitboard, theirs: Bitboard, empty: Bitboard, /
    ) -> tuple[int, int, int]:
        """agents/evaluations/amazons.py's `territory`: an evaluation's feature, computed here
        because it is a flood over the board, which C does many times faster."""

    def freedom(self, amazons: Bitboard, empty: Bitboard, worth: tuple[float, ...], /) -> float:
        """agents/evaluations/amazons.py's `freedom`, likewise."""


KERNEL: Kernel | None = cast("Kernel | None", kernel("amazons"))
"""The compiled rules, or None where they were not built: then the Python code below runs. The
differential test sets it to None for a moment to play the Python rules beside the kernel."""


def _square(file: int, rank: int) -> Square:
    return file + SIZE * rank


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < SIZE and 0 <= rank < SIZE


SQUARE_NAMES: tuple[str, ...] = tuple(
    f"{FILES[s % SIZE]}{s // SIZE + 1}" for s in range(SIZE * SIZE)
)
_SQUARE_OF_NAME = {name: s for s, name in enumerate(SQUARE_NAMES)}
BIT: tuple[Bitboard, ...] = tuple(1 << s for s in range(SIZE * SIZE))
FULL: Bitboard = (1 << SIZE * SIZE) - 1


def _ray(square: Square, df: int, dr: int) -> tuple[Square, ...]:
    """The squares from `square` (excluded) to the board's edge in one direction, nearest first."""
    file, rank = square % SIZE + df, square // SIZE + dr
    squares = []
    while _on_board(file, rank):
        squares.append(_square(file, rank))
        file, rank = file + df, rank + dr
    return tuple(squares)


_RayEntry: TypeAlias = tuple[tuple[Square, ...], Bitboard, int]


def _ray_tables() -> tuple[list[tuple[_RayEntry, ...]], list[tuple[_RayEntry, ...]]]:
    """Per square, its non-empty rays as (squares, mask, signed step), split by direction sign.

    The split exists because the nearest blocker on a ray toward higher squares is the lowest set
    bit of the blockers, and toward lower squares the highest: two different bit scans.
    """
    upward: list[tuple[_RayEntry, ...]] = []
    downward: list[tuple[_RayEntry, ...]] = []
    for square in range(SIZE * SIZE):
        up: list[_RayEntry] = []
        down: list[_RayEntry] = []
        for df, dr in _DIRECTIONS:
            ray = _ray(square, df, dr)
            if ray:
                entry = (ray, sum(BIT[s] for s in ray), df + SIZE * dr)
                (up if entry[2] > 0 else down).append(entry)
        upward.append(tuple(up))
        downward.append(tuple(down))
    return upward, downward


_UP_RAYS, _DOWN_RAYS = _ray_tables()

_FILE_A: Bitboard = sum(BIT[_square(0, rank)] for rank in range(SIZE))
_NOT_FILE_A: Bitboard = FULL ^ _FILE_A
_NOT_FILE_J: Bitboard = FULL ^ (_FILE_A << SIZE - 1)


def touching(board: Bitboard) -> Bitboard:
    """Every square next to a square of `board`, by eight shifts at once.

    The end test runs after every move of every playout, so it is one expression instead of a
    loop over the amazons. Squares on file a may not shift west, nor those on file j east.
    """
    east, west = board & _NOT_FILE_J, board & _NOT_FILE_A
    vertical = board << SIZE | board >> SIZE
    eastward = east << 1 | east << SIZE + 1 | east >> SIZE - 1
    westward = west >> 1 | west << SIZE - 1 | west >> SIZE + 1
    return (vertical | eastward | westward) & FULL


NEIGHBOURS: tuple[Bitboard, ...] = tuple(touching(BIT[s]) for s in range(SIZE * SIZE))
"""The up to eight squares touching each square."""


def _line_step(a: Square, b: Square) -> int:
    """The signed square step leading from `a` to `b` along a queen line, 0 if there is none."""
    df, dr = b % SIZE - a % SIZE, b // SIZE - a // SIZE
    if a == b or (df and dr and abs(df) != abs(dr)):
        return 0
    return (df > 0) - (df < 0) + SIZE * ((dr > 0) - (dr < 0))


_LINE_STEP: tuple[tuple[int, ...], ...] = tuple(
    tuple(_line_step(a, b) for b in range(SIZE * SIZE)) for a in range(SIZE * SIZE)
)
"""`_LINE_STEP[a][b]`: the step from a toward b when they share a queen line, else 0."""


def reach(square: Square, occupied: Bitboard) -> list[Square]:
    """Every square a queen move (or an arrow) from `square` can end on, ray by ray, nearest first.

    The ray is cut just before its first occupied square: one AND, one bit scan and a slice per
    ray. This is the inner loop of move generation, hence the two near-identical loops.
    """
    squares: list[Square] = []
    for ray, mask, step in _UP_RAYS[square]:
        blockers = occupied & mask
        if blockers:
            nearest = (blockers & -blockers).bit_length() - 1
            squares += ray[: (nearest - square) // step - 1]
        else:
            squares += ray
    for ray, mask, step in _DOWN_RAYS[square]:
        blockers = occupied & mask
        if blockers:
            nearest = blockers.bit_length() - 1
            squares += ray[: (nearest - square) // step - 1]
        else:
            squares += ray
    return squares


def _path_blocker(src: Square, dst: Square, occupied: Bitboard) -> Square | None:
    """The first occupied square from `src` (excluded) to `dst` (included) on their queen line."""
    step = _LINE_STEP[src][dst]
    square = src
    while square != dst:
        square += step
        if occupied & BIT[square]:
            return square
    return None


@dataclass(frozen=True, slots=True, repr=False)
class AmazonsState(State[Move]):
    """One position: where the amazons and arrows are, and who moves.

    Bitboards rather than a list of 100 cells, because moving and shooting are then three XOR/OR
    operations and occupancy is one OR, which keeps `play()` and the generator cheap.
    """

    game: ClassVar[Game[Any, Any]]

    white: Bitboard
    black: Bitboard
    arrows: Bitboard
    to_move: Seat

    # -- construction and text forms -------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: Sequence[str], turn: str = "white") -> AmazonsState:
        """A position from 10 row strings, top row (rank 10) first: `.` empty, `W`, `B`, `x` arrow.

        The same picture the data form uses, so tests and saved games read alike. Raises
        `StateDataError` for anything that is not a position of this game.
        """
        if isinstance(rows, str) or not isinstance(rows, Sequence):
            raise StateDataError(f"amazons board must be a list of {SIZE} rows, not {rows!r}")
        if len(rows) != SIZE:
            raise StateDataError(f"amazons board must have {SIZE} rows, not {len(rows)}")
        boards = {WHITE_CHAR: 0, BLACK_CHAR: 0, ARROW_CHAR: 0}
        for index, row in enumerate(rows):
            rank = SIZE - 1 - index
            if not isinstance(row, str) or len(row) != SIZE:
                raise StateDataError(
                    f"amazons row {rank + 1} must be a string of {SIZE} cells, not {row!r}"
                )
            for file, char in enumerate(row):
                if char not in CELL_CHARS:
                    raise StateDataError(
                        f"amazons cell {SQUARE_NAMES[_square(file, rank)]} holds {char!r}; "
                        f"a cell is one of {CELL_CHARS!r}"
                    )
                if char != EMPTY_CHAR:
                    boards[char] |= BIT[_square(file, rank)]
        for char, seat in ((WHITE_CHAR, "white"), (BLACK_CHAR, "black")):
            count = boards[char].bit_count()
            if count != AMAZONS_PER_SIDE:
                raise StateDataError(
                    f"{seat} must have {AMAZONS_PER_SIDE} amazons ({char}), not {count}"
                )
        if turn not in SEATS:
            raise StateDataError(f"amazons turn must be 'white' or 'black', not {turn!r}")
        return cls(boards[WHITE_CHAR], boards[BLACK_CHAR], boards[ARROW_CHAR], SEATS.index(turn))

    def rows(self) -> list[str]:
        """The board as 10 row strings, top row first (the inverse of `from_rows`)."""
        return [
            "".join(self._cell_char(_square(file, rank)) for file in range(SIZE))
            for rank in reversed(range(SIZE))
        ]

    def _cell_char(self, square: Square) -> str:
        bit = BIT[square]
        if self.white & bit:
            return WHITE_CHAR
        if self.black & bit:
            return BLACK_CHAR
        return ARROW_CHAR if self.arrows & bit else EMPTY_CHAR

    def to_data(self) -> dict[str, Any]:
        return {"board": self.rows(), "turn": SEATS[self.to_move]}

    def __repr__(self) -> str:
        return f"AmazonsState.from_rows({self.rows()!r}, turn={SEATS[self.to_move]!r})"

    def render(self) -> str:
        lines = framed_grid(self.rows(), FILES)
        outcome = self.outcome()
        counters = f"ply {self.ply}, {(FULL & ~self.occupied).bit_count()} empty squares"
        if outcome is None:
            lines.append(f"{SEATS[self.to_move]} to move ({counters})")
        else:
            lines.append(f"{SEATS[outcome.winner or 0]} wins: {outcome.reason} ({counters})")
        return "\n".join(lines)

    # -- the rules ----------------------------------------------------------------------------

    @property
    def turn(self) -> Seat:
        return self.to_move

    @property
    def ply(self) -> int:
        """Moves played: each move shoots exactly one arrow, and arrows never leave the board."""
        return self.arrows.bit_count()

    @property
    def occupied(self) -> Bitboard:
        return self.white | self.black | self.arrows

    def key(self) -> int:
        """The position packed into one int, for search tables: exact, so it never collides."""
        return self.white | self.black << 100 | self.arrows << 200 | self.to_move << 300

    def _mine(self) -> Bitboard:
        return self.black if self.to_move else self.white

    def _can_move(self) -> bool:
        """Whether the mover can complete a move: some amazon of theirs has an empty neighbour.

        Enough because the arrow can always return to the square the amazon left.
        """
        if KERNEL is not None:
            return KERNEL.can_move(self.white, self.black, self.arrows, self.to_move)
        return bool(touching(self._mine()) & ~self.occupied)

    def outcome(self) -> Outcome | None:
        if self._can_move():
            return None
        return Outcome.win(1 - self.to_move, f"{SEATS[self.to_move]} has no legal move")

    def legal_moves(self) -> list[Move]:
        """Every move, ordered by amazon (a1 first), then destination, then arrow, ray by ray."""
        if KERNEL is not None:
            return KERNEL.legal_moves(self.white, self.black, self.arrows, self.to_move)
        occupied = self.occupied
        moves: list[Move] = []
        for src in squares_of(self._mine()):
            vacated = occupied ^ BIT[src]
            for dst in reach(src, occupied):
                moves += [(src, dst, arrow) for arrow in reach(dst, vacated)]
        return moves

    def why_illegal(self, move: Move) -> str | None:
        """The first rule `move` breaks, checked in the order a player makes the move."""
        if not self._can_move():
            return "the game is over"
        src, dst, arrow = move
        if not self._mine() & BIT[src]:
            return f"{SQUARE_NAMES[src]} is not your amazon: it {self._holds(src)}"
        reason = self._why_path_illegal("the amazon", src, dst, self.occupied)
        if reason is not None:
            return reason
        vacated = self.occupied ^ BIT[src]
        return self._why_path_illegal("the arrow", dst, arrow, vacated)

    def _why_path_illegal(
        self, mover: str, src: Square, dst: Square, occupied: Bitboard
    ) -> str | None:
        """Why `mover` cannot fly from `src` to `dst` over `occupied`, or None if it can."""
        src_name, dst_name = SQUARE_NAMES[src], SQUARE_NAMES[dst]
        if src == dst:
            return f"{mover} must leave {src_name}, not stay on it"
        if not _LINE_STEP[src][dst]:
            return f"{mover} cannot fly from {src_name} to {dst_name}: not a straight line"
        blocker = _path_blocker(src, dst, occupied)
        if blocker is None:
            return None
        if blocker == dst:
            return f"{mover} cannot land on {dst_name}: it {self._holds(dst)}"
        return (
            f"{mover}'s path from {src_name} to {dst_name} is blocked at "
            f"{SQUARE_NAMES[blocker]}: it {self._holds(blocker)}"
        )

    def _holds(self, square: Square) -> str:
        """What is on `square`, as the end of a sentence ("it holds an arrow")."""
        bit = BIT[square]
        if self.white & bit:
            return "holds a white amazon"
        if self.black & bit:
            return "holds a black amazon"
        return "holds an arrow" if self.arrows & bit else "is empty"

    def play(self, move: Move) -> AmazonsState:
        src, dst, arrow = move
        if self.to_move == WHITE:
            return AmazonsState(
                self.white ^ BIT[src] ^ BIT[dst], self.black, self.arrows | BIT[arrow], BLACK
            )
        return AmazonsState(
            self.white, self.black ^ BIT[src] ^ BIT[dst], self.arrows | BIT[arrow], WHITE
        )

    def random_move(self, rng: random.Random) -> Move:
        """A random amazon that can move, a random destination, a random arrow: one at a time.

        The draw OpenSpiel's playouts make (not uniform over moves), at the cost of two ray
        scans instead of listing some 2000 moves. Every amazon with an empty neighbour has a
        complete move, and every destination has an arrow (back where it came from).
        """
        occupied = self.occupied
        empty = ~occupied
        src = rng.choice([s for s in squares_of(self._mine()) if NEIGHBOURS[s] & empty])
        dst = rng.choice(reach(src, occupied))
        return src, dst, rng.choice(reach(dst, occupied ^ BIT[src]))

    def random_playout(self, rng: random.Random, max_plies: int) -> AmazonsState:
        """Random moves drawn as `random_move` draws them, the whole playout in the kernel when
        it is built (with its own generator, seeded from `rng`)."""
        if KERNEL is None:
            return State.random_playout(self, rng, max_plies)
        seed = rng.getrandbits(64)
        position = KERNEL.playout(
            self.white, self.black, self.arrows, self.to_move, seed, max_plies, None
        )
        return AmazonsState(*position)


_MOVE_RE = re.compile(r"([a-j](?:10|[1-9]))-([a-j](?:10|[1-9]))/([a-j](?:10|[1-9]))")


# -- How a position looks --------------------------------------------------------------------


class AmazonsBoards(Boards):
    """A chessboard's squares, burnt ones dark with a cross, and how many squares are left."""

    def facts(self, shown: Shown) -> list[str]:
        board: list[str] = shown.data["board"]
        arrows = sum(row.count(ARROW_CHAR) for row in board)
        empty = sum(row.count(EMPTY_CHAR) for row in board)
        return [f"arrows: {arrows}, empty squares: {empty}"]


BOARDS = AmazonsBoards(
    grids=(
        Grid(
            ("board",),
            tuple(FILES),
            tuple(str(rank) for rank in range(SIZE, 0, -1)),
            ground=("#f0d9b5", "#b58863"),
        ),
    ),
    pieces=(
        Piece(WHITE_CHAR, 0, shape=Shape.AMAZON, fill="#fff"),
        Piece(BLACK_CHAR, 1, shape=Shape.AMAZON, fill="#222", stroke="#ccc"),
        Piece(ARROW_CHAR, style="bold red", shape=Shape.CROSS, stroke="#c96", ground="#4a3426"),
        Piece(EMPTY_CHAR, style=DIM),
    ),
    square_pattern=re.compile(r"([a-j])(10|[1-9])"),
    planes=(EMPTY_CHAR, BLACK_CHAR, WHITE_CHAR, ARROW_CHAR),
)


class Amazons(Game[AmazonsState, Move]):
    name = "amazons"
    boards = BOARDS
    title = "Game of the Amazons"
    seats = SEATS
    max_move_text = len("a10-b10/c10")
    move_texts_kept = 0  # hundreds of moves a position, few repeated: a memo would only churn
    notation_help = (
        "A move is the amazon's square, a dash, the square it moves to, a slash, and the square "
        "its arrow lands on: d1-d7/g7 moves the amazon on d1 up to d7 and shoots an arrow across "
        "to g7. Files are a to j from left to right and ranks 1 to 10 from bottom to top (a1 is "
        "White's bottom-left corner). Both the amazon and its arrow fly like a chess queen, over "
        "empty squares only; the arrow may land on the square the amazon just left, as in "
        "a4-b4/a4. Letters may be upper or lower case (J4-J6/E6); surrounding spaces are ignored."
    )

    def initial_state(self, options: Mapping[str, Any]) -> AmazonsState:
        return AmazonsState.from_rows(START_ROWS)

    def max_plies(self, options: Mapping[str, Any]) -> int:
        return MAX_PLY

    def parse_move(self, text: str) -> Move:
        match = _MOVE_RE.fullmatch(text.strip().lower()) if isinstance(text, str) else None
        if match is None:
            raise InvalidMoveError(
                f"{text!r} is not an amazons move: write from-to/arrow, like d1-d7/g7"
            )
        src, dst, arrow = (_SQUARE_OF_NAME[name] for name in match.groups())
        return src, dst, arrow

    def format_move(self, move: Move) -> str:
        src, dst, arrow = move
        return f"{SQUARE_NAMES[src]}-{SQUARE_NAMES[dst]}/{SQUARE_NAMES[arrow]}"

    def state_from_data(self, data: Any) -> AmazonsState:
        if not isinstance(data, dict):
            raise StateDataError(f"amazons state data must be a map, not {type(data).__name__}")
        keys = set(data)
        if keys != {"board", "turn"}:
            missing = sorted({"board", "turn"} - keys)
            extra = ", ".join(sorted(repr(key) for key in keys - {"board", "turn"}))
            detail = f"missing {missing[0]!r}" if missing else f"unexpected {extra}"
            raise StateDataError(f"amazons state data needs keys 'board' and 'turn' ({detail})")
        return AmazonsState.from_rows(data["board"], data["turn"])


GAME = Amazons()
AmazonsState.game = GAME
