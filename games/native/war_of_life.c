/* The compiled kernel of War of Life (games/war_of_life.py states the rules): the rules' C
 * statement (games/native/war_of_life.h) offered to Python.
 *
 * A random playout draws each move uniformly over the legal moves, as `State.random_move` does,
 * from splitmix64 seeded by the caller rather than Python's generator.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "splitmix64.h"
#include "war_of_life.h"

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
