"""Watch Your Back! (docs/games/watch-your-back.md): stab the enemy in the back.

Two players, White and Black, each place 12 pieces on an 8x8 board with four corner squares (the
placing phase), then move them one square along a row or column, or jump over one adjacent piece
(the moving phase). A piece caught between two enemies (or an enemy and a corner) along a row or
column is eliminated. The board shrinks after moves 128 and 192 of the moving phase. A player
left with fewer than 2 pieces loses; both at once is a tie. After the last shrink, a dead
position or `no_capture_limit` moves in a row that eliminate nothing end the game in a tie
(docs/games/watch-your-back.md, "Endless games"): the original rules alone allow games
without end.

Coordinates are the original's `(column, row)`, (0, 0) top-left, rows counting down. Moves keep the
shape the original course referee gave its players, so an adapter for those agents is trivial:
a placement is `(x, y)`, a move or jump is `((xa, ya), (xb, yb))`, and a forfeited turn is `PASS`
(the referee's `None`). Inside, square `(x, y)` is number `8 * y + x` and a set of squares is an
int with that bit set: a board is two such ints, one per colour, and every neighbour, flank and
shrink ring is a table built once at import, because agents call `legal_moves` and `play`
millions of times.

Where the compiled kernel (games/native/watch_your_back.c) is built, move generation, the test
for a movable piece and whole random playouts run in it; this module stays the rules'
statement, and a differential test (tests/games/test_native_watch_your_back.py) plays the two
in lockstep.
"""

from __future__ import annotations

import enum
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeAlias, cast

from arbiter.games._base import (
    Game,
    InvalidMoveError,
    Option,
    Outcome,
    Seat,
    State,
    StateDataError,
    as_tuples,
    data_int,
)
from arbiter.games._bitboard import squares_of
from arbiter.games._boards import DIM, Boards, Grid, Piece, Shape, Shown
from arbiter.games._native import kernel

Square: TypeAlias = tuple[int, int]
"""`(column, row)`, both 0..7, (0, 0) top-left as in the seed."""
Step: TypeAlias = tuple[Square, Square]
"""A slide or a jump in the moving phase: `((xa, ya), (xb, yb))`."""
Bitboard: TypeAlias = int
"""A set of squares: bit `8 * row + column` is set when `(column, row)` is in it."""


class Pass(enum.Enum):
    """The forfeited turn, its own type so no `None` from elsewhere is ever taken for a move."""

    PASS = "pass"


PASS = Pass.PASS
Move: TypeAlias = Square | Step | Pass

WHITE: Seat = 0
BLACK: Seat = 1
SIZE = 8
PLACEMENTS = 24
"""The placing phase is 12 placements each, whatever gets eliminated along the way."""
PIECES_PER_SIDE = 12
MIN_PIECES = 2
"""A player with fewer pieces than this has lost (from the moving phase on)."""
SHRINK_AFTER = {128: 1, 192: 2}
"""Moving-phase move count (passes included) -> how many times the board has shrunk after it."""
NO_CAPTURE_LIMIT = 64
"""Moves in a row after the last shrink that eliminate nothing before the game is a tie: the
length of one shrink period."""
MAX_NO_CAPTURE_LIMIT = 1000
LAST_SHRINK_AFTER = max(SHRINK_AFTER)
LAST_BOARD_SQUARES = 12
"""The 4x4 board left by the last shrink, less its four corners: no more pieces fit on it."""


def max_plies(no_capture_limit: int) -> int:
    """The longest game the rules allow: placing, the moves up to the last shrink, then runs of
    at most `no_capture_limit` moves each ended by an elimination. The last board holds at most
    12 pieces and a game with fewer than 4 is over (2 each at least), so at most 8 eliminating
    moves leave it going; the run after the last of them ends it by the limit."""
    eliminations = LAST_BOARD_SQUARES - 2 * MIN_PIECES
    return PLACEMENTS + LAST_SHRINK_AFTER + (eliminations + 1) * no_capture_limit


MAX_PLY = max_plies(MAX_NO_CAPTURE_LIMIT)

WHITE_SYMBOL, BLACK_SYMBOL = "O", "@"
"""The original referee's pieces; with these the data form, `from_rows` and `render` agree."""
EMPTY_SYMBOL, CORNER_SYMBOL, REMOVED_SYMBOL = "-", "X", "#"
SYMBOLS = (WHITE_SYMBOL, BLACK_SYMBOL)
CELL_SYMBOLS = frozenset((*SYMBOLS, EMPTY_SYMBOL, CORNER_SYMBOL, REMOVED_SYMBOL))

# --------------------------------------------------------------------------------------------
# Squares and tables, built once at import.


def _bit(x: int, y: int) -> Bitboard:
    return 1 << (SIZE * y + x)


