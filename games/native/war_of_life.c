/* The compiled kernel of War of Life (games/war_of_life.py states the rules): the rules' C
 * statement (games/native/war_of_life.h) offered to Python.
 *
 * A random playout draws each move uniformly over the legal moves, as `State.random_move` does,
 * from splitmix64 seeded by the caller rather than Python's generator.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

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
    Position position = {{boards[0], boards[1]}, (int)ply};
    Move move;
    for (Py_ssize_t played = 0;
         played < max_plies && random_move(&position, (int)exhausted_at, &random, &move);
         played++) {
        play(&position, move);
        if (record != Py_None) {
            PyObject *step = Py_BuildValue("(ii)", move.source, move.target);
            if (step == NULL || PyList_Append(record, step) < 0) {
                Py_XDECREF(step);
                return NULL;
            }
            Py_DECREF(step);
        }
    }
    return Py_BuildValue("(KKi)", (unsigned long long)position.boards[0],
                         (unsigned long long)position.boards[1], position.ply);
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
