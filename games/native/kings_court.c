/* King's Court's move generator and random playout, compiled (`arbiter.games._kings_court_c`):
 * the rules' C statement (games/native/kings_court.h) offered to Python.
 *
 * games/kings_court.py states the rules and stays their reference; this file computes the same
 * answers for the positions agents and the server ask about most, and tests play both in
 * lockstep. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#include "arguments.h"
#include "kings_court.h"

static PyObject *SLIDES[DIRECTIONS][SQUARES]; /* the move tuple (from, to) per direction and
                                               * target square, shared by every list */

static PyObject *path_tuple(const uint8_t *path, int length)
{
    PyObject *move = PyTuple_New(length);
    if (move == NULL)
        return NULL;
    for (int i = 0; i < length; i++) {
        PyObject *square = PyLong_FromLong(path[i]);
        if (square == NULL) {
            Py_DECREF(move);
            return NULL;
        }
        PyTuple_SET_ITEM(move, i, square);
    }
    return move;
}

static int append_path(void *context, const uint8_t *path, int length, Bitboard captured)
{
    (void)captured;
    PyObject *move = path_tuple(path, length);
    if (move == NULL)
        return -1;
    int status = PyList_Append((PyObject *)context, move);
    Py_DECREF(move);
    return status;
}

/* -- reading arguments -------------------------------------------------------------------- */

/* own, opp, opening, first_direction: the position every function starts from. */
static int read_position(PyObject *const *args, Bitboard *own, Bitboard *opp, int *opening,
                         int *first_direction)
{
    long long opening_index, direction;
    if (read_board(args[0], "own", own) || read_board(args[1], "opp", opp) ||
        read_int(args[2], "opening", 0, MIDGAME, &opening_index) ||
        read_int(args[3], "first_direction", -1, DIRECTIONS - 1, &direction))
        return -1;
    if (*own & *opp) {
        PyErr_SetString(PyExc_ValueError, "own and opp share a square");
        return -1;
    }
    *opening = (int)opening_index;
    *first_direction = (int)direction;
    return 0;
}

/* -- legal_moves, has_legal_move ---------------------------------------------------------- */

static PyObject *legal_moves(PyObject *module, PyObject *const *args, Py_ssize_t count)
{
    (void)module;
    Bitboard own, opp, targets[DIRECTIONS];
    int opening, first_direction;
    if (check_count("legal_moves", count, 4) ||
        read_position(args, &own, &opp, &opening, &first_direction))
        return NULL;
    PyObject *moves = PyList_New(0);
    if (moves == NULL)
        return NULL;
    slide_targets(own, opp, opening, first_direction, targets);
    for (int direction = 0; direction < DIRECTIONS; direction++) {
        for (Bitboard left = targets[direction]; left; left &= left - 1) {
            if (PyList_Append(moves, SLIDES[direction][lowest_square(left)]) < 0) {
                Py_DECREF(moves);
                return NULL;
            }
        }
    }
    if (opening == MIDGAME) {
        Walk walk = {.sink = append_path, .context = moves};
        if (walk_jumps(&walk, own, opp) < 0) {
            Py_DECREF(moves);
            return NULL;
        }
    }
    return moves;
}

static PyObject *has_legal_move(PyObject *module, PyObject *const *args, Py_ssize_t count)
{
    (void)module;
    Bitboard own, opp;
    int opening, first_direction;
    if (check_count("has_legal_move", count, 4) ||
        read_position(args, &own, &opp, &opening, &first_direction))
        return NULL;
    return PyBool_FromLong(any_legal_move(own, opp, opening, first_direction));
}

/* -- the playout -------------------------------------------------------------------------- */

typedef struct {
    size_t wanted, seen;
    PyObject *move;
} NthJump;

static int take_nth(void *context, const uint8_t *path, int length, Bitboard captured)
{
    (void)captured;
    NthJump *nth = context;
    if (nth->seen++ < nth->wanted)
        return 0;
    nth->move = path_tuple(path, length);
    return nth->move == NULL ? -1 : 1;
}

/* Appends the `wanted`-th jump sequence of the position (counted from 0) to `record`. */
static int append_nth_jump(PyObject *record, Bitboard own, Bitboard opp, size_t wanted)
{
    NthJump nth = {.wanted = wanted, .seen = 0, .move = NULL};
    Walk walk = {.sink = take_nth, .context = &nth};
    if (walk_jumps(&walk, own, opp) < 0)
        return -1;
    if (nth.move == NULL) { /* the same walk found fewer sequences: never, it is deterministic */
        PyErr_SetString(PyExc_SystemError, "a jump sequence vanished between two walks");
        return -1;
    }
    int status = PyList_Append(record, nth.move);
    Py_DECREF(nth.move);
    return status;
}

/* One random legal move played on `game` (the rules header's `random_move`), or 0 when it has
 * none (then the game is over). Appends the move to `record` when it is not NULL. */
