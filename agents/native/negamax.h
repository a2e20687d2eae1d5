/* Alpha-beta below the root, compiled once for every game (agents/search/alphabeta.py's `_Tree`
 * states it and stays its reference). A game's file in agents/native/ includes its rules' header
 * from games/native/ and, through search_module.h, this file, which defines the Python type
 * `Search`, and defines the game's hooks this file declares.
 *
 * Every choice is the reference's, so both visit the same nodes in the same order and compute
 * the same scores as doubles in the same order: the table's move and the killers first (each
 * checked legal), then the listed moves stably sorted by history, then by the game's order; the
 * same principal variation windows; the same table entries, exact keys and clearing; the same
 * node count; and the same root iteration (`Search.root`, the reference's `_Tree.root`): one call
 * searches all of an iteration's root moves, so a game with thousands of them (Amazons) crosses
 * from Python once an iteration, not once a move. Iterative deepening, the root's order and the
 * clock's policy stay in Python.
 *
 * What a game's file provides. Before including this file: the types Position and Move, and
 * list_moves, is_legal and play (from its rules' header; none of them may touch a Python object,
 * as the search runs without the interpreter lock), and these macros:
 *   MOVES_CAPACITY                  the most moves a position can have, or with MOVE_STORE the
 *                                   room each ply's list starts with (it grows as nodes need);
 *   MOVE_STORE                      defined when a move refers to memory the search keeps (King's
 *                                   Court's paths, which have no useful fixed size): the game then
 *                                   defines the type MoveStore, store_open and store_close, and
 *                                   its list_moves and read_move take the search's store first;
 *                                   list_moves also takes the room of its list, answers how many
 *                                   moves the position has (writing only the first `room`), and
 *                                   answers -1 when the store cannot grow;
 *   KEY_WORDS                       the words of a position's exact key;
 *   NO_ORDER                        defined when the game's evaluation has no `order`;
 *   RESULT_IS_QUICK                 defined when the evaluation has no `quick_result`, so the
 *                                   reference calls `result` at the horizon too: then
 *                                   `quick_result` is the full end check and serves as
 *                                   `final_result`, which this file defines;
 *   SEARCH_MODULE, SEARCH_INIT      the module's name as a string and its init function's name.
 * After including it, the functions declared under "the game's hooks" below. */
#ifndef ARBITER_NEGAMAX_H
#define ARBITER_NEGAMAX_H

#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MAX_DEPTH 64 /* the deepest search (`alphabeta.UNLIMITED_DEPTH`) */
#define KILLERS 2

enum { EXACT, LOWER, UPPER };

/* Why a search stopped before its answer. It runs without the interpreter lock, so it sets no
 * Python error itself: once it holds the lock again, `Search.root` answers the moves finished
 * when time ran out, and raises MemoryError when memory did. */
enum { RUNNING, OUT_OF_TIME, OUT_OF_MEMORY };

#ifdef MOVE_STORE
/* The store's first memory; -1 when there is none. */
static int store_open(MoveStore *store);
static void store_close(MoveStore *store);
#define LIST_MOVES(search, position, out, room) list_moves(&(search)->store, position, out, room)
#define READ_MOVE(search, value, move) read_move(&(search)->store, value, move)
#else
#define LIST_MOVES(search, position, out, room) list_moves(position, out)
#define READ_MOVE(search, value, move) read_move(value, move)
#endif

/* -- the game's hooks ------------------------------------------------------------------------ */

/* The position as KEY_WORDS words, exactly: equal keys are equal positions, as `State.key()`. */
static void position_key(const Position *position, uint64_t key[KEY_WORDS]);
/* A distinct code for every move, so that equal codes are equal moves. */
static uint64_t move_code(Move move);
static int same_move(Move a, Move b) { return move_code(a) == move_code(b); }
#ifndef NO_ORDER
/* The game's `order` as a stable sort by this key, largest first. */
static int64_t order_key(const Position *position, Move move);
#endif
/* The evaluation for the side to move. */
static double evaluate(const Position *position);
/* 1 with the result for the side to move (1, 0 or -1) in `result` when the evaluation's
 * `quick_result` (or, without one, `result`) sees an end; else 0. */
