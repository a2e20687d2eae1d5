/* The compiled kernel of the Game of the Amazons (games/amazons.py states the rules): the rules'
 * C statement (games/native/amazons.h) offered to Python.
 *
 * A random playout draws each move as `AmazonsState.random_move` documents: an amazon that can
 * move, uniformly; then a destination, uniformly; then an arrow, uniformly. Its random numbers
 * come from splitmix64 seeded by the caller, not from Python's generator.
 */

#include "amazons.h"

static PyObject *board_int(const uint8_t bytes[BOARD_BYTES]) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(bytes, BOARD_BYTES, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(bytes, BOARD_BYTES, 1, 0);
#endif
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
    Move *listed = PyMem_Malloc(MOVES_CAPACITY * sizeof *listed);
    if (listed == NULL) {
        return PyErr_NoMemory();
    }
    int count = list_moves(&position, listed);
    PyObject *moves = PyList_New(count);
    for (int i = 0; moves != NULL && i < count; i++) {
        PyObject *move = move_tuple(listed[i].src, listed[i].dst, listed[i].arrow);
        if (move == NULL) {
            Py_CLEAR(moves);
        } else {
            PyList_SET_ITEM(moves, i, move);
        }
    }
    PyMem_Free(listed);
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

/* The evaluation's features for Python (agents/evaluations/amazons.py states them and stays
 * their reference). */

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

static PyObject *territory(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *mine_int, *theirs_int, *empty_int;
    Board128 mine, theirs, empty;
    if (!PyArg_ParseTuple(args, "OOO:territory", &mine_int, &theirs_int, &empty_int) ||
        read_board128(mine_int, "mine", &mine) < 0 ||
        read_board128(theirs_int, "theirs", &theirs) < 0 ||
        read_board128(empty_int, "empty", &empty) < 0) {
        return NULL;
    }
    int owned[3];
    territory_counts(mine, theirs, empty, owned);
    return Py_BuildValue("(iii)", owned[0], owned[1], owned[2]);
}

static PyObject *freedom(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *amazons_int, *empty_int, *worth_tuple;
    Board128 amazons, empty;
    if (!PyArg_ParseTuple(args, "OOO!:freedom", &amazons_int, &empty_int, &PyTuple_Type,
                          &worth_tuple) ||
        read_board128(amazons_int, "amazons", &amazons) < 0 ||
        read_board128(empty_int, "empty", &empty) < 0) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(worth_tuple) != DIRECTIONS + 1) {
        PyErr_SetString(PyExc_ValueError, "worth must hold 9 numbers, for 0 to 8 free neighbours");
        return NULL;
    }
    double worth[DIRECTIONS + 1];
    for (int free = 0; free <= DIRECTIONS; free++) {
        worth[free] = PyFloat_AsDouble(PyTuple_GET_ITEM(worth_tuple, free));
        if (worth[free] == -1.0 && PyErr_Occurred()) {
            return NULL;
        }
    }
    return PyFloat_FromDouble(freedom_sum(amazons, empty, worth));
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
