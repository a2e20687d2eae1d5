/* King's Court's searches, compiled (`arbiter.agents._search_kings_court_c`): the engines of
 * negamax.h and uct.h on the rules of games/native/kings_court.h, with
 * agents/evaluations/kings_court.py's evaluation, order and quick result, which stay its
 * reference (the evaluation's constants are read from that module, so there is one statement of
 * them).
 *
 * A move is a path of squares, and hopping over its own pieces a piece can take a long one (up
 * to PATH_CAPACITY squares) and a position many, so neither has a useful fixed size: each path
 * is held once, a two-square one in PAIRS and a longer one in the search's store, and a move
 * refers to it, its address being its exact code (equal codes, equal paths, as the history and
 * the killers need). A position's list grows on the heap as it needs, so every position is
 * searched here; only memory bounds it, and running out stops the search with a MemoryError. */
#include <Python.h>
#include <limits.h>

#include "arguments.h"
#include "kings_court.h"

#define MOVE_STORE
#define MOVES_CAPACITY 256 /* each ply's first room: more than most positions' moves */
#define KEY_WORDS 3 /* white, black, and the counters (`KingsCourtState.key`) */
#define SEARCH_MODULE "arbiter.agents._search_kings_court_c"
#define SEARCH_INIT PyInit__search_kings_court_c

/* A position as KingsCourtState holds it; `first_direction` is -1 for None. */
typedef struct {
    Bitboard white, black;
    long long played, since, limit;
    int first_direction;
} Position;

/* A move: the squares its piece stands on, from where it starts to where it ends, held in
 * PAIRS or a MoveStore. */
typedef struct {
    const uint8_t *squares;
    int length;
} Move;

static uint8_t PAIRS[SQUARES][SQUARES][2]; /* every two-square path, built at import */

/* -- the store of longer paths ---------------------------------------------------------------- */

#define BLOCK_BYTES (1 << 16) /* a block of paths: room for many, and for the longest */

typedef struct Block {
    struct Block *next;
    size_t used;
    uint8_t bytes[BLOCK_BYTES];
} Block;

typedef struct {
    const uint8_t *squares; /* NULL for an empty slot */
    uint32_t length, hash;
} HeldPath;

/* The paths of more than two squares a search has met, each held once. */
typedef struct {
    Block *blocks; /* the newest first */
    HeldPath *held;  /* open addressing by the path's hash, a power of two long */
    size_t capacity, count;
} MoveStore;

#define STORE_FIRST_CAPACITY 1024

static int store_open(MoveStore *store)
{
    store->held = PyMem_RawCalloc(STORE_FIRST_CAPACITY, sizeof *store->held);
    store->capacity = STORE_FIRST_CAPACITY;
    return store->held == NULL ? -1 : 0;
}

static void store_close(MoveStore *store)
{
    while (store->blocks != NULL) {
        Block *next = store->blocks->next;
        PyMem_RawFree(store->blocks);
        store->blocks = next;
    }
    PyMem_RawFree(store->held);
}

static uint32_t path_hash(const uint8_t *path, int length)
{
    uint64_t hash = (uint64_t)length;
    for (int i = 0; i < length; i++) {
        hash = (hash ^ path[i]) * 0x100000001B3ULL;
    }
    return (uint32_t)(hash ^ hash >> 32);
}

/* The slot holding the path, or the empty slot where it would go. */
static HeldPath *held_slot(HeldPath *held, size_t capacity, const uint8_t *path, int length,
                           uint32_t hash)
{
    size_t mask = capacity - 1;
    for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
        HeldPath *entry = &held[slot];
        if (entry->squares == NULL || (entry->hash == hash && entry->length == (uint32_t)length &&
                                       memcmp(entry->squares, path, (size_t)length) == 0)) {
            return entry;
        }
    }
}