static int play_random_move(Game *game, JumpList *jumps, uint64_t *rng, PyObject *record)
{
    Drawn drawn;
    int status = random_move(game, jumps, rng, &drawn);
    if (status < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (status == 0)
        return 0;
    if (record) {
        Bitboard own = game->turn ? game->black : game->white;
        Bitboard opp = game->turn ? game->white : game->black;
        int appended = drawn.jump < 0
                           ? PyList_Append(record, SLIDES[drawn.direction][drawn.end])
                           : append_nth_jump(record, own, opp, (size_t)drawn.jump);
        if (appended < 0)
            return -1;
    }
    play_drawn(game, jumps, drawn);
    return 1;
}

static PyObject *playout(PyObject *module, PyObject *const *args, Py_ssize_t count)
{
    (void)module;
    Game game = {0};
    long long turn, opening, direction, max_plies;
    Bitboard seed;
    if (check_count("playout", count, 10) || read_board(args[0], "white", &game.white) ||
        read_board(args[1], "black", &game.black) ||
        read_int(args[2], "turn", 0, 1, &turn) ||
        read_int(args[3], "opening", 0, MIDGAME, &opening) ||
        read_int(args[4], "first_direction", -1, DIRECTIONS - 1, &direction) ||
        read_int(args[5], "since_capture", 0, LLONG_MAX / 2, &game.since_capture) ||
        read_int(args[6], "limit", 1, LLONG_MAX / 2, &game.limit) ||
        read_board(args[7], "seed", &seed) ||
        read_int(args[8], "max_plies", 0, LLONG_MAX / 2, &max_plies))
        return NULL;
    PyObject *record = args[9] == Py_None ? NULL : args[9];
    if (record != NULL && !PyList_Check(record)) {
        PyErr_SetString(PyExc_TypeError, "record must be a list or None");
        return NULL;
    }
    if (game.white & game.black) {
        PyErr_SetString(PyExc_ValueError, "white and black share a square");
        return NULL;
    }
    game.turn = (int)turn;
    game.opening = (int)opening;
    game.first_direction = (int)direction;
    JumpList jumps = {NULL, 0, 0};
    uint64_t rng = seed;
    int status = 1;
    while (game.plies < max_plies && !game_ended_early(&game)) {
        status = play_random_move(&game, &jumps, &rng, record);
        if (status <= 0)
            break;
    }
    free(jumps.items);
    if (status < 0)
        return NULL;
    return Py_BuildValue("(KKLLi)", (unsigned long long)game.white,
                         (unsigned long long)game.black, game.plies, game.since_capture,
                         game.first_direction);
}

/* -- the module --------------------------------------------------------------------------- */

static int build_tables(void)
{
    static int built = 0;
    if (built)
        return 0;
    build_jump_tables();
    for (int square = 0; square < SQUARES; square++) {
        int column = square % 8;
        const int steps[DIRECTIONS][2] = {{0, 1}, {0, -1}, {-1, 0}, {1, 0}};
        for (int direction = 0; direction < DIRECTIONS; direction++) {
            int start = square - DELTA[direction];
            int start_column = column - steps[direction][0];
            if (start < 0 || start >= SQUARES || start_column < 0 || start_column >= 8)
                continue;
            Py_XSETREF(SLIDES[direction][square], Py_BuildValue("(ii)", start, square));
            if (SLIDES[direction][square] == NULL)
                return -1;
        }
    }
    built = 1;
    return 0;
}

/* Evaluation features (agents/evaluations/kings_court.py states them and stays their reference;
 * the search calls them at every leaf). */

/* The victims with an attacker on one side and an empty square on the other, in a line. */
static PyObject *jumpable(PyObject *module, PyObject *const *args, Py_ssize_t count)
{
    (void)module;
    Bitboard victims, attackers, empty;
    if (check_count("jumpable", count, 3) || read_board(args[0], "victims", &victims) ||
        read_board(args[1], "attackers", &attackers) || read_board(args[2], "empty", &empty))
        return NULL;
    return PyLong_FromUnsignedLongLong(jumpable_squares(victims, attackers, empty));
}

static PyMethodDef METHODS[] = {
    {"legal_moves", (PyCFunction)(void (*)(void))legal_moves, METH_FASTCALL,
     "legal_moves(own, opp, opening, first_direction): every legal move of a position whose "
     "game is not over, in kings_court.py's order."},
    {"has_legal_move", (PyCFunction)(void (*)(void))has_legal_move, METH_FASTCALL,
     "has_legal_move(own, opp, opening, first_direction): whether the mover has a move."},
    {"playout", (PyCFunction)(void (*)(void))playout, METH_FASTCALL,
     "playout(white, black, turn, opening, first_direction, since_capture, limit, seed, "
     "max_plies, record): random moves, each uniform over the legal ones, until the game ends "
     "or max_plies are played, each appended to `record` when it is a list; returns (white, "
     "black, plies played, since_capture, first_direction)."},
    {"jumpable", (PyCFunction)(void (*)(void))jumpable, METH_FASTCALL,
     "jumpable(victims, attackers, empty): the victims an attacker could jump over in one step, "
     "as agents/evaluations/kings_court.py's `jumpable`."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "_kings_court_c",
    "King's Court's move generator and random playout, compiled; games/kings_court.py states "
    "the rules.",
    -1, METHODS, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kings_court_c(void)
{
    if (build_tables() < 0)
        return NULL;
    return PyModule_Create(&MODULE);
}