static int quick_result(const Position *position, double *result);
#ifdef RESULT_IS_QUICK
/* `result(state) or 0.0`: the full end check, for a node without a move. */
static double final_result(const Position *position)
{
    double result;
    return quick_result(position, &result) ? result : 0.0;
}
#else
/* `result(state) or 0.0`: the full end check, for a node without a move. */
static double final_result(const Position *position);
#endif
/* The position of a Python state; -1 with an error set when it is not one of the game's. */
static int read_state(PyObject *state, Position *position);
/* A Python move in the game's move form; -1 with an error set when it is not one. */
#ifdef MOVE_STORE
static int read_move(MoveStore *store, PyObject *value, Move *move);
#else
static int read_move(PyObject *value, Move *move);
#endif
/* Readies the game at import: its tables, and the constants of its rules and evaluation read from
 * their Python modules (one statement of each); -1 with an error set if it cannot. */
static int prepare_game(void);

/* The evaluation's scale (`agents.evaluation.WIN` and `HEURISTIC`), read at import. */
static double WIN_SCORE, HEURISTIC_SCORE;

typedef struct {
    uint64_t key[KEY_WORDS];
    double score;
    Move move;
    int8_t depth;
    int8_t kind;
    uint8_t used;
} Entry;

/* A move's history score; `used` is the move's code plus one, 0 for an empty slot. */
typedef struct {
    uint64_t used;
    int64_t score;
} HistoryEntry;

typedef struct {
    PyObject_HEAD
    double deadline;
    Py_ssize_t table_limit;
    double null_window;
    Entry *entries; /* open addressing, linear probing, a power of two long */
    size_t capacity, count;
    HistoryEntry *history; /* open addressing by move code, a power of two long */
    size_t history_capacity, history_count;
    Move killers[MAX_DEPTH + 1][KILLERS];
    int killer_counts[MAX_DEPTH + 1];
    Move *moves[MAX_DEPTH + 1]; /* per ply, the moves the node on the path there searches */
    int room[MAX_DEPTH + 1];    /* and how many each ply's list holds */
    Move *move_scratch;         /* a sort's scratch */
    int64_t *keys, *key_scratch;
    int sort_room; /* how many the sort's arrays hold: at least any ply's room */
#ifdef MOVE_STORE
    MoveStore store;
#endif
    PyObject *parent; /* the last root position asked about, and its unpacked form */
    Position parent_position;
    long long nodes;
    double expansion; /* the longest a node took to list and sort its moves */
    double checked, stall;
    int stopped; /* why the search stopped early, RUNNING while it runs */
} Search;

