/* The Game of the Amazons in C (games/amazons.py states the rules): the position, move
 * generation, the legality check, playing a move, and the evaluation's features. Static
 * functions only, included by the rules' kernel (games/native/amazons.c) and by the agents'
 * compiled search (agents/native/amazons.c), so both read one statement of the C rules.
 *
 * Squares are 0..99 as in the Python module (file + 10 * rank). A position comes in as the
 * module's three Python-int bitboards and the seat to move; here it is unpacked into a byte per
 * square, because a walk along a ray over 100 bytes is cheaper in C than any bit trick, and the
 * board is small enough to unpack on every call.
 *
 * Moves are listed in the Python module's order (by amazon from a1, then destination, then
 * arrow, each ray by ray in its order: the four rays toward higher squares first, N, NE, E, NW,
 * then SE, S, SW, W, nearest square first), so the two paths give identical lists. */
#ifndef ARBITER_AMAZONS_H
#define ARBITER_AMAZONS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "splitmix64.h"

#define SIZE 10
#define SQUARES (SIZE * SIZE)
#define DIRECTIONS 8
#define BOARD_BYTES 13 /* 100 bits */
#define AMAZONS_PER_SIDE 4
#define REACH_CAPACITY (4 * (SIZE - 1)) /* the most squares a queen reaches from one square */
/* The most moves a position can have: every amazon reaching its most squares, and from each the
 * most arrows. */
#define MOVES_CAPACITY (AMAZONS_PER_SIDE * REACH_CAPACITY * REACH_CAPACITY)

/* File and rank steps, in the order the Python module lists a square's reach. */
static const int DIRECTION_STEPS[DIRECTIONS][2] = {
    {0, 1}, {1, 1}, {1, 0}, {-1, 1}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0},
};

/* RAYS[s][d][0..RAY_LENGTHS[s][d]-1]: the squares from s toward the edge in direction d. */
static uint8_t RAYS[SQUARES][DIRECTIONS][SIZE - 1];
static uint8_t RAY_LENGTHS[SQUARES][DIRECTIONS];
/* NEIGHBOURS[s][0..NEIGHBOUR_COUNTS[s]-1]: the up to eight squares touching s. */
static uint8_t NEIGHBOURS[SQUARES][DIRECTIONS];
static uint8_t NEIGHBOUR_COUNTS[SQUARES];

static void build_tables(void)
{
    for (int square = 0; square < SQUARES; square++) {
        NEIGHBOUR_COUNTS[square] = 0;
        for (int d = 0; d < DIRECTIONS; d++) {
            int file = square % SIZE + DIRECTION_STEPS[d][0];
            int rank = square / SIZE + DIRECTION_STEPS[d][1];
            int length = 0;
            while (file >= 0 && file < SIZE && rank >= 0 && rank < SIZE) {
                RAYS[square][d][length++] = (uint8_t)(file + SIZE * rank);
                file += DIRECTION_STEPS[d][0];
                rank += DIRECTION_STEPS[d][1];
            }
            RAY_LENGTHS[square][d] = (uint8_t)length;
            if (length) {
                NEIGHBOURS[square][NEIGHBOUR_COUNTS[square]++] = RAYS[square][d][0];
            }
        }
    }
}

enum { EMPTY = 0, WHITE_AMAZON = 1, BLACK_AMAZON = 2, ARROW = 3 };

/* One position unpacked: a byte per square, each side's amazons, the seat to move. */
typedef struct {
    uint8_t cells[SQUARES];
    uint8_t amazons[2][SQUARES];
    int amazon_counts[2];
    int to_move;
} Position;

/* A move: the amazon's square, where it lands, where its arrow lands. */
typedef struct {
    uint8_t src, dst, arrow;
} Move;

/* The low 100 bits of a non-negative Python int, little-endian; -1 with an error set if `value`
 * is not one. Bits above 100 are refused rather than dropped, so a bad state cannot pass. */