/* Doubles the slots, keeping every path; -1 when memory runs out (the store stays as it was). */
static int store_grow(MoveStore *store)
{
    size_t capacity = 2 * store->capacity;
    HeldPath *held = PyMem_RawCalloc(capacity, sizeof *held);
    if (held == NULL) {
        return -1;
    }
    for (size_t i = 0; i < store->capacity; i++) {
        const HeldPath *old = &store->held[i];
        if (old->squares != NULL) {
            *held_slot(held, capacity, old->squares, (int)old->length, old->hash) = *old;
        }
    }
    PyMem_RawFree(store->held);
    store->held = held;
    store->capacity = capacity;
    return 0;
}

/* A copy of `path` that stays put, in a block of the store. */
static const uint8_t *store_copy(MoveStore *store, const uint8_t *path, int length)
{
    if (store->blocks == NULL || store->blocks->used + (size_t)length > BLOCK_BYTES) {
        Block *block = PyMem_RawMalloc(sizeof *block);
        if (block == NULL) {
            return NULL;
        }
        block->next = store->blocks;
        block->used = 0;
        store->blocks = block;
    }
    uint8_t *copy = store->blocks->bytes + store->blocks->used;
    memcpy(copy, path, (size_t)length);
    store->blocks->used += (size_t)length;
    return copy;
}

/* The move of the path `path[0..length)` (2 to PATH_CAPACITY squares); its squares are NULL
 * when memory runs out. */
static Move hold(MoveStore *store, const uint8_t *path, int length)
{
    if (length == 2) {
        return (Move){PAIRS[path[0]][path[1]], 2};
    }
    uint32_t hash = path_hash(path, length);
    HeldPath *slot = held_slot(store->held, store->capacity, path, length, hash);
    if (slot->squares == NULL) {
        if (2 * (store->count + 1) > store->capacity) {
            if (store_grow(store) < 0) {
                return (Move){NULL, length};
            }
            slot = held_slot(store->held, store->capacity, path, length, hash);
        }
        const uint8_t *copy = store_copy(store, path, length);
        if (copy == NULL) {
            return (Move){NULL, length};
        }
        *slot = (HeldPath){copy, (uint32_t)length, hash};
        store->count++;
    }
    return (Move){slot->squares, length};
}

static void build_pairs(void)
{
    for (int from = 0; from < SQUARES; from++) {
        for (int to = 0; to < SQUARES; to++) {
            PAIRS[from][to][0] = (uint8_t)from;
            PAIRS[from][to][1] = (uint8_t)to;
        }
    }
}

/* -- the rules -------------------------------------------------------------------------------- */

static int mover(const Position *position) { return (int)(position->played & 1); }

static int count_squares(Bitboard board) { return __builtin_popcountll(board); }

static int opening_of(const Position *position)
{
    return position->played < MIDGAME ? (int)position->played : MIDGAME;
}

static void own_opp(const Position *position, Bitboard *own, Bitboard *opp)
{
    *own = mover(position) ? position->black : position->white;
    *opp = mover(position) ? position->white : position->black;
}

/* `KingsCourtState._early_outcome() is not None`. */
static int ended_early(const Position *position)
{
    Bitboard own, opp;
    own_opp(position, &own, &opp);
    return (position->played >= 2 && !(own & COURT)) || position->since > position->limit;
}

/* A list being filled: the moves beyond its room are counted, not held. */
typedef struct {
    MoveStore *store;
    Move *out;
    int count, room;
} Listing;

/* Adds a move to the list; -1 when memory runs out. */
static int list_path(Listing *listing, const uint8_t *path, int length)
{
    if (listing->count == INT_MAX) {
        return -1; /* more moves than any memory holds */
    }
    if (listing->count < listing->room) {
        Move move = hold(listing->store, path, length);
        if (move.squares == NULL) {
            return -1;
        }
        listing->out[listing->count] = move;
    }
    listing->count++;
    return 0;
}

static int list_jump(void *context, const uint8_t *path, int length, Bitboard captured)
{
    (void)captured;
    return list_path(context, path, length);
}