/* The clock `time.perf_counter` reads on Linux, so a deadline from Python compares directly. */
static double monotonic(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* A deadline check's clock: notes the longest stretch between two checks (`TimeKeeper.now`). */
static double check_clock(Search *search)
{
    double now = monotonic();
    if (now - search->checked > search->stall) {
        search->stall = now - search->checked;
    }
    search->checked = now;
    return now;
}

/* -- the transposition table ------------------------------------------------------------------ */

static size_t key_hash(const uint64_t key[KEY_WORDS])
{
    uint64_t hash = 0;
    for (int i = 0; i < KEY_WORDS; i++) {
        hash = (hash ^ key[i]) * 0x9E3779B97F4A7C15ULL;
        hash ^= hash >> 32;
    }
    return (size_t)hash;
}

/* The slot holding `key`, or the empty slot where it would go. */
static Entry *table_slot(const Search *search, const uint64_t key[KEY_WORDS])
{
    size_t mask = search->capacity - 1;
    for (size_t slot = key_hash(key) & mask;; slot = (slot + 1) & mask) {
        Entry *entry = &search->entries[slot];
        if (!entry->used || memcmp(entry->key, key, sizeof entry->key) == 0) {
            return entry;
        }
    }
}

/* Doubles the table, keeping every entry; -1 when memory runs out (the table stays as it was). */
static int table_grow(Search *search)
{
    Entry *old = search->entries;
    size_t old_capacity = search->capacity;
    Entry *entries = PyMem_RawCalloc(old_capacity * 2, sizeof *entries);
    if (entries == NULL) {
        return -1;
    }
    search->entries = entries;
    search->capacity = old_capacity * 2;
    for (size_t i = 0; i < old_capacity; i++) {
        if (old[i].used) {
            *table_slot(search, old[i].key) = old[i];
        }
    }
    PyMem_RawFree(old);
    return 0;
}

/* Stores an entry over any for the same key, as the reference's dict assignment does; stops
 * the search with a MemoryError when the table cannot grow. */
static void table_store(Search *search, const uint64_t key[KEY_WORDS], int depth, int kind,
                        double score, Move move)
{
    if (2 * (search->count + 1) > search->capacity && table_grow(search) < 0) {
        search->stopped = OUT_OF_MEMORY;
        return;
    }
    Entry *entry = table_slot(search, key);
    if (!entry->used) {
        memcpy(entry->key, key, sizeof entry->key);
        entry->used = 1;
        search->count++;
    }
    entry->depth = (int8_t)depth;
    entry->kind = (int8_t)kind;
    entry->score = score;
    entry->move = move;
}

static void table_clear(Search *search)
{
    memset(search->entries, 0, search->capacity * sizeof *search->entries);
    search->count = 0;
}

/* A result's score relative to the node that stores it, so it reads right wherever it recurs. */
static double to_table(double score, int ply)
{
    if (score > HEURISTIC_SCORE) {
        return score + ply;
    }
    return score < -HEURISTIC_SCORE ? score - ply : score;
}

static double from_table(double score, int ply)
{
    if (score > HEURISTIC_SCORE) {
        return score - ply;
    }
    return score < -HEURISTIC_SCORE ? score + ply : score;
}

/* -- the history -------------------------------------------------------------------------------- */

static HistoryEntry *history_slot(HistoryEntry *entries, size_t capacity, uint64_t code)
{
    size_t mask = capacity - 1;
    uint64_t hash = (code + 1) * 0x9E3779B97F4A7C15ULL;
    for (size_t slot = (size_t)(hash ^ hash >> 32) & mask;; slot = (slot + 1) & mask) {
        if (!entries[slot].used || entries[slot].used == code + 1) {
            return &entries[slot];
        }
    }
}

static int64_t history_score(const Search *search, Move move)
{
    return history_slot(search->history, search->history_capacity, move_code(move))->score;
}

/* Adds to a move's history score; stops the search with a MemoryError when it cannot grow. */
static void history_add(Search *search, Move move, int64_t amount)
{
    if (2 * (search->history_count + 1) > search->history_capacity) {
        size_t capacity = 2 * search->history_capacity;
        HistoryEntry *entries = PyMem_RawCalloc(capacity, sizeof *entries);
        if (entries == NULL) {
            search->stopped = OUT_OF_MEMORY;
            return;
        }
        for (size_t i = 0; i < search->history_capacity; i++) {
            if (search->history[i].used) {
                *history_slot(entries, capacity, search->history[i].used - 1) = search->history[i];
            }
        }
        PyMem_RawFree(search->history);
        search->history = entries;
        search->history_capacity = capacity;
    }
    uint64_t code = move_code(move);
    HistoryEntry *entry = history_slot(search->history, search->history_capacity, code);
    if (!entry->used) {
        entry->used = code + 1;
        search->history_count++;
    }
    entry->score += amount;
}

/* -- move ordering ---------------------------------------------------------------------------- */

/* Defines `NAME(items, keys, count, item_scratch, key_scratch)`, which sorts items[0..count) of
 * TYPE by keys, largest first, keeping equal keys in their order (a merge sort: Python's sort is
 * stable, and the order of equals decides the search's path): for moves here, and for the parts
 * of moves in uct.h. */
#define DEFINE_STABLE_SORT(NAME, TYPE)                                                           \
    static void NAME(TYPE *items, int64_t *keys, int count, TYPE *item_scratch,                 \
                     int64_t *key_scratch)                                                       \
    {                                                                                            \
        int sorted = 1;                                                                          \
        for (int i = 1; i < count && sorted; i++) {                                              \
            sorted = keys[i - 1] >= keys[i];                                                     \
        }                                                                                        \
        if (sorted) {                                                                            \
            return;                                                                              \
        }                                                                                        \
        for (int width = 1; width < count; width *= 2) {                                         \
            for (int low = 0; low < count; low += 2 * width) {                                   \
                int middle = low + width < count ? low + width : count;                          \
                int high = low + 2 * width < count ? low + 2 * width : count;                    \
                int left = low, right = middle, out = low;                                       \
                while (left < middle || right < high) {                                          \
                    int take_left =                                                              \
                        right >= high || (left < middle && keys[left] >= keys[right]);           \
                    int from = take_left ? left++ : right++;                                     \
                    item_scratch[out] = items[from];                                             \
                    key_scratch[out++] = keys[from];                                             \
                }                                                                                \
            }                                                                                    \
            memcpy(items, item_scratch, (size_t)count * sizeof *items);                          \
            memcpy(keys, key_scratch, (size_t)count * sizeof *keys);                             \
        }                                                                                        \
    }

DEFINE_STABLE_SORT(stable_sort, Move)

/* Resizes a heap block in place of its pointer; -1 when memory runs out (the block stays). */
static int resize(void **block, size_t size)
{
    void *resized = PyMem_RawRealloc(*block, size);
    if (resized == NULL) {
        return -1;
    }
    *block = resized;
    return 0;
}

/* The room a block of `room` items grows to when `count` must fit: at least double, so that
 * the block grows rarely (and a list is relisted rarely). */
static size_t grown_room(size_t room, size_t count)
{
    return count > 2 * room ? count : 2 * room;
}

/* Room for `count` moves at `ply` and in the sort's arrays; -1 when memory runs out (what was
 * held stays). */
static int make_room(Search *search, int ply, int count)
{
    int room = (int)grown_room((size_t)search->room[ply], (size_t)count);
    if (resize((void **)&search->moves[ply], (size_t)room * sizeof(Move)) < 0) {
        return -1;
    }
    search->room[ply] = room;
    if (room <= search->sort_room) {
        return 0;
    }
    if (resize((void **)&search->move_scratch, (size_t)room * sizeof(Move)) < 0 ||
        resize((void **)&search->keys, (size_t)room * sizeof(int64_t)) < 0 ||
        resize((void **)&search->key_scratch, (size_t)room * sizeof(int64_t)) < 0) {
        return -1;
    }
    search->sort_room = room;
    return 0;
}

/* Lists the node's moves into its ply's list, sorted by history, then by the game's order;
 * returns how many, or -1 with the search stopped when memory ran out. A list too short for
 * the position grows and the moves are listed again. Times itself into `expansion`: no deadline
 * check runs meanwhile. */
static int expand(Search *search, const Position *position, int ply)
{
    double listed_at = monotonic();
    int count = LIST_MOVES(search, position, search->moves[ply], search->room[ply]);
    if (count > search->room[ply]) {
        count = make_room(search, ply, count) < 0
                    ? -1
                    : LIST_MOVES(search, position, search->moves[ply], search->room[ply]);
    }
    if (count < 0) {
        search->stopped = OUT_OF_MEMORY;
        return -1;
    }
    Move *moves = search->moves[ply];
    if (search->history_count) { /* the reference sorts by history once it holds a move */
        for (int i = 0; i < count; i++) {
            search->keys[i] = history_score(search, moves[i]);
        }
        stable_sort(moves, search->keys, count, search->move_scratch, search->key_scratch);
    }
#ifndef NO_ORDER
    for (int i = 0; i < count; i++) {
        search->keys[i] = order_key(position, moves[i]);
    }
    stable_sort(moves, search->keys, count, search->move_scratch, search->key_scratch);
#endif
    double took = monotonic() - listed_at;
    if (took > search->expansion) {
        search->expansion = took;
    }
    return count;
}

/* A move that caused a cut-off: a killer at this ply, and worth more in the history. */
static void reward(Search *search, Move move, int depth, int ply)
{
    history_add(search, move, (int64_t)depth * depth);
    Move *killers = search->killers[ply];
    int count = search->killer_counts[ply];
    for (int i = 0; i < count; i++) {
        if (same_move(killers[i], move)) {
            return;
        }
    }
    for (int i = (count < KILLERS ? count : KILLERS - 1); i > 0; i--) {
        killers[i] = killers[i - 1];
    }
    killers[0] = move;
    search->killer_counts[ply] = count < KILLERS ? count + 1 : KILLERS;
}

/* -- the recursion ---------------------------------------------------------------------------- */

static double leaf(const Position *position, int ply)
{
    double ended;
    if (quick_result(position, &ended)) {
        return (WIN_SCORE - ply) * ended;
    }
    return evaluate(position);
}

static double node(Search *search, const Position *position, int depth, double alpha,
                   double beta, int ply);

/* A child's score by principal variation search: the first move gets the full window, the
 * others a null window against the best so far, searched again in full when one beats it. */
static double child(Search *search, const Position *position, int depth, double alpha,
                    double beta, int ply, int first)
{
    if (first) {
        return -node(search, position, depth, -beta, -alpha, ply);
    }
    double value = -node(search, position, depth, -alpha - search->null_window, -alpha, ply);
    if (!search->stopped && alpha < value && value < beta) {
        value = -node(search, position, depth, -beta, -value, ply);
    }
    return value;
}

/* The best so far of one node, as its moves are searched. */
typedef struct {
    double alpha, beta, best;
    Move best_move;
    int depth, ply;
} Window;

/* Searches one move of the node; 1 when it cuts the node off, -1 when the search stopped, else
 * 0. */
static int visit(Search *search, const Position *position, Move move, Window *window)
{
    Position next = *position;
    play(&next, move);
    double value;
    if (window->depth > 1) {
        value = child(search, &next, window->depth - 1, window->alpha, window->beta,
                      window->ply + 1, window->best == -INFINITY);
        if (search->stopped) {
            return -1;
        }
    } else { /* the leaves, inlined as the reference inlines them */
        search->nodes++;
        if (check_clock(search) > search->deadline) {
            search->stopped = OUT_OF_TIME;
            return -1;
        }
        value = -leaf(&next, window->ply + 1);
    }
    if (value > window->best) {
        window->best = value;
        window->best_move = move;
        if (value > window->alpha) {
            window->alpha = value;
            if (window->alpha >= window->beta) {
                reward(search, move, window->depth, window->ply);
                return 1;
            }
        }
    }
    return 0;
}

static int among(const Move *moves, int count, Move move)
{
    for (int i = 0; i < count; i++) {
        if (same_move(moves[i], move)) {
            return 1;
        }
    }
    return 0;
}

/* The negamax score of `position` for its side to move, searched `depth` plies deep; with
 * `stopped` set (and any score) when it could not finish. */
static double node(Search *search, const Position *position, int depth, double alpha,
                   double beta, int ply)
{
    search->nodes++;
    if (check_clock(search) + search->expansion > search->deadline) {
        search->stopped = OUT_OF_TIME;
        return 0.0;
    }
    if (depth <= 0) {
        return leaf(position, ply);
    }
    uint64_t key[KEY_WORDS];
    position_key(position, key);
    Entry *entry = table_slot(search, key);
    Move first[1 + KILLERS];
    int candidates = 0;
    if (entry->used) {
        first[candidates++] = entry->move;
        if (entry->depth >= depth) {
            double value = from_table(entry->score, ply);
            if (entry->kind == EXACT || (entry->kind == LOWER && value >= beta) ||
                (entry->kind == UPPER && value <= alpha)) {
                return value;
            }
        }
    }
    for (int i = 0; i < search->killer_counts[ply]; i++) {
        first[candidates++] = search->killers[ply][i];
    }
    Window window = {alpha, beta, -INFINITY, {0}, depth, ply};
    int searched = 0, cut = 0;
    for (int i = 0; i < candidates && !cut; i++) {
        if (among(first, searched, first[i]) || !is_legal(position, first[i])) {
            continue;
        }
        first[searched++] = first[i];
        cut = visit(search, position, first[i], &window);
    }
    if (!cut) {
        int count = expand(search, position, ply);
        cut = count < 0 ? -1 : 0;
        const Move *moves = search->moves[ply];
        for (int i = 0; i < count && !cut; i++) {
            if (!among(first, searched, moves[i])) {
                cut = visit(search, position, moves[i], &window);
            }
        }
    }
    if (cut < 0) {
        return 0.0;
    }
    if (window.best == -INFINITY) { /* no move: the game is over */
        return (WIN_SCORE - ply) * final_result(position);
    }
    int kind = window.best >= beta ? LOWER : window.best <= alpha ? UPPER : EXACT;
    table_store(search, key, depth, kind, to_table(window.best, ply), window.best_move);
    return window.best;
}

/* -- the Python type -------------------------------------------------------------------------- */

static void search_dealloc(Search *search)
{
    Py_XDECREF(search->parent);
    PyMem_RawFree(search->entries);
    PyMem_RawFree(search->history);
    for (int ply = 0; ply <= MAX_DEPTH; ply++) {
        PyMem_RawFree(search->moves[ply]);
    }
    PyMem_RawFree(search->move_scratch);
    PyMem_RawFree(search->keys);
    PyMem_RawFree(search->key_scratch);
#ifdef MOVE_STORE
    store_close(&search->store); /* safe on a store never opened: the type zeroes it */
#endif
    Py_TYPE(search)->tp_free((PyObject *)search);
}

#define FIRST_CAPACITY 1024

static PyObject *search_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"deadline", "table_limit", "null_window", NULL};
    double deadline, null_window;
    Py_ssize_t table_limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "dnd:Search", names, &deadline, &table_limit,
                                     &null_window)) {
        return NULL;
    }
    if (table_limit < 0) {
        PyErr_Format(PyExc_ValueError, "table_limit must be at least 0, not %zd", table_limit);
        return NULL;
    }
    if (!(null_window > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "null_window must be above 0");
        return NULL;
    }
    Search *search = (Search *)type->tp_alloc(type, 0);
    if (search == NULL) {
        return NULL;
    }
    search->deadline = deadline;
    search->table_limit = table_limit;
    search->null_window = null_window;
    search->capacity = FIRST_CAPACITY;
    search->entries = PyMem_RawCalloc(FIRST_CAPACITY, sizeof *search->entries);
    search->history_capacity = FIRST_CAPACITY;
    search->history = PyMem_RawCalloc(FIRST_CAPACITY, sizeof *search->history);
    int lists = 1;
    for (int ply = 0; ply <= MAX_DEPTH; ply++) {
        search->moves[ply] = PyMem_RawMalloc(MOVES_CAPACITY * sizeof(Move));
        search->room[ply] = MOVES_CAPACITY;
        lists = lists && search->moves[ply] != NULL;
    }
    search->move_scratch = PyMem_RawMalloc(MOVES_CAPACITY * sizeof(Move));
    search->keys = PyMem_RawMalloc(MOVES_CAPACITY * sizeof(int64_t));
    search->key_scratch = PyMem_RawMalloc(MOVES_CAPACITY * sizeof(int64_t));
    if (search->entries == NULL || search->history == NULL || !lists ||
        search->move_scratch == NULL || search->keys == NULL || search->key_scratch == NULL) {
        Py_DECREF(search);
        return PyErr_NoMemory();
    }
