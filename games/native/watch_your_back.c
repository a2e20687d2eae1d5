/* Watch Your Back!'s move generator and random playout, compiled
 * (`arbiter.games._watch_your_back_c`).
 *
 * games/watch_your_back.py states the rules and stays their reference; this file computes the
 * same answers for the calls agents and the server make most, and tests play both in lockstep.
 * The representation is the Python module's: square (x, y) is bit 8 * y + x of a 64-bit board,
 * one board per colour, and every neighbour, flank and shrink ring is a table built once when
 * the module loads. Moves come back as the Python module's values: a placement is the tuple
 * (x, y), a step ((xa, ya), (xb, yb)); tuples are built once and shared. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "arguments.h"
#include "splitmix64.h"

typedef uint64_t Bitboard;

#define SIZE 8
#define SQUARES 64
#define DIRECTIONS 4
#define PLACEMENTS 24  /* the placing phase: 12 placements each */
#define MIN_PIECES 2   /* fewer, and a player has lost */
#define SHRINKS 3      /* the board's sizes: before the first shrink, after it, after the last */
#define FINAL_SHRINKS 2
#define FIRST_SHRINK_AFTER 128 /* moving-phase moves, passes included */
#define LAST_SHRINK_AFTER 192

/* The order of watch_your_back.py's DIRECTIONS: up, left, right, down. */
static const int STEP_X[DIRECTIONS] = {0, -1, 1, 0};
static const int STEP_Y[DIRECTIONS] = {-1, 0, 0, 1};

typedef struct {
    Bitboard neighbour, landing; /* landing is 0 where the board ends after the neighbour */
    PyObject *slide, *jump;      /* the move tuples; jump is NULL where landing is 0 */
} Step;

typedef struct {
    Bitboard near, beyond;
} Pair;

static Step MOVES[SQUARES][DIRECTIONS];
static int MOVE_COUNT[SQUARES];
static Pair FLANKS[SQUARES][DIRECTIONS]; /* a neighbour and the square beyond it */
static int FLANK_COUNT[SQUARES];
static Pair SIDES[SQUARES][2]; /* left and right, up and down: how a piece is surrounded */
static int SIDE_COUNT[SQUARES];
static int CORNER_ORDER[SHRINKS][4]; /* top-left, bottom-left, bottom-right, top-right */
static Bitboard CORNERS[SHRINKS], BLOCKED[SHRINKS]; /* BLOCKED: corners and removed squares */
static Bitboard ZONES[2];
static PyObject *SQUARE_TUPLES[SQUARES];

static inline int lowest_square(Bitboard board) { return __builtin_ctzll(board); }
static inline int count(Bitboard board) { return __builtin_popcountll(board); }

/* -- the rules that remove pieces (watch_your_back.py's `_arrive` and `_shrink`) --------------- */

/* A piece of `own` arrives on `index`: it strikes first, then is itself checked. */
static void arrive(int index, Bitboard *own, Bitboard *enemy, Bitboard corners)
{
    Bitboard bit = 1ULL << index;
    *own |= bit;
    Bitboard allies = *own | corners;
    for (int i = 0; i < FLANK_COUNT[index]; i++) {
        const Pair *flank = &FLANKS[index][i];
        if ((flank->near & *enemy) && (flank->beyond & allies))
            *enemy ^= flank->near;
    }
    Bitboard hostile = *enemy | corners;
    for (int i = 0; i < SIDE_COUNT[index]; i++) {
        if ((SIDES[index][i].near & hostile) && (SIDES[index][i].beyond & hostile)) {
            *own ^= bit;
            return;
        }
    }
}

