/* Watch Your Back!'s move generator and random playout, compiled
 * (`arbiter.games._watch_your_back_c`): the rules' C statement (games/native/watch_your_back.h)
 * offered to Python.
 *
 * games/watch_your_back.py states the rules and stays their reference; this file computes the
 * same answers for the calls agents and the server make most, and tests play both in lockstep.
 * Moves come back as the Python module's values: a placement is the tuple (x, y), a step
 * ((xa, ya), (xb, yb)); tuples are built once and shared. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "arguments.h"
#include "splitmix64.h"
#include "watch_your_back.h"

static PyObject *SQUARE_TUPLES[SQUARES];
/* STEP_TUPLES[start][i][jumps]: the move tuple of MOVES[start][i], a slide or its jump. */
static PyObject *STEP_TUPLES[SQUARES][DIRECTIONS][2];

/* -- moves ------------------------------------------------------------------------------------ */


static int append_step(void *context, int start, const Step *step, int jumps)
{
    return PyList_Append((PyObject *)context, STEP_TUPLES[start][step - MOVES[start]][jumps]) < 0
               ? -1
               : 0;
}

/* -- reading arguments ------------------------------------------------------------------------ */

/* own, other, shrinks: a moving-phase position as `moves` and `can_move` take it. */
static int read_pieces(PyObject *const *args, Bitboard *own, Bitboard *other, int *shrinks)
{
    long long level;
    if (read_board(args[0], "own", own) || read_board(args[1], "other", other) ||
        read_int(args[2], "shrinks", 0, FINAL_SHRINKS, &level))
        return -1;
    if (*own & *other) {
        PyErr_SetString(PyExc_ValueError, "own and other share a square");
        return -1;
    }
    *shrinks = (int)level;
    return 0;
}

/* -- moves, can_move, squares ----------------------------------------------------------------- */