/* `KingsCourtState.legal_moves()`: slides direction by direction, then jumps by piece, the first
 * `room` of them into `out`. Returns how many there are, or -1 when memory runs out. */
static int list_moves(MoveStore *store, const Position *position, Move *out, int room)
{
    if (ended_early(position)) {
        return 0;
    }
    Bitboard own, opp, targets[DIRECTIONS];
    own_opp(position, &own, &opp);
    int opening = opening_of(position);
    slide_targets(own, opp, opening, position->first_direction, targets);
    Listing listing = {store, out, 0, room};
    for (int direction = 0; direction < DIRECTIONS; direction++) {
        for (Bitboard left = targets[direction]; left; left &= left - 1) {
            int end = lowest_square(left);
            if (list_path(&listing, PAIRS[end - DELTA[direction]][end], 2) < 0) {
                return -1;
            }
        }
    }
    if (opening == MIDGAME) {
        Walk walk = {.sink = list_jump, .context = &listing};
        if (walk_jumps(&walk, own, opp) < 0) {
            return -1;
        }
    }
    return listing.count;
}

/* The direction of the slide from `start` to `to`, or -1 when they are not neighbours. */
static int slide_direction(int start, int to)
{
    for (int direction = 0; direction < DIRECTIONS; direction++) {
        if (to == start + DELTA[direction] && (shift(1ULL << start, direction) >> to & 1)) {
            return direction;
        }
    }
    return -1;
}

/* The square jumped over from `here` to `there`, or -1 when that is no jump on the board. */
static int jumped_over(int here, int there)
{
    for (int i = 0; i < JUMP_COUNT[here]; i++) {
        if (JUMPS[here][i].land == there) {
            return lowest_square(JUMPS[here][i].over);
        }
    }
    return -1;
}

static int slide_is_legal(const Position *position, Move move, int direction)
{
    Bitboard own, opp;
    own_opp(position, &own, &opp);
    int opening = opening_of(position), to = move.squares[1];
    if (move.length > 2 || ((own | opp) >> to & 1) || (opening < 2 && !(COURT >> to & 1))) {
        return 0;
    }
    return opening != 1 ||
           (position->first_direction >= 0 && direction == OPPOSITE[position->first_direction]);
}

static int jump_is_legal(const Position *position, Move move)
{
    if (opening_of(position) != MIDGAME) {
        return 0;
    }
    Bitboard own, opp;
    own_opp(position, &own, &opp);
    own &= ~(1ULL << move.squares[0]);
    Bitboard visited = 1ULL << move.squares[0];
    for (int i = 1; i < move.length; i++) {
        int here = move.squares[i - 1], there = move.squares[i];
        int over = jumped_over(here, there);
        if ((i >= 2 && there == move.squares[i - 2]) || over < 0) {
            return 0;
        }
        Bitboard land = 1ULL << there, over_bit = 1ULL << over;
        if (!((own | opp) & over_bit) || ((own | opp) & land)) {
            return 0;
        }
        if (opp & over_bit) {
            opp ^= over_bit;
            visited = land;
        } else if (visited & land) {
            return 0;
        } else {
            visited |= land;
        }
    }
    return 1;
}

/* `KingsCourtState.why_illegal(move) is None`: the rules' checks, then the Court rule. */
static int is_legal(const Position *position, Move move)
{
    if (ended_early(position) || move.length < 2) {
        return 0;
    }
    Bitboard own, opp;
    own_opp(position, &own, &opp);
    int start = move.squares[0], second = move.squares[1];
    if (!(own >> start & 1)) {
        return 0;
    }
    int direction = slide_direction(start, second);
    int legal = direction >= 0                   ? slide_is_legal(position, move, direction)
                : jumped_over(start, second) >= 0 ? jump_is_legal(position, move)
                                                  : 0;
    Bitboard own_after = (own & ~(1ULL << start)) | 1ULL << move.squares[move.length - 1];
    return legal && (own_after & COURT) != 0;
}

