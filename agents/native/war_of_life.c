/* War of Life's searches, compiled (`arbiter.agents._search_war_of_life_c`): the engines of
 * negamax.h and uct.h on the rules of games/native/war_of_life.h, with
 * agents/evaluations/war_of_life.py's evaluation, which stays its reference (its constant and the
 * rules' move limit are read from their modules, so there is one statement of each). */
#include <Python.h>

#include "arguments.h"
#include "war_of_life.h"

#define KEY_WORDS 3       /* blue, red, and the ply: the exhausted draw comes at a fixed count */
#define NO_ORDER
#define RESULT_IS_QUICK
#define SEARCH_MODULE "arbiter.agents._search_war_of_life_c"
#define SEARCH_INIT PyInit__search_war_of_life_c

static int EXHAUSTED_AT; /* games/war_of_life.py's MAX_PLY */

static int list_moves(const Position *position, Move *out)
{
    return list_moves_until(position, EXHAUSTED_AT, out);
}

static int is_legal(const Position *position, Move move)
{
    return is_legal_until(position, EXHAUSTED_AT, move);
}

#include "search_module.h"

static double PIECE_WORTH;

static void position_key(const Position *position, uint64_t key[KEY_WORDS])
{
    key[0] = position->boards[0];
    key[1] = position->boards[1];
    key[2] = (uint64_t)position->ply;
}

static uint64_t move_code(Move move) { return (uint64_t)move.source * 64 + move.target; }

/* agents/evaluations/war_of_life.py's `evaluate` for the side to move. */
static double evaluate(const Position *position)
{
    int seat = position->ply & 1;
    return PIECE_WORTH * (__builtin_popcountll(position->boards[seat]) -
                          __builtin_popcountll(position->boards[1 - seat]));
}

/* `WarOfLifeState.outcome` for the side to move, in its order: no pieces at all, the exhausted
 * draw, a side wiped out, a stalemate. */
static int quick_result(const Position *position, double *result)
{
    uint64_t blue = position->boards[0], red = position->boards[1];
    int seat = position->ply & 1;
    if (!(blue || red) || position->ply >= EXHAUSTED_AT) {
        *result = 0.0;
    } else if (!(blue && red)) {
        *result = position->boards[seat] ? 1.0 : -1.0;
    } else if (!(position->boards[seat] & touching(~(blue | red)))) {
        *result = 0.0;
    } else {
        return 0;
    }
    return 1;
}

static int turn_of(const Position *position) { return position->ply & 1; }

static double evaluate_for(const Position *position, int seat)
{
    return seat == turn_of(position) ? evaluate(position) : -evaluate(position);
}

static void play_randomly(Position *position, uint64_t seed, int plies)
{
    Move move;
    for (int played = 0; played < plies && random_move(position, EXHAUSTED_AT, &seed, &move);
         played++) {
        play(position, move);
    }
}

static int read_state(PyObject *state, Position *position)
{
    static const char *const FIELDS[] = {"blue", "red", "ply"};
    PyObject *values[3];
    if (read_fields(state, FIELDS, 3, "a WarOfLifeState", values) < 0) {
        return -1;
    }
    long long ply = 0;
    int status = read_board(values[0], "blue", &position->boards[0]) < 0 ||
                         read_board(values[1], "red", &position->boards[1]) < 0 ||
                         read_int(values[2], "ply", 0, EXHAUSTED_AT, &ply) < 0
                     ? -1
                     : 0;
    position->ply = (int)ply;
    release_fields(values, 3);
    return status;
}

static int read_move(PyObject *value, Move *move)
{
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 2) {
        PyErr_Format(PyExc_TypeError, "move must be a (source, target) tuple, not %R", value);
        return -1;
    }
    long long source, target;
    if (read_int(PyTuple_GET_ITEM(value, 0), "source", 0, 63, &source) < 0 ||
        read_int(PyTuple_GET_ITEM(value, 1), "target", 0, 63, &target) < 0) {
        return -1;
    }
    *move = (Move){(uint8_t)source, (uint8_t)target};
    return 0;
}

static int prepare_game(void)
{
    double exhausted_at;
    if (module_float("arbiter.games.war_of_life", "MAX_PLY", &exhausted_at) < 0 ||
        module_float("arbiter.agents.evaluations.war_of_life", "PIECE", &PIECE_WORTH) < 0) {
        return -1;
    }
    EXHAUSTED_AT = (int)exhausted_at;
    return 0;
}