static int board_bytes(PyObject *value, const char *name, uint8_t bytes[BOARD_BYTES])
{
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int bitboard", name);
        return -1;
    }
    uint8_t wide[BOARD_BYTES + 1];
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t needed = PyLong_AsNativeBytes(
        value, wide, sizeof wide,
        Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
            Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    if (needed < 0) {
        return -1;
    }
    int too_wide = (size_t)needed > sizeof wide;
#else
    if (_PyLong_Sign(value) < 0) {
        PyErr_Format(PyExc_ValueError, "%s must not be negative", name);
        return -1;
    }
    int too_wide = _PyLong_NumBits(value) > SQUARES;
    if (!too_wide && _PyLong_AsByteArray((PyLongObject *)value, wide, sizeof wide, 1, 0) < 0) {
        return -1;
    }
#endif
    if (too_wide || wide[BOARD_BYTES] || (wide[BOARD_BYTES - 1] & 0xF0)) {
        PyErr_Format(PyExc_ValueError, "%s has a square beyond the board's 100", name);
        return -1;
    }
    memcpy(bytes, wide, BOARD_BYTES);
    return 0;
}

/* Fills `position` from the module's bitboards; -1 with an error set on bad input. A square on
 * two bitboards reads as the last of white, black, arrow, as occupancy is all that matters. The
 * amazons are listed in increasing square order, the order the Python module lists moves in. */
static int unpack(PyObject *white, PyObject *black, PyObject *arrows, int to_move,
                  Position *position)
{
    if (to_move != 0 && to_move != 1) {
        PyErr_Format(PyExc_ValueError, "to_move must be 0 or 1, not %d", to_move);
        return -1;
    }
    uint8_t boards[3][BOARD_BYTES];
    if (board_bytes(white, "white", boards[0]) < 0 || board_bytes(black, "black", boards[1]) < 0 ||
        board_bytes(arrows, "arrows", boards[2]) < 0) {
        return -1;
    }
    memset(position->cells, EMPTY, sizeof position->cells);
    position->amazon_counts[0] = position->amazon_counts[1] = 0;
    position->to_move = to_move;
    for (int square = 0; square < SQUARES; square++) {
        int byte = square >> 3, bit = 1 << (square & 7);
        if (boards[2][byte] & bit) {
            position->cells[square] = ARROW;
        } else if (boards[1][byte] & bit) {
            position->cells[square] = BLACK_AMAZON;
            position->amazons[1][position->amazon_counts[1]++] = (uint8_t)square;
        } else if (boards[0][byte] & bit) {
            position->cells[square] = WHITE_AMAZON;
            position->amazons[0][position->amazon_counts[0]++] = (uint8_t)square;
        }
    }
    return 0;
}

/* Whether the amazon on `square` has an empty neighbour: then it has a whole move, as its arrow
 * can always fly back to the square it left. */
static int can_step(const Position *position, int square)
{
    for (int i = 0; i < NEIGHBOUR_COUNTS[square]; i++) {
        if (position->cells[NEIGHBOURS[square][i]] == EMPTY) {
            return 1;
        }
    }
    return 0;
}

static int mover_can_move(const Position *position)
{
    const uint8_t *mine = position->amazons[position->to_move];
    for (int i = 0; i < position->amazon_counts[position->to_move]; i++) {
        if (can_step(position, mine[i])) {
            return 1;
        }
    }
    return 0;
}

/* The squares a queen on `square` reaches over empty cells, in the Python module's order.
 * Returns how many. */
static int reach(const uint8_t *cells, int square, uint8_t out[REACH_CAPACITY])
{
    int count = 0;
    for (int d = 0; d < DIRECTIONS; d++) {
        const uint8_t *ray = RAYS[square][d];
        for (int i = 0; i < RAY_LENGTHS[square][d] && cells[ray[i]] == EMPTY; i++) {
            out[count++] = ray[i];
        }
    }
    return count;
}

/* Every legal move into `out` (room for MOVES_CAPACITY), in the Python module's order. Returns
 * how many. */
