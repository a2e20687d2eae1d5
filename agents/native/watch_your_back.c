/* Watch Your Back!'s searches, compiled (`arbiter.agents._search_watch_your_back_c`): the
 * engines of negamax.h and uct.h on the rules of
 * games/native/watch_your_back.h, with agents/evaluations/watch_your_back.py's evaluation, which
 * stays its reference (its constants are read from that module, so there is one statement of
 * them). */
#include <Python.h>

#include "arguments.h"
#include "watch_your_back.h"

#define KEY_WORDS 3 /* white, black, and the counters (`WatchYourBackState.key`) */
#define NO_ORDER
#define RESULT_IS_QUICK
#define SEARCH_MODULE "arbiter.agents._search_watch_your_back_c"
#define SEARCH_INIT PyInit__search_watch_your_back_c

#include "search_module.h"

static double PIECE_WORTH, DANGER_WAITING, DANGER_MOVING, DOOM_WORTH, DOOM_HORIZON;
static double CENTRE_WORTH[4];
static long long SHRINK_AT[FINAL_SHRINKS]; /* moving-phase moves after which the board shrinks */
static Bitboard RINGS[4];                   /* by ring: 0 the edge, 3 the centre */
static PyObject *PASS_VALUE;                /* games/watch_your_back.py's PASS */

/* `WatchYourBackState.key()`: the no-capture limit is an option, the same for a whole game. */
static void position_key(const Position *position, uint64_t key[KEY_WORDS])
{
    key[0] = position->white;
    key[1] = position->black;
    key[2] = (uint64_t)position->shrinks | (uint64_t)position->ply << 2 |
             (uint64_t)position->since_capture << 16;
}

static uint64_t move_code(Move move)
{
    return ((uint64_t)move.kind * SQUARES + move.start) * SQUARES + move.end;
}

static double centre(Bitboard pieces)
{
    return CENTRE_WORTH[0] * count(pieces & RINGS[0]) + CENTRE_WORTH[1] * count(pieces & RINGS[1]) +
           CENTRE_WORTH[2] * count(pieces & RINGS[2]) + CENTRE_WORTH[3] * count(pieces & RINGS[3]);
}

/* Squares `seat` could put a piece on with its next move (`arrivals`). */
static Bitboard arrivals(const Position *position, int seat)
{
    Bitboard occupied = position->white | position->black, free = ~occupied;
    if (position->ply < PLACEMENTS) {
        return free & ZONES[seat];
    }
    Bitboard pieces = seat ? position->black : position->white;
    return reach_squares(pieces, occupied, free & ~BLOCKED[position->shrinks]);
}

static int turn_of(const Position *position) { return (int)(position->ply & 1); }

/* agents/evaluations/watch_your_back.py's `evaluate`, each sum in its order. */
static double evaluate_for(const Position *position, int seat)
{
    Bitboard mine = seat ? position->black : position->white;
    Bitboard theirs = seat ? position->white : position->black;
    Bitboard corners = CORNERS[position->shrinks];
    double score = PIECE_WORTH * (count(mine) - count(theirs)) + centre(mine) - centre(theirs);
    int mine_hit = count(danger_squares(mine, theirs | corners, arrivals(position, 1 - seat)));
    int theirs_hit = count(danger_squares(theirs, mine | corners, arrivals(position, seat)));
    if (turn_of(position) == seat) {
        score += DANGER_WAITING * theirs_hit - DANGER_MOVING * mine_hit;
    } else {
        score += DANGER_MOVING * theirs_hit - DANGER_WAITING * mine_hit;
    }
    long long moved = position->ply - PLACEMENTS;
    for (int shrinks = 0; shrinks < FINAL_SHRINKS; shrinks++) {
        if (moved < SHRINK_AT[shrinks] && position->shrinks == shrinks) {
            long long left = SHRINK_AT[shrinks] - (moved > 0 ? moved : 0);
            double share = 1.0 - (double)left / DOOM_HORIZON;
            if (share > 0.0) {
                Bitboard doomed = BLOCKED[shrinks + 1];
                int lost = count(mine & doomed) - count(theirs & doomed);
                score -= DOOM_WORTH * share * lost;
            }
            break;
        }
    }
    return score;
}

static double evaluate(const Position *position)
{
    return evaluate_for(position, turn_of(position));
}

static void play_randomly(Position *position, uint64_t seed, int plies)
{
    Move move;
    for (int played = 0;
         played < plies && !is_over(position) && random_move(position, &seed, &move); played++) {
        play(position, move);
    }
}

