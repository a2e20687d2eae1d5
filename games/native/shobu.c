/* Shobu's hot rules in C, offered to Python: the rules' C statement (games/native/shobu.h) and a
 * whole random playout.
 *
 * games/shobu.py is the statement of the rules; this file computes the same answers on the same
 * representation and tests/games/test_native_shobu.py plays both in lockstep. Every function takes a state
 * first and reads its fields (black, white, ply, since_capture, no_capture_limit), so the Python
 * state class keeps its data and only asks here. Sentences (why a turn is illegal, how a game
 * ended) stay in Python: this file answers the common case (legal, the game goes on) and Python
 * explains the rare one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#include "shobu.h"

/* --- states in and out -------------------------------------------------------------------- */

static PyObject *FIELD_NAMES[5]; /* "black", "white", "ply", "since_capture", "no_capture_limit" */
static PyObject *EMPTY_TUPLE;

static int check_count(Py_ssize_t nargs, Py_ssize_t expected, const char *name)
{
    if (nargs == expected)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, expected, nargs);
    return -1;
}

static int read_bits(PyObject *arg, Bits *out)
{
    *out = PyLong_AsUnsignedLongLong(arg);
    return (*out == (Bits)-1 && PyErr_Occurred()) ? -1 : 0;
}

static int read_int(PyObject *arg, long long *out)
{
    *out = PyLong_AsLongLong(arg);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int read_position(PyObject *state, Position *position)
{
    PyObject *fields[5];
    for (int i = 0; i < 5; i++) {
        fields[i] = PyObject_GetAttr(state, FIELD_NAMES[i]);
        if (fields[i] == NULL) {
            for (int j = 0; j < i; j++)
                Py_DECREF(fields[j]);
            return -1;
        }
    }
    int failed = read_bits(fields[0], &position->black) < 0 ||
                 read_bits(fields[1], &position->white) < 0 ||
                 read_int(fields[2], &position->ply) < 0 ||
                 read_int(fields[3], &position->since) < 0 ||
                 read_int(fields[4], &position->limit) < 0;
    for (int i = 0; i < 5; i++)
        Py_DECREF(fields[i]);
    return failed ? -1 : 0;
}

/* A new state of `state`'s class holding `position`, made as its frozen dataclass __init__
 * makes one (object.__new__, then object.__setattr__ of each field) without running Python. */
static PyObject *new_state(PyObject *state, const Position *position)
{
    PyObject *made = PyBaseObject_Type.tp_new(Py_TYPE(state), EMPTY_TUPLE, NULL);
    if (made == NULL)
        return NULL;
    PyObject *fields[5] = {
        PyLong_FromUnsignedLongLong(position->black), PyLong_FromUnsignedLongLong(position->white),
        PyLong_FromLongLong(position->ply),           PyLong_FromLongLong(position->since),
        PyLong_FromLongLong(position->limit),
    };
    for (int i = 0; i < 5 && made != NULL; i++)
        if (fields[i] == NULL || PyObject_GenericSetAttr(made, FIELD_NAMES[i], fields[i]) < 0)
            Py_CLEAR(made);
    for (int i = 0; i < 5; i++)
        Py_XDECREF(fields[i]);
    return made;
}


/* A turn tuple (passive, aggressive, direction, distance) with every part in range; 0 when it
 * is no such tuple (the caller decides what that means), -1 on a Python error. */
static int read_turn(PyObject *move, Turn *turn)
{
    if (!PyTuple_Check(move) || PyTuple_GET_SIZE(move) != 4)
        return 0;
    long long parts[4];
    for (int i = 0; i < 4; i++) {
        PyObject *part = PyTuple_GET_ITEM(move, i);
        if (!PyLong_Check(part))
            return 0;
        int overflow;
        parts[i] = PyLong_AsLongLongAndOverflow(part, &overflow);
        if (parts[i] == -1 && PyErr_Occurred())
            return -1;
        if (overflow)
            return 0;
    }
    if (parts[0] < 0 || parts[0] >= SQUARES || parts[1] < 0 || parts[1] >= SQUARES ||
        parts[2] < 0 || parts[2] >= DIRECTIONS || parts[3] < 1 || parts[3] > 2)
        return 0;
    *turn = (Turn){(int)parts[0], (int)parts[1], (int)parts[2], (int)parts[3]};
    return 1;
}

static PyObject *turn_tuple(Turn turn)
{
    const int parts[4] = {turn.passive, turn.aggressive, turn.direction, turn.distance};
    PyObject *tuple = PyTuple_New(4);
    for (int i = 0; tuple != NULL && i < 4; i++) {
        PyObject *part = PyLong_FromLong(parts[i]);
        if (part == NULL)
            Py_CLEAR(tuple);
        else
            PyTuple_SET_ITEM(tuple, i, part);
    }
    return tuple;
}

/* --- the module's functions: each takes a state first ------------------------------------- */

static PyObject *legal_moves(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Position position;
    if (check_count(nargs, 1, "legal_moves") < 0 || read_position(args[0], &position) < 0)
        return NULL;
    if (ended_at(&position))
        return PyList_New(0);
    Group groups[GROUPS];
    int count = turn_groups(position.black, position.white, mover_of(&position), groups, 0);
    long long total = 0;
    for (int g = 0; g < count; g++)
        total += group_size(&groups[g]);
    PyObject *moves = PyList_New((Py_ssize_t)total);
    Py_ssize_t index = 0;
    for (int g = 0; moves != NULL && g < count; g++) {
        int vector = groups[g].vector, back = REACH[vector];
        for (Bits p = groups[g].passive; moves != NULL && p; p &= p - 1)
            for (Bits a = groups[g].aggressive; moves != NULL && a; a &= a - 1) {
                Turn turn = {__builtin_ctzll(p) - back, __builtin_ctzll(a) - back, vector >> 1,
                             (vector & 1) + 1};
                PyObject *move = turn_tuple(turn);
                if (move == NULL)
                    Py_CLEAR(moves);
                else
                    PyList_SET_ITEM(moves, index++, move);
            }
    }
    return moves;
}

/* (loser, board) for the first board found empty of the loser's stones, the seat to move asked
 * first, as games/shobu.py's `cleared_board`; None when every board holds stones of both. */
static PyObject *cleared_board(PyObject *Py_UNUSED(module), PyObject *const *args,
                                  Py_ssize_t nargs)
{
    Position position;
    if (check_count(nargs, 1, "cleared_board") < 0 || read_position(args[0], &position) < 0)
        return NULL;
    for (int seat = 0; seat < 2; seat++) {
        int loser = mover_of(&position) ^ seat;
        Bits stones = loser ? position.white : position.black;
        for (int board = 0; board < 4; board++)
            if (!(stones & BOARD_MASK[board]))
                return Py_BuildValue("(ii)", loser, board);
    }
    Py_RETURN_NONE;
}

static PyObject *has_turn(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Position position;
    if (check_count(nargs, 1, "has_turn") < 0 || read_position(args[0], &position) < 0)
        return NULL;
    Group groups[GROUPS];
    return PyBool_FromLong(
        turn_groups(position.black, position.white, mover_of(&position), groups, 1));
}

static PyObject *ongoing(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Position position;
    if (check_count(nargs, 1, "ongoing") < 0 || read_position(args[0], &position) < 0)
        return NULL;
    if (ended_at(&position))
        Py_RETURN_FALSE;
    Group groups[GROUPS];
    return PyBool_FromLong(
        turn_groups(position.black, position.white, mover_of(&position), groups, 1));
}

/* Whether `move` is a legal turn here. False also for anything that is not a turn tuple in
 * range: the caller then asks the Python rules, which say what is wrong with it. */
static PyObject *is_legal(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Position position;
    Turn turn;
    if (check_count(nargs, 2, "is_legal") < 0 || read_position(args[0], &position) < 0)
        return NULL;
    int read = read_turn(args[1], &turn);
    if (read < 0)
        return NULL;
    return PyBool_FromLong(read == 1 && turn_is_legal(&position, turn));
}

/* A legal turn drawn as games/shobu.py's `random_move` draws it: `randrange(total)` (a Python
 * callable) picks an index into legal_moves(), so one generator gives the same turn on both
 * paths. */
static PyObject *random_move(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Position position;
    if (check_count(nargs, 2, "random_move") < 0 || read_position(args[0], &position) < 0)
        return NULL;
    Group groups[GROUPS];
    int count = turn_groups(position.black, position.white, mover_of(&position), groups, 0);
    long long total = 0;
    for (int g = 0; g < count; g++)
        total += group_size(&groups[g]);
    PyObject *bound = PyLong_FromLongLong(total);
    if (bound == NULL)
        return NULL;
    PyObject *drawn = PyObject_CallOneArg(args[1], bound);
    Py_DECREF(bound);
    if (drawn == NULL)
        return NULL;
    long long index = PyLong_AsLongLong(drawn);
    Py_DECREF(drawn);
    if (index == -1 && PyErr_Occurred())
        return NULL;
    if (index < 0 || index >= total)
        return PyErr_Format(PyExc_ValueError, "randrange(%lld) drew %lld", total, index);
    return turn_tuple(turn_at(groups, count, index));
}

/* The state after a turn the caller knows is legal. Only the turn's parts are checked, so that
 * a bad one raises instead of reading outside the tables. */
static PyObject *play(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Position position;
    Turn turn;
    if (check_count(nargs, 2, "play") < 0 || read_position(args[0], &position) < 0)
        return NULL;
    int read = read_turn(args[1], &turn);
    if (read < 0)
        return NULL;
    if (read == 0 || LANDING[turn.direction * 2 + turn.distance - 1][turn.passive] < 0 ||
        LANDING[turn.direction * 2 + turn.distance - 1][turn.aggressive] < 0)
        return PyErr_Format(PyExc_ValueError, "%R is not a Shobu turn on the boards", args[1]);
    play_turn(&position, turn);
    return new_state(args[0], &position);
}

/* The state after random turns (uniform over the legal turns, as `random_move`) until the game
 * ends or `max_plies` more are played. Arguments: the state, a 64-bit seed, max_plies, and a
 * list to append each turn to, or None. */
static PyObject *playout(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Position position;
    uint64_t seed;
    long long max_plies;
    if (check_count(nargs, 4, "playout") < 0 || read_position(args[0], &position) < 0 ||
        read_bits(args[1], &seed) < 0 || read_int(args[2], &max_plies) < 0)
        return NULL;
    PyObject *record = args[3];
    if (record != Py_None && !PyList_Check(record))
        return PyErr_Format(PyExc_TypeError, "playout() records turns in a list or None, not %R",
                            record);
    Turn turn;
    for (long long played = 0;
         played < max_plies && !ended_at(&position) && random_turn(&position, &seed, &turn);
         played++) {
        if (record != Py_None) {
            PyObject *move = turn_tuple(turn);
            if (move == NULL || PyList_Append(record, move) < 0) {
                Py_XDECREF(move);
                return NULL;
            }
            Py_DECREF(move);
        }
        play_turn(&position, turn);
    }
    return new_state(args[0], &position);
}

/* Evaluation feature (agents/evaluations/shobu.py states it and stays its reference; the search
 * calls it at every leaf). */

/* balance(mine, theirs, my_turn, tempo): each board's term for `mine`, summed as signed squares. */
static PyObject *balance(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    Bits mine, theirs;
    if (check_count(nargs, 4, "balance") < 0)
        return NULL;
    if (!PyLong_Check(args[0]) || !PyLong_Check(args[1]) || !PyFloat_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "balance() takes int bitboards mine and theirs, "
                                         "my_turn, and a float tempo");
        return NULL;
    }
    if (read_bits(args[0], &mine) < 0 || read_bits(args[1], &theirs) < 0) {
        PyErr_SetString(PyExc_ValueError, "mine and theirs must be bitboards of 64 squares");
        return NULL;
    }
    int my_turn = PyObject_IsTrue(args[2]);
    if (my_turn < 0)
        return NULL;
    double tempo = PyFloat_AS_DOUBLE(args[3]);
    double total = balance_sum(mine, theirs, my_turn, tempo);
    return PyFloat_FromDouble(total);
}

