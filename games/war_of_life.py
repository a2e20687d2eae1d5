"""War of Life: Conway's Game of Life as a two-player game (docs/games/war-of-life.md).

Blue and red each start with 12 pieces scattered at random on an 8x8 board. A move steps one of
the mover's pieces to an empty neighbouring square (8 directions); then Conway's Crank updates
all 64 cells at once from the board as the move left it. Pieces die of loneliness (0-1
neighbours) or overcrowding (4-8), survive on 2-3, and an empty cell with exactly 3 neighbours
gives birth to a piece of the colour holding the majority among those three (3-0 or 2-1).

Squares are numbered a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63 (file a-h left to right,
rank 1-8 bottom to top). The original's coordinates `(x, y)` are (file number, rank): its `(3, 8)`
is c8. A board is two 64-bit ints, one per colour, so the crank is a few dozen bitwise operations
on whole boards instead of a loop over 64 cells: strategies score every move by the board after
its crank, so `play` is the hot path of every agent.

Where the compiled kernel (games/native/war_of_life.c) is built, the crank and whole random
playouts run in it; this module stays the rules' statement, and a differential test
(tests/games/test_native_war_of_life.py) plays the two in lockstep.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, Protocol, TypeAlias, cast

from arbiter.games._base import (
    Game,
    InvalidMoveError,
    Option,
    OptionError,
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
"""0..63: a1 = 0, h1 = 7, a8 = 56, h8 = 63."""

BLUE: Seat = 0
RED: Seat = 1
MAX_PLY = 250
"""The exhausted draw comes after this many moves of both players together."""
PIECES_PER_SIDE = 12
SEED_MAXIMUM = 2**63 - 1
"""Seeds are stored in SQLite, whose integers are signed 64-bit."""

FILES = "abcdefgh"
SYMBOLS = ("b", "r")
"""Cell letters for blue and red in the data form, the text constructor and `render`."""
EMPTY_SYMBOL = "."

BB_ALL: Bitboard = (1 << 64) - 1
BB_FILE_A: Bitboard = 0x0101010101010101
BB_FILE_H: Bitboard = BB_FILE_A << 7
BB_NOT_FILE_A: Bitboard = BB_ALL ^ BB_FILE_A
BB_NOT_FILE_H: Bitboard = BB_ALL ^ BB_FILE_H


class Kernel(Protocol):
    """What games/native/war_of_life.c offers: boards go in and out as (blue, red) bitboards."""

    def crank(self, blue: Bitboard, red: Bitboard, /) -> tuple[Bitboard, Bitboard]: ...

    def playout(
        self,
        blue: Bitboard,
        red: Bitboard,
        ply: int,
        exhausted_at: int,
        seed: int,
        max_plies: int,
        record: list[tuple[Square, Square]] | None,
        /,
    ) -> tuple[Bitboard, Bitboard, int]:
        """(blue, red, ply) after uniformly random moves; each move played is appended to
        `record` as (source, target) when it is a list."""


KERNEL: Kernel | None = cast("Kernel | None", kernel("war_of_life"))
"""The compiled rules, or None where they were not built: then the Python code below runs. The
differential test sets it to None for a moment to play the Python rules beside the kernel."""


def square_name(square: Square) -> str:
    return f"{FILES[square & 7]}{(square >> 3) + 1}"


def _neighbour_mask(square: Square) -> Bitboard:
    file, rank = square & 7, square >> 3
    mask = 0
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            f, r = file + df, rank + dr
            if (df or dr) and 0 <= f < 8 and 0 <= r < 8:
                mask |= 1 << (r * 8 + f)
    return mask


NEIGHBOURS: tuple[Bitboard, ...] = tuple(_neighbour_mask(square) for square in range(64))
"""The up to 8 squares around each square."""


# -- Conway's Crank ------------------------------------------------------------------------------


def _from_west(bb: Bitboard) -> Bitboard:
    """Each cell gets the bit of its west neighbour; masking file a stops h-file bits wrapping."""
    return (bb << 1) & BB_NOT_FILE_A


def _from_east(bb: Bitboard) -> Bitboard:
    return (bb >> 1) & BB_NOT_FILE_H


def _neighbour_count_planes(bb: Bitboard) -> tuple[Bitboard, Bitboard, Bitboard]:
    """Each cell's count of neighbours in `bb`, sliced into bit planes: (bit 0, bit 1, >= 4).

    The crank only needs to tell 0-1, 2, 3 and 4-8 apart, so the count is written as
    `bit0 + 2 * t` with t in 0..4, and the third plane marks t >= 2. Counting whole rows first
    (west + self + east) means the rows above and below are plain 8-bit shifts of one sum.
    """
    west, east = _from_west(bb), _from_east(bb)
    mid0, mid1 = west ^ east, west & east  # west + east, the neighbours in the cell's own row
    row0, row1 = mid0 ^ bb, mid1 | (mid0 & bb)  # west + self + east, for the rows next door
    south0, south1 = (row0 << 8) & BB_ALL, (row1 << 8) & BB_ALL
    north0, north1 = row0 >> 8, row1 >> 8
    half = south0 ^ mid0
    bit0 = half ^ north0
    carry = (south0 & mid0) | (north0 & half)
    pair_a, pair_b = south1 ^ mid1, north1 ^ carry
    bit1 = pair_a ^ pair_b
    many = (south1 & mid1) | (north1 & carry) | (pair_a & pair_b)
    return bit0, bit1, many


def crank(blue: Bitboard, red: Bitboard) -> tuple[Bitboard, Bitboard]:
    """Conway's Crank: every cell updated at once from the given board; returns (blue, red).

    Pieces with 2 or 3 neighbours survive in their colour, the rest die; an empty cell with
    exactly 3 neighbours is born blue when at least 2 of them are blue, else red.
    """
    if KERNEL is not None:
        return KERNEL.crank(blue, red)
    occupied = blue | red
    bit0, bit1, many = _neighbour_count_planes(occupied)
    stays = bit1 & ~many  # 2 or 3 neighbours
    births = stays & bit0 & ~occupied  # exactly 3
    # Around a birth cell the blue count is 0..3, so its bit 1 alone says "at least 2 blue".
    blue_births = births & _neighbour_count_planes(blue)[1]
    return (blue & stays) | blue_births, (red & stays) | (births ^ blue_births)


def _touching(bb: Bitboard) -> Bitboard:
    """The cells in `bb` or next to one of them: a piece can move iff an empty cell touches it."""
    row = bb | _from_west(bb) | _from_east(bb)
    return row | ((row << 8) & BB_ALL) | (row >> 8)


# -- The random start ----------------------------------------------------------------------------


def _below(rng: random.Random, n: int) -> int:
    """A uniform int in [0, n), by rejection on `getrandbits`.

    Written out rather than `randrange` so the start depends only on the Mersenne Twister's
    output for an int seed, which CPython has kept unchanged since 3.2.
    """
    bits = n.bit_length()
    while True:
        value = rng.getrandbits(bits)
        if value < n:
            return value


def start_position(seed: int) -> tuple[Bitboard, Bitboard]:
    """The (blue, red) start for `seed`: 24 distinct squares by a partial Fisher-Yates shuffle.

    Squares 0..63 (a1..h8) in a list; for i = 0..23 swap entry i with entry i + below(64 - i).
    Entries 0..11 are blue, 12..23 red. Documented in docs/games/war-of-life.md.
    """
    rng = random.Random(seed)
    squares = list(range(64))
    for i in range(2 * PIECES_PER_SIDE):
        j = i + _below(rng, 64 - i)
        squares[i], squares[j] = squares[j], squares[i]
    blue = sum(1 << square for square in squares[:PIECES_PER_SIDE])
    red = sum(1 << square for square in squares[PIECES_PER_SIDE : 2 * PIECES_PER_SIDE])
    return blue, red


# -- Moves ---------------------------------------------------------------------------------------


class Move(NamedTuple):
    """A step of the piece on `source` to the empty neighbouring square `target`."""

    source: Square
    target: Square

    def __repr__(self) -> str:
        return f"Move({square_name(self.source)}-{square_name(self.target)})"


def _subsets(mask: Bitboard) -> Iterator[Bitboard]:
    subset = 0
    while True:
        yield subset
        subset = (subset - mask) & mask
        if not subset:
            return


def _moves_into(source: Square) -> dict[Bitboard, list[Move]]:
    steps = [(1 << target, Move(source, target)) for target in squares_of(NEIGHBOURS[source])]
    return {
        empty: [move for bit, move in steps if empty & bit]
        for empty in _subsets(NEIGHBOURS[source])
    }


_MOVES_INTO: tuple[dict[Bitboard, list[Move]], ...] = tuple(map(_moves_into, range(64)))
"""For each source, its moves for every set of empty neighbours, in target order: move
generation is one lookup per piece."""

_OUTCOME_NO_PIECES = Outcome.draw("no pieces are left on the board")
_OUTCOME_EXHAUSTED = Outcome.draw(f"{MAX_PLY} moves were played: an exhausted draw")
_OUTCOME_STALEMATE = (
    Outcome.draw("blue cannot move: stalemate"),
    Outcome.draw("red cannot move: stalemate"),
)
_OUTCOME_WIPED_OUT = (
    Outcome.win(RED, "blue has no pieces left"),
    Outcome.win(BLUE, "red has no pieces left"),
)


# -- The state -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class WarOfLifeState(State[Move]):
    """A position: the two colours' pieces and the moves played (blue moves on even plies).

    No move is ever passed, so the ply alone says whose turn it is.
    """

    game: ClassVar[WarOfLife]

    blue: Bitboard
    red: Bitboard
    ply: int = 0

    @classmethod
    def from_rows(cls, rows: Sequence[str], ply: int = 0) -> WarOfLifeState:
        """A position from 8 row strings, rank 8 first, like `"b..r...."` ('.' empty).

        The same text as the data form and `render`, so tests and bug reports read as boards.
        """
        if isinstance(rows, str) or not isinstance(rows, Sequence) or len(rows) != 8:
            raise StateDataError(f"a board is a list of 8 row strings, not {rows!r}")
        blue = red = 0
        for index, row in enumerate(rows):
            rank = 8 - index
            if not isinstance(row, str) or len(row) != 8:
                raise StateDataError(f"row {rank} must be a string of 8 cells, not {row!r}")
            for file, cell in enumerate(row):
                bit = 1 << ((rank - 1) * 8 + file)
                if cell == SYMBOLS[BLUE]:
                    blue |= bit
                elif cell == SYMBOLS[RED]:
                    red |= bit
                elif cell != EMPTY_SYMBOL:
                    raise StateDataError(
                        f"cell {FILES[file]}{rank} holds {cell!r}: cells are 'b', 'r' or '.'"
                    )
        if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= MAX_PLY:
            raise StateDataError(f"the move count must be an integer 0..{MAX_PLY}, not {ply!r}")
        return cls(blue, red, ply)

    def rows(self) -> list[str]:
        """The board as 8 row strings, rank 8 first (the inverse of `from_rows`)."""
        return [
            "".join(self.symbol_at(rank * 8 + file) for file in range(8))
            for rank in range(7, -1, -1)
        ]

    def __repr__(self) -> str:
        return f"WarOfLifeState.from_rows({self.rows()!r}, ply={self.ply})"

    def symbol_at(self, square: Square) -> str:
        if self.blue >> square & 1:
            return SYMBOLS[BLUE]
        if self.red >> square & 1:
            return SYMBOLS[RED]
        return EMPTY_SYMBOL

    @property
    def turn(self) -> Seat:
        return self.ply & 1

    def pieces(self, seat: Seat) -> Bitboard:
        return self.red if seat else self.blue

    def piece_count(self, seat: Seat) -> int:
        """How many pieces `seat` has: what the seed's strategies score boards by."""
        return (self.red if seat else self.blue).bit_count()

    def key(self) -> int:
        """The position packed into one int, for search tables: exact, so it never collides.

        The whole ply is kept: the exhausted draw comes at a fixed move count.
        """
        return self.blue | self.red << 64 | self.ply << 128

    def legal_moves(self) -> list[Move]:
        """Every move, by source square then target square, both in a1, b1, ..., h8 order.

        The built-in strategies break ties by the first move in this order, so their games repeat.
        """
        blue, red = self.blue, self.red
        if not (blue and red) or self.ply >= MAX_PLY:
            return []  # over; a stalemate needs no test here, it simply yields no moves
        empty = BB_ALL & ~(blue | red)
        mine = red if self.ply & 1 else blue
        moves: list[Move] = []
        for source in squares_of(mine):
            moves += _MOVES_INTO[source][NEIGHBOURS[source] & empty]
        return moves

    def why_illegal(self, move: Move) -> str | None:
        if self.outcome() is not None:
            return "the game is over"
        source, target = move
        if not (0 <= source < 64 and 0 <= target < 64):
            return f"{move!r} names a square off the board"
        from_name, to_name = square_name(source), square_name(target)
        if not self.pieces(self.turn) >> source & 1:
            if self.pieces(1 - self.turn) >> source & 1:
                return f"{from_name} is not your piece: it is {self.game.seats[1 - self.turn]}"
            return f"{from_name} is empty"
        if not NEIGHBOURS[source] >> target & 1:
            return f"{to_name} is not next to {from_name}: a piece steps to one of its neighbours"
        if (self.blue | self.red) >> target & 1:
            return f"{to_name} is occupied"
        return None

    def play(self, move: Move) -> WarOfLifeState:
        """The board after the move and its crank: how agents look one move ahead."""
        step = (1 << move[0]) | (1 << move[1])
        if self.ply & 1:
            blue, red = crank(self.blue, self.red ^ step)
        else:
            blue, red = crank(self.blue ^ step, self.red)
        return WarOfLifeState(blue, red, self.ply + 1)

    def random_playout(self, rng: random.Random, max_plies: int) -> WarOfLifeState:
        """Uniformly random moves, the whole playout in the kernel when it is built (with its own
        generator, seeded from `rng`)."""
        if KERNEL is None:
            return State.random_playout(self, rng, max_plies)
        seed = rng.getrandbits(64)
        return WarOfLifeState(
            *KERNEL.playout(self.blue, self.red, self.ply, MAX_PLY, seed, max_plies, None)
        )

    def outcome(self) -> Outcome | None:
        """Checked in the order of the course's referee, so that both judge a position alike."""
        blue, red = self.blue, self.red
        if not (blue or red):
            return _OUTCOME_NO_PIECES
        if self.ply >= MAX_PLY:
            return _OUTCOME_EXHAUSTED
        if not (blue and red):
            return _OUTCOME_WIPED_OUT[BLUE if not blue else RED]
        mine = red if self.ply & 1 else blue
        if not mine & _touching(BB_ALL & ~(blue | red)):
            return _OUTCOME_STALEMATE[self.ply & 1]
        return None

    def to_data(self) -> dict[str, Any]:
        return {"board": self.rows(), "ply": self.ply}

    def render(self) -> str:
        lines = framed_grid(self.rows(), FILES, number_width=1, gap=1)
        outcome = self.outcome()
        if outcome is None:
            status = f"{self.game.seats[self.turn]} ({SYMBOLS[self.turn]}) to move"
        else:
            status = f"game over: {outcome.reason}"
        lines.append(
            f"{status}; {self.ply} of {MAX_PLY} moves played; "
            f"blue {self.piece_count(BLUE)}, red {self.piece_count(RED)} pieces"
        )
        return "\n".join(lines)