static void shrink(Bitboard *white, Bitboard *black, int shrinks)
{
    *white &= ~BLOCKED[shrinks];
    *black &= ~BLOCKED[shrinks];
    for (int c = 0; c < 4; c++) {
        int corner = CORNER_ORDER[shrinks][c];
        for (int i = 0; i < FLANK_COUNT[corner]; i++) {
            const Pair *flank = &FLANKS[corner][i];
            if ((flank->near & *white) && (flank->beyond & *black))
                *white ^= flank->near;
            else if ((flank->near & *black) && (flank->beyond & *white))
                *black ^= flank->near;
        }
    }
}

/* -- moves ------------------------------------------------------------------------------------ */

/* What a walk over the moving phase's steps does with each: 0 to go on, else stop with it. */
typedef int (*StepSink)(void *context, int start, const Step *step, int jumps);

/* Every slide and jump of `own`, piece by piece from the lowest square, in the order of
 * watch_your_back.py's `legal_moves`. */
static int walk_steps(Bitboard own, Bitboard other, int shrinks, StepSink sink, void *context)
{
    Bitboard occupied = own | other, blocked = occupied | BLOCKED[shrinks];
    for (Bitboard left = own; left; left &= left - 1) {
        int start = lowest_square(left);
        for (int i = 0; i < MOVE_COUNT[start]; i++) {
            const Step *step = &MOVES[start][i];
            int status = 0;
            if (!(step->neighbour & blocked))
                status = sink(context, start, step, 0);
            else if ((step->neighbour & occupied) && step->landing && !(step->landing & blocked))
                status = sink(context, start, step, 1);
            if (status)
                return status;
        }
    }
    return 0;
}

static int stop_at_first(void *context, int start, const Step *step, int jumps)
{
    (void)context, (void)start, (void)step, (void)jumps;
    return 1;
}

static int append_step(void *context, int start, const Step *step, int jumps)
{
    (void)start;
    return PyList_Append((PyObject *)context, jumps ? step->jump : step->slide) < 0 ? -1 : 0;
}

typedef struct {
    int start, end;
    PyObject *move;
} Chosen;

typedef struct {
    Chosen moves[SQUARES * DIRECTIONS];
    int count;
} StepList;