def _on_board(x: int, y: int) -> bool:
    return 0 <= x < SIZE and 0 <= y < SIZE


def square_name(index: int) -> str:
    return f"{index % SIZE},{index // SIZE}"


SQUARES: tuple[Square, ...] = tuple((i % SIZE, i // SIZE) for i in range(SIZE * SIZE))
SQUARE_INDEX: dict[Square, int] = {square: i for i, square in enumerate(SQUARES)}
STEP_INDEX: dict[Step, tuple[int, int]] = {
    (a, b): (ia, ib) for ia, a in enumerate(SQUARES) for ib, b in enumerate(SQUARES)
}
"""Every pair of squares (legal or not), so `play` and `why_illegal` look a move up in one go."""

DIRECTIONS = ((0, -1), (-1, 0), (1, 0), (0, 1))
"""Up, left, right, down: the order of each piece's moves (a slide or a jump each way)."""


def _ring_depth(x: int, y: int) -> int:
    """Squares between this one and the edge: shrink number `depth + 1` removes it."""
    return min(x, y, SIZE - 1 - x, SIZE - 1 - y)


def _corner_squares(shrinks: int) -> tuple[Square, ...]:
    """The corners after `shrinks` shrinks, in the order they eliminate: TL, BL, BR, TR."""
    low, high = shrinks, SIZE - 1 - shrinks
    return ((low, low), (low, high), (high, high), (high, low))


SHRINK_LEVELS = (0, 1, 2)
FINAL_SHRINKS = SHRINK_LEVELS[-1]
"""After the last shrink the board never changes on its own: when neither player can move, the
position is dead and the game a tie (this project's ruling; the seed sets no move limit)."""
CORNER_ORDER: tuple[tuple[int, ...], ...] = tuple(
    tuple(SQUARE_INDEX[c] for c in _corner_squares(s)) for s in SHRINK_LEVELS
)
CORNERS: tuple[Bitboard, ...] = tuple(sum(1 << i for i in order) for order in CORNER_ORDER)
REMOVED: tuple[Bitboard, ...] = tuple(
    sum(_bit(x, y) for x, y in SQUARES if _ring_depth(x, y) < s) for s in SHRINK_LEVELS
)
OFF_BOARD: Bitboard = 1 << (SIZE * SIZE)
"""A bit past the 64 squares, standing for "beyond the edge" in the move tables."""
BLOCKED: tuple[Bitboard, ...] = tuple(
    c | r | OFF_BOARD for c, r in zip(CORNERS, REMOVED, strict=True)
)
"""What no piece may enter (corners, removed squares, beyond the edge), per number of shrinks."""
ZONES: tuple[Bitboard, Bitboard] = (
    sum(_bit(x, y) for x, y in SQUARES if y <= 5) & ~CORNERS[0],
    sum(_bit(x, y) for x, y in SQUARES if y >= 2) & ~CORNERS[0],
)
"""Starting zones: White the top 6 rows, Black the bottom 6, neither a corner."""
ZONE_ROWS = ("rows 0-5", "rows 2-7")


def _neighbour(i: int, dx: int, dy: int, distance: int = 1) -> int | None:
    x, y = SQUARES[i][0] + dx * distance, SQUARES[i][1] + dy * distance
    return SIZE * y + x if _on_board(x, y) else None


def _move_table(i: int) -> tuple[tuple[Bitboard, Step, Bitboard, Step], ...]:
    """(neighbour bit, slide there, landing bit, jump there) per direction that has a neighbour.

    Where the board ends right after the neighbour, the landing is `OFF_BOARD` (always blocked)
    and the "jump" is the slide again, never used: one flat loop serves slides and jumps alike.
    """
    table = []
    for dx, dy in DIRECTIONS:
        n, b = _neighbour(i, dx, dy), _neighbour(i, dx, dy, 2)
        if n is None:
            continue
        step = (SQUARES[i], SQUARES[n])
        if b is None:
            table.append((1 << n, step, OFF_BOARD, step))
        else:
            table.append((1 << n, step, 1 << b, (SQUARES[i], SQUARES[b])))
    return tuple(table)


def _flank_table(i: int) -> tuple[tuple[Bitboard, Bitboard], ...]:
    """(row/column neighbour, square beyond it) pairs: who an arrival here can eliminate."""
    return tuple((t[0], t[2]) for t in _move_table(i) if t[2] != OFF_BOARD)


def _sides_table(i: int) -> tuple[tuple[Bitboard, Bitboard], ...]:
    """(left, right) and (up, down) pairs that exist: how a piece here can be surrounded."""
    table = []
    for dx, dy in ((1, 0), (0, 1)):
        a, b = _neighbour(i, dx, dy), _neighbour(i, -dx, -dy)
        if a is not None and b is not None:
            table.append((1 << a, 1 << b))
    return tuple(table)


MOVES = tuple(_move_table(i) for i in range(SIZE * SIZE))
FLANKS = tuple(_flank_table(i) for i in range(SIZE * SIZE))
SIDES = tuple(_sides_table(i) for i in range(SIZE * SIZE))


def _shrinks_due(ply: int) -> int:
    """How many times the board has shrunk by `ply`, if the game was still going each time."""
    moved = ply - PLACEMENTS
    return sum(1 for after in SHRINK_AFTER if moved >= after)


# --------------------------------------------------------------------------------------------
# Elimination and shrinking: the rules that move no piece but remove them.


def _arrive(
    index: int, own: Bitboard, enemy: Bitboard, corners: Bitboard
) -> tuple[Bitboard, Bitboard]:
    """(own, enemy) after a piece of `own` arrives on `index` (placed, slid or jumped).

    The arrival strikes first: every enemy neighbour whose far side holds one of ours or a corner
    goes. Only then is the arriving piece itself checked, against the board its strikes left,
    which is why the original rules' example `BW3W` spares the Black piece placed on 3; moves
    keep that order too.
    """
    bit = 1 << index
    own |= bit
    allies = own | corners
    for neighbour, beyond in FLANKS[index]:
        if neighbour & enemy and beyond & allies:
            enemy ^= neighbour
    hostile = enemy | corners
    for side, other_side in SIDES[index]:
        if side & hostile and other_side & hostile:
            return own ^ bit, enemy
    return own, enemy


def _shrink(white: Bitboard, black: Bitboard, shrinks: int) -> tuple[Bitboard, Bitboard]:
    """(white, black) once the board has shrunk to `shrinks` shrinks.

    Pieces on removed squares or on the new corners go first; then each new corner, in the seed's
    order top-left, bottom-left, bottom-right, top-right, eliminates any neighbour with an enemy
    of that neighbour on its far side. The order matters on the last, 4x4 board, where one
    corner's victim can be the piece that would have flanked for the next corner.
    """
    keep = ~BLOCKED[shrinks]
    white &= keep
    black &= keep
    for corner in CORNER_ORDER[shrinks]:
        for neighbour, beyond in FLANKS[corner]:
            if neighbour & white and beyond & black:
                white ^= neighbour
            elif neighbour & black and beyond & white:
                black ^= neighbour
    return white, black


class Kernel(Protocol):
    """What games/native/watch_your_back.c computes, on the same bitboards."""

    def moves(self, own: Bitboard, other: Bitboard, shrinks: int) -> list[Move]:
        """The slides and jumps of the pieces `own`, in `legal_moves()`'s order; empty where
        only a pass is left."""

    def can_move(self, own: Bitboard, other: Bitboard, shrinks: int) -> bool: ...

    def squares(self, board: Bitboard) -> list[Move]:
        """The squares of `board`, lowest bit first: placements, when `board` is the free part
        of a zone."""

    def playout(
        self,
        white: Bitboard,
        black: Bitboard,
        ply: int,
        shrinks: int,
        since_capture: int,
        no_capture_limit: int,
        seed: int,
        max_plies: int,
        record: list[Move | None] | None,
    ) -> tuple[Bitboard, Bitboard, int, int, int]:
        """`random_playout`'s loop, each move uniform over the legal ones and appended to
        `record` when it is a list (a pass as None): (white, black, ply, shrinks,
        since_capture)."""

    def reach(self, pieces: Bitboard, occupied: Bitboard, open_squares: Bitboard, /) -> Bitboard:
        """agents/evaluations/watch_your_back.py's `reach`: an evaluation's feature, computed
        here because the search asks it at every leaf."""

    def in_danger(self, pieces: Bitboard, hostile: Bitboard, arrivals: Bitboard, /) -> Bitboard:
        """agents/evaluations/watch_your_back.py's `in_danger`, likewise."""


KERNEL = cast(Kernel | None, kernel("watch_your_back"))
"""The compiled kernel, or None where it was not built: then the State's methods below run in
Python. The differential tests set it to None for a while to play the Python rules beside it."""


# --------------------------------------------------------------------------------------------
# The state.


@dataclass(frozen=True, slots=True)
class WatchYourBackState(State[Move]):
    """One position: the two colours' squares, moves played so far, and shrinks so far.

    `ply` counts placements and moving-phase moves together (passes included): the placing phase
    is plies 0-23, and after moving-phase move `k` the ply is `24 + k`. The shrink count is kept
    rather than derived from `ply` because a game that ends on move 128 or 192 ends before its
    shrink. `since_capture` counts the moves in a row since the last shrink that eliminated no
    piece (0 until then); at `no_capture_limit` the game is a tie.
    """

    game: ClassVar[WatchYourBackGame]

    white: Bitboard
    black: Bitboard
    ply: int = 0
    shrinks: int = 0
    since_capture: int = 0
    no_capture_limit: int = NO_CAPTURE_LIMIT

    # -- reading the position -----------------------------------------------------------------

    @property
    def turn(self) -> Seat:
        return self.ply & 1

    @property
    def phase(self) -> str:
        return "placing" if self.ply < PLACEMENTS else "moving"

    @property
    def moves_in_moving_phase(self) -> int:
        """Moving-phase moves played (passes included): the count the shrinks follow."""
        return max(0, self.ply - PLACEMENTS)

    def piece_count(self, seat: Seat) -> int:
        return (self.black if seat else self.white).bit_count()

    def key(self) -> int:
        """The position packed into one int, for search tables: exact, so it never collides.

        The whole ply is kept: it says whose turn it is, the phase and when the board shrinks.
        The no-capture limit is left out: it is an option, the same for every position of a game.
        """
        counters = self.shrinks | self.ply << 2 | self.since_capture << 16
        return self.white | self.black << 64 | counters << 128

    def pieces(self, seat: Seat) -> list[Square]:
        return [SQUARES[i] for i in squares_of(self.black if seat else self.white)]

    def cell(self, square: Square) -> str:
        """The symbol on `square` as the data form writes it (`O @ - X #`)."""
        bit = 1 << SQUARE_INDEX[square]
        if bit & self.white:
            return WHITE_SYMBOL
        if bit & self.black:
            return BLACK_SYMBOL
        if bit & CORNERS[self.shrinks]:
            return CORNER_SYMBOL
        return REMOVED_SYMBOL if bit & REMOVED[self.shrinks] else EMPTY_SYMBOL

    def rows(self) -> list[str]:
        return ["".join(self.cell((x, y)) for x in range(SIZE)) for y in range(SIZE)]

    def outcome(self) -> Outcome | None:
        if self.ply < PLACEMENTS:
            return None
        white_short = self.white.bit_count() < MIN_PIECES
        black_short = self.black.bit_count() < MIN_PIECES
        if white_short and black_short:
            return Outcome.draw("both players have fewer than 2 pieces")
        if black_short:
            return Outcome.win(WHITE, "black has fewer than 2 pieces")
        if white_short:
            return Outcome.win(BLACK, "white has fewer than 2 pieces")
        if self.shrinks == FINAL_SHRINKS and not (self._can_move(WHITE) or self._can_move(BLACK)):
            return Outcome.draw("neither player can ever move again")
        if self.since_capture >= self.no_capture_limit:
            return Outcome.draw(
                f"{self.since_capture} moves in a row after the last shrink eliminated no piece"
            )
        return None

    def _can_move(self, seat: Seat) -> bool:
        """Whether `seat` has a slide or a jump (a pass aside)."""
        if KERNEL is not None:
            own, other = (self.black, self.white) if seat else (self.white, self.black)
            return KERNEL.can_move(own, other, self.shrinks)
        occupied = self.white | self.black
        blocked = occupied | BLOCKED[self.shrinks]
        for square in squares_of(self.black if seat else self.white):
            for neighbour, _, landing, _ in MOVES[square]:
                if not neighbour & blocked or (neighbour & occupied and not landing & blocked):
                    return True
        return False

    # -- legal moves and the check of one move, side by side ------------------------------------

    def legal_moves(self) -> list[Move]:
        if self.ply < PLACEMENTS:
            return self._placements()
        if self.outcome() is not None:
            return []
        if KERNEL is not None:
            own, other = (self.black, self.white) if self.ply & 1 else (self.white, self.black)
            return KERNEL.moves(own, other, self.shrinks) or [PASS]
        moves: list[Move] = []
        append = moves.append
        occupied = self.white | self.black
        blocked = occupied | BLOCKED[self.shrinks]
        own = self.black if self.ply & 1 else self.white
        while own:  # the bit loop is inlined: this is the hottest loop of every playout
            low = own & -own
            own ^= low
            for neighbour, step, landing, jump in MOVES[low.bit_length() - 1]:
                if not neighbour & blocked:
                    append(step)
                elif neighbour & occupied and not landing & blocked:
                    append(jump)
        return moves or [PASS]

    def _placements(self) -> list[Move]:
        free = ZONES[self.ply & 1] & ~(self.white | self.black)
        if KERNEL is not None:
            return KERNEL.squares(free)
        moves: list[Move] = []
        while free:
            low = free & -free
            free ^= low
            moves.append(SQUARES[low.bit_length() - 1])
        return moves

    def why_illegal(self, move: Move) -> str | None:
        if self.outcome() is not None:
            return "the game is over"
        if self.ply < PLACEMENTS:
            return self._why_not_placement(move)
        if move is PASS:
            return self._why_not_pass()
        if move in STEP_INDEX:
            return self._why_not_step(*STEP_INDEX[move])
        if move in SQUARE_INDEX:
            return "the placing phase is over: move a piece, e.g. 3,4-3,5"
        return f"{move!r} is not a Watch Your Back! move"

    def _why_not_placement(self, move: Move) -> str | None:
        if move is PASS:
            return "nobody passes in the placing phase: place a piece, e.g. 3,4"
        if move in STEP_INDEX:
            return "pieces are placed, not moved, in the placing phase: name a square, e.g. 3,4"
        if move not in SQUARE_INDEX:
            return f"{move!r} is not a Watch Your Back! move"
        index = SQUARE_INDEX[move]
        name, bit, seat = square_name(index), 1 << index, self.ply & 1
        if bit & CORNERS[0]:
            return f"{name} is a corner"
        if not bit & ZONES[seat]:
            return f"{name} is outside {self.game.seats[seat]}'s starting zone ({ZONE_ROWS[seat]})"
        if bit & (self.white | self.black):
            return f"{name} is occupied"
        return None

    def _why_not_pass(self) -> str | None:
        moves = self.legal_moves()
        if moves == [PASS]:
            return None
        example = self.game.format_move(moves[0])
        return f"{self.game.seats[self.turn]} can still move (e.g. {example}), so may not pass"

    def _why_not_step(self, start: int, end: int) -> str | None:
        own = self.black if self.ply & 1 else self.white
        if not (1 << start) & own:
            return self._why_not_yours(start)
        (xa, ya), (xb, yb) = SQUARES[start], SQUARES[end]
        distance = abs(xb - xa) + abs(yb - ya)
        if (xa != xb and ya != yb) or distance not in (1, 2):
            return "a piece moves one square or jumps two, along a row or a column"
        blocker = self._why_not_enterable(end)
        if blocker is not None:
            return blocker
        if distance == 2:
            # Only an empty square can lie between: past a corner is always off the board.
            middle = SQUARE_INDEX[((xa + xb) // 2, (ya + yb) // 2)]
            if not (1 << middle) & (self.white | self.black):
                start_name, middle_name = square_name(start), square_name(middle)
                return f"no jump from {start_name} over {middle_name}: {middle_name} is empty"
        return None

    def _why_not_yours(self, index: int) -> str:
        name, bit = square_name(index), 1 << index
        if bit & (self.white | self.black):
            return f"{name} is not your piece"
        if bit & REMOVED[self.shrinks]:
            return f"{name} is no longer on the board"
        if bit & CORNERS[self.shrinks]:
            return f"{name} is a corner, not your piece"
        return f"{name} is empty"

    def _why_not_enterable(self, index: int) -> str | None:
        name, bit = square_name(index), 1 << index
        if bit & REMOVED[self.shrinks]:
            return f"{name} is no longer on the board"
        if bit & CORNERS[self.shrinks]:
            return f"{name} is a corner"
        if bit & (self.white | self.black):
            return f"{name} is occupied"
        return None

    # -- playing --------------------------------------------------------------------------------

    def play(self, move: Move) -> WatchYourBackState:
        if self.ply < PLACEMENTS:
            index = SQUARE_INDEX[move]  # type: ignore[index]  # legal here: a square, unchecked
            if self.ply & 1:
                black, white = _arrive(index, self.black, self.white, CORNERS[0])
            else:
                white, black = _arrive(index, self.white, self.black, CORNERS[0])
            return WatchYourBackState(white, black, self.ply + 1, 0, 0, self.no_capture_limit)
        if move is PASS:
            return self._after_moving(self.white, self.black)
        start, end = STEP_INDEX[move]  # type: ignore[index]  # legal here: a step, unchecked
        corners = CORNERS[self.shrinks]
        if self.ply & 1:
            black, white = _arrive(end, self.black ^ (1 << start), self.white, corners)
        else:
            white, black = _arrive(end, self.white ^ (1 << start), self.black, corners)
        return self._after_moving(white, black)

    def _after_moving(self, white: Bitboard, black: Bitboard) -> WatchYourBackState:
        """The state after a moving-phase move: shrink on schedule unless the game just ended.

        After the last shrink, a move that eliminated nothing adds one to `since_capture` and
        any elimination sets it back to 0; the last shrink itself starts it at 0.
        """
        ply, shrinks, since = self.ply + 1, self.shrinks, 0
        if shrinks == FINAL_SHRINKS:
            eliminated = (white | black).bit_count() < (self.white | self.black).bit_count()
            since = 0 if eliminated else self.since_capture + 1
        due = SHRINK_AFTER.get(ply - PLACEMENTS)
        if due and white.bit_count() >= MIN_PIECES and black.bit_count() >= MIN_PIECES:
            shrinks = due
            white, black = _shrink(white, black, shrinks)
        return WatchYourBackState(white, black, ply, shrinks, since, self.no_capture_limit)

    def random_playout(self, rng: random.Random, max_plies: int) -> WatchYourBackState:
        """The whole loop in the kernel where there is one. A ply beyond any game's length (only
        hand-made data has one) takes the Python loop: the kernel counts in C integers."""
        if KERNEL is None or self.ply > MAX_PLY:
            return State.random_playout(self, rng, max_plies)
        white, black, ply, shrinks, since_capture = KERNEL.playout(
            self.white,
            self.black,
            self.ply,
            self.shrinks,
            self.since_capture,
            self.no_capture_limit,
            rng.getrandbits(64),
            max_plies,
            None,
        )
        return WatchYourBackState(white, black, ply, shrinks, since_capture, self.no_capture_limit)

    # -- data and pictures ----------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        return {
            "board": self.rows(),
            "ply": self.ply,
            "since_capture": self.since_capture,
            "no_capture_limit": self.no_capture_limit,
        }

    @classmethod
    def from_rows(
        cls,
        rows: str | Sequence[str],
        ply: int = 0,
        since_capture: int = 0,
        no_capture_limit: int = NO_CAPTURE_LIMIT,
    ) -> WatchYourBackState:
        """A position drawn as the referee draws it, for tests and examples.

        `rows` is 8 rows of `O` (white), `@` (black), `-` (empty), `X` (corner), `#` (removed by
        a shrink), as one string of lines or a list; spaces inside a row and blank lines are
        ignored. The number of shrinks is read from where the corners are. `ply` is placements
        plus moving-phase moves so far: `PLACEMENTS + k` is after moving-phase move `k`.
        """
        lines = rows.splitlines() if isinstance(rows, str) else list(rows)
        cleaned = [line.replace(" ", "") for line in lines if line.strip()]
        return _state_from_rows(cleaned, ply, since_capture, no_capture_limit)

    def render(self) -> str:
        header = "    " + " ".join(str(x) for x in range(SIZE))
        lines = [header]
        for y, row in enumerate(self.rows()):
            lines.append(f" {y}  " + " ".join(row))
        lines.append(self._status())
        return "\n".join(lines)

    def _status(self) -> str:
        counts = f"pieces: white (O) {self.piece_count(WHITE)}, black (@) {self.piece_count(BLACK)}"
        outcome = self.outcome()
        if outcome is not None:
            if outcome.winner is None:
                return f"game over: a tie, {outcome.reason}; {counts}"
            return f"game over: {self.game.seats[outcome.winner]} wins, {outcome.reason}; {counts}"
        mover = f"{self.game.seats[self.turn]} ({SYMBOLS[self.turn]})"
        if self.ply < PLACEMENTS:
            return f"placing phase: {mover} to place, {self.ply} of 24 placed; {counts}"
        moved = self.moves_in_moving_phase
        later = [after for after in SHRINK_AFTER if after > moved]
        shrink = f", board shrinks after move {later[0]}" if later else ""
        if self.shrinks == FINAL_SHRINKS:
            limit = self.no_capture_limit
            shrink = f", {self.since_capture} of {limit} moves without an elimination"
        return f"moving phase: {mover} to move, {moved} moves played{shrink}; {counts}"

    def __repr__(self) -> str:
        counters = f"since_capture={self.since_capture}, no_capture_limit={self.no_capture_limit}"
        return f"WatchYourBackState.from_rows({self.rows()!r}, ply={self.ply}, {counters})"


# --------------------------------------------------------------------------------------------
# Rebuilding a state from plain data, with a sentence for every way the data can be wrong.


def _state_from_rows(
    rows: Sequence[Any], ply: Any, since_capture: Any, no_capture_limit: Any
) -> WatchYourBackState:
    data_int("ply", ply, 0)
    data_int("since_capture", since_capture, 0)
    data_int("no_capture_limit", no_capture_limit, 1, MAX_NO_CAPTURE_LIMIT)
    if len(rows) != SIZE:
        raise StateDataError(f"the board needs {SIZE} rows, not {len(rows)}")
    for y, row in enumerate(rows):
        if not isinstance(row, str):
            raise StateDataError(f"board row {y} must be a string, not {row!r}")
        if len(row) != SIZE:
            raise StateDataError(f"board row {y} needs {SIZE} cells, not {len(row)}: {row!r}")
        for x, cell in enumerate(row):
            if cell not in CELL_SYMBOLS:
                raise StateDataError(f"square {x},{y} holds {cell!r}; cells are one of O @ - X #")
    shrinks = _read_shrinks(rows)
    white = sum(_bit(x, y) for x, y in SQUARES if rows[y][x] == WHITE_SYMBOL)
    black = sum(_bit(x, y) for x, y in SQUARES if rows[y][x] == BLACK_SYMBOL)
    state = WatchYourBackState(white, black, ply, shrinks, since_capture, no_capture_limit)
    _check_counts(state)
    _check_shrinks(state)
    _check_since_capture(state)
    return state


def _read_shrinks(rows: Sequence[str]) -> int:
    """The shrink count the corners show, after checking every corner and removed square."""
    shrinks = next((s for s in SHRINK_LEVELS if rows[s][s] == CORNER_SYMBOL), None)
    if shrinks is None:
        raise StateDataError("the board has no corner 'X' at 0,0, 1,1 or 2,2")
    for x, y in SQUARES:
        bit, cell = _bit(x, y), rows[y][x]
        if bit & CORNERS[shrinks] and cell != CORNER_SYMBOL:
            raise StateDataError(f"square {x},{y} should be a corner 'X', not {cell!r}")
        if bit & REMOVED[shrinks] and cell != REMOVED_SYMBOL:
            raise StateDataError(
                f"square {x},{y} should be removed '#' after {shrinks} shrinks, not {cell!r}"
            )
        if not bit & BLOCKED[shrinks] and cell in (CORNER_SYMBOL, REMOVED_SYMBOL):
            raise StateDataError(f"square {x},{y} holds {cell!r} but is an ordinary square")
    return shrinks


def _check_counts(state: WatchYourBackState) -> None:
    for seat, name in enumerate(WatchYourBackGame.seats):
        count = state.piece_count(seat)
        if state.ply < PLACEMENTS:
            placed = (state.ply + 1 - seat) // 2
            if count > placed:
                raise StateDataError(f"{name} has {count} pieces but has placed only {placed}")
            outside = (state.black if seat else state.white) & ~ZONES[seat]
            if outside:
                square = square_name(next(squares_of(outside)))
                raise StateDataError(
                    f"{name} has a piece on {square}, outside its starting zone, while placing"
                )
        elif count > PIECES_PER_SIDE:
            raise StateDataError(f"{name} has {count} pieces; nobody has more than 12")


def _check_shrinks(state: WatchYourBackState) -> None:
    due = _shrinks_due(state.ply)
    ended_before_shrink = (
        state.moves_in_moving_phase in SHRINK_AFTER
        and state.shrinks == due - 1
        and state.outcome() is not None
    )
    if state.shrinks != due and not ended_before_shrink:
        raise StateDataError(
            f"after {state.moves_in_moving_phase} moving-phase moves the board has shrunk "
            f"{due} times, but this board shows {state.shrinks}"
        )


def _check_since_capture(state: WatchYourBackState) -> None:
    """The count runs only after the last shrink, one a move, and stops at the limit."""
    if state.shrinks < FINAL_SHRINKS:
        most = 0
    else:
        most = min(state.moves_in_moving_phase - LAST_SHRINK_AFTER, state.no_capture_limit)
    if state.since_capture > most:
        raise StateDataError(
            f"since_capture is {state.since_capture}, but after "
            f"{state.moves_in_moving_phase} moving-phase moves and {state.shrinks} shrinks, "
            f"with no_capture_limit {state.no_capture_limit}, it can be at most {most}"
        )


# --------------------------------------------------------------------------------------------
# The game.

DATA_KEYS = ("board", "ply", "since_capture", "no_capture_limit")
"""The data form's keys; the last two may be left out (0 and the default limit), as data
written before the "endless games" ruling leaves them."""
_MOVE_PATTERN = re.compile(r"([0-7]),([0-7])(?:-([0-7]),([0-7]))?")
PASS_TEXT = "pass"


# -- How a position looks --------------------------------------------------------------------


class WatchYourBackBoards(Boards):
    """The original referee's symbols and (column, row) labels from the top left; corners and
    squares the shrinking board removed are dark on the web; the phase and the next shrink."""

    def facts(self, shown: Shown) -> list[str]:
        ply: int = shown.data["ply"]
        if ply < PLACEMENTS:
            return [f"placing phase: {ply} of {PLACEMENTS} pieces placed"]
        moves = ply - PLACEMENTS
        upcoming = [shrink for shrink in SHRINK_AFTER if moves < shrink]
        shrink = f"; the board shrinks after move {upcoming[0]}" if upcoming else ""
        return [f"moving phase: {moves} moves played{shrink}"]


BOARDS = WatchYourBackBoards(
    grids=(Grid(("board",), tuple("01234567"), tuple("01234567"), ground=("#e8e2cf",)),),
    pieces=(
        Piece(WHITE_SYMBOL, 0, shape=Shape.STONE, fill="#fff"),
        Piece(BLACK_SYMBOL, 1, shape=Shape.STONE, fill="#222"),
        Piece(EMPTY_SYMBOL, style=DIM),
        Piece(CORNER_SYMBOL, style="bold", shape=Shape.CROSS, stroke="#ddd", ground="#3a3a3a"),
        Piece(REMOVED_SYMBOL, style=DIM, ground="#555"),
    ),
    square_pattern=re.compile(r"([0-7]),([0-7])"),
    planes=(WHITE_SYMBOL, BLACK_SYMBOL, CORNER_SYMBOL, REMOVED_SYMBOL),
    empty=EMPTY_SYMBOL,
)


class WatchYourBackGame(Game[WatchYourBackState, Move]):
    name: ClassVar[str] = "watch-your-back"
    boards = BOARDS
    title: ClassVar[str] = "Watch Your Back!"
    seats: ClassVar[tuple[str, str]] = ("white", "black")
    max_move_text: ClassVar[int] = len("0,0-0,2")
    notation_help: ClassVar[str] = (
        "Squares are column,row with digits 0-7: 0,0 is the top-left corner, columns grow to the "
        "right and rows grow downward, as in the original rules. In the placing phase a move is "
        "the square to place on, e.g. 3,4. In the moving phase it is the piece's square, a dash "
        "and where it goes: 3,4-3,5 slides one square down, 3,4-3,6 jumps over the piece on 3,5. "
        "A player none of whose pieces can move must play pass (then the only legal move; it "
        "still counts toward the shrinks after moves 128 and 192). Case and surrounding spaces "
        "are ignored: ' PASS ' is pass."
    )

    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "no_capture_limit",
            int,
            NO_CAPTURE_LIMIT,
            "moves in a row after the last shrink (passes included) that eliminate no piece "
            "before the game ends in a tie",
            minimum=1,
            maximum=MAX_NO_CAPTURE_LIMIT,
        ),
    )

    def initial_state(self, options: Mapping[str, Any]) -> WatchYourBackState:
        limit = self.options[0].check(options.get("no_capture_limit", NO_CAPTURE_LIMIT))
        return WatchYourBackState(0, 0, no_capture_limit=limit)

    def max_plies(self, options: Mapping[str, Any]) -> int:
        return max_plies(options.get("no_capture_limit", NO_CAPTURE_LIMIT))

    def parse_move(self, text: str) -> Move:
        cleaned = text.strip().lower()
        if cleaned == PASS_TEXT:
            return PASS
        match = _MOVE_PATTERN.fullmatch(cleaned)
        if match is None:
            raise InvalidMoveError(
                f"{text!r} is not a Watch Your Back! move: write a square as column,row "
                "(digits 0-7) like 3,4, a move as 3,4-3,5, or pass"
            )
        xa, ya, xb, yb = match.groups()
        start = (int(xa), int(ya))
        return start if xb is None else (start, (int(xb), int(yb)))

    def format_move(self, move: Move) -> str:
        if move is PASS:
            return PASS_TEXT
        if move in SQUARE_INDEX:
            return square_name(SQUARE_INDEX[move])
        if move in STEP_INDEX:
            start, end = STEP_INDEX[move]
            return f"{square_name(start)}-{square_name(end)}"
        raise InvalidMoveError(f"{move!r} is not a Watch Your Back! move")

    # The original referee's Player API: a square is the tuple (x, y), a step the pair of its
    # squares, and a forfeited move None; `turns` counts the moves of the current phase.
    legacy_start: ClassVar[bool] = False

    def legacy_action(self, move: Move) -> Any:
        return None if move is PASS else move

    def parse_legacy_action(self, action: Any) -> Move:
        if action is None:
            return PASS
        move = as_tuples(action)
        try:
            if move in SQUARE_INDEX or move in STEP_INDEX:
                return move  # type: ignore[no-any-return]  # a key of those tables is a Move
        except TypeError:  # unhashable: a map, say
            pass
        raise InvalidMoveError(
            "not a Watch Your Back! action: expected (x, y) to place, ((xa, ya), (xb, yb)) to"
            " move, or None to forfeit, x and y in 0-7"
        )

    def legacy_turns(self, state: WatchYourBackState) -> int:
        return state.ply - PLACEMENTS if state.ply >= PLACEMENTS else state.ply

    def state_from_data(self, data: Any) -> WatchYourBackState:
        if not isinstance(data, Mapping):
            raise StateDataError(f"Watch Your Back! state data must be a map, not {data!r}")
        unknown = sorted(set(data) - set(DATA_KEYS), key=str)
        if unknown:
            raise StateDataError(f"Watch Your Back! state data has an unknown key {unknown[0]!r}")
        for key in ("board", "ply"):
            if key not in data:
                raise StateDataError(f"Watch Your Back! state data lacks {key!r}")
        board = data["board"]
        if not isinstance(board, list | tuple):
            raise StateDataError(f"board must be a list of {SIZE} row strings, not {board!r}")
        since, limit = data.get("since_capture", 0), data.get("no_capture_limit", NO_CAPTURE_LIMIT)
        return _state_from_rows(board, data["ply"], since, limit)


GAME = WatchYourBackGame()
WatchYourBackState.game = GAME