static PyObject *moves(PyObject *module, PyObject *const *args, Py_ssize_t given)
{
    (void)module;
    Bitboard own, other;
    int shrinks;
    if (check_count("moves", given, 3) || read_pieces(args, &own, &other, &shrinks))
        return NULL;
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    if (walk_steps(own, other, shrinks, append_step, list) < 0) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

static PyObject *can_move(PyObject *module, PyObject *const *args, Py_ssize_t given)
{
    (void)module;
    Bitboard own, other;
    int shrinks;
    if (check_count("can_move", given, 3) || read_pieces(args, &own, &other, &shrinks))
        return NULL;
    return PyBool_FromLong(any_step(own, other, shrinks));
}

static PyObject *squares(PyObject *module, PyObject *const *args, Py_ssize_t given)
{
    (void)module;
    Bitboard board;
    if (check_count("squares", given, 1) || read_board(args[0], "board", &board))
        return NULL;
    PyObject *list = PyList_New(count(board));
    if (list == NULL)
        return NULL;
    for (Py_ssize_t i = 0; board; board &= board - 1, i++)
        PyList_SET_ITEM(list, i, Py_NewRef(SQUARE_TUPLES[lowest_square(board)]));
    return list;
}

/* -- the playout ------------------------------------------------------------------------------ */

static PyObject *step_tuple(int start, int end);

/* One random legal move, uniform over `legal_moves()`, played on `game` (not over). The move
 * goes to `record` when it is not NULL: None for a pass. */
static int play_random_move(Position *game, uint64_t *rng, PyObject *record)
{
    Move move;
    if (!random_move(game, rng, &move)) {
        PyErr_SetString(PyExc_ValueError, "no free square of the zone is left to place on");
        return -1;
    }
    play(game, move);
    if (record == NULL) {
        return 0;
    }
    PyObject *value = move.kind == PASS_TURN ? Py_NewRef(Py_None)
                      : move.kind == PLACE   ? Py_NewRef(SQUARE_TUPLES[move.start])
                                             : step_tuple(move.start, move.end);
    int appended = value == NULL ? -1 : PyList_Append(record, value);
    Py_XDECREF(value);
    return appended;
}

static PyObject *playout(PyObject *module, PyObject *const *args, Py_ssize_t given)
{
    (void)module;
    Position game = {0};
    long long shrinks, max_plies, plies = 0;
    Bitboard seed;
    if (check_count("playout", given, 9) || read_board(args[0], "white", &game.white) ||
        read_board(args[1], "black", &game.black) ||
        read_int(args[2], "ply", 0, LLONG_MAX / 2, &game.ply) ||
        read_int(args[3], "shrinks", 0, FINAL_SHRINKS, &shrinks) ||
        read_int(args[4], "since_capture", 0, LLONG_MAX / 2, &game.since_capture) ||
        read_int(args[5], "limit", 1, LLONG_MAX / 2, &game.limit) ||
        read_board(args[6], "seed", &seed) ||
        read_int(args[7], "max_plies", 0, LLONG_MAX / 2, &max_plies))
        return NULL;
    PyObject *record = args[8] == Py_None ? NULL : args[8];
    if (record != NULL && !PyList_Check(record)) {
        PyErr_SetString(PyExc_TypeError, "record must be a list or None");
        return NULL;
    }
    if (game.white & game.black) {
        PyErr_SetString(PyExc_ValueError, "white and black share a square");
        return NULL;
    }
    game.shrinks = (int)shrinks;
    uint64_t rng = seed;
    for (; plies < max_plies && !is_over(&game); plies++) {
        if (play_random_move(&game, &rng, record) < 0)
            return NULL;
    }
    return Py_BuildValue("(KKLiL)", (unsigned long long)game.white,
                         (unsigned long long)game.black, game.ply, game.shrinks,
                         game.since_capture);
}

/* -- the module ------------------------------------------------------------------------------- */

static PyObject *step_tuple(int start, int end)
{
    return PyTuple_Pack(2, SQUARE_TUPLES[start], SQUARE_TUPLES[end]);
}

static int build_tables(void)
{
    static int built = 0;
    if (built)
        return 0;
    build_rules_tables();
    for (int square = 0; square < SQUARES; square++) {
        SQUARE_TUPLES[square] = Py_BuildValue("(ii)", square % SIZE, square / SIZE);
        if (SQUARE_TUPLES[square] == NULL)
            return -1;
    }
    for (int square = 0; square < SQUARES; square++)
        for (int i = 0; i < MOVE_COUNT[square]; i++) {
            const Step *step = &MOVES[square][i];
            STEP_TUPLES[square][i][0] = step_tuple(square, lowest_square(step->neighbour));
            STEP_TUPLES[square][i][1] =
                step->landing ? step_tuple(square, lowest_square(step->landing)) : NULL;
            if (STEP_TUPLES[square][i][0] == NULL ||
                (step->landing && STEP_TUPLES[square][i][1] == NULL))
                return -1;
        }
    built = 1;
    return 0;
}

/* -- evaluation features (agents/evaluations/watch_your_back.py states them and stays their
 * reference; the search calls them at every leaf) ----------------------------------------------- */

static int read_boards(const char *function, PyObject *const *args, Py_ssize_t given,
                       const char *const names[3], Bitboard boards[3])
{
    if (check_count(function, given, 3))
        return -1;
    for (int i = 0; i < 3; i++)
        if (read_board(args[i], names[i], &boards[i]))
            return -1;
    return 0;
}

static PyObject *reach(PyObject *module, PyObject *const *args, Py_ssize_t given)
{
    (void)module;
    static const char *const names[3] = {"pieces", "occupied", "open_squares"};
    Bitboard b[3];
    if (read_boards("reach", args, given, names, b))
        return NULL;
    return PyLong_FromUnsignedLongLong(reach_squares(b[0], b[1], b[2]));
}

static PyObject *in_danger(PyObject *module, PyObject *const *args, Py_ssize_t given)
{
    (void)module;
    static const char *const names[3] = {"pieces", "hostile", "enemy_arrivals"};
    Bitboard b[3];
    if (read_boards("in_danger", args, given, names, b))
        return NULL;
    return PyLong_FromUnsignedLongLong(danger_squares(b[0], b[1], b[2]));
}

static PyMethodDef METHODS[] = {
    {"moves", (PyCFunction)(void (*)(void))moves, METH_FASTCALL,
     "moves(own, other, shrinks): every slide and jump of the mover's pieces `own`, in "
     "watch_your_back.py's order (empty when only a pass is left)."},
    {"can_move", (PyCFunction)(void (*)(void))can_move, METH_FASTCALL,
     "can_move(own, other, shrinks): whether the pieces `own` have a slide or a jump."},
    {"squares", (PyCFunction)(void (*)(void))squares, METH_FASTCALL,
     "squares(board): the (x, y) squares of a bitboard, lowest bit first."},
    {"playout", (PyCFunction)(void (*)(void))playout, METH_FASTCALL,
     "playout(white, black, ply, shrinks, since_capture, limit, seed, max_plies, record): "
     "random moves, each uniform over the legal ones, until the game ends or max_plies are "
     "played, each appended to `record` when it is a list (a pass as None); returns (white, "
     "black, ply, shrinks, since_capture)."},
    {"reach", (PyCFunction)(void (*)(void))reach, METH_FASTCALL,
     "reach(pieces, occupied, open_squares): the open squares the pieces reach by one slide or "
     "jump, as agents/evaluations/watch_your_back.py's `reach`."},
    {"in_danger", (PyCFunction)(void (*)(void))in_danger, METH_FASTCALL,
     "in_danger(pieces, hostile, enemy_arrivals): as agents/evaluations/watch_your_back.py's "
     "`in_danger`."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "_watch_your_back_c",
    "Watch Your Back!'s move generator and random playout, compiled; "
    "games/watch_your_back.py states the rules.",
    -1, METHODS, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__watch_your_back_c(void)
{
    if (build_tables() < 0)
        return NULL;
    return PyModule_Create(&MODULE);
}