static int keep_step(void *context, int start, const Step *step, int jumps)
{
    StepList *list = context;
    Bitboard to = jumps ? step->landing : step->neighbour;
    list->moves[list->count++] = (Chosen){start, lowest_square(to), jumps ? step->jump : step->slide};
    return 0;
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

static int any_step(Bitboard own, Bitboard other, int shrinks)
{
    return walk_steps(own, other, shrinks, stop_at_first, NULL);
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

typedef struct {
    Bitboard white, black;
    long long ply, since_capture, limit, plies;
    int shrinks;
} Game;

/* watch_your_back.py's `outcome() is not None`. */
static int is_over(const Game *game)
{
    if (game->ply < PLACEMENTS)
        return 0;
    if (count(game->white) < MIN_PIECES || count(game->black) < MIN_PIECES)
        return 1;
    if (game->shrinks == FINAL_SHRINKS && !any_step(game->white, game->black, game->shrinks) &&
        !any_step(game->black, game->white, game->shrinks))
        return 1;
    return game->since_capture >= game->limit;
}

/* The count that ends a game after the last shrink, and the shrinks on schedule (the Python
 * module's `_after_moving`). */
static void after_moving(Game *game, int pieces_before)
{
    game->ply++;
    if (game->shrinks == FINAL_SHRINKS)
        game->since_capture =
            count(game->white | game->black) < pieces_before ? 0 : game->since_capture + 1;
    else
        game->since_capture = 0;
    long long moved = game->ply - PLACEMENTS;
    int due = moved == FIRST_SHRINK_AFTER ? 1 : moved == LAST_SHRINK_AFTER ? 2 : 0;
    if (due && count(game->white) >= MIN_PIECES && count(game->black) >= MIN_PIECES) {
        game->shrinks = due;
        shrink(&game->white, &game->black, due);
    }
}

/* One random legal move, uniform over `legal_moves()`, played on `game` (not over). The move
 * goes to `record` when it is not NULL: None for a pass. */
static int play_random_move(Game *game, uint64_t *rng, PyObject *record)
{
    int turn = (int)(game->ply & 1);
    Bitboard *own = turn ? &game->black : &game->white;
    Bitboard *enemy = turn ? &game->white : &game->black;
    PyObject *move;
    if (game->ply < PLACEMENTS) {
        Bitboard free = ZONES[turn] & ~(game->white | game->black);
        if (!free) {
            PyErr_SetString(PyExc_ValueError, "no free square of the zone is left to place on");
            return -1;
        }
        for (uint64_t k = splitmix64_below(rng, (uint64_t)count(free)); k; k--)
            free &= free - 1;
        int square = lowest_square(free);
        arrive(square, own, enemy, CORNERS[0]);
        game->ply++;
        game->since_capture = 0;
        move = SQUARE_TUPLES[square];
    } else {
        StepList steps;
        steps.count = 0;
        walk_steps(*own, *enemy, game->shrinks, keep_step, &steps);
        int pieces_before = count(game->white | game->black);
        if (steps.count == 0) {
            move = Py_None;
        } else {
            const Chosen *chosen = &steps.moves[splitmix64_below(rng, (uint64_t)steps.count)];
            *own ^= 1ULL << chosen->start;
            arrive(chosen->end, own, enemy, CORNERS[game->shrinks]);
            move = chosen->move;
        }
        after_moving(game, pieces_before);
    }
    game->plies++;
    return record ? PyList_Append(record, move) : 0;
}

static PyObject *playout(PyObject *module, PyObject *const *args, Py_ssize_t given)
{
    (void)module;
    Game game = {0};
    long long shrinks, max_plies;
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
    while (game.plies < max_plies && !is_over(&game)) {
        if (play_random_move(&game, &rng, record) < 0)
            return NULL;
    }
    return Py_BuildValue("(KKLiL)", (unsigned long long)game.white,
                         (unsigned long long)game.black, game.ply, game.shrinks,
                         game.since_capture);
}

/* -- the module ------------------------------------------------------------------------------- */

static int on_board(int x, int y) { return 0 <= x && x < SIZE && 0 <= y && y < SIZE; }

static int ring_depth(int x, int y)
{
    int depth = x;
    int others[3] = {y, SIZE - 1 - x, SIZE - 1 - y};
    for (int i = 0; i < 3; i++)
        depth = others[i] < depth ? others[i] : depth;
    return depth;
}

static void build_boards(void)
{
    for (int level = 0; level < SHRINKS; level++) {
        int low = level, high = SIZE - 1 - level;
        const int corner_xy[4][2] = {{low, low}, {low, high}, {high, high}, {high, low}};
        CORNERS[level] = 0;
        for (int c = 0; c < 4; c++) {
            CORNER_ORDER[level][c] = SIZE * corner_xy[c][1] + corner_xy[c][0];
            CORNERS[level] |= 1ULL << CORNER_ORDER[level][c];
        }
        BLOCKED[level] = CORNERS[level];
        for (int square = 0; square < SQUARES; square++)
            if (ring_depth(square % SIZE, square / SIZE) < level)
                BLOCKED[level] |= 1ULL << square;
    }
    ZONES[0] = ZONES[1] = 0;
    for (int square = 0; square < SQUARES; square++) {
        int y = square / SIZE;
        if (y <= 5)
            ZONES[0] |= 1ULL << square;
        if (y >= 2)
            ZONES[1] |= 1ULL << square;
    }
    ZONES[0] &= ~CORNERS[0];
    ZONES[1] &= ~CORNERS[0];
}

static PyObject *step_tuple(int start, int end)
{
    return PyTuple_Pack(2, SQUARE_TUPLES[start], SQUARE_TUPLES[end]);
}

static int build_square_tables(int square)
{
    int x = square % SIZE, y = square / SIZE;
    MOVE_COUNT[square] = FLANK_COUNT[square] = SIDE_COUNT[square] = 0;
    for (int d = 0; d < DIRECTIONS; d++) {
        int nx = x + STEP_X[d], ny = y + STEP_Y[d], bx = x + 2 * STEP_X[d], by = y + 2 * STEP_Y[d];
        if (!on_board(nx, ny))
            continue;
        Step *step = &MOVES[square][MOVE_COUNT[square]++];
        step->neighbour = 1ULL << (SIZE * ny + nx);
        step->slide = step_tuple(square, SIZE * ny + nx);
        step->landing = on_board(bx, by) ? 1ULL << (SIZE * by + bx) : 0;
        step->jump = step->landing ? step_tuple(square, SIZE * by + bx) : NULL;
        if (step->slide == NULL || (step->landing && step->jump == NULL))
            return -1;
        if (step->landing)
            FLANKS[square][FLANK_COUNT[square]++] = (Pair){step->neighbour, step->landing};
    }
    const int axes[2][2] = {{1, 0}, {0, 1}};
    for (int a = 0; a < 2; a++) {
        int ax = x + axes[a][0], ay = y + axes[a][1], bx = x - axes[a][0], by = y - axes[a][1];
        if (on_board(ax, ay) && on_board(bx, by))
            SIDES[square][SIDE_COUNT[square]++] =
                (Pair){1ULL << (SIZE * ay + ax), 1ULL << (SIZE * by + bx)};
    }
    return 0;
}

static int build_tables(void)
{
    static int built = 0;
    if (built)
        return 0;
    build_boards();
    for (int square = 0; square < SQUARES; square++) {
        SQUARE_TUPLES[square] = Py_BuildValue("(ii)", square % SIZE, square / SIZE);
        if (SQUARE_TUPLES[square] == NULL)
            return -1;
    }
    for (int square = 0; square < SQUARES; square++)
        if (build_square_tables(square) < 0)
            return -1;
    built = 1;
    return 0;
}

/* -- evaluation features (agents/evaluations/watch_your_back.py states them and stays their
 * reference; the search calls them at every leaf) ----------------------------------------------- */

#define NOT_COLUMN_0 (~0x0101010101010101ULL)
#define NOT_COLUMN_7 (~0x8080808080808080ULL)

static inline Bitboard east(Bitboard bits) { return (bits << 1) & NOT_COLUMN_0; }
static inline Bitboard west(Bitboard bits) { return (bits >> 1) & NOT_COLUMN_7; }
static inline Bitboard south(Bitboard bits) { return bits << SIZE; }
static inline Bitboard north(Bitboard bits) { return bits >> SIZE; }

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
    Bitboard pieces = b[0], occupied = b[1], open_squares = b[2];
    Bitboard stepped[DIRECTIONS] = {east(pieces), west(pieces), south(pieces), north(pieces)};
    Bitboard reached = (stepped[0] | stepped[1] | stepped[2] | stepped[3]) & open_squares;
    reached |= (east(stepped[0] & occupied) | west(stepped[1] & occupied) |
                south(stepped[2] & occupied) | north(stepped[3] & occupied)) &
               open_squares;
    return PyLong_FromUnsignedLongLong(reached);
}

static PyObject *in_danger(PyObject *module, PyObject *const *args, Py_ssize_t given)
{
    (void)module;
    static const char *const names[3] = {"pieces", "hostile", "enemy_arrivals"};
    Bitboard b[3];
    if (read_boards("in_danger", args, given, names, b))
        return NULL;
    Bitboard pieces = b[0], hostile = b[1], arrivals = b[2];
    Bitboard danger = (east(hostile) & west(arrivals)) | (west(hostile) & east(arrivals)) |
                      (south(hostile) & north(arrivals)) | (north(hostile) & south(arrivals));
    return PyLong_FromUnsignedLongLong(pieces & danger);
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