static int list_moves(const Position *position, Move *out)
{
    uint8_t cells[SQUARES];
    memcpy(cells, position->cells, sizeof cells);
    const uint8_t *mine = position->amazons[position->to_move];
    uint8_t destinations[REACH_CAPACITY], targets[REACH_CAPACITY];
    int count = 0;
    for (int i = 0; i < position->amazon_counts[position->to_move]; i++) {
        int src = mine[i];
        uint8_t held = cells[src];
        int reached = reach(cells, src, destinations);
        cells[src] = EMPTY;
        for (int j = 0; j < reached; j++) {
            int dst = destinations[j];
            cells[dst] = held;
            int shots = reach(cells, dst, targets);
            cells[dst] = EMPTY;
            for (int k = 0; k < shots; k++) {
                out[count++] = (Move){(uint8_t)src, (uint8_t)dst, targets[k]};
            }
        }
        cells[src] = held;
    }
    return count;
}

/* Whether a queen flies from `src` to `dst` over empty cells (`dst` empty too). */
static inline int clear_flight(const uint8_t *cells, int src, int dst)
{
    int file_step = dst % SIZE - src % SIZE, rank_step = dst / SIZE - src / SIZE;
    if (src == dst || (file_step && rank_step && abs(file_step) != abs(rank_step))) {
        return 0;
    }
    int step = (file_step > 0) - (file_step < 0) + SIZE * ((rank_step > 0) - (rank_step < 0));
    for (int square = src + step;; square += step) {
        if (cells[square] != EMPTY) {
            return 0;
        }
        if (square == dst) {
            return 1;
        }
    }
}

/* Whether `move` is legal here: `AmazonsState.why_illegal` answers None. */
static inline int is_legal(const Position *position, Move move)
{
    if (move.src >= SQUARES || move.dst >= SQUARES || move.arrow >= SQUARES ||
        position->cells[move.src] != WHITE_AMAZON + position->to_move ||
        !mover_can_move(position)) {
        return 0;
    }
    uint8_t cells[SQUARES];
    memcpy(cells, position->cells, sizeof cells);
    if (!clear_flight(cells, move.src, move.dst)) {
        return 0;
    }
    cells[move.src] = EMPTY;
    return clear_flight(cells, move.dst, move.arrow);
}

/* Moves the mover's amazon from `src` to the empty `dst` (no arrow, the turn kept). The
 * mover's amazons stay in increasing square order, the order moves are listed in. */
static inline void move_amazon(Position *position, int src, int dst)
{
    uint8_t *mine = position->amazons[position->to_move];
    int count = position->amazon_counts[position->to_move], index = 0;
    while (mine[index] != src) {
        index++;
    }
    for (; index + 1 < count && mine[index + 1] < dst; index++) {
        mine[index] = mine[index + 1];
    }
    for (; index > 0 && mine[index - 1] > dst; index--) {
        mine[index] = mine[index - 1];
    }
    mine[index] = (uint8_t)dst;
    position->cells[dst] = position->cells[src];
    position->cells[src] = EMPTY;
}

/* Plays a legal `move` and passes the turn. */
static inline void play(Position *position, Move move)
{
    move_amazon(position, move.src, move.dst);
    position->cells[move.arrow] = ARROW;
    position->to_move = 1 - position->to_move;
}

/* Plays a random move (the mover must be able to move) and passes the turn, drawn as
 * `AmazonsState.random_move` draws one: an amazon that can move, a destination, an arrow, each
 * uniform from `random`. The amazon lands at its index, so the list may leave square order. */
