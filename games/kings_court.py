"""King's Court: every rule, the notation and the data form (docs/games/kings-court.md).

Squares are ints 0..63, `column + 8 * row` with A1 = 0, H1 = 7 and H8 = 63, so a set of squares
is a Python int used as a bitboard. A state is two bitboards (white's pieces, black's pieces),
the number of moves played (which also says whose turn it is: nobody ever passes), the number
of moves since the last capture, the no-capture limit, and, between moves 1 and 2 only, the
direction of move 1 (move 2 must slide the opposite way, and the board alone cannot always say
which way move 1 went).

Speed drives the move generator: agents search millions of positions. Slides are found for all
pieces at once, one shifted bitboard per direction. Jumps are rarer: the same shifts find the
few pieces that have a first jump, and only those are followed square by square through
per-square jump tables built at import.

The jump rules reduce to one test. A sequence may pass through a square again only if some jump
in between captured; so it is enough to remember the squares visited since the last capture and
forget them whenever a jump captures. "Never straight back to the square just left" needs no
test of its own: jumping straight back goes over the same middle square, which is either empty
(its opposing piece was just captured) or the mover's own (so the square just left was visited
since the last capture). The same test rules out null moves, since a sequence that ends where it
began without capturing has visited its start twice.

Where the compiled kernel (games/native/kings_court.c) is built, move generation, the test of
whether the mover has a move, and whole random playouts run in it; this module stays the rules'
statement, and a differential test (tests/games/test_native_kings_court.py) plays the two in
lockstep.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping, Sequence
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
    data_int,
)
from arbiter.games._bitboard import Bitboard
from arbiter.games._boards import DIM, Area, Boards, Grid, Piece, Shape, Shown
from arbiter.games._memo import Memo
from arbiter.games._native import kernel
from arbiter.games._picture import framed_grid

Square: TypeAlias = int
"""0..63: `column + 8 * row`, both counted from 0, so A1 = 0, H1 = 7, A2 = 8, H8 = 63."""
Move: TypeAlias = tuple[Square, ...]
"""The squares the piece visits, in order: two adjacent squares for a slide, else jumps."""
Direction: TypeAlias = int
"""UP, DOWN, LEFT or RIGHT."""

SIZE = 8
COLUMNS = "ABCDEFGH"
SEATS = ("white", "black")
WHITE, BLACK = 0, 1
PIECES_PER_SIDE = 24
DEFAULT_NO_CAPTURE_LIMIT = 50
MAX_NO_CAPTURE_LIMIT = 1000
"""The longest no-capture limit a game may set, so that every game fits one message's move
list (65,536 moves). Each capture takes at least one of the 48 pieces, and a player who loses
them all has none in the Court, so a game has at most 48 capturing moves; before each, and
after the last, at most `limit` moves capture nothing before the next one ends the game. So a
game lasts at most 49 * (limit + 1) moves: 49,049 at this maximum."""


def max_plies(no_capture_limit: int) -> int:
    """The longest game under `no_capture_limit`: 48 capturing moves, each after at most
    `limit` quiet ones, and one more quiet stretch that ends it (see `MAX_NO_CAPTURE_LIMIT`)."""
    return (2 * PIECES_PER_SIDE + 1) * (no_capture_limit + 1)


MAX_PLY = max_plies(MAX_NO_CAPTURE_LIMIT)
"""The longest game under any allowed option (tests check it fits the protocol's move list)."""

EMPTY_CHAR, WHITE_CHAR, BLACK_CHAR = ".", "w", "b"
COURT_EMPTY_CHAR = "+"
"""Only in `render`: an empty Court square, so the Court stands out at a glance."""

UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
DIRECTION_NAMES = ("up", "down", "left", "right")
OPPOSITE = (DOWN, UP, RIGHT, LEFT)
_DELTA = (SIZE, -SIZE, -1, 1)
"""How a square's index changes for one step in each direction."""

FULL: Bitboard = (1 << 64) - 1
FILE_A: Bitboard = 0x0101010101010101
_FILE_AB = FILE_A | FILE_A << 1
_FILE_GH = FILE_A << 6 | FILE_A << 7

# A shift moves every bit one or two steps in a direction; these masks drop the bits that
# wrapped round a row's end (or ran past the board's top) instead of leaving the board.
_STEP_MASK = (FULL, FULL, FULL & ~(FILE_A << 7), FULL & ~FILE_A)
_JUMP_MASK = (FULL, FULL, FULL & ~_FILE_GH, FULL & ~_FILE_AB)

# The longest move. A jumping piece keeps the parity of its column and of its row, so it only
# ever stands on one class of 16 squares. Between two captures (and before the first, and after
# the last) the squares it visits are all different, since passing a square twice needs a
# capture in between: at most 16 positions per stretch. A move captures at most the opponent's
# 24 pieces, so it has at most 25 stretches, 25 * 16 = 400 squares, two characters each. The
# bound is loose, but it is safe, and it still lets the server refuse absurd text unparsed.
MAX_SQUARES_PER_MOVE = 16 * (PIECES_PER_SIDE + 1)
MAX_MOVE_TEXT = 2 * MAX_SQUARES_PER_MOVE


def _square(column: int, row: int) -> Square:
    return column + SIZE * row


def _on_board(column: int, row: int) -> bool:
    return 0 <= column < SIZE and 0 <= row < SIZE


def square_name(square: Square) -> str:
    return SQUARE_NAMES[square]


SQUARE_NAMES = tuple(COLUMNS[square % SIZE] + str(square // SIZE + 1) for square in range(64))
"""Names by square index: formatting hint lists is on the server's per-move path."""


def parse_square(name: str) -> Square:
    """The square called `name` (already upper case and valid, as `parse_move` checks)."""
    return _square(COLUMNS.index(name[0]), int(name[1]) - 1)


COURT: Bitboard = sum(1 << _square(c, r) for c in range(2, 6) for r in range(2, 6))
"""The sixteen squares C3-F6."""

_COLUMN_ROW_STEP = ((0, 1), (0, -1), (-1, 0), (1, 0))  # indexed by direction

_NEIGHBOURS: list[dict[Square, Direction]] = []
"""For each square: adjacent square -> the direction of the slide there."""
_JUMP_OVER: list[dict[Square, Square]] = []
"""For each square: landing square two steps away -> the square jumped over."""
_JUMPS: list[tuple[tuple[Bitboard, Square, Bitboard], ...]] = []
"""For each square: (bit of the square jumped over, landing square, its bit) per direction."""

for _sq in range(SIZE * SIZE):
    _c, _r = _sq % SIZE, _sq // SIZE
    _neighbours: dict[Square, Direction] = {}
    _over: dict[Square, Square] = {}
    _jumps: list[tuple[Bitboard, Square, Bitboard]] = []
    for _d, (_dc, _dr) in enumerate(_COLUMN_ROW_STEP):
        if _on_board(_c + _dc, _r + _dr):
            _neighbours[_square(_c + _dc, _r + _dr)] = _d
        if _on_board(_c + 2 * _dc, _r + 2 * _dr):
            _mid, _land = _square(_c + _dc, _r + _dr), _square(_c + 2 * _dc, _r + 2 * _dr)
            _over[_land] = _mid
            _jumps.append((1 << _mid, _land, 1 << _land))
    _NEIGHBOURS.append(_neighbours)
    _JUMP_OVER.append(_over)
    _JUMPS.append(tuple(_jumps))


_SLIDES_TO = tuple(
    tuple((to - _DELTA[direction], to) for to in range(SIZE * SIZE)) for direction in range(4)
)
"""Per direction, the slide arriving on each square (one tuple each, shared by every list)."""


def _shift(board: Bitboard, direction: Direction, steps: int = 1) -> Bitboard:
    """Every square of `board` moved `steps` (1 or 2) squares in `direction`, none wrapping."""
    delta = _DELTA[direction] * steps
    mask = (_STEP_MASK if steps == 1 else _JUMP_MASK)[direction]
    return (board << delta if delta > 0 else board >> -delta) & mask


def _start_boards() -> tuple[Bitboard, Bitboard]:
    """The start's checkerboard: every square outside the Court, A1 (0 + 0, even) white's."""
    white = black = 0
    for square in range(SIZE * SIZE):
        if COURT >> square & 1:
            continue
        if (square % SIZE + square // SIZE) % 2 == 0:
            white |= 1 << square
        else:
            black |= 1 << square
    return white, black


START_WHITE, START_BLACK = _start_boards()


@dataclass(frozen=True, slots=True)
class _Phase:
    """What one move of the opening allows; the table below is the whole opening."""

    jumps: bool
    into_court: bool
    """The slide must end in the Court."""
    opposite: bool
    """The slide must go opposite to move 1's direction."""


_OPENING = (
    _Phase(jumps=False, into_court=True, opposite=False),  # move 1
    _Phase(jumps=False, into_court=True, opposite=True),  # move 2
    _Phase(jumps=False, into_court=False, opposite=False),  # move 3
    _Phase(jumps=False, into_court=False, opposite=False),  # move 4
)
_MIDGAME = _Phase(jumps=True, into_court=False, opposite=False)
COURT_RULE_FROM_PLY = 2
"""The Court rule (and the loss for an empty Court) holds once moves 1 and 2 are played."""


def _phase(ply: int) -> _Phase:
    return _OPENING[ply] if ply < len(_OPENING) else _MIDGAME


class Kernel(Protocol):
    """What games/native/kings_court.c computes. A position is the mover's and the opponent's
    bitboards, the opening index (moves played, capped at 4: `_OPENING`'s length, from which
    on every move is alike) and move 1's direction (-1 for None)."""

    def legal_moves(
        self, own: Bitboard, opp: Bitboard, opening: int, first_direction: int
    ) -> list[Move]:
        """`legal_moves()` of a position whose game is not over, in the same order."""

    def has_legal_move(
        self, own: Bitboard, opp: Bitboard, opening: int, first_direction: int
    ) -> bool: ...

    def playout(
        self,
        white: Bitboard,
        black: Bitboard,
        turn: Seat,
        opening: int,
        first_direction: int,
        since_capture: int,
        no_capture_limit: int,
        seed: int,
        max_plies: int,
        record: list[Move] | None,
    ) -> tuple[Bitboard, Bitboard, int, int, int]:
        """`random_playout`'s loop, each move uniform over the legal ones and appended to
        `record` when it is a list: (white, black, plies played, since_capture,
        first_direction)."""

    def jumpable(self, victims: Bitboard, attackers: Bitboard, empty: Bitboard, /) -> Bitboard:
        """agents/evaluations/kings_court.py's `jumpable`: an evaluation's feature, computed
        here because the search asks it at every leaf."""


KERNEL = cast(Kernel | None, kernel("kings_court"))
"""The compiled kernel, or None where it was not built: then the State's methods below run in
Python. The differential tests set it to None for a while to play the Python rules beside it."""


def _extend_jumps(
    path: Move,
    here: Square,
    opp: Bitboard,
    occupied: Bitboard,
    visited: Bitboard,
    keeps_court: bool,
    out: list[Move],
) -> None:
    """Add to `out` every legal continuation of the jump sequence `path` (now on `here`), depth
    first.

    `opp` and `occupied` have this move's captures removed already, so a later jump sees them
    gone, and `occupied` leaves out the jumping piece. `visited` holds the squares passed since
    the last capture: a jump may land on one of them only if it captures (which starts a fresh
    stretch). A sequence ending outside the Court is kept only when the mover has another Court
    piece (`keeps_court`), but it is still followed: a later jump may bring the piece back into
    the Court.
    """
    for over, land, land_bit in _JUMPS[here]:
        if land_bit & occupied or not over & occupied:
            continue
        if over & opp:  # a capture: the piece leaves the board, and a fresh stretch begins
            next_opp, next_occupied, next_visited = opp ^ over, occupied ^ over, land_bit
        elif land_bit & visited:
            continue
        else:
            next_opp, next_occupied, next_visited = opp, occupied, visited | land_bit
        longer = (*path, land)
        if keeps_court or land_bit & COURT:
            out.append(longer)
        _extend_jumps(longer, land, next_opp, next_occupied, next_visited, keeps_court, out)


@dataclass(frozen=True, slots=True)
class KingsCourtState(State[Move]):
    """One King's Court position. Build test positions with `from_rows`."""

    game: ClassVar[KingsCourt]

    white: Bitboard
    black: Bitboard
    moves_played: int
    since_capture: int
    """Moves by either player since the last capturing move (or since the start)."""
    no_capture_limit: int = DEFAULT_NO_CAPTURE_LIMIT
    first_direction: Direction | None = None
    """The direction of move 1, kept only while move 2 is to be played."""

    @classmethod
    def from_rows(
        cls,
        rows: Sequence[str],
        ply: int = 10,
        since_capture: int = 0,
        first_direction: str | None = None,
        no_capture_limit: int = DEFAULT_NO_CAPTURE_LIMIT,
    ) -> KingsCourtState:
        """A position from 8 rows of `w`, `b` and `.`, top row (row 8) first; spaces ignored.

        White is to move when `ply` (moves played) is even. The default ply, 10, is past the
        opening, so jumps are allowed and the Court rule holds.
        """
        return GAME.state_from_data(
            {
                "board": [row.replace(" ", "") for row in rows],
                "ply": ply,
                "since_capture": since_capture,
                "first_direction": first_direction,
                "no_capture_limit": no_capture_limit,
            }
        )

    # -- facts about the position -------------------------------------------------------------

    @property
    def turn(self) -> Seat:
        return self.moves_played & 1

    @property
    def ply(self) -> int:
        return self.moves_played

    def pieces(self, seat: Seat) -> Bitboard:
        return self.black if seat else self.white

    def piece_count(self, seat: Seat) -> int:
        return self.pieces(seat).bit_count()

    def court_count(self, seat: Seat) -> int:
        return (self.pieces(seat) & COURT).bit_count()

    def key(self) -> int:
        """The position packed into one int, for search tables: exact, so it never collides.

        Past the opening only the parity of the move count matters (whose turn it is), so two
        move orders reaching one board share a key. The no-capture limit is left out: it is an
        option, the same for every position of one game.
        """
        played = self.moves_played
        phase = played if played < len(_OPENING) else len(_OPENING) + (played & 1)
        direction = 0 if self.first_direction is None else self.first_direction + 1
        counters = phase | direction << 3 | self.since_capture << 6
        return self.white | self.black << 64 | counters << 128

    def rows(self) -> list[str]:
        """The board as 8 strings of `w`, `b`, `.`, top row (row 8) first: the data form."""
        white, black = self.white, self.black
        return [
            _ROW_TEXTS[(white >> shift & 0xFF) | (black >> shift & 0xFF) << 8]
            for shift in _ROW_SHIFTS
        ]

    def _cell_char(self, square: Square) -> str:
        if self.white >> square & 1:
            return WHITE_CHAR
        return BLACK_CHAR if self.black >> square & 1 else EMPTY_CHAR

    def _holder(self, square: Square) -> str:
        return {WHITE_CHAR: "white", BLACK_CHAR: "black"}.get(self._cell_char(square), "empty")

    # -- the end ------------------------------------------------------------------------------

    def _early_outcome(self) -> Outcome | None:
        """The end checks that need no move generation, in the rules' order.

        The player who just moved cannot be without a Court piece (their move would have been
        illegal), so only the player to move can have lost their last one.
        """
        if self.moves_played >= COURT_RULE_FROM_PLY and not self.pieces(self.turn) & COURT:
            name = SEATS[self.turn]
            return Outcome.win(1 - self.turn, f"{name} has no piece in the Court")
        if self.since_capture > self.no_capture_limit:
            return Outcome.both_forfeit(f"{self.since_capture} moves without a capture")
        return None

    def outcome(self) -> Outcome | None:
        early = self._early_outcome()
        if early is not None or self._has_legal_move():
            return early
        return Outcome.win(1 - self.turn, f"{SEATS[self.turn]} has no legal move")

    def _has_legal_move(self) -> bool:
        """Cheaper than `legal_moves()`: slides are quick to find and usually exist."""
        if KERNEL is not None:
            return KERNEL.has_legal_move(*self._own_opp(), *self._opening())
        if any(targets for _, targets in self._slide_targets()):
            return True
        return _phase(self.moves_played).jumps and bool(self._jumps())

    # -- move generation ----------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        if self._early_outcome() is not None:
            return []
        if KERNEL is not None:
            return KERNEL.legal_moves(*self._own_opp(), *self._opening())
        moves = self._slides()
        if _phase(self.moves_played).jumps:
            moves.extend(self._jumps())
        return moves

    def _own_opp(self) -> tuple[Bitboard, Bitboard]:
        return (self.black, self.white) if self.turn else (self.white, self.black)

    def _opening(self) -> tuple[int, int]:
        """The kernel's opening index and move 1's direction (see `Kernel`)."""
        direction = -1 if self.first_direction is None else self.first_direction
        return min(self.moves_played, len(_OPENING)), direction

    def _slide_targets(self) -> Iterator[tuple[Direction, Bitboard]]:
        """Per direction: every square a legal slide in that direction reaches."""
        own, opp = self._own_opp()
        empty = ~(own | opp) & FULL
        phase = _phase(self.moves_played)
        if phase.into_court:
            empty &= COURT
        own_court = own & COURT
        lone = own_court if own_court & (own_court - 1) == 0 else 0
        directions: Sequence[Direction] = range(4)
        if phase.opposite:
            directions = () if self.first_direction is None else (OPPOSITE[self.first_direction],)
        for direction in directions:
            delta = _DELTA[direction]
            targets = (own << delta if delta > 0 else own >> -delta) & _STEP_MASK[direction] & empty
            if lone:  # the last Court piece may not slide out of the Court
                targets &= ~(_shift(lone, direction) & ~COURT)
            yield direction, targets

    def _slides(self) -> list[Move]:
        """Every legal slide, direction by direction, each found for all pieces at once."""
        moves: list[Move] = []
        for direction, targets in self._slide_targets():
            arriving = _SLIDES_TO[direction]
            while targets:  # the squares of `targets`, inlined: this is the hottest loop
                low = targets & -targets
                moves.append(arriving[low.bit_length() - 1])
                targets ^= low
        return moves

    def _jumps(self) -> list[Move]:
        """Every legal jump sequence, grouped by the jumping piece (lowest square first)."""
        own, opp = self._own_opp()
        occupied = own | opp
        empty = ~occupied & FULL
        # Pieces with an occupied neighbour and an empty square beyond, up, down, left, right
        # (the shifts of `_shift` written out: this runs for every position a search visits).
        starts = own & (
            occupied >> SIZE & empty >> 2 * SIZE
            | occupied << SIZE & empty << 2 * SIZE
            | occupied << 1 & empty << 2 & ~_FILE_AB
            | occupied >> 1 & empty >> 2 & ~_FILE_GH
        )
        moves: list[Move] = []
        own_court = own & COURT
        while starts:
            bit = starts & -starts
            starts ^= bit
            keeps_court = bool(own_court & ~bit)
            start = bit.bit_length() - 1
            _extend_jumps((start,), start, opp, occupied ^ bit, bit, keeps_court, moves)
        return moves

    # -- checking one move --------------------------------------------------------------------

    def why_illegal(self, move: Move) -> str | None:
        if self._early_outcome() is not None:
            return "the game is over"
        reason = self._why_move_illegal(move)
        if reason is not None and not self._has_legal_move():
            return "the game is over"
        return reason

    def _why_move_illegal(self, move: Move) -> str | None:
        if len(move) < 2 or not all(isinstance(s, int) and 0 <= s < SIZE * SIZE for s in move):
            return "a move names at least two squares of the board"
        start, second = move[0], move[1]
        own, _ = self._own_opp()
        if not own >> start & 1:
            if self._holder(start) == "empty":
                return f"{square_name(start)} is empty"
            return f"{square_name(start)} is not your piece"
        if second in _NEIGHBOURS[start]:
            reason = self._why_slide_illegal(move)
        elif second in _JUMP_OVER[start]:
            reason = self._why_jump_illegal(move)
        else:
            reason = (
                f"{square_name(start)} to {square_name(second)} is neither a slide (one square "
                "up, down, left or right) nor a jump (two squares)"
            )
        return reason or self._why_court_rule_broken(move)

    def _why_slide_illegal(self, move: Move) -> str | None:
        start, to = move[0], move[1]
        if len(move) > 2:
            return f"a slide goes one square only: {_notation(move[:2])} cannot go on"
        if self._holder(to) != "empty":
            return f"{square_name(to)} is occupied"
        phase = _phase(self.moves_played)
        direction = _NEIGHBOURS[start][to]
        if phase.into_court and not COURT >> to & 1:
            return f"move {self.moves_played + 1} must slide a piece into the Court"
        if phase.opposite:
            first = self.first_direction
            if first is None:  # only a hand-built state lacks it: the data checks refuse that
                return "move 2 must slide opposite to move 1, whose direction is unknown"
            if direction != OPPOSITE[first]:
                return (
                    f"move 2 must slide {DIRECTION_NAMES[OPPOSITE[first]]}, opposite to move 1 "
                    f"({DIRECTION_NAMES[first]})"
                )
        return None

    def _why_jump_illegal(self, move: Move) -> str | None:
        phase = _phase(self.moves_played)
        if not phase.jumps:
            if phase.into_court:
                return f"move {self.moves_played + 1} must slide a piece into the Court"
            return "moves 3 and 4 must be slides; jumps begin at move 5"
        own, opp = self._own_opp()
        own &= ~(1 << move[0])
        visited = 1 << move[0]
        for i in range(1, len(move)):
            here, there = move[i - 1], move[i]
            if i >= 2 and there == move[i - 2]:
                return f"{_notation((here, there))} goes straight back to the square it just left"
            over = _JUMP_OVER[here].get(there)
            if over is None:
                return f"{_notation((here, there))} is not a jump (two squares in a straight line)"
            land_bit, over_bit = 1 << there, 1 << over
            if not (own | opp) & over_bit:
                name = square_name(over)
                return f"no jump from {square_name(here)} over {name}: {name} is empty"
            if (own | opp) & land_bit:
                name = square_name(there)
                return f"no jump from {square_name(here)} to {name}: {name} is occupied"
            if opp & over_bit:
                opp, visited = opp ^ over_bit, land_bit
            elif visited & land_bit:
                return (
                    f"the jump {_notation((here, there))} comes back to {square_name(there)} "
                    "without a capture since the piece was last there"
                )
            else:
                visited |= land_bit
        return None

    def _why_court_rule_broken(self, move: Move) -> str | None:
        """The Court rule, applied to moves 1 and 2 as well: they end in the Court anyway."""
        own, _ = self._own_opp()
        own_after = own & ~(1 << move[0]) | 1 << move[-1]
        if own_after & COURT:
            return None
        return f"the move leaves {SEATS[self.turn]} with no piece in the Court"

    # -- making a move ------------------------------------------------------------------------

    def play(self, move: Move) -> KingsCourtState:
        start, end = move[0], move[-1]
        own, opp = self._own_opp()
        own = own & ~(1 << start) | 1 << end
        captured = 0
        first_direction = None
        if len(move) == 2 and end in _NEIGHBOURS[start]:
            if self.moves_played == 0:
                first_direction = _NEIGHBOURS[start][end]
        else:
            for i in range(1, len(move)):
                captured |= 1 << ((move[i - 1] + move[i]) >> 1)
            captured &= opp
            opp ^= captured
        white, black = (opp, own) if self.turn else (own, opp)
        return KingsCourtState(
            white,
            black,
            self.moves_played + 1,
            0 if captured else self.since_capture + 1,
            self.no_capture_limit,
            first_direction,
        )

    def random_playout(self, rng: random.Random, max_plies: int) -> KingsCourtState:
        """The whole loop in the kernel where there is one. A limit beyond the option's range
        (only hand-made data has one) takes the Python loop: the kernel counts in C integers."""
        if KERNEL is None or self.no_capture_limit > MAX_NO_CAPTURE_LIMIT:
            return State.random_playout(self, rng, max_plies)
        white, black, plies, since_capture, direction = KERNEL.playout(
            self.white,
            self.black,
            self.turn,
            *self._opening(),
            self.since_capture,
            self.no_capture_limit,
            rng.getrandbits(64),
            max_plies,
            None,
        )
        return KingsCourtState(
            white,
            black,
            self.moves_played + plies,
            since_capture,
            self.no_capture_limit,
            None if direction < 0 else direction,
        )

    # -- data and pictures --------------------------------------------------------------------

    def to_data(self) -> dict[str, Any]:
        return {
            "board": self.rows(),
            "ply": self.moves_played,
            "since_capture": self.since_capture,
            "first_direction": (
                None if self.first_direction is None else DIRECTION_NAMES[self.first_direction]
            ),
            "no_capture_limit": self.no_capture_limit,
        }

    def __repr__(self) -> str:
        return f"KingsCourtState.from_rows({self.rows()!r}, ply={self.moves_played})"

    def render(self) -> str:
        rows = [  # the Court's empty squares marked: rows 6 to 3, columns C to F
            row[:2] + row[2:6].replace(EMPTY_CHAR, COURT_EMPTY_CHAR) + row[6:]
            if 2 <= i < 6
            else row
            for i, row in enumerate(self.rows())
        ]
        lines = framed_grid(rows, COLUMNS)
        lines.append(self._status_line())
        counts = ", ".join(
            f"{SEATS[s]} {self.piece_count(s)} pieces ({self.court_count(s)} in the Court)"
            for s in (WHITE, BLACK)
        )
        lines.append(counts)
        lines.append(
            f"{_count(self.since_capture, 'move')} since the last capture "
            f"(both forfeit if move {self.no_capture_limit + 1} since then captures nothing)"
        )
        return "\n".join(lines)

    def _status_line(self) -> str:
        outcome = self.outcome()
        if outcome is None:
            return f"{SEATS[self.turn]} to move (move {self.moves_played + 1})"
        if outcome.winner is None:
            return f"game over after {self.moves_played} moves: both forfeit ({outcome.reason})"
        return (
            f"game over after {self.moves_played} moves: {SEATS[outcome.winner]} wins "
            f"({outcome.reason})"
        )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _notation(move: Move) -> str:
    return "".join(map(SQUARE_NAMES.__getitem__, move))


_ROW_SHIFTS = tuple(SIZE * r for r in reversed(range(SIZE)))


def _row_text(masks: int) -> str:
    """One row of the data form from its white mask | black mask << 8."""
    white, black = masks & 0xFF, masks >> 8
    return "".join(
        WHITE_CHAR if white >> c & 1 else BLACK_CHAR if black >> c & 1 else EMPTY_CHAR
        for c in range(SIZE)
    )


_ROW_TEXTS = Memo(_row_text)
"""Every state the server sends is eight lookups here (3^8 possible rows)."""


_MOVE_PATTERN = re.compile(r"(?:[A-H][1-8]){2,}")
_QUOTE_LIMIT = 40


def _quote(text: str) -> str:
    """`text` for an error message, cut short: refused text may be long and hostile."""
    return repr(text if len(text) <= _QUOTE_LIMIT else text[:_QUOTE_LIMIT] + "...")


_DATA_KEYS = ("board", "ply", "since_capture", "first_direction", "no_capture_limit")


def _boards_from_rows(rows: Any) -> tuple[Bitboard, Bitboard]:
    if not isinstance(rows, list) or len(rows) != SIZE:
        raise StateDataError(f"'board' must be a list of {SIZE} row strings, not {rows!r}")
    white = black = 0
    for i, row in enumerate(rows):
        r = SIZE - 1 - i
        if not isinstance(row, str) or len(row) != SIZE:
            raise StateDataError(f"row {r + 1} must be a string of {SIZE} cells, not {row!r}")
        for c, char in enumerate(row):
            if char == WHITE_CHAR:
                white |= 1 << _square(c, r)
            elif char == BLACK_CHAR:
                black |= 1 << _square(c, r)
            elif char != EMPTY_CHAR:
                raise StateDataError(
                    f"square {square_name(_square(c, r))} holds {char!r}, "
                    f"not one of {WHITE_CHAR!r}, {BLACK_CHAR!r}, {EMPTY_CHAR!r}"
                )
    return white, black


def _check_invariants(state: KingsCourtState) -> None:
    """Facts every reachable position has, so a state the rules could never produce is refused."""
    for seat in (WHITE, BLACK):
        if state.piece_count(seat) > PIECES_PER_SIDE:
            raise StateDataError(
                f"{SEATS[seat]} has {state.piece_count(seat)} pieces; "
                f"a player starts with {PIECES_PER_SIDE} and never gains one"
            )
    if state.since_capture > state.moves_played:
        raise StateDataError(
            f"'since_capture' ({state.since_capture}) cannot exceed the moves played "
            f"({state.moves_played})"
        )
    if state.since_capture > state.no_capture_limit + 1:
        raise StateDataError(
            f"'since_capture' ({state.since_capture}) is past the game's end at "
            f"{state.no_capture_limit + 1}"
        )
    if (state.first_direction is None) == (state.moves_played == 1):
        raise StateDataError("'first_direction' is given exactly when one move has been played")
    mover = 1 - state.turn
    if state.moves_played >= COURT_RULE_FROM_PLY and not state.pieces(mover) & COURT:
        raise StateDataError(
            f"{SEATS[mover]} just moved but has no piece in the Court, which no legal move allows"
        )


# -- How a position looks --------------------------------------------------------------------


class KingsCourtBoards(Boards):
    """The board with the Court (C3-F6) shaded, its empty squares shown as `+` on a terminal,
    and the counters a newcomer cannot read off the board: pieces in the Court, what the
    opening allows, the moves since a capture."""

    def facts(self, shown: Shown) -> list[str]:
        data = shown.data
        court = [0, 0]
        for row in data["board"][2:6]:
            court[WHITE] += row[2:6].count(WHITE_CHAR)
            court[BLACK] += row[2:6].count(BLACK_CHAR)
        white, black = shown.seats
        lines = [f"in the Court: {white} {court[WHITE]}, {black} {court[BLACK]}"]
        opening = _opening_fact(data["ply"], data.get("first_direction"))
        if opening:
            lines.append(opening)
        lines.append(
            f"no capture for {data['since_capture']} moves (limit {data['no_capture_limit']})"
        )
        return lines


def _opening_fact(ply: int, first_direction: str | None) -> str:
    """What the opening allows at `ply`."""
    if ply == 0:
        return "move 1: a slide into the Court"
    if ply == 1 and first_direction in DIRECTION_NAMES:
        opposite = DIRECTION_NAMES[OPPOSITE[DIRECTION_NAMES.index(first_direction)]]
        return f"move 2: a slide into the Court, {opposite}"
    if ply in (2, 3):
        return "moves 3 and 4: slides only"
    return ""


BOARDS = KingsCourtBoards(
    grids=(
        Grid(
            ("board",),
            tuple(COLUMNS),
            tuple("87654321"),
            ground=("#ece6d6",),
            areas=(Area(range(2, 6), range(2, 6), "#c8d6a0", "on grey23", {EMPTY_CHAR: "+"}),),
        ),
    ),
    pieces=(
        Piece(WHITE_CHAR, WHITE, shape=Shape.STONE, fill="#fff"),
        Piece(BLACK_CHAR, BLACK, shape=Shape.STONE, fill="#222"),
        Piece(EMPTY_CHAR, style=DIM),
    ),
    square_pattern=re.compile(r"([A-H])([1-8])"),
    planes=(WHITE_CHAR, BLACK_CHAR),
)


class KingsCourt(Game[KingsCourtState, Move]):
    name = "kings-court"
    boards = BOARDS
    title = "King's Court"
    seats = SEATS
    can_both_forfeit = True  # the 50-move rule
    options = (
        Option(
            "no_capture_limit",
            int,
            DEFAULT_NO_CAPTURE_LIMIT,
            "moves by either player allowed without a capture; if the next one captures "
            "nothing, both players forfeit",
            minimum=1,
            maximum=MAX_NO_CAPTURE_LIMIT,
        ),
    )
    max_move_text = MAX_MOVE_TEXT
    notation_help = (
        "A move is the list of squares the piece visits, written together: columns A-H from "
        "left to right, rows 1-8 from bottom to top (white starts on A1). A slide names two "
        "adjacent squares, e.g. B4C4 (B4 to C4); a jump names its start and each landing "
        "square, two squares apart, e.g. A1A3 (one jump over A2) or A1A3C3 (two jumps, over A2 "
        "then B3). Letters may be lower case (b4c4) and surrounding spaces are ignored. Moves 1 "
        "and 2 slide into the Court (C3-F6), move 2 in the direction opposite to move 1; moves "
        "3 and 4 are slides; jumps begin at move 5."
    )

    def initial_state(self, options: Mapping[str, Any]) -> KingsCourtState:
        limit = self.options[0].check(options.get("no_capture_limit", DEFAULT_NO_CAPTURE_LIMIT))
        return KingsCourtState(START_WHITE, START_BLACK, 0, 0, limit, None)

    def max_plies(self, options: Mapping[str, Any]) -> int:
        return max_plies(options.get("no_capture_limit", DEFAULT_NO_CAPTURE_LIMIT))

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move is text, not {text!r}")
        cleaned = text.strip().upper()
        if not _MOVE_PATTERN.fullmatch(cleaned):
            raise InvalidMoveError(
                f"{_quote(text)} is not a King's Court move: write the squares visited, "
                "e.g. B4C4 or A1A3C3"
            )
        return tuple(parse_square(cleaned[i : i + 2]) for i in range(0, len(cleaned), 2))

    def format_move(self, move: Move) -> str:
        return _notation(move)

    def state_from_data(self, data: Any) -> KingsCourtState:
        if not isinstance(data, Mapping):
            raise StateDataError(f"King's Court state data must be a map, not {data!r}")
        missing = [key for key in _DATA_KEYS if key not in data]
        if missing:
            raise StateDataError(f"King's Court state data lacks {missing[0]!r}")
        unknown = sorted(str(key) for key in data if key not in _DATA_KEYS)
        if unknown:
            raise StateDataError(f"King's Court state data has an unknown key {unknown[0]!r}")
        white, black = _boards_from_rows(data["board"])
        direction = data["first_direction"]
        if direction is not None and direction not in DIRECTION_NAMES:
            raise StateDataError(
                f"'first_direction' must be one of {', '.join(DIRECTION_NAMES)} or None, "
                f"not {direction!r}"
            )
        state = KingsCourtState(
            white,
            black,
            data_int("ply", data["ply"], 0),
            data_int("since_capture", data["since_capture"], 0),
            data_int("no_capture_limit", data["no_capture_limit"], 1),
            None if direction is None else DIRECTION_NAMES.index(direction),
        )
        _check_invariants(state)
        return state


GAME = KingsCourt()
KingsCourtState.game = GAME