/* `WatchYourBackState.outcome` for the side to move, in its order. */
static int quick_result(const Position *position, double *result)
{
    if (position->ply < PLACEMENTS) {
        return 0;
    }
    int seat = (int)(position->ply & 1);
    int white_short = count(position->white) < MIN_PIECES;
    int black_short = count(position->black) < MIN_PIECES;
    if (white_short || black_short) {
        *result = white_short && black_short ? 0.0 : (black_short ? seat == 0 : seat == 1) ? 1.0
                                                                                           : -1.0;
        return 1;
    }
    *result = 0.0;
    return is_over(position);
}

static int read_state(PyObject *state, Position *position)
{
    static const char *const FIELDS[] = {"white",         "black",           "ply", "shrinks",
                                         "since_capture", "no_capture_limit"};
    PyObject *values[6];
    if (read_fields(state, FIELDS, 6, "a WatchYourBackState", values) < 0) {
        return -1;
    }
    long long shrinks = 0;
    int status = read_board(values[0], "white", &position->white) < 0 ||
                         read_board(values[1], "black", &position->black) < 0 ||
                         read_int(values[2], "ply", 0, 1 << 13, &position->ply) < 0 ||
                         read_int(values[3], "shrinks", 0, FINAL_SHRINKS, &shrinks) < 0 ||
                         read_int(values[4], "since_capture", 0, 1 << 13,
                                  &position->since_capture) < 0 ||
                         read_int(values[5], "no_capture_limit", 1, 1 << 13, &position->limit) < 0
                     ? -1
                     : 0;
    position->shrinks = (int)shrinks;
    release_fields(values, 6);
    return status;
}

/* A square (x, y) of the board; -1 with an error set when `value` is not one. */
static int read_square(PyObject *value, PyObject *move)
{
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 2 ||
        !PyLong_Check(PyTuple_GET_ITEM(value, 0)) || !PyLong_Check(PyTuple_GET_ITEM(value, 1))) {
        return -2;
    }
    long long xy[2];
    if (read_int(PyTuple_GET_ITEM(value, 0), "x", 0, SIZE - 1, &xy[0]) < 0 ||
        read_int(PyTuple_GET_ITEM(value, 1), "y", 0, SIZE - 1, &xy[1]) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "move %R names a square off the board", move);
        return -1;
    }
    return (int)(SIZE * xy[1] + xy[0]);
}

static int read_move(PyObject *value, Move *move)
{
    if (value == PASS_VALUE) {
        *move = (Move){PASS_TURN, 0, 0};
        return 0;
    }
    int square = read_square(value, value);
    if (square >= 0) {
        *move = (Move){PLACE, (uint8_t)square, 0};
        return 0;
    }
    if (square == -2 && PyTuple_Check(value) && PyTuple_GET_SIZE(value) == 2) {
        int start = read_square(PyTuple_GET_ITEM(value, 0), value);
        int end = start < 0 ? start : read_square(PyTuple_GET_ITEM(value, 1), value);
        if (end >= 0) {
            *move = (Move){STEP, (uint8_t)start, (uint8_t)end};
            return 0;
        }
        square = end;
    }
    if (square == -2) {
        PyErr_Format(PyExc_TypeError, "move must be a square (x, y), a step ((x, y), (x, y)) or "
                                      "PASS, not %R",
                     value);
    }
    return -1;
}

static int prepare_game(void)
{
    static const char *const MODULE = "arbiter.agents.evaluations.watch_your_back";
    build_rules_tables();
    for (int square = 0; square < SQUARES; square++) {
        RINGS[ring_depth(square % SIZE, square / SIZE)] |= 1ULL << square;
    }
    double shrink_at[FINAL_SHRINKS];
    if (module_float(MODULE, "PIECE", &PIECE_WORTH) < 0 ||
        module_float(MODULE, "DANGER_WAITING", &DANGER_WAITING) < 0 ||
        module_float(MODULE, "DANGER_MOVING", &DANGER_MOVING) < 0 ||
        module_float(MODULE, "DOOM", &DOOM_WORTH) < 0 ||
        module_float(MODULE, "DOOM_HORIZON", &DOOM_HORIZON) < 0 ||
        module_floats(MODULE, "CENTRE", 4, CENTRE_WORTH) < 0 ||
        module_floats(MODULE, "SHRINK_AT", FINAL_SHRINKS, shrink_at) < 0) {
        return -1;
    }
    for (int shrinks = 0; shrinks < FINAL_SHRINKS; shrinks++) {
        SHRINK_AT[shrinks] = (long long)shrink_at[shrinks];
    }
    PASS_VALUE = module_constant("arbiter.games.watch_your_back", "PASS"); /* kept for good */
    return PASS_VALUE == NULL ? -1 : 0;
}