#ifdef MOVE_STORE
    if (store_open(&search->store) < 0) {
        Py_DECREF(search);
        return PyErr_NoMemory();
    }
#endif
    search->sort_room = MOVES_CAPACITY;
    search->checked = monotonic();
    return (PyObject *)search;
}

/* The root position `state` unpacked: the root's moves all come from one, so it is read once. */
static int read_parent(Search *search, PyObject *state)
{
    if (state == search->parent) {
        return 0;
    }
    if (read_state(state, &search->parent_position) < 0) {
        return -1;
    }
    Py_INCREF(state);
    Py_XSETREF(search->parent, state);
    return 0;
}

/* A root move of the parent position, read and checked legal; -1 with an error set if not. */
static int read_root_move(Search *search, PyObject *value, Move *move)
{
    if (READ_MOVE(search, value, move) < 0) {
        return -1;
    }
    if (!is_legal(&search->parent_position, *move)) {
        PyErr_Format(PyExc_ValueError, "move %R is not legal in the state given", value);
        return -1;
    }
    return 0;
}

/* -1 with a ValueError when a root's `depth` is outside 1..MAX_DEPTH: a search keeps killers
 * for MAX_DEPTH plies. */
static int check_depth(int depth)
{
    if (depth < 1 || depth > MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError, "depth must be from 1 to %d, not %d", MAX_DEPTH, depth);
        return -1;
    }
    return 0;
}