# -- The game ------------------------------------------------------------------------------------

_MOVE_TEXT = re.compile(r"([a-h])([1-8])-?([a-h])([1-8])")


def parse_square(file: str, rank: str) -> Square:
    return (int(rank) - 1) * 8 + FILES.index(file)


# -- How a position looks --------------------------------------------------------------------


class WarOfLifeBoards(Boards):
    """The board as the mover's step left it, before Conway's Crank, beside the board after the
    crank, so a player sees what the move did and what the crank made of it."""

    def facts(self, shown: Shown) -> list[str]:
        lines = [f"{shown.data['ply']} of {MAX_PLY} moves played"]
        if shown.before is not None and shown.move is not None:
            before = self.owner_counts(self.stepped(shown.before, shown.move))
            after = self.counts(shown.data)
            changes = ", ".join(
                f"{seat} {was} -> {now}"
                for seat, was, now in zip(shown.seats, before, after, strict=True)
            )
            lines.append(f"the crank: {changes}")
        return lines


BOARDS = WarOfLifeBoards(
    grids=(Grid(("board",), tuple(FILES), tuple("87654321"), ground=("#f4f4f4", "#dcdcdc")),),
    pieces=(
        Piece(SYMBOLS[BLUE], BLUE, shape=Shape.STONE, fill="#2b6cd4", stroke="#123"),
        Piece(SYMBOLS[RED], RED, shape=Shape.STONE, fill="#d43b2b", stroke="#311"),
        Piece(".", style=DIM),
    ),
    square_pattern=re.compile(r"([a-h])([1-8])"),
    planes=(SYMBOLS[BLUE], SYMBOLS[RED]),
    step_titles=("before the crank", "after the crank"),
)


