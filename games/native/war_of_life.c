/* The compiled kernel of War of Life (games/war_of_life.py states the rules).
 *
 * A board is the Python module's two 64-bit bitboards, blue and red, with square s = file + 8 *
 * rank (a1 = 0, h8 = 63), so a position passes in and out as plain unsigned 64-bit integers and
 * Conway's Crank is the module's bit-plane arithmetic on machine words.
 *
 * A random playout draws each move uniformly over the legal moves, as `State.random_move` does,
 * from splitmix64 seeded by the caller rather than Python's generator.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "splitmix64.h"
#define NOT_FILE_A 0xFEFEFEFEFEFEFEFEULL
#define NOT_FILE_H 0x7F7F7F7F7F7F7F7FULL

static uint64_t from_west(uint64_t board) { return (board << 1) & NOT_FILE_A; }

static uint64_t from_east(uint64_t board) { return (board >> 1) & NOT_FILE_H; }

/* Each cell's count of neighbours in `board` as bit planes (bit 0, bit 1, at least 4), the sum
 * written as bit0 + 2 * t with t in 0..4, rows summed first: the Python module's derivation. */
static void neighbour_count_planes(uint64_t board, uint64_t *bit0, uint64_t *bit1,
                                   uint64_t *many) {
    uint64_t west = from_west(board), east = from_east(board);
    uint64_t mid0 = west ^ east, mid1 = west & east;
    uint64_t row0 = mid0 ^ board, row1 = mid1 | (mid0 & board);
    uint64_t south0 = row0 << 8, south1 = row1 << 8;
    uint64_t north0 = row0 >> 8, north1 = row1 >> 8;
    uint64_t half = south0 ^ mid0;
    uint64_t carry = (south0 & mid0) | (north0 & half);
    uint64_t pair_a = south1 ^ mid1, pair_b = north1 ^ carry;
    *bit0 = half ^ north0;
    *bit1 = pair_a ^ pair_b;
    *many = (south1 & mid1) | (north1 & carry) | (pair_a & pair_b);
}

/* Survivors keep their colour on 2 or 3 neighbours; a birth on exactly 3 takes the colour that
 * holds at least 2 of them (blue's count there is 0..3, so its bit 1 decides). */
static void crank_boards(uint64_t *blue, uint64_t *red) {
    uint64_t occupied = *blue | *red;
    uint64_t bit0, bit1, many, blue_bit0, blue_bit1, blue_many;
    neighbour_count_planes(occupied, &bit0, &bit1, &many);
    neighbour_count_planes(*blue, &blue_bit0, &blue_bit1, &blue_many);
    uint64_t stays = bit1 & ~many;
    uint64_t births = stays & bit0 & ~occupied;
    uint64_t blue_births = births & blue_bit1;
    *blue = (*blue & stays) | blue_births;
    *red = (*red & stays) | (births ^ blue_births);
}

/* The cells in `board` or next to one: a piece can move iff it is next to an empty cell. */
static uint64_t touching(uint64_t board) {
    uint64_t row = board | from_west(board) | from_east(board);
    return row | (row << 8) | (row >> 8);
}

static uint64_t neighbours_of(int square) {
    uint64_t bit = 1ULL << square;
    return touching(bit) & ~bit;
}

/* -- the module's functions ---------------------------------------------------------------------- */

/* A bitboard argument: a non-negative int below 2**64, else -1 with an error set. */
static int board_of(PyObject *value, const char *name, uint64_t *board) {
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int bitboard", name);
        return -1;
    }
    *board = PyLong_AsUnsignedLongLong(value);
    if (*board == (uint64_t)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a bitboard of the 64 squares", name);
        return -1;
    }
    return 0;
}

static PyObject *crank(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *blue_int, *red_int;
    uint64_t blue, red;
    if (!PyArg_ParseTuple(args, "OO:crank", &blue_int, &red_int) ||
        board_of(blue_int, "blue", &blue) < 0 || board_of(red_int, "red", &red) < 0) {
        return NULL;
    }
    crank_boards(&blue, &red);
    return Py_BuildValue("(KK)", (unsigned long long)blue, (unsigned long long)red);
}

static PyObject *playout(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *blue_int, *red_int, *record;
    Py_ssize_t ply, exhausted_at, max_plies;
    unsigned long long seed;
    uint64_t boards[2];
    if (!PyArg_ParseTuple(args, "OOnnKnO:playout", &blue_int, &red_int, &ply, &exhausted_at, &seed,
                          &max_plies, &record) ||
        board_of(blue_int, "blue", &boards[0]) < 0 || board_of(red_int, "red", &boards[1]) < 0) {
        return NULL;
    }
    if (record != Py_None && !PyList_Check(record)) {
        PyErr_SetString(PyExc_TypeError, "record must be a list or None");
        return NULL;
    }
    uint64_t random = seed;
    for (Py_ssize_t played = 0; played < max_plies; played++) {
        uint64_t *mine = &boards[ply & 1];
        uint64_t empty = ~(boards[0] | boards[1]);
        /* Over once a side is empty, at the move limit, or when the mover is stalemated. */
        if (!(boards[0] && boards[1]) || ply >= exhausted_at || !(*mine & touching(empty))) {
            break;
        }
        int count = 0;
        for (uint64_t rest = *mine; rest; rest &= rest - 1) {
            count += __builtin_popcountll(neighbours_of(__builtin_ctzll(rest)) & empty);
        }
        /* The chosen move's index in source-then-target order; walk the sources to it. */
        int index = (int)splitmix64_below(&random, (uint64_t)count);
        int source = 0;
        uint64_t targets = 0;
        for (uint64_t rest = *mine; rest; rest &= rest - 1) {
            source = __builtin_ctzll(rest);
            targets = neighbours_of(source) & empty;
            int here = __builtin_popcountll(targets);
            if (index < here) {
                break;
            }
            index -= here;
        }
        for (; index > 0; index--) {
            targets &= targets - 1;
        }
        int target = __builtin_ctzll(targets);
        *mine ^= (1ULL << source) | (1ULL << target);
        crank_boards(&boards[0], &boards[1]);
        ply++;
        if (record != Py_None) {
            PyObject *move = Py_BuildValue("(ii)", source, target);
            if (move == NULL || PyList_Append(record, move) < 0) {
                Py_XDECREF(move);
                return NULL;
            }
            Py_DECREF(move);
        }
    }
    return Py_BuildValue("(KKn)", (unsigned long long)boards[0], (unsigned long long)boards[1],
                         ply);
}

static PyMethodDef METHODS[] = {
    {"crank", crank, METH_VARARGS, "crank(blue, red) -> (blue, red) after Conway's Crank."},
    {"playout", playout, METH_VARARGS,
     "playout(blue, red, ply, exhausted_at, seed, max_plies, record) -> (blue, red, ply) after "
     "uniformly random moves until the game is over or max_plies are played; each move is "
     "appended to `record` as (source, target) unless it is None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_war_of_life_c",
    .m_doc = "War of Life's compiled rules kernel.",
    .m_size = -1,
    .m_methods = METHODS,
};

PyMODINIT_FUNC PyInit__war_of_life_c(void) { return PyModule_Create(&MODULE); }
