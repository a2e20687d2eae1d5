/* Shobu's hot rules in C: turn generation, the legality of one turn, making a turn, the end
 * check and a whole random playout.
 *
 * games/shobu.py is the statement of the rules; this file computes the same answers on the same
 * representation (a square is board * 16 + row * 4 + column, each colour's stones one 64-bit set)
 * and tests/games/test_native_shobu.py plays both in lockstep. Every function takes a state
 * first and reads its fields (black, white, ply, since_capture, no_capture_limit), so the Python
 * state class keeps its data and only asks here. Sentences (why a turn is illegal, how a game
 * ended) stay in Python: this file answers the common case (legal, the game goes on) and Python
 * explains the rare one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#include "splitmix64.h"
typedef uint64_t Bits;

enum { SQUARES = 64, DIRECTIONS = 8, VECTORS = 16, GROUPS = 32 };

static const int DELTAS[DIRECTIONS][2] = {
    {0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1},
};
/* (column, row) steps of each direction, in games/shobu.py's DIRECTIONS order. */

static const Bits BOARD_MASK[4] = {
    0xFFFFull, 0xFFFFull << 16, 0xFFFFull << 32, 0xFFFFull << 48,
};
static const Bits COLOUR_MASK[2] = {
    0xFFFFull | 0xFFFFull << 32, 0xFFFFull << 16 | 0xFFFFull << 48,
};

/* Tables built once at import, as games/shobu.py builds its own from DELTAS. */
static Bits KEEP[DIRECTIONS];  /* squares that stay on their board after one step */
static int LEFT[DIRECTIONS], RIGHT[DIRECTIONS];  /* the shifts of one step */
static int REACH[VECTORS];  /* landing square minus starting square */
static int LANDING[VECTORS][SQUARES];  /* -1: the move leaves the board */
static Bits PATH[VECTORS][SQUARES];  /* squares entered, landing included; 0 off the board */
static Bits BEYOND[VECTORS][SQUARES];  /* where a pushed stone ends; 0 pushes it off */

static int on_board(int column, int row) { return 0 <= column && column < 4 && 0 <= row && row < 4; }

static void build_tables(void)
{
    for (int d = 0; d < DIRECTIONS; d++) {
        int dc = DELTAS[d][0], dr = DELTAS[d][1], shift = dr * 4 + dc;
        KEEP[d] = 0;
        for (int s = 0; s < SQUARES; s++)
            if (on_board((s & 3) + dc, ((s >> 2) & 3) + dr))
                KEEP[d] |= 1ull << s;
        LEFT[d] = shift > 0 ? shift : 0;
        RIGHT[d] = shift < 0 ? -shift : 0;
    }
    for (int v = 0; v < VECTORS; v++) {
        int dc = DELTAS[v >> 1][0], dr = DELTAS[v >> 1][1], distance = (v & 1) + 1;
        REACH[v] = distance * (dr * 4 + dc);
        for (int s = 0; s < SQUARES; s++) {
            int board = s >> 4, column = s & 3, row = (s >> 2) & 3;
            int land_column = column + dc * distance, land_row = row + dr * distance;
            if (!on_board(land_column, land_row)) {
                LANDING[v][s] = -1;
                PATH[v][s] = BEYOND[v][s] = 0;
                continue;
            }
            LANDING[v][s] = board * 16 + land_row * 4 + land_column;
            PATH[v][s] = 0;
            for (int i = 1; i <= distance; i++)
                PATH[v][s] |= 1ull << (board * 16 + (row + dr * i) * 4 + column + dc * i);
            int past_column = land_column + dc, past_row = land_row + dr;
            BEYOND[v][s] = on_board(past_column, past_row)
                               ? 1ull << (board * 16 + past_row * 4 + past_column)
                               : 0;
        }
    }
}

static Bits step(Bits bits, int direction)
{
    return ((bits & KEEP[direction]) << LEFT[direction]) >> RIGHT[direction];
}

/* One group of legal turns: every passive landing with every aggressive landing of one vector,
 * the passive half on one homeboard colour (games/shobu.py's `_turn_groups`). */
typedef struct {
    int vector;
    Bits passive, aggressive;
} Group;

/* The legal turns of the seat `mover`, grouped as games/shobu.py groups them and in its order;
 * stops after the first group when `first_only`. Returns the number of groups. */
static int turn_groups(Bits black, Bits white, int mover, Group groups[GROUPS], int first_only)
{
    Bits own = mover ? white : black, opp = mover ? black : white;
    Bits homes = own & (BOARD_MASK[2 * mover] | BOARD_MASK[2 * mover + 1]);
    Bits empty = ~(own | opp);
    int count = 0;
    for (int d = 0; d < DIRECTIONS; d++) {
        Bits passive[2], aggressive[2];
        passive[0] = step(homes, d) & empty;
        passive[1] = step(passive[0], d) & empty;
        /* The aggressive rule: no own stone on the path, at most one opposing stone on it, and
         * that one pushed onto an empty square or off the board. */
        Bits stone_ahead = step(own | opp, (d + 4) & 7);
        Bits one = step(own, d) & ~own;
        Bits two = step(one, d) & ~own;
        Bits over_opp = step(one & opp, d);
        aggressive[1] = two & ~(over_opp & opp) & ~((over_opp | opp) & stone_ahead);
        aggressive[0] = one & ~(opp & stone_ahead);
        for (int far = 0; far < 2; far++)
            for (int colour = 0; colour < 2; colour++) {
                Bits p = passive[far] & BOARD_MASK[2 * mover + colour];
                Bits a = aggressive[far] & COLOUR_MASK[1 - colour];
                if (p && a) {
                    groups[count++] = (Group){2 * d + far, p, a};
                    if (first_only)
                        return count;
                }
            }
    }
    return count;
}

