/* Shobu's searches, compiled (`arbiter.agents._search_shobu_c`): the engines of negamax.h and
 * uct.h on the rules of games/native/shobu.h, with agents/evaluations/shobu.py's
 * evaluation, order and quick result, which stay its reference (the evaluation's constants are
 * read from that module, so there is one statement of them). */
#include <Python.h>

#include "arguments.h"
#include "shobu.h"

typedef Turn Move;
#define MOVES_CAPACITY TURNS_CAPACITY
#define KEY_WORDS 3 /* black, white, and the mover with the turns since a capture */
#define SEARCH_MODULE "arbiter.agents._search_shobu_c"
#define SEARCH_INIT PyInit__search_shobu_c

static int list_moves(const Position *position, Move *out) { return list_turns(position, out); }

static int is_legal(const Position *position, Move move) { return turn_is_legal(position, move); }

static void play(Position *position, Move move) { play_turn(position, move); }

#include "search_module.h"

static double UNIT_WORTH, TEMPO_WORTH;

/* `ShobuState.key()`: the no-capture limit is an option, the same for a whole game. */
static void position_key(const Position *position, uint64_t key[KEY_WORDS])
{
    key[0] = position->black;
    key[1] = position->white;
    key[2] = (uint64_t)(position->ply & 1) | (uint64_t)position->since << 1;
}

static uint64_t move_code(Move move)
{
    return (((uint64_t)move.passive * 64 + (uint64_t)move.aggressive) * 8 + (uint64_t)move.direction) *
               2 +
           (uint64_t)move.distance - 1;
}

/* agents/evaluations/shobu.py's `order`: turns whose aggressive half pushes a stone first. */
static int64_t order_key(const Position *position, Move move)
{
    Bits theirs = mover_of(position) ? position->black : position->white;
    return (PATH[move.direction * 2 + move.distance - 1][move.aggressive] & theirs) != 0;
}

static int turn_of(const Position *position) { return mover_of(position); }

/* agents/evaluations/shobu.py's `evaluate`. */
static double evaluate_for(const Position *position, int seat)
{
    Bits mine = seat ? position->white : position->black;
    Bits theirs = seat ? position->black : position->white;
    return UNIT_WORTH * balance_sum(mine, theirs, seat == mover_of(position), TEMPO_WORTH);
}

static double evaluate(const Position *position)
{
    return evaluate_for(position, mover_of(position));
}

static int has_move(const Position *position)
{
    Group groups[GROUPS];
    return turn_groups(position->black, position->white, mover_of(position), groups, 1) > 0;
}

static void play_randomly(Position *position, uint64_t seed, int plies)
{
    Turn turn;
    for (int played = 0;
         played < plies && !ended_at(position) && random_turn(position, &seed, &turn); played++) {
        play_turn(position, turn);
    }
}

/* The board cleared of a side's stones (the seat to move asked first), as `cleared_board`:
 * 1 with the result for the side to move, else 0. */
static int cleared_result(const Position *position, double *result)
{
    for (int asked = 0; asked < 2; asked++) {
        int loser = mover_of(position) ^ asked;
        Bits stones = loser ? position->white : position->black;
        for (int board = 0; board < 4; board++) {
            if (!(stones & BOARD_MASK[board])) {
                *result = loser == mover_of(position) ? -1.0 : 1.0;
                return 1;
            }
        }
    }
    return 0;
}

/* agents/evaluations/shobu.py's `quick_result`. */
static int quick_result(const Position *position, double *result)
{
    if (cleared_result(position, result)) {
        return 1;
    }
    *result = 0.0;
    return position->since >= position->limit;
}

/* `result(state) or 0.0`, in `ShobuState.outcome`'s order: a cleared board, the no-capture
 * limit, no legal turn. */
static double final_result(const Position *position)
{
    double result;
    if (quick_result(position, &result)) {
        return result;
    }
    return has_move(position) ? 0.0 : -1.0;
}

static int read_state(PyObject *state, Position *position)
{
    static const char *const FIELDS[] = {"black", "white", "ply", "since_capture",
                                         "no_capture_limit"};
    PyObject *values[5];
    if (read_fields(state, FIELDS, 5, "a ShobuState", values) < 0) {
        return -1;
    }
    int status = read_board(values[0], "black", &position->black) < 0 ||
                         read_board(values[1], "white", &position->white) < 0 ||
                         read_int(values[2], "ply", 0, INT32_MAX, &position->ply) < 0 ||
                         read_int(values[3], "since_capture", 0, INT32_MAX, &position->since) < 0 ||
                         read_int(values[4], "no_capture_limit", 0, INT32_MAX,
                                  &position->limit) < 0
                     ? -1
                     : 0;
    release_fields(values, 5);
    return status;
}

static int read_move(PyObject *value, Move *move)
{
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 4) {
        PyErr_Format(PyExc_TypeError,
                     "move must be a (passive, aggressive, direction, distance) tuple, not %R",
                     value);
        return -1;
    }
    static const char *const PARTS[] = {"passive", "aggressive", "direction", "distance"};
    static const long long LOWEST[] = {0, 0, 0, 1}, HIGHEST[] = {63, 63, 7, 2};
    long long parts[4];
    for (int i = 0; i < 4; i++) {
        if (read_int(PyTuple_GET_ITEM(value, i), PARTS[i], LOWEST[i], HIGHEST[i], &parts[i]) < 0) {
            return -1;
        }
    }
    *move = (Move){(int)parts[0], (int)parts[1], (int)parts[2], (int)parts[3]};
    return 0;
}

static int prepare_game(void)
{
    static const char *const MODULE = "arbiter.agents.evaluations.shobu";
    if (module_float(MODULE, "UNIT", &UNIT_WORTH) < 0 ||
        module_float(MODULE, "TEMPO", &TEMPO_WORTH) < 0) {
        return -1;
    }
    build_tables();
    return 0;
}