/* `_Tree.root_child`: the score of the parent's legal `move` searched `depth` plies below it,
 * the table cleared first when it has grown past its limit; sets `stopped` if it could not
 * finish. Runs without the interpreter lock. */
static double root_child(Search *search, Move move, int depth, double alpha, int first)
{
    if (search->count > (size_t)search->table_limit) {
        table_clear(search);
    }
    Position position = search->parent_position;
    play(&position, move);
    return child(search, &position, depth, alpha, INFINITY, 1, first);
}

/* The first `count` scores as a Python list, or NULL with an error set. */
static PyObject *score_list(const double *scores, Py_ssize_t count)
{
    PyObject *list = PyList_New(count);
    for (Py_ssize_t i = 0; list != NULL && i < count; i++) {
        PyObject *score = PyFloat_FromDouble(scores[i]);
        if (score == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, score);
    }
    return list;
}

/* The root moves' scores, searched in order by `root_child` with the best so far as alpha, into
 * `scores`; returns how many finished (all unless the search stopped), the best's index and
 * score in `best` and `alpha`. Runs without the interpreter lock. */
static Py_ssize_t search_moves(Search *search, const Move *moves, Py_ssize_t count, int depth,
                               double scores[], Py_ssize_t *best, double *alpha)
{
    *best = 0;
    *alpha = -INFINITY;
    for (Py_ssize_t i = 0; i < count; i++) {
        double value = root_child(search, moves[i], depth - 1, *alpha, i == 0);
        if (search->stopped) {
            return i;
        }
        scores[i] = value;
        if (value > *alpha) {
            *alpha = value;
            *best = i;
        }
    }
    return count;
}