static void play_random_move(Position *position, uint64_t *random, int move[3])
{
    int seat = position->to_move;
    uint8_t *mine = position->amazons[seat];
    uint8_t movable[SQUARES];
    int movable_count = 0;
    for (int i = 0; i < position->amazon_counts[seat]; i++) {
        if (can_step(position, mine[i])) {
            movable[movable_count++] = (uint8_t)i;
        }
    }
    int index = movable[splitmix64_below(random, (uint64_t)movable_count)];
    int src = mine[index];
    uint8_t squares[REACH_CAPACITY];
    int dst = squares[splitmix64_below(random, (uint64_t)reach(position->cells, src, squares))];
    position->cells[dst] = position->cells[src];
    position->cells[src] = EMPTY;
    int arrow = squares[splitmix64_below(random, (uint64_t)reach(position->cells, dst, squares))];
    position->cells[arrow] = ARROW;
    mine[index] = (uint8_t)dst;
    position->to_move = 1 - seat;
    move[0] = src;
    move[1] = dst;
    move[2] = arrow;
}

/* -- the evaluation's features (agents/evaluations/amazons.py states them) ---------------------- */

typedef unsigned __int128 Board128;

static int count128(Board128 board)
{
    return __builtin_popcountll((uint64_t)board) + __builtin_popcountll((uint64_t)(board >> 64));
}

/* Every square one king step from `front` (some beyond the board: the caller masks them). */
static Board128 king_steps(Board128 front, Board128 not_file_a, Board128 not_file_j)
{
    Board128 east = front & not_file_j, west = front & not_file_a;
    return front << 10 | front >> 10 | east << 1 | east << 11 | east >> 9 | west >> 1 |
           west << 9 | west >> 11;
}

/* The squares each side reaches first in king steps and those both reach at the same step
 * (`owned[0]`, `owned[1]`, `owned[2]`), flooding both sides a step a round as the Python flood
 * does. */
static void territory_counts(Board128 mine, Board128 theirs, Board128 empty, int owned[3])
{
    Board128 file_a = 0;
    for (int rank = 0; rank < SIZE; rank++) {
        file_a |= (Board128)1 << (SIZE * rank);
    }
    Board128 not_file_a = ~file_a, not_file_j = ~(file_a << (SIZE - 1));
    Board128 mine_front = mine, theirs_front = theirs, free = empty;
    Board128 reached_mine = 0, reached_theirs = 0;
    while (mine_front | theirs_front) {
        mine_front = king_steps(mine_front, not_file_a, not_file_j) & free;
        theirs_front = king_steps(theirs_front, not_file_a, not_file_j) & free;
        free &= ~(mine_front | theirs_front);
        reached_mine |= mine_front;
        reached_theirs |= theirs_front;
    }
    owned[0] = count128(reached_mine & ~reached_theirs);
    owned[1] = count128(reached_theirs & ~reached_mine);
    owned[2] = count128(reached_mine & reached_theirs);
}

/* The amazons' worth by their free neighbours, `worth[n]` for one with n empty neighbours,
 * summed from a1 up as the Python `freedom` sums it. */
static double freedom_sum(Board128 amazons, Board128 empty, const double worth[DIRECTIONS + 1])
{
    double total = 0.0;
    while (amazons) {
        uint64_t low = (uint64_t)amazons;
        int square = low ? __builtin_ctzll(low) : 64 + __builtin_ctzll((uint64_t)(amazons >> 64));
        amazons &= amazons - 1;
        int free = 0;
        for (int n = 0; n < NEIGHBOUR_COUNTS[square]; n++) {
            free += (int)(empty >> NEIGHBOURS[square][n] & 1);
        }
        total += worth[free];
    }
    return total;
}

/* The empty squares, as a board. */
static inline Board128 empty_board(const Position *position)
{
    uint64_t low = 0, high = 0;
    for (int square = 0; square < 64; square++) {
        low |= (uint64_t)(position->cells[square] == EMPTY) << square;
    }
    for (int square = 64; square < SQUARES; square++) {
        high |= (uint64_t)(position->cells[square] == EMPTY) << (square - 64);
    }
    return (Board128)high << 64 | low;
}

/* A side's amazons, as a board. */
static inline Board128 amazons_board(const Position *position, int seat)
{
    Board128 board = 0;
    for (int i = 0; i < position->amazon_counts[seat]; i++) {
        board |= (Board128)1 << position->amazons[seat][i];
    }
    return board;
}

#endif