/* `KingsCourtState.play`. */
static void play(Position *position, Move move)
{
    int start = move.squares[0], end = move.squares[move.length - 1];
    Bitboard own, opp;
    own_opp(position, &own, &opp);
    own = (own & ~(1ULL << start)) | 1ULL << end;
    Bitboard captured = 0;
    int first_direction = -1, direction = slide_direction(start, end);
    if (move.length == 2 && direction >= 0) {
        if (position->played == 0) {
            first_direction = direction;
        }
    } else {
        for (int i = 1; i < move.length; i++) {
            captured |= 1ULL << ((move.squares[i - 1] + move.squares[i]) >> 1);
        }
        captured &= opp;
        opp ^= captured;
    }
    if (mover(position)) {
        position->black = own;
        position->white = opp;
    } else {
        position->white = own;
        position->black = opp;
    }
    position->played++;
    position->since = captured ? 0 : position->since + 1;
    position->first_direction = first_direction;
}

#include "search_module.h"

static double PIECE_WORTH, THREAT_TO_MOVER, THREAT_TO_WAITER;
static double COURT_WORTH[7]; /* by Court pieces held, 6 or more alike */

static void position_key(const Position *position, uint64_t key[KEY_WORDS])
{
    long long phase = position->played < MIDGAME ? position->played
                                                 : MIDGAME + (position->played & 1);
    uint64_t direction = (uint64_t)(position->first_direction + 1);
    key[0] = position->white;
    key[1] = position->black;
    key[2] = (uint64_t)phase | direction << 3 | (uint64_t)position->since << 6;
}

/* Where the move's path is held: each path is held once. */
static uint64_t move_code(Move move) { return (uint64_t)(uintptr_t)move.squares; }

/* agents/evaluations/kings_court.py's `order`: jumps that capture most first, then other jumps,
 * then slides. */
static int64_t order_key(const Position *position, Move move)
{
    int step = move.squares[1] - move.squares[0];
    if (move.length == 2 && (step == 1 || step == -1 || step == 8 || step == -8)) {
        return 0;
    }
    Bitboard own, opp, taken = 0;
    own_opp(position, &own, &opp);
    for (int i = 1; i < move.length; i++) {
        taken |= 1ULL << ((move.squares[i - 1] + move.squares[i]) >> 1);
    }
    return 1 + count_squares(taken & opp);
}

static double court_worth(Bitboard pieces)
{
    int held = count_squares(pieces & COURT);
    return COURT_WORTH[held < 6 ? held : 6];
}

static int turn_of(const Position *position) { return mover(position); }

/* agents/evaluations/kings_court.py's `evaluate`, each sum in its order. */
static double evaluate_for(const Position *position, int seat)
{
    Bitboard mine = seat ? position->black : position->white;
    Bitboard theirs = seat ? position->white : position->black;
    double mine_weight = seat == mover(position) ? THREAT_TO_MOVER : THREAT_TO_WAITER;
    double theirs_weight = seat == mover(position) ? THREAT_TO_WAITER : THREAT_TO_MOVER;
    Bitboard empty = ~(mine | theirs);
    double score = PIECE_WORTH * (count_squares(mine) - count_squares(theirs));
    score += court_worth(mine) - court_worth(theirs);
    Bitboard mine_hit = jumpable_squares(mine, theirs, empty);
    Bitboard theirs_hit = jumpable_squares(theirs, mine, empty);
    score -= mine_weight * (count_squares(mine_hit) + count_squares(mine_hit & COURT));
    score += theirs_weight * (count_squares(theirs_hit) + count_squares(theirs_hit & COURT));
    return score;
}

static double evaluate(const Position *position) { return evaluate_for(position, mover(position)); }

static int has_move(const Position *position)
{
    Bitboard own, opp;
    own_opp(position, &own, &opp);
    return any_legal_move(own, opp, opening_of(position), position->first_direction);
}