static PyObject *search_root(Search *search, PyObject *args)
{
    PyObject *state, *list;
    int depth;
    if (!PyArg_ParseTuple(args, "OO!i:root", &state, &PyList_Type, &list, &depth) ||
        read_parent(search, state) < 0 || check_depth(depth) < 0) {
        return NULL;
    }
    PyObject *values = PyList_AsTuple(list); /* reading a move may run code that changes a list */
    if (values == NULL) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(values);
    Move *moves = PyMem_Malloc((size_t)(count ? count : 1) * sizeof *moves);
    double *scores = PyMem_Malloc((size_t)(count ? count : 1) * sizeof *scores);
    PyObject *result = NULL;
    if (moves == NULL || scores == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (read_root_move(search, PyTuple_GET_ITEM(values, i), &moves[i]) < 0) {
            goto done;
        }
    }
    search->stopped = RUNNING;
    search->checked = monotonic();
    Py_ssize_t searched, best;
    double alpha;
    Py_BEGIN_ALLOW_THREADS /* it reads and writes only its own C data below the root */
    searched = search_moves(search, moves, count, depth, scores, &best, &alpha);
    Py_END_ALLOW_THREADS
    /* A stop for time is no error: the moves finished answer. */
    if (search->stopped == OUT_OF_MEMORY) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *finished = score_list(scores, searched);
    if (finished != NULL) {
        result = Py_BuildValue("ndN", best, alpha, finished);
    }
done:
    Py_DECREF(values);
    PyMem_Free(moves);
    PyMem_Free(scores);
    return result;
}

