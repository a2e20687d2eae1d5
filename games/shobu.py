"""Shobu (seed 004 and the Shobu rulings in RULINGS.md): every rule of the game in one module.

Four 4x4 boards, named by owner and colour: black-dark, black-light, white-dark, white-light (the
seed's `boards[home][colour]`). All four share one orientation: files a-d left to right, rows 1-4
from Black's side to White's, so "north" (toward row 4) is the same direction on every board. That
matters because a turn is two moves in the same direction and distance on two different boards.

A turn is one move object holding both halves (`Move`): the passive half on one of the mover's
homeboards, then the aggressive half on a board of the other colour. A passive move is only legal
when an aggressive move can follow, which is automatic once both halves travel together.

Representation, for speed: a square is an int 0-63 (board * 16 + row * 4 + column, row 0 nearest
Black) and each colour's stones are one int used as a bitset. Each of the 16 vectors (8 directions
x distance 1 or 2) has tables per square, built at import: the squares the stone passes through
and lands on, and the square just beyond the landing square where a pushed stone ends.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from games._base import Game, InvalidMoveError, Outcome, Seat, State, StateDataError

Square = int
"""board * 16 + row * 4 + column: row 0 is row 1 (Black's side), column 0 is file a."""
Bitboard = int
"""One bit per `Square`, plus `OFF_BOARD`."""

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

OFF_BOARD: Bitboard = 1 << 64
"""A bit no stone ever holds but every blocking mask includes. A path that would leave the board
is stored as this bit alone, so one AND rejects a blocked path and a path off the edge alike."""
BOARD_MASK = tuple(0xFFFF << (16 * board) for board in range(4))
COLOUR_MASK = (BOARD_MASK[0] | BOARD_MASK[2], BOARD_MASK[1] | BOARD_MASK[3])


class Move(NamedTuple):
    """One whole turn: both halves share `direction` (index into DIRECTIONS) and `distance`."""

    passive: Square
    aggressive: Square
    direction: int
    distance: int


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
PATH = tuple(tuple(OFF_BOARD if s is None else _mask(s) for s in row) for row in STEPS)
LANDING = tuple(tuple(-1 if s is None else s[-1] for s in row) for row in STEPS)
BEYOND = tuple(
    tuple(0 if (b := _beyond(square, vector)) is None else 1 << b for square in range(64))
    for vector in range(16)
)
"""BEYOND[vector][square]: bit of the square a pushed stone lands on; 0 pushes it off."""
VECTOR_NAMES = tuple(f"{DIRECTIONS[v >> 1]}{(v & 1) + 1}" for v in range(16))
SQUARE_NAMES = tuple(f"{BOARD_CODES[s >> 4]}{FILES[s & 3]}{((s >> 2) & 3) + 1}" for s in range(64))
SQUARE_BY_NAME = {name: square for square, name in enumerate(SQUARE_NAMES)}
VECTOR_BY_NAME = {name: vector for vector, name in enumerate(VECTOR_NAMES)}


def _squares(bits: Bitboard) -> list[Square]:
    squares = []
    while bits:
        low = bits & -bits
        squares.append(low.bit_length() - 1)
        bits ^= low
    return squares


def _where(square: Square) -> str:
    """A square as a sentence reads it: `c3 on black-dark`."""
    return f"{FILES[square & 3]}{((square >> 2) & 3) + 1} on {BOARD_NAMES[square >> 4]}"


def _aggressive_ok(path: Bitboard, beyond: Bitboard, own: Bitboard, opp: Bitboard) -> bool:
    """The aggressive rule as bit tests: no own stone and no edge on the path, at most one
    opposing stone on it, and that one pushed onto an empty square or off the board."""
    if path & (own | OFF_BOARD):
        return False
    hit = path & opp
    return not hit or not (hit & (hit - 1) or beyond & (own | opp))


@dataclass(frozen=True, slots=True)
class ShobuState(State[Move]):
    """A position: each colour's stones as a bitset over the 64 squares, and the plies played.

    Shobu has no pass, so the seat to move is the parity of `ply`.
    """

    black: Bitboard
    white: Bitboard
    ply: int = 0

    @classmethod
    def from_rows(
        cls, boards: Mapping[str, Sequence[str]] | None = None, turn: str = "black", ply: int = -1
    ) -> ShobuState:
        """A position from each board's four rows (row 4 first, cells `B`, `W`, `.`), for tests.

        Boards left out keep their starting rows; `ply` defaults to the first ply with `turn` to
        move. Bad rows raise `StateDataError`, as `state_from_data` would.
        """
        rows = {name: list(START_ROWS) for name in BOARD_NAMES}
        rows.update({name: list(given) for name, given in (boards or {}).items()})
        ply = SEATS.index(turn) if ply < 0 else ply
        return GAME.state_from_data({"boards": rows, "turn": turn, "ply": ply})

    @property
    def turn(self) -> Seat:
        return self.ply & 1

    def stones(self, seat: Seat) -> Bitboard:
        return self.white if seat else self.black

    def piece_count(self, seat: Seat) -> int:
        """Stones `seat` has left on all four boards."""
        return self.stones(seat).bit_count()

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
        for loser in (self.ply & 1, 1 - (self.ply & 1)):
            bits = self.stones(loser)
            for board in range(4):
                if not bits & BOARD_MASK[board]:
                    return loser, board
        return None

    def outcome(self) -> Outcome | None:
        cleared = self.cleared_board()
        if cleared is not None:
            loser, board = cleared
            reason = f"{SEATS[1 - loser]} cleared {BOARD_NAMES[board]} of {SEATS[loser]} stones"
            return Outcome.win(1 - loser, reason)
        if not self.has_turn():
            return Outcome.win(1 - self.turn, f"{SEATS[self.turn]} has no legal turn")
        return None

    # --- legal turns ------------------------------------------------------------------------

    def _turn_groups(self) -> Iterator[tuple[int, list[Square], list[Square]]]:
        """Legal turns grouped by vector and passive colour: (vector, passives, aggressives).

        The two halves are on boards of different colours, so neither can affect the other: the
        turns of a group are exactly every passive with every aggressive. Walking groups lets
        `legal_moves`, `random_move` and `has_turn` share one generator, and the latter two never
        build turns they do not need.
        """
        mover = self.ply & 1
        own, opp = (self.white, self.black) if mover else (self.black, self.white)
        occupied = own | opp | OFF_BOARD
        homes = (_squares(own & BOARD_MASK[2 * mover]), _squares(own & BOARD_MASK[2 * mover + 1]))
        attackers = (_squares(own & COLOUR_MASK[DARK]), _squares(own & COLOUR_MASK[LIGHT]))
        for vector in range(16):
            path, beyond = PATH[vector], BEYOND[vector]
            for colour in (DARK, LIGHT):
                passives = [s for s in homes[colour] if not path[s] & occupied]
                if not passives:
                    continue
                aggressives = [
                    s for s in attackers[1 - colour] if _aggressive_ok(path[s], beyond[s], own, opp)
                ]
                if aggressives:
                    yield vector, passives, aggressives

    def legal_moves(self) -> list[Move]:
        if self.cleared_board() is not None:
            return []
        moves = []
        for vector, passives, aggressives in self._turn_groups():
            direction, distance = vector >> 1, (vector & 1) + 1
            moves += [Move(p, a, direction, distance) for p in passives for a in aggressives]
        return moves

    def has_turn(self) -> bool:
        """Whether the seat to move has any legal turn (not asking whether the game is over)."""
        return next(self._turn_groups(), None) is not None

    def random_move(self, rng: random.Random) -> Move:
        """Uniform over `legal_moves()` (it returns `legal_moves()[i]` for a random i) without
        building the list: each group's size is the product of its two lists."""
        groups = list(self._turn_groups())
        index = rng.randrange(sum(len(p) * len(a) for _, p, a in groups))
        for vector, passives, aggressives in groups:
            size = len(passives) * len(aggressives)
            if index < size:
                p, a = divmod(index, len(aggressives))
                return Move(passives[p], aggressives[a], vector >> 1, (vector & 1) + 1)
            index -= size
        raise AssertionError("random index beyond the legal turns")

    def why_illegal(self, move: Move) -> str | None:
        if self.cleared_board() is not None:
            return "the game is over"
        reason = self._turn_problem(move)
        if reason is not None and not self.has_turn():
            return "the game is over"
        return reason

    def _turn_problem(self, move: Move) -> str | None:
        """The first rule `move` breaks, checked half by half in the order a player thinks."""
        mover = self.ply & 1
        passive_board, aggressive_board = move.passive >> 4, move.aggressive >> 4
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
        vector = move.direction * 2 + move.distance - 1
        return self._passive_problem(move.passive, vector) or self._aggressive_problem(
            move.aggressive, vector
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
                verb = "push" if step == steps[-1] else "jump over"
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
            pushed = " and ".join(_where(s) for s in hits)
            return f"the aggressive move may not push two stones ({pushed})"
        beyond = BEYOND[vector][square]
        if hits and beyond & (own | opp):
            target = _where(beyond.bit_length() - 1)
            return f"the stone on {_where(hits[0])} would be pushed into the stone on {target}"
        return None

    # --- making a turn ----------------------------------------------------------------------

    def play(self, move: Move) -> ShobuState:
        vector = move.direction * 2 + move.distance - 1
        landing, passive, aggressive = LANDING[vector], move.passive, move.aggressive
        moved = (1 << passive) | (1 << landing[passive]) | (1 << aggressive)
        moved |= 1 << landing[aggressive]
        own, opp = self.stones(self.turn), self.stones(1 - self.turn)
        own ^= moved
        hit = PATH[vector][aggressive] & opp
        if hit:
            opp = (opp ^ hit) | BEYOND[vector][aggressive]
        if self.ply & 1:
            return ShobuState(opp, own, self.ply + 1)
        return ShobuState(own, opp, self.ply + 1)

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
        return {"boards": boards, "turn": SEATS[self.turn], "ply": self.ply}

    def render(self) -> str:
        top = _render_pair(self, 2, 3, label_above=True)
        bottom = _render_pair(self, 0, 1, label_above=False)
        rope = "~" * (2 * BLOCK_WIDTH + GAP) + "  rope"
        return "\n".join([*top, rope, *bottom, *self._status()])

    def _status(self) -> list[str]:
        counts = [
            f"{SEATS[seat]} "
            + " ".join(map(str, self.board_counts(seat)))
            + f" (total {self.piece_count(seat)})"
            for seat in (BLACK, WHITE)
        ]
        lines = [f"stones on {' '.join(BOARD_CODES)}: " + ", ".join(counts)]
        outcome = self.outcome()
        if outcome is None:
            lines.append(f"ply {self.ply}: {SEATS[self.turn]} to move")
        else:
            lines.append(f"ply {self.ply}: game over, {outcome.reason}")
        return lines


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
        f"{BOARD_NAMES[b]} ({BOARD_CODES[b]})".ljust(BLOCK_WIDTH + GAP) for b in (left, right)
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


class ShobuGame(Game[ShobuState, Move]):
    name = "shobu"
    title = "Shobu"
    seats = SEATS
    max_move_text = len("bda1 wla1 ne2")
    notation_help = NOTATION_HELP

    def initial_state(self, options: Mapping[str, Any]) -> ShobuState:
        return ShobuState.from_rows()

    def parse_move(self, text: str) -> Move:
        words = text.lower().split()
        if len(words) != 3:
            raise InvalidMoveError(
                f"{text!r} is not a Shobu turn: write passive stone, aggressive stone and "
                f"direction with distance, as in 'bda1 wla1 n2'"
            )
        squares = [SQUARE_BY_NAME.get(word) for word in words[:2]]
        for word, square in zip(words, squares, strict=False):
            if square is None:
                raise InvalidMoveError(
                    f"{text!r}: {word!r} is not a board code (bd, bl, wd, wl) and square a1-d4"
                )
        vector = VECTOR_BY_NAME.get(words[2])
        if vector is None:
            raise InvalidMoveError(
                f"{text!r}: {words[2]!r} is not a direction (n, ne, e, se, s, sw, w, nw) "
                f"and distance (1 or 2)"
            )
        passive, aggressive = (s for s in squares if s is not None)
        return Move(passive, aggressive, vector >> 1, (vector & 1) + 1)

    def format_move(self, move: Move) -> str:
        vector = move.direction * 2 + move.distance - 1
        return (
            f"{SQUARE_NAMES[move.passive]} {SQUARE_NAMES[move.aggressive]} {VECTOR_NAMES[vector]}"
        )

    def state_from_data(self, data: Any) -> ShobuState:
        if not isinstance(data, dict) or set(data) != {"boards", "turn", "ply"}:
            raise StateDataError(
                f"Shobu state data must be a map of boards, turn and ply: {data!r}"
            )
        ply, turn = data["ply"], data["turn"]
        if isinstance(ply, bool) or not isinstance(ply, int) or ply < 0:
            raise StateDataError(f"ply must be a non-negative integer, not {ply!r}")
        if turn != SEATS[ply & 1]:
            raise StateDataError(
                f"turn {turn!r} does not match ply {ply}: black moves on even plies, white on odd"
            )
        black, white = _boards_from_data(data["boards"])
        state = ShobuState(black, white, ply)
        if all(_has_cleared(state, loser) for loser in (BLACK, WHITE)):
            raise StateDataError(
                "both players have a board cleared of the other's stones; a game ends at the first"
            )
        return state


def _has_cleared(state: ShobuState, loser: Seat) -> bool:
    return 0 in state.board_counts(loser)


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