/* The rules kernel's playout on the position (a playout's Game is the kernel's arguments). A
 * playout that runs out of memory for its jump list stops where it is. */
static void play_randomly(Position *position, uint64_t seed, int plies)
{
    Game game = {position->white,
                 position->black,
                 mover(position),
                 opening_of(position),
                 position->first_direction,
                 position->since,
                 position->limit,
                 0};
    JumpList jumps = {NULL, 0, 0};
    Drawn drawn;
    while (game.plies < plies && !game_ended_early(&game) &&
           random_move(&game, &jumps, &seed, &drawn) > 0) {
        play_drawn(&game, &jumps, drawn);
    }
    free(jumps.items);
    position->white = game.white;
    position->black = game.black;
    position->played += game.plies;
    position->since = game.since_capture;
    position->first_direction = game.first_direction;
}

/* agents/evaluations/kings_court.py's `quick_result`: the early ends, in the rules' order. */
static int quick_result(const Position *position, double *result)
{
    Bitboard own, opp;
    own_opp(position, &own, &opp);
    if (position->played >= 2 && !(own & COURT)) {
        *result = -1.0;
        return 1;
    }
    *result = 0.0;
    return position->since > position->limit;
}

/* `result(state) or 0.0`: the early ends, else a loss when the mover has no move. */
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
    static const char *const FIELDS[] = {"white",         "black",           "moves_played",
                                         "since_capture", "no_capture_limit", "first_direction"};
    PyObject *values[6];
    if (read_fields(state, FIELDS, 6, "a KingsCourtState", values) < 0) {
        return -1;
    }
    long long direction = -1;
    int status = read_board(values[0], "white", &position->white) < 0 ||
                         read_board(values[1], "black", &position->black) < 0 ||
                         read_int(values[2], "moves_played", 0, INT32_MAX, &position->played) < 0 ||
                         read_int(values[3], "since_capture", 0, INT32_MAX, &position->since) < 0 ||
                         read_int(values[4], "no_capture_limit", 0, INT32_MAX,
                                  &position->limit) < 0 ||
                         (values[5] != Py_None &&
                          read_int(values[5], "first_direction", 0, DIRECTIONS - 1, &direction) < 0)
                     ? -1
                     : 0;
    position->first_direction = (int)direction;
    release_fields(values, 6);
    return status;
}

static int read_move(MoveStore *store, PyObject *value, Move *move)
{
    if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) < 2) {
        PyErr_Format(PyExc_TypeError, "move must be a tuple of squares, not %R", value);
        return -1;
    }
    Py_ssize_t length = PyTuple_GET_SIZE(value);
    if (length > PATH_CAPACITY) {
        PyErr_Format(PyExc_ValueError, "move %R is longer than any legal move (%d squares)",
                     value, PATH_CAPACITY);
        return -1;
    }
    uint8_t path[PATH_CAPACITY];
    for (Py_ssize_t i = 0; i < length; i++) {
        long long square;
        if (read_int(PyTuple_GET_ITEM(value, i), "a move's square", 0, SQUARES - 1, &square) < 0) {
            return -1;
        }
        path[i] = (uint8_t)square;
    }
    *move = hold(store, path, (int)length);
    if (move->squares == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int prepare_game(void)
{
    static const char *const MODULE = "arbiter.agents.evaluations.kings_court";
    build_jump_tables();
    build_pairs();
    return module_float(MODULE, "PIECE", &PIECE_WORTH) < 0 ||
                   module_float(MODULE, "THREAT_TO_MOVER", &THREAT_TO_MOVER) < 0 ||
                   module_float(MODULE, "THREAT_TO_WAITER", &THREAT_TO_WAITER) < 0 ||
                   module_floats(MODULE, "COURT_WORTH", 7, COURT_WORTH) < 0
               ? -1
               : 0;
}