static int any_board_cleared(Bits black, Bits white)
{
    for (int board = 0; board < 4; board++)
        if (!(black & BOARD_MASK[board]) || !(white & BOARD_MASK[board]))
            return 1;
    return 0;
}

/* The ends that need no turn generation: a board cleared of one side, or the no-capture limit. */
static int ended_by_stones_or_count(Bits black, Bits white, long long since, long long limit)
{
    return since >= limit || any_board_cleared(black, white);
}

static int nth_square(Bits bits, long long n)
{
    for (; n > 0; n--)
        bits &= bits - 1;
    return __builtin_ctzll(bits);
}

static long long group_size(const Group *group)
{
    return (long long)__builtin_popcountll(group->passive) * __builtin_popcountll(group->aggressive);
}

typedef struct {
    int passive, aggressive, direction, distance;
} Turn;

/* The `index`-th legal turn, in legal_moves() order, of `count` groups. */
static Turn turn_at(const Group *groups, int count, long long index)
{
    for (int g = 0; g < count; g++) {
        long long size = group_size(&groups[g]);
        if (index < size) {
            long long aggressives = __builtin_popcountll(groups[g].aggressive);
            int vector = groups[g].vector, back = REACH[vector];
            return (Turn){
                nth_square(groups[g].passive, index / aggressives) - back,
                nth_square(groups[g].aggressive, index % aggressives) - back,
                vector >> 1,
                (vector & 1) + 1,
            };
        }
        index -= size;
    }
    return (Turn){-1, -1, -1, -1}; /* unreachable: callers draw below the total */
}

/* Makes a turn known to be on the board: the stones move, a hit stone is pushed on or off. */
static void make_turn(Bits *own, Bits *opp, long long *since, Turn turn)
{
    int vector = turn.direction * 2 + turn.distance - 1;
    *own ^= (1ull << turn.passive) | (1ull << LANDING[vector][turn.passive]) |
            (1ull << turn.aggressive);
    *own ^= 1ull << LANDING[vector][turn.aggressive];
    Bits hit = PATH[vector][turn.aggressive] & *opp;
    *since += 1;
    if (hit) {
        Bits beyond = BEYOND[vector][turn.aggressive];
        *opp = (*opp ^ hit) | beyond;
        if (!beyond)
            *since = 0;
    }
}

/* --- states in and out -------------------------------------------------------------------- */

/* A position as games/shobu.py's state holds it: read from a state's attributes, and written to
 * a new state of that state's own class, so this file keeps no copy of the class. */
typedef struct {
    Bits black, white;
    long long ply, since, limit;
} Position;

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

static int mover_of(const Position *position) { return (int)(position->ply & 1); }

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

static int ended_at(const Position *position)
{
    return ended_by_stones_or_count(position->black, position->white, position->since,
                                    position->limit);
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
    if (read == 0 || ended_at(&position))
        Py_RETURN_FALSE;
    int vector = turn.direction * 2 + turn.distance - 1;
    int passive_landing = LANDING[vector][turn.passive];
    int aggressive_landing = LANDING[vector][turn.aggressive];
    if (passive_landing < 0 || aggressive_landing < 0)
        Py_RETURN_FALSE;
    Group groups[GROUPS];
    int count = turn_groups(position.black, position.white, mover_of(&position), groups, 0);
    for (int g = 0; g < count; g++)
        if (groups[g].vector == vector && (groups[g].passive >> passive_landing & 1) &&
            (groups[g].aggressive >> aggressive_landing & 1))
            Py_RETURN_TRUE;
    Py_RETURN_FALSE;
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
    int mover = mover_of(&position);
    make_turn(mover ? &position.white : &position.black,
              mover ? &position.black : &position.white, &position.since, turn);
    position.ply += 1;
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
    Group groups[GROUPS];
    for (long long played = 0; played < max_plies && !ended_at(&position); played++) {
        int mover = mover_of(&position);
        int count = turn_groups(position.black, position.white, mover, groups, 0);
        if (count == 0)
            break;
        long long total = 0;
        for (int g = 0; g < count; g++)
            total += group_size(&groups[g]);
        Turn turn = turn_at(groups, count, (long long)splitmix64_below(&seed, (uint64_t)total));
        if (record != Py_None) {
            PyObject *move = turn_tuple(turn);
            if (move == NULL || PyList_Append(record, move) < 0) {
                Py_XDECREF(move);
                return NULL;
            }
            Py_DECREF(move);
        }
        make_turn(mover ? &position.white : &position.black,
                  mover ? &position.black : &position.white, &position.since, turn);
        position.ply += 1;
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
    double total = 0.0;
    for (int board = 0; board < 4; board++) {
        int own = __builtin_popcountll((mine >> (16 * board)) & 0xFFFF);
        int other = __builtin_popcountll((theirs >> (16 * board)) & 0xFFFF);
        int lead = own - other;
        double term = lead > 0   ? lead + (4 - other)
                      : lead < 0 ? lead - (4 - own)
                      : my_turn  ? tempo * (own + other)
                                 : -tempo * (own + other);
        total += term * fabs(term);
    }
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
