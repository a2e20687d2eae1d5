/* The Game of the Amazons' searches, compiled (`arbiter.agents._search_amazons_c`): the engines
 * of negamax.h and uct.h on the rules of games/native/amazons.h, with
 * agents/evaluations/amazons.py's evaluation and moves in parts, which stay their reference (its
 * constants are read from that module, so there is one statement of them). MCTS branches on a
 * move's parts: the amazon, its destination, its arrow. */
#include "amazons.h"

#define KEY_WORDS 4         /* two bits a square, 32 squares a word; the mover in the last bit */
#define NO_ORDER
#define RESULT_IS_QUICK
#define SEARCH_MODULE "arbiter.agents._search_amazons_c"
#define SEARCH_INIT PyInit__search_amazons_c
#define PARTS 3 /* the amazon, its destination, its arrow */
#define PARTS_CAPACITY REACH_CAPACITY /* the most of any part: a queen's reach, or 4 amazons */
typedef uint8_t Part;

#include "search_module.h"

static double SQUARE_WORTH, TEMPO_WORTH, FREEDOM_WORTH[DIRECTIONS + 1];

static void position_key(const Position *position, uint64_t key[KEY_WORDS])
{
    memset(key, 0, KEY_WORDS * sizeof *key);
    for (int square = 0; square < SQUARES; square++) {
        key[square >> 5] |= (uint64_t)position->cells[square] << (2 * (square & 31));
    }
    key[KEY_WORDS - 1] |= (uint64_t)position->to_move << 63;
}

static uint64_t move_code(Move move)
{
    return (uint64_t)move.src * 10000 + (uint64_t)move.dst * 100 + move.arrow;
}

static int turn_of(const Position *position) { return position->to_move; }

/* agents/evaluations/amazons.py's `evaluate`, each sum in its order. */
static double evaluate_for(const Position *position, int seat)
{
    Board128 mine = amazons_board(position, seat);
    Board128 theirs = amazons_board(position, 1 - seat);
    Board128 empty = empty_board(position);
    int owned[3];
    territory_counts(mine, theirs, empty, owned);
    double lean = seat == position->to_move ? TEMPO_WORTH * owned[2] : -TEMPO_WORTH * owned[2];
    double score = SQUARE_WORTH * ((double)(owned[0] - owned[1]) + lean);
    return score + freedom_sum(mine, empty, FREEDOM_WORTH) -
           freedom_sum(theirs, empty, FREEDOM_WORTH);
}

static double evaluate(const Position *position)
{
    return evaluate_for(position, position->to_move);
}

static void play_randomly(Position *position, uint64_t seed, int plies)
{
    int move[3];
    for (int played = 0; played < plies && mover_can_move(position); played++) {
        play_random_move(position, &seed, move);
    }
}

/* agents/evaluations/amazons.py's `part_choices`: the amazons that can move, in square order,
 * then one's destinations, then the arrows from there (its square left empty). */
static int list_parts(const Position *position, const Part *prefix, int length, Part *out)
{
    if (length == 0) {
        int count = 0;
        for (int i = 0; i < position->amazon_counts[position->to_move]; i++) {
            int square = position->amazons[position->to_move][i];
            if (can_step(position, square)) {
                out[count++] = (Part)square;
            }
        }
        return count;
    }
    if (length == 1) {
        return reach(position->cells, prefix[0], out);
    }
    uint8_t cells[SQUARES];
    memcpy(cells, position->cells, sizeof cells);
    cells[prefix[0]] = EMPTY;
    return reach(cells, prefix[1], out);
}

/* agents/evaluations/amazons.py's `order_parts`: the amazons as they come, a destination by the
 * evaluation with the amazon moved there and no arrow yet, an arrow by the evaluation after the
 * whole move, both for the seat choosing. */
static int64_t part_order_key(const Position *position, const Part *prefix, int length, Part part)
{
    if (length == 0) {
        return 0;
    }
    int seat = position->to_move;
    Position after = *position;
    if (length == 1) {
        move_amazon(&after, prefix[0], part);
        after.to_move = 1 - seat;
    } else {
        play(&after, (Move){prefix[0], prefix[1], part});
    }
    return double_key(evaluate_for(&after, seat));
}

static Move whole_move(const Part *parts) { return (Move){parts[0], parts[1], parts[2]}; }

/* The game's one end: the side to move has no move, and loses. */
static int quick_result(const Position *position, double *result)
{
    if (mover_can_move(position)) {
        return 0;
    }
    *result = -1.0;
    return 1;
}

static int read_state(PyObject *state, Position *position)
{
    static const char *const FIELDS[] = {"white", "black", "arrows", "to_move"};
    PyObject *values[4];
    if (read_fields(state, FIELDS, 4, "an AmazonsState", values) < 0) {
        return -1;
    }
    long to_move = PyLong_Check(values[3]) ? PyLong_AsLong(values[3]) : -1;
    int status = to_move == -1 && PyErr_Occurred()
                     ? -1
                     : unpack(values[0], values[1], values[2], (int)to_move, position);
    release_fields(values, 4);
    return status;
}

static int read_move(PyObject *value, Move *move)
{
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) != 3) {
        PyErr_Format(PyExc_TypeError, "move must be a tuple (from, to, arrow), not %R", value);
        return -1;
    }
    uint8_t squares[3];
    for (int i = 0; i < 3; i++) {
        PyObject *item = PyTuple_GET_ITEM(value, i);
        long square = PyLong_Check(item) ? PyLong_AsLong(item) : -1;
        if (square < 0 || square >= SQUARES) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "move %R must hold three squares from 0 to 99", value);
            return -1;
        }
        squares[i] = (uint8_t)square;
    }
    *move = (Move){squares[0], squares[1], squares[2]};
    return 0;
}

static int prepare_game(void)
{
    static const char *const MODULE = "arbiter.agents.evaluations.amazons";
    build_tables();
    return module_float(MODULE, "SQUARE", &SQUARE_WORTH) < 0 ||
                   module_float(MODULE, "TEMPO", &TEMPO_WORTH) < 0 ||
                   module_floats(MODULE, "FREEDOM", DIRECTIONS + 1, FREEDOM_WORTH) < 0
               ? -1
               : 0;
}