class WarOfLife(Game[WarOfLifeState, Move]):
    name = "war-of-life"
    boards = BOARDS
    title = "War of Life"
    seats = ("blue", "red")
    options = (
        Option(
            "seed",
            int,
            None,
            "seed of the random start (12 blue, 12 red pieces); drawn by the server when unset",
            minimum=0,
            maximum=SEED_MAXIMUM,
            is_seed=True,
        ),
        Option(
            "swap",
            bool,
            False,
            "swap the colours of the seed's start, to replay a pairing from the other side",
        ),
    )
    max_move_text = len("a1-b2")
    notation_help = (
        "A move is the square of one of your pieces, a dash, and the empty neighbouring square "
        "it steps to (8 directions): 'c8-b7', 'e4-e5', 'h1-g2'. Files a-h run left to right, "
        "ranks 1-8 bottom to top; the seed's (x, y) is file x, rank y, so its (3, 8) is c8. "
        "Letters may be upper or lower case and the dash may be left out ('C8B7')."
    )

    def initial_state(self, options: Mapping[str, Any]) -> WarOfLifeState:
        seed = options.get("seed")
        if seed is None:
            raise OptionError(
                f"{self.name} starts from a random position: give option 'seed' an integer"
            )
        seed = self.options[0].check(seed)
        blue, red = start_position(seed)
        if self.options[1].check(options.get("swap", False)):
            blue, red = red, blue
        return WarOfLifeState(blue, red, 0)

    def max_plies(self, options: Mapping[str, Any]) -> int:
        return MAX_PLY

    def parse_move(self, text: str) -> Move:
        match = _MOVE_TEXT.fullmatch(text.strip().lower()) if isinstance(text, str) else None
        if match is None:
            raise InvalidMoveError(
                f"{text!r} is not a {self.title} move: write the piece's square and the square "
                "it steps to, like 'c8-b7'"
            )
        from_file, from_rank, to_file, to_rank = match.groups()
        return Move(parse_square(from_file, from_rank), parse_square(to_file, to_rank))

    def format_move(self, move: Move) -> str:
        return f"{square_name(move[0])}-{square_name(move[1])}"

    def state_from_data(self, data: Any) -> WarOfLifeState:
        if not isinstance(data, dict):
            raise StateDataError(f"{self.title} state data is a map, not {type(data).__name__}")
        if set(data) != {"board", "ply"}:
            raise StateDataError(
                f"{self.title} state data has keys 'board' and 'ply', not {sorted(map(str, data))}"
            )
        return WarOfLifeState.from_rows(data["board"], data["ply"])


GAME = WarOfLife()
WarOfLifeState.game = GAME
