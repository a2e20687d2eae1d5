/* The compiled kernel of the Game of the Amazons (games/amazons.py states the rules).
 *
 * Squares are 0..99 as in the Python module (file + 10 * rank). A position comes in as the
 * module's three Python-int bitboards and the seat to move; here it is unpacked into a byte per
 * square, because a walk along a ray over 100 bytes is cheaper in C than any bit trick, and the
 * board is small enough to unpack on every call.
 *
 * Moves are listed in the Python module's order (by amazon from a1, then destination, then
 * arrow, each ray by ray in its order: the four rays toward higher squares first, N, NE, E, NW,
 * then SE, S, SW, W, nearest square first), so the two paths give identical lists.
 *
 * A random playout draws each move as `AmazonsState.random_move` documents: an amazon that can
 * move, uniformly; then a destination, uniformly; then an arrow, uniformly. Its random numbers
 * come from splitmix64 seeded by the caller, not from Python's generator.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "splitmix64.h"
#define SIZE 10
#define SQUARES (SIZE * SIZE)
#define DIRECTIONS 8
#define BOARD_BYTES 13 /* 100 bits */

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

static void build_tables(void) {
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

/* One position unpacked: a byte per square, the mover's amazons, the seat to move. */
typedef struct {
    uint8_t cells[SQUARES];
    uint8_t amazons[2][SQUARES];
    int amazon_counts[2];
    int to_move;
} Position;

/* The low 100 bits of a non-negative Python int, little-endian; -1 with an error set if `value`
 * is not one. Bits above 100 are refused rather than dropped, so a bad state cannot pass. */
static int board_bytes(PyObject *value, const char *name, uint8_t bytes[BOARD_BYTES]) {
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

static PyObject *board_int(const uint8_t bytes[BOARD_BYTES]) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(bytes, BOARD_BYTES, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(bytes, BOARD_BYTES, 1, 0);
#endif
}

/* Fills `position` from the module's bitboards; -1 with an error set on bad input. A square on
 * two bitboards reads as the last of white, black, arrow, as occupancy is all that matters. */
static int unpack(PyObject *white, PyObject *black, PyObject *arrows, int to_move,
                  Position *position) {
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
static int can_step(const Position *position, int square) {
    for (int i = 0; i < NEIGHBOUR_COUNTS[square]; i++) {
        if (position->cells[NEIGHBOURS[square][i]] == EMPTY) {
            return 1;
        }
    }
    return 0;
}

static int mover_can_move(const Position *position) {
    const uint8_t *mine = position->amazons[position->to_move];
    for (int i = 0; i < position->amazon_counts[position->to_move]; i++) {
        if (can_step(position, mine[i])) {
            return 1;
        }
    }
    return 0;
}

/* The squares a queen on `square` reaches over empty cells, in the Python module's order; at
 * most 4 * (SIZE - 1) of them. Returns how many. */
static int reach(const uint8_t *cells, int square, uint8_t out[4 * (SIZE - 1)]) {
    int count = 0;
    for (int d = 0; d < DIRECTIONS; d++) {
        const uint8_t *ray = RAYS[square][d];
        for (int i = 0; i < RAY_LENGTHS[square][d] && cells[ray[i]] == EMPTY; i++) {
            out[count++] = ray[i];
        }
    }
    return count;
}

/* -- the module's functions ---------------------------------------------------------------------- */

static PyObject *move_tuple(int src, int dst, int arrow) {
    PyObject *move = PyTuple_New(3);
    if (move == NULL) {
        return NULL;
    }
    const int squares[3] = {src, dst, arrow};
    for (int i = 0; i < 3; i++) {
        PyObject *square = PyLong_FromLong(squares[i]);
        if (square == NULL) {
            Py_DECREF(move);
            return NULL;
        }
        PyTuple_SET_ITEM(move, i, square);
    }
    return move;
}

static PyObject *legal_moves(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *white, *black, *arrows;
    int to_move;
    Position position;
    if (!PyArg_ParseTuple(args, "OOOi:legal_moves", &white, &black, &arrows, &to_move) ||
        unpack(white, black, arrows, to_move, &position) < 0) {
        return NULL;
    }
    /* Amazons in increasing square order, as the Python module lists them. */
    const uint8_t *mine = position.amazons[to_move];
    int count = position.amazon_counts[to_move];
    PyObject *moves = PyList_New(0);
    if (moves == NULL) {
        return NULL;
    }
    uint8_t destinations[4 * (SIZE - 1)], targets[4 * (SIZE - 1)];
    for (int i = 0; i < count; i++) {
        int src = mine[i];
        uint8_t held = position.cells[src];
        int reached = reach(position.cells, src, destinations);
        position.cells[src] = EMPTY;
        for (int j = 0; j < reached; j++) {
            int dst = destinations[j];
            position.cells[dst] = held;
            int shots = reach(position.cells, dst, targets);
            position.cells[dst] = EMPTY;
            for (int k = 0; k < shots; k++) {
                PyObject *move = move_tuple(src, dst, targets[k]);
                if (move == NULL || PyList_Append(moves, move) < 0) {
                    Py_XDECREF(move);
                    Py_DECREF(moves);
                    return NULL;
                }
                Py_DECREF(move);
            }
        }
        position.cells[src] = held;
    }
    return moves;
}

static PyObject *can_move(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *white, *black, *arrows;
    int to_move;
    Position position;
    if (!PyArg_ParseTuple(args, "OOOi:can_move", &white, &black, &arrows, &to_move) ||
        unpack(white, black, arrows, to_move, &position) < 0) {
        return NULL;
    }
    return PyBool_FromLong(mover_can_move(&position));
}

/* Plays a random move (the mover must be able to move) and passes the turn. */
static void play_random_move(Position *position, uint64_t *random, int move[3]) {
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
    uint8_t squares[4 * (SIZE - 1)];
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

static PyObject *packed_position(const Position *position) {
    uint8_t boards[3][BOARD_BYTES];
    memset(boards, 0, sizeof boards);
    static const int BOARD_OF_CELL[] = {-1, 0, 1, 2};
    for (int square = 0; square < SQUARES; square++) {
        int board = BOARD_OF_CELL[position->cells[square]];
        if (board >= 0) {
            boards[board][square >> 3] |= (uint8_t)(1 << (square & 7));
        }
    }
    PyObject *white = board_int(boards[0]);
    PyObject *black = board_int(boards[1]);
    PyObject *arrows = board_int(boards[2]);
    PyObject *result = NULL;
    if (white != NULL && black != NULL && arrows != NULL) {
        result = Py_BuildValue("(OOOi)", white, black, arrows, position->to_move);
    }
    Py_XDECREF(white);
    Py_XDECREF(black);
    Py_XDECREF(arrows);
    return result;
}

static PyObject *playout(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *white, *black, *arrows, *record;
    int to_move;
    unsigned long long seed;
    Py_ssize_t max_plies;
    Position position;
    if (!PyArg_ParseTuple(args, "OOOiKnO:playout", &white, &black, &arrows, &to_move, &seed,
                          &max_plies, &record) ||
        unpack(white, black, arrows, to_move, &position) < 0) {
        return NULL;
    }
    if (record != Py_None && !PyList_Check(record)) {
        PyErr_SetString(PyExc_TypeError, "record must be a list or None");
        return NULL;
    }
    uint64_t random = seed;
    int move[3];
    for (Py_ssize_t ply = 0; ply < max_plies && mover_can_move(&position); ply++) {
        play_random_move(&position, &random, move);
        if (record != Py_None) {
            PyObject *played = move_tuple(move[0], move[1], move[2]);
            if (played == NULL || PyList_Append(record, played) < 0) {
                Py_XDECREF(played);
                return NULL;
            }
            Py_DECREF(played);
        }
    }
    return packed_position(&position);
}

/* Evaluation features (agents/evaluations/amazons.py states them and stays their reference; the
 * search calls them at every leaf). A board is 100 bits of one 128-bit integer here. */

typedef unsigned __int128 Board128;

static int read_board128(PyObject *value, const char *name, Board128 *board) {
    uint8_t bytes[BOARD_BYTES];
    if (board_bytes(value, name, bytes) < 0) {
        return -1;
    }
    *board = 0;
    for (int byte = BOARD_BYTES - 1; byte >= 0; byte--) {
        *board = *board << 8 | bytes[byte];
    }
    return 0;
}

static int count128(Board128 board) {
    return __builtin_popcountll((uint64_t)board) + __builtin_popcountll((uint64_t)(board >> 64));
}

/* Every square one king step from `front` (some beyond the board: the caller masks them). */
static Board128 king_steps(Board128 front, Board128 not_file_a, Board128 not_file_j) {
    Board128 east = front & not_file_j, west = front & not_file_a;
    return front << 10 | front >> 10 | east << 1 | east << 11 | east >> 9 | west >> 1 |
           west << 9 | west >> 11;
}

/* territory(mine, theirs, empty): the squares each side reaches first in king steps and those
 * both reach at the same step, flooding both sides a step a round as the Python flood does. */
static PyObject *territory(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *mine_int, *theirs_int, *empty_int;
    Board128 mine, theirs, empty;
    if (!PyArg_ParseTuple(args, "OOO:territory", &mine_int, &theirs_int, &empty_int) ||
        read_board128(mine_int, "mine", &mine) < 0 ||
        read_board128(theirs_int, "theirs", &theirs) < 0 ||
        read_board128(empty_int, "empty", &empty) < 0) {
        return NULL;
    }
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
    return Py_BuildValue("(iii)", count128(reached_mine & ~reached_theirs),
                         count128(reached_theirs & ~reached_mine),
                         count128(reached_mine & reached_theirs));
}

/* freedom(amazons, empty, worth): the amazons' worth by their free neighbours, each worth[n] for
 * an amazon with n empty neighbours (0-8), summed as the Python `freedom` sums it. */
static PyObject *freedom(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *amazons_int, *empty_int, *worth;
    uint8_t amazons[BOARD_BYTES], empty[BOARD_BYTES];
    if (!PyArg_ParseTuple(args, "OOO!:freedom", &amazons_int, &empty_int, &PyTuple_Type, &worth) ||
        board_bytes(amazons_int, "amazons", amazons) < 0 ||
        board_bytes(empty_int, "empty", empty) < 0) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(worth) != DIRECTIONS + 1) {
        PyErr_SetString(PyExc_ValueError, "worth must hold 9 numbers, for 0 to 8 free neighbours");
        return NULL;
    }
    double total = 0.0;
    for (int square = 0; square < SQUARES; square++) {
        if (!(amazons[square >> 3] & (1 << (square & 7)))) {
            continue;
        }
        int free = 0;
        for (int n = 0; n < NEIGHBOUR_COUNTS[square]; n++) {
            int neighbour = NEIGHBOURS[square][n];
            free += (empty[neighbour >> 3] >> (neighbour & 7)) & 1;
        }
        double value = PyFloat_AsDouble(PyTuple_GET_ITEM(worth, free));
        if (value == -1.0 && PyErr_Occurred()) {
            return NULL;
        }
        total += value;
    }
    return PyFloat_FromDouble(total);
}

static PyMethodDef METHODS[] = {
    {"legal_moves", legal_moves, METH_VARARGS,
     "legal_moves(white, black, arrows, to_move) -> list of (from, to, arrow), in the Python "
     "module's order."},
    {"can_move", can_move, METH_VARARGS,
     "can_move(white, black, arrows, to_move) -> whether the seat to move has a move."},
    {"playout", playout, METH_VARARGS,
     "playout(white, black, arrows, to_move, seed, max_plies, record) -> (white, black, arrows, "
     "to_move) after random moves until no move is left or max_plies are played; each move is "
     "appended to `record` unless it is None."},
    {"territory", territory, METH_VARARGS,
     "territory(mine, theirs, empty) -> (squares mine reach first, squares theirs reach first, "
     "squares both reach at once), as agents/evaluations/amazons.py's `territory`."},
    {"freedom", freedom, METH_VARARGS,
     "freedom(amazons, empty, worth) -> the amazons' worth by their free neighbours, as "
     "agents/evaluations/amazons.py's `freedom`."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_amazons_c",
    .m_doc = "The Game of the Amazons' compiled rules kernel.",
    .m_size = -1,
    .m_methods = METHODS,
};

PyMODINIT_FUNC PyInit__amazons_c(void) {
    build_tables();
    return PyModule_Create(&MODULE);
}