static PyMethodDef METHODS[] = {
    {"legal_moves", (PyCFunction)(void (*)(void))legal_moves, METH_FASTCALL,
     "legal_moves(state): every legal turn, in the Python rules' order"},
    {"cleared_board", (PyCFunction)(void (*)(void))cleared_board, METH_FASTCALL,
     "cleared_board(state): (loser, board) for a board without the loser's stones, or None"},
    {"has_turn", (PyCFunction)(void (*)(void))has_turn, METH_FASTCALL,
     "has_turn(state): whether the seat to move has a legal turn"},
    {"ongoing", (PyCFunction)(void (*)(void))ongoing, METH_FASTCALL,
     "ongoing(state): whether the game goes on (outcome() is None)"},
    {"is_legal", (PyCFunction)(void (*)(void))is_legal, METH_FASTCALL,
     "is_legal(state, move): whether move is a legal turn tuple here"},
    {"random_move", (PyCFunction)(void (*)(void))random_move, METH_FASTCALL,
     "random_move(state, randrange): legal_moves()[randrange(len(legal_moves()))]"},
    {"play", (PyCFunction)(void (*)(void))play, METH_FASTCALL,
     "play(state, move): the state after a legal turn"},
    {"playout", (PyCFunction)(void (*)(void))playout, METH_FASTCALL,
     "playout(state, seed, max_plies, record): the state a random playout ends in"},
    {"balance", (PyCFunction)(void (*)(void))balance, METH_FASTCALL,
     "balance(mine, theirs, my_turn, tempo): as agents/evaluations/shobu.py's `balance`"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "arbiter.games._shobu_c",
    "Shobu's hot rules in C; games/shobu.py is their statement.", -1, METHODS,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__shobu_c(void)
{
    static const char *names[5] = {"black", "white", "ply", "since_capture", "no_capture_limit"};
    for (int i = 0; i < 5; i++)
        if (FIELD_NAMES[i] == NULL && (FIELD_NAMES[i] = PyUnicode_InternFromString(names[i])) == NULL)
            return NULL;
    if (EMPTY_TUPLE == NULL && (EMPTY_TUPLE = PyTuple_New(0)) == NULL)
        return NULL;
    build_tables();
    return PyModule_Create(&MODULE);
}
