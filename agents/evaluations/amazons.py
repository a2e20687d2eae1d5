"""Game of the Amazons: territory and mobility.

The player who runs out of moves loses, so the game is about space. Two measures, both read from
bitboards with no square-by-square walk:

- territory: every empty square belongs to the side whose amazons reach it in fewer king steps;
  squares both reach at the same step belong to nobody. Late in the game, when the board has
  split into rooms, this is close to the number of moves each side has left.
- mobility: an amazon with few free neighbours is about to be walled in and lose all its moves,
  which territory sees too late; each amazon scores by its free neighbours, the first ones most.

The evaluation runs at every leaf of the search and at the end of every MCTS playout, so its
speed is the searches' depth and playouts (`bench/amazons_search.py` measures it against the
evaluation this one replaced). See `territory` for how the flood is made cheap. Where the game's
kernel is built, the flood and the freedom run in it (`KERNEL.territory` and `KERNEL.freedom`,
the same values; the functions here stay the reference, and
tests/agents/test_native_evaluations.py compares the two).
"""

from __future__ import annotations

from arbiter.agents.evaluation import Evaluation, MoveParts
from arbiter.games import Seat
from arbiter.games._bitboard import squares_of
from arbiter.games.amazons import BIT, FULL, KERNEL, NEIGHBOURS, SIZE, AmazonsState, reach

SQUARE = 10.0
"""One square of territory."""
FREEDOM = (-60.0, -25.0, -8.0, 0.0, 4.0, 7.0, 9.0, 10.0, 11.0)
"""Worth of an amazon by its free neighbours (0-8): a trapped amazon is a lost one."""
TEMPO = 0.5
"""Squares both sides reach at once lean this far toward the side to move."""

HALF = 128
"""Where the second side's squares start in a packed board: past the 100 squares and far enough
that a king step (a shift by at most 11) out of one half lands in the gap, never in the other."""
_LOW = (1 << HALF) - 1
_NOT_FILE_A = sum(bit for square, bit in enumerate(BIT) if square % SIZE != 0)
_NOT_FILE_J = sum(bit for square, bit in enumerate(BIT) if square % SIZE != SIZE - 1)
_NOT_FILE_A2 = _NOT_FILE_A | _NOT_FILE_A << HALF
"""Squares that may step west (file a may not), in both halves."""
_NOT_FILE_J2 = _NOT_FILE_J | _NOT_FILE_J << HALF


def territory(mine: int, theirs: int, empty: int) -> tuple[int, int, int]:
    """(squares I reach first, squares they reach first, squares reached at the same step).

    Both sides flood at once, one king step per round, in one int: my squares in the low half,
    theirs shifted up by `HALF`, so one set of shifts moves both fronts. A side's front never
    enters a square the other side reached in an earlier round: it could only arrive there later
    and, from there, only later again, so it changes no square's owner. The flood then stops
    when every square is decided, about half the rounds of flooding the whole board twice, and
    at the end a square reached by one side only is that side's, by both a tie.
    """
    front = reached = mine | theirs << HALF
    free = empty | empty << HALF
    while front:
        east, west = front & _NOT_FILE_J2, front & _NOT_FILE_A2
        front = free & (
            front << 10
            | front >> 10
            | east << 1
            | east << 11
            | east >> 9
            | west >> 1
            | west << 9
            | west >> 11
        )
        free &= ~(front | front >> HALF | (front & _LOW) << HALF)
        reached |= front
    reached_mine, reached_theirs = reached & empty, reached >> HALF & empty
    return (
        (reached_mine & ~reached_theirs).bit_count(),
        (reached_theirs & ~reached_mine).bit_count(),
        (reached_mine & reached_theirs).bit_count(),
    )


def freedom(amazons: int, empty: int, worth: tuple[float, ...]) -> float:
    """The amazons' worth by their free neighbours (`worth[n]` for n free ones), summed."""
    total = 0.0
    while amazons:
        low = amazons & -amazons
        total += worth[(NEIGHBOURS[low.bit_length() - 1] & empty).bit_count()]
        amazons ^= low
    return total


_territory = territory if KERNEL is None else KERNEL.territory
_freedom = freedom if KERNEL is None else KERNEL.freedom
"""The features the evaluation uses: compiled where the kernel is built."""


def evaluate(state: AmazonsState, seat: Seat) -> float:
    mine, theirs = (state.black, state.white) if seat else (state.white, state.black)
    empty = FULL & ~(state.white | state.black | state.arrows)
    owned_mine, owned_theirs, shared = _territory(mine, theirs, empty)
    lean = TEMPO * shared if state.to_move == seat else -TEMPO * shared
    score = SQUARE * (owned_mine - owned_theirs + lean)
    return score + _freedom(mine, empty, FREEDOM) - _freedom(theirs, empty, FREEDOM)


def part_choices(state: AmazonsState, prefix: tuple[int, ...]) -> list[int]:
    """The amazons that can move, then one's destinations, then the arrows from there.

    Every option completes: an amazon with an empty neighbour can step there, and an amazon
    that moved can always shoot back where it came from.
    """
    occupied = state.occupied
    if not prefix:
        mine = state.black if state.to_move else state.white
        return [square for square in squares_of(mine) if NEIGHBOURS[square] & ~occupied]
    if len(prefix) == 1:
        return reach(prefix[0], occupied)
    return reach(prefix[1], occupied ^ BIT[prefix[0]])


def order_parts(state: AmazonsState, prefix: tuple[int, ...], options: list[int]) -> None:
    """Destinations and arrows by the evaluation of the board they make, best first.

    A destination is judged with the amazon moved and no arrow yet: where an amazon stands
    decides most of the territory, and the arrow is chosen next. The amazons stay as they come
    (there are four, and each gets tried).
    """
    if not prefix:
        return
    seat = state.to_move
    if len(prefix) == 1:
        src = prefix[0]
        white, black = state.white, state.black

        def moved(dst: int) -> AmazonsState:
            if seat:
                return AmazonsState(white, black ^ BIT[src] ^ BIT[dst], state.arrows, 0)
            return AmazonsState(white ^ BIT[src] ^ BIT[dst], black, state.arrows, 1)

        scores = {dst: evaluate(moved(dst), seat) for dst in options}
    else:
        src, dst = prefix
        scores = {arrow: evaluate(state.play((src, dst, arrow)), seat) for arrow in options}
    options.sort(key=scores.__getitem__, reverse=True)


EVALUATION = Evaluation(evaluate, scale=8 * SQUARE, parts=MoveParts(3, part_choices, order_parts))