static PyObject *search_nodes(Search *search, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(search->nodes);
}

static PyObject *search_stall(Search *search, void *Py_UNUSED(closure))
{
    return PyFloat_FromDouble(search->stall);
}

static PyMethodDef SEARCH_METHODS[] = {
    {"root", (PyCFunction)search_root, METH_VARARGS,
     "root(state, moves, depth) -> (best, score, scores): searches the list `moves` of `state`'s "
     "legal moves in its order, the position after each `depth - 1` plies deep at ply 1 with "
     "the window (alpha, inf), alpha the best score so far (the first move in a full window, "
     "the others in a null window first); answers the index of the first best move, its "
     "score, and the scores of the moves searched, in order: all of them, or fewer when the "
     "deadline stopped it (none, and the score -inf, when the first did not finish). Clears "
     "the table before a move when it holds more than table_limit entries. Searches without "
     "the interpreter lock, so other threads run meanwhile; one call at a time per Search."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef SEARCH_FIELDS[] = {
    {"nodes", (getter)search_nodes, NULL, "Nodes visited, counted as the reference counts.", NULL},
    {"stall", (getter)search_stall, NULL,
     "The longest stretch in seconds between two of its clock checks.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SEARCH_TYPE = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = SEARCH_MODULE ".Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Search(deadline, table_limit, null_window): one move's alpha-beta below the "
              "root, its tables kept across that move's iterations; `deadline` is in "
              "time.perf_counter's seconds.",
    .tp_new = search_new,
    .tp_dealloc = (destructor)search_dealloc,
    .tp_methods = SEARCH_METHODS,
    .tp_getset = SEARCH_FIELDS,
};

/* A Python module's constant `name`, or NULL with an error set. */
static PyObject *module_constant(const char *module_name, const char *name)
{
    PyObject *module = PyImport_ImportModule(module_name);
    if (module == NULL) {
        return NULL;
    }
    PyObject *value = PyObject_GetAttrString(module, name);
    Py_DECREF(module);
    return value;
}

/* A float constant of a Python module, or -1 with an error set. */
static int module_float(const char *module_name, const char *name, double *value)
{
    PyObject *number = module_constant(module_name, name);
    if (number == NULL) {
        return -1;
    }
    *value = PyFloat_AsDouble(number);
    Py_DECREF(number);
    return *value == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* A Python module's tuple of `count` numbers, or -1 with an error set. */
static inline int module_floats(const char *module_name, const char *name, int count, double values[])
{
    PyObject *tuple = module_constant(module_name, name);
    if (tuple == NULL) {
        return -1;
    }
    int status = 0;
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != count) {
        PyErr_Format(PyExc_ValueError, "%s.%s must be a tuple of %d numbers", module_name, name,
                     count);
        status = -1;
    }
    for (int i = 0; status == 0 && i < count; i++) {
        values[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(tuple, i));
        status = values[i] == -1.0 && PyErr_Occurred() ? -1 : 0;
    }
    Py_DECREF(tuple);
    return status;
}

/* The fields `names` of a Python state into `values` (new references, for `release_fields`);
 * -1 with a TypeError naming what the state lacks, and none kept, when it is not `expected`. */
static int read_fields(PyObject *state, const char *const names[], int count,
                       const char *expected, PyObject *values[])
{
    for (int i = 0; i < count; i++) {
        values[i] = PyObject_GetAttrString(state, names[i]);
        if (values[i] == NULL) {
            if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
                PyErr_Format(PyExc_TypeError, "state must be %s, not %.100s (it has no %s)",
                             expected, Py_TYPE(state)->tp_name, names[i]);
            }
            while (i-- > 0) {
                Py_DECREF(values[i]);
            }
            return -1;
        }
    }
    return 0;
}

static void release_fields(PyObject *values[], int count)
{
    for (int i = 0; i < count; i++) {
        Py_DECREF(values[i]);
    }
}

#endif
