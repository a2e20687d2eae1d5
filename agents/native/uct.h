/* MCTS's tree (UCT), compiled once for every game: agents/search/mcts.py's `MCTSAgent` states the
 * algorithm, and its tree drawn from agents/search/mcts_reference.py's `SplitMix64` is this
 * file's reference. Included by search_module.h after negamax.h, whose hooks it shares (listing,
 * checking and playing moves, the order key, the quick result); the Python type `Tree` runs one
 * `choose`.
 *
 * Every choice is the reference's, drawn from one splitmix64 stream in the same order: a node's
 * moves listed in the rules' order, shuffled as `random.shuffle` shuffles (Fisher-Yates from the
 * end, each swap `below(i + 1)`), stably sorted by the order key when the tree widens
 * progressively, and reversed so the likeliest-best is taken first; a playout seeded by one
 * draw, and none for a finished game; UCB1 and the widening computed as doubles in the
 * reference's order; the first child of the highest value and the first most visited. So a
 * fixed number of iterations gives the reference's visits and wins exactly.
 *
 * Where a move comes in parts (PARTS: Amazons' amazon, destination, arrow, `Evaluation.parts`),
 * the tree branches on each part as the reference's does: a node's choices are the next part's
 * options after the parts chosen on the way (`prefix`), always ordered by the game's part order,
 * and a position moves on only when a move is whole; a playout from a move in progress first
 * completes it at random, one uniform draw a part.
 *
 * Nodes live in one array and refer to each other by index: no Python object per node, and the
 * whole tree is freed at once. A node holds no position (an iteration replays the moves from
 * the root, cheaper than storing a position per node) and lists its moves only when first
 * expanded, into one shared pool, taken from the end as they are tried. The tree is bounded by
 * `memory_limit`, the bytes its nodes and listed choices may use: a full tree stops growing,
 * and its iterations go on down to its leaves and play out from there, so the statistics keep
 * improving until the deadline.
 *
 * What a game's file provides besides negamax.h's hooks: */

#ifndef ARBITER_UCT_H
#define ARBITER_UCT_H

#include "splitmix64.h"

/* The seat to move in `position`. */
static int turn_of(const Position *position);
/* 1 with the result for seat 0 (1, 0 or -1, as `outcome_value`) when the game is over, else 0:
 * the rules' full end check, `State.outcome`. Defined here from `quick_result` where that is the
 * full check (RESULT_IS_QUICK). */
#ifdef RESULT_IS_QUICK
static int game_result(const Position *position, double *result)
{
    if (!quick_result(position, result)) {
        return 0;
    }
    *result = turn_of(position) ? -*result : *result;
    return 1;
}
#else
/* Whether the side to move has a legal move, for a position `quick_result` sees no end of. */
static int has_move(const Position *position);

/* Otherwise the ends `quick_result` sees, and the one it leaves to a deeper search: no move. */
static int game_result(const Position *position, double *result)
{
    if (!quick_result(position, result)) {
        if (has_move(position)) {
            return 0;
        }
        *result = final_result(position);
    }
    *result = turn_of(position) ? -*result : *result;
    return 1;
}
#endif
/* The game's evaluation for `seat`, as its Python `evaluate(state, seat)`. */
static double evaluate_for(const Position *position, int seat);
/* The rules kernel's random playout from `position`, seeded by `seed`, for at most `plies`
 * plies: `State.random_playout` with an `rng` whose `getrandbits(64)` answers `seed`. */
static void play_randomly(Position *position, uint64_t seed, int plies);

#ifdef PARTS
/* A game whose moves come in PARTS parts also defines the type Part (an unsigned integer, as
 * the Python parts are ints), PARTS_CAPACITY (the most options one part can have), and: */
/* `parts.choices(state, prefix)`: the next part's options after the `length` parts `prefix`,
 * in the Python module's order, into `out`; returns how many. */
static int list_parts(const Position *position, const Part *prefix, int length, Part *out);
/* `parts.order` as a stable sort by this key, largest first (`double_key` of a score). */
static int64_t part_order_key(const Position *position, const Part *prefix, int length, Part part);
/* The move made of PARTS parts. */
static Move whole_move(const Part *parts);
typedef Part Choice;
#define CHOICES_CAPACITY PARTS_CAPACITY
static int same_choice(Choice a, Choice b) { return a == b; }
DEFINE_STABLE_SORT(sort_choices, Choice)
#else
typedef Move Choice;
#define CHOICES_CAPACITY MOVES_CAPACITY
static int same_choice(Choice a, Choice b) { return same_move(a, b); }
#define sort_choices stable_sort
#endif

/* An order key for a score, in the score's order (-0.0 as 0.0, as Python compares them). */
static inline int64_t double_key(double score)
{
    double zeroed = score + 0.0;
    int64_t bits;
    memcpy(&bits, &zeroed, sizeof bits);
    return bits < 0 ? bits ^ INT64_MAX : bits;
}

/* Where an iteration stands: a position, and the parts of a move in progress chosen in it. */
typedef struct {
    Position position;
#ifdef PARTS
    Part prefix[PARTS];
    int length;
#endif
} Spot;

#define NO_NODE (-1)
#define NOT_LISTED (-1)

typedef struct {
    Choice choice; /* the move, or the part of one, chosen to get here */
    int32_t first_child, last_child, next_sibling;
    int32_t children;
    int32_t untried;  /* untried moves left at the end of its list, or NOT_LISTED */
    size_t listed_at; /* where its moves start in the pool */
    long long visits;
    double wins; /* for `mover` */
    int8_t mover; /* the seat whose choice led here */
} Node;

typedef struct {
    PyObject_HEAD
    Node *nodes;
    size_t node_count, node_room, memory_limit;
    Choice *pool; /* every expanded node's choices, its untried ones last */
    size_t pool_count, pool_room;
    Choice *root_choices; /* as given, to answer by index */
    Py_ssize_t root_count;
    int32_t *path; /* the current iteration's nodes, from the root */
    size_t path_room;
    Choice *choice_scratch; /* the order's sort */
    int64_t *keys, *key_scratch;
    size_t sort_room;
    Spot root;
    uint64_t random;
    double exploration, widening, scale; /* widening NAN: every child opened before going deeper */
    int plies;
    long long iterations;
    int full; /* set once a choice list or a node did not fit: then it opens no more */
    double stall; /* the longest iteration, which no clock check interrupts */
#ifdef MOVE_STORE
    MoveStore store;
#endif
} Tree;

/* `mcts.WIDENING_BASE` and `mcts.FREE_BYTE_COST`, read at import. */
static double WIDENING_BASE_COUNT, FREE_BYTE_SECONDS;

/* -- growing the arrays ----------------------------------------------------------------------- */

/* Room for `count` items of `size` bytes in `*block`, which holds `*room` (`grown_room`); -1
 * when memory runs out (the block stays as it was). */
static int grow(void **block, size_t *room, size_t count, size_t size)
{
    if (count <= *room) {
        return 0;
    }
    size_t wanted = grown_room(*room, count);
    if (resize(block, wanted * size) < 0) {
        return -1;
    }
    *room = wanted;
    return 0;
}

/* The bytes its nodes and listed choices use. */
static size_t used_bytes(const Tree *tree)
{
    return tree->node_count * sizeof(Node) + tree->pool_count * sizeof(Choice);
}

/* Whether `nodes` more nodes and `choices` more listed choices fit in the memory limit. */
static int fits(const Tree *tree, size_t nodes, size_t choices)
{
    size_t node_count = tree->node_count + nodes;
    return node_count <= INT32_MAX &&
           node_count * sizeof(Node) + (tree->pool_count + choices) * sizeof(Choice) <=
               tree->memory_limit;
}

/* -- listing a node's choices ------------------------------------------------------------------ */

/* Shuffles the pool's choices from `start`, `count` of them, as Python's `random.shuffle` does. */
static void shuffle(Tree *tree, size_t start, int count)
{
    Choice *choices = tree->pool + start;
    for (int i = count - 1; i > 0; i--) {
        int j = (int)splitmix64_below(&tree->random, (uint64_t)i + 1);
        Choice swap = choices[i];
        choices[i] = choices[j];
        choices[j] = swap;
    }
}

/* The order key of a choice at `spot`: the game's part order, or its move order. */
static int64_t choice_key(const Spot *spot, Choice choice)
{
#ifdef PARTS
    return part_order_key(&spot->position, spot->prefix, spot->length, choice);
#elif !defined(NO_ORDER)
    return order_key(&spot->position, choice);
#else
    (void)spot, (void)choice;
    return 0;
#endif
}

/* Whether the reference orders a node's choices: always in parts, else when the game has an
 * order and the tree widens progressively. */
static int ordered(const Tree *tree)
{
#ifdef PARTS
    (void)tree;
    return 1;
#elif !defined(NO_ORDER)
    return !isnan(tree->widening);
#else
    (void)tree;
    return 0;
#endif
}

/* Sorts the pool's choices from `start` by their order key, largest first, stably: the game's
 * order after the shuffle. -1 when memory runs out. */
static int order(Tree *tree, const Spot *spot, size_t start, int count)
{
    if ((size_t)count > tree->sort_room) {
        size_t room = grown_room(tree->sort_room, (size_t)count);
        if (resize((void **)&tree->choice_scratch, room * sizeof(Choice)) < 0 ||
            resize((void **)&tree->keys, room * sizeof(int64_t)) < 0 ||
            resize((void **)&tree->key_scratch, room * sizeof(int64_t)) < 0) {
            return -1;
        }
        tree->sort_room = room;
    }
    Choice *choices = tree->pool + start;
    for (int i = 0; i < count; i++) {
        tree->keys[i] = choice_key(spot, choices[i]);
    }
    sort_choices(choices, tree->keys, count, tree->choice_scratch, tree->key_scratch);
    return 0;
}

/* The node's choices at the pool's end: shuffled, ordered best first when the reference orders
 * them, then reversed so the best is tried first. -1 when memory runs out. */
static int arrange(Tree *tree, const Spot *spot, size_t start, int count)
{
    shuffle(tree, start, count);
    if (ordered(tree) && order(tree, spot, start, count) < 0) {
        return -1;
    }
    Choice *choices = tree->pool + start;
    for (int low = 0, high = count - 1; low < high; low++, high--) {
        Choice swap = choices[low];
        choices[low] = choices[high];
        choices[high] = swap;
    }
    return 0;
}

/* The choices at `spot` into `out`, which has `room`: how many there are (more than `room`
 * only where moves refer to a store, which then lists them again), or -1 when memory runs out. */
static int list_choices(Tree *tree, const Spot *spot, Choice *out, int room)
{
    (void)tree, (void)room; /* only a store's listing reads them */
#ifdef PARTS
    return list_parts(&spot->position, spot->prefix, spot->length, out);
#else
    return LIST_MOVES(tree, &spot->position, out, room);
#endif
}

/* Lists the choices of node `at` (at `spot`) into the pool; -1 when they would not fit or
 * memory runs out (nothing is listed then). */
static int list_node(Tree *tree, int32_t at, const Spot *spot)
{
    size_t start = tree->pool_count;
    if (grow((void **)&tree->pool, &tree->pool_room, start + CHOICES_CAPACITY, sizeof(Choice)) <
        0) {
        return -1;
    }
    int count = list_choices(tree, spot, tree->pool + start, (int)(tree->pool_room - start));
    if (count > (int)(tree->pool_room - start)) {
        if (grow((void **)&tree->pool, &tree->pool_room, start + (size_t)count, sizeof(Choice)) <
            0) {
            return -1;
        }
        count = list_choices(tree, spot, tree->pool + start, (int)(tree->pool_room - start));
    }
    if (count < 0 || !fits(tree, 0, (size_t)count) || arrange(tree, spot, start, count) < 0) {
        return -1;
    }
    tree->pool_count = start + (size_t)count;
    tree->nodes[at].listed_at = start;
    tree->nodes[at].untried = count;
    return 0;
}

/* The spot after `choice`: a move played, or a part added (the move played once whole). */
static void advance(Spot *spot, Choice choice)
{
#ifdef PARTS
    spot->prefix[spot->length++] = choice;
    if (spot->length == PARTS) {
        play(&spot->position, whole_move(spot->prefix));
        spot->length = 0;
    }
#else
    play(&spot->position, choice);
#endif
}

/* The spot's position, a move in progress completed at random, a uniform draw a part (the
 * reference's `_position`). */
static void complete(Tree *tree, Spot *spot)
{
#ifdef PARTS
    Part options[PARTS_CAPACITY];
    while (spot->length > 0) {
        int count = list_parts(&spot->position, spot->prefix, spot->length, options);
        advance(spot, options[splitmix64_below(&tree->random, (uint64_t)count)]);
    }
#else
    (void)tree, (void)spot;
#endif
}

/* -- the iteration ----------------------------------------------------------------------------- */

/* The child of `node` with the highest UCB1 value, the first of equals. */
static int32_t best_child(const Tree *tree, const Node *node)
{
    double log_visits = log((double)node->visits);
    int32_t best = node->first_child;
    double best_value = -1.0;
    for (int32_t at = node->first_child; at != NO_NODE; at = tree->nodes[at].next_sibling) {
        const Node *child = &tree->nodes[at];
        double visits = (double)child->visits;
        double value = child->wins / visits + tree->exploration * sqrt(log_visits / visits);
        if (value > best_value) {
            best = at;
            best_value = value;
        }
    }
    return best;
}

/* Whether `node` may open another child now (progressive widening). */
static int may_widen(const Tree *tree, const Node *node)
{
    return isnan(tree->widening) ||
           (double)node->children < WIDENING_BASE_COUNT + tree->widening * sqrt((double)node->visits);
}

/* Seat 0's winning chance from `position`: the result of a finished game, else of a random
 * playout, judged by the evaluation squashed into a chance when it has not finished. */
static double playout(Tree *tree, Position *position)
{
    double result;
    if (game_result(position, &result)) {
        return (1.0 + result) / 2.0;
    }
    if (tree->plies > 0) {
        play_randomly(position, splitmix64_next(&tree->random), tree->plies);
        if (game_result(position, &result)) {
            return (1.0 + result) / 2.0;
        }
    }
    double score = evaluate_for(position, 0) / tree->scale;
    score = score < 50.0 ? score : 50.0;
    score = score > -50.0 ? score : -50.0;
    return 1.0 / (1.0 + exp(-score));
}

/* A new leaf for `choice` below node `at`, chosen by the seat `mover`; its index, or NO_NODE
 * when the tree is full or memory runs out. The path keeps room for every node. */
static int32_t add_child(Tree *tree, int32_t at, Choice choice, int mover)
{
    if (!fits(tree, 1, 0) ||
        grow((void **)&tree->nodes, &tree->node_room, tree->node_count + 1, sizeof(Node)) < 0 ||
        grow((void **)&tree->path, &tree->path_room, tree->node_count + 1, sizeof(int32_t)) < 0) {
        return NO_NODE;
    }
    int32_t added = (int32_t)tree->node_count++;
    tree->nodes[added] = (Node){.choice = choice,
                                .first_child = NO_NODE,
                                .last_child = NO_NODE,
                                .next_sibling = NO_NODE,
                                .untried = NOT_LISTED,
                                .mover = (int8_t)mover};
    Node *node = &tree->nodes[at];
    if (node->last_child == NO_NODE) {
        node->first_child = added;
    } else {
        tree->nodes[node->last_child].next_sibling = added;
    }
    node->last_child = added;
    node->children++;
    return added;
}

/* One selection, expansion, playout and backup. Once the tree is full, selection goes down to a
 * leaf, and a leaf is played out from, its choices unlisted or its child unopened. */
static void iterate(Tree *tree)
{
    Spot spot = tree->root;
    int32_t at = 0;
    size_t length = 0;
    tree->path[length++] = at;
    for (;;) {
        if (tree->nodes[at].untried == NOT_LISTED && list_node(tree, at, &spot) < 0) {
            tree->full = 1;
            break;
        }
        const Node *node = &tree->nodes[at];
        if ((node->untried > 0 && !tree->full && may_widen(tree, node)) || node->children == 0) {
            break;
        }
        at = best_child(tree, node);
        advance(&spot, tree->nodes[at].choice);
        tree->path[length++] = at;
    }
    if (tree->nodes[at].untried > 0) {
        const Node *node = &tree->nodes[at];
        Choice choice = tree->pool[node->listed_at + (size_t)node->untried - 1];
        int32_t added = add_child(tree, at, choice, turn_of(&spot.position));
        if (added != NO_NODE) {
            tree->nodes[at].untried--;
            tree->path[length++] = added;
            advance(&spot, choice);
        } else {
            tree->full = 1;
        }
    } /* else a finished game: its result needs no playout */
    complete(tree, &spot);
    double chance = playout(tree, &spot.position);
    for (size_t i = 0; i < length; i++) {
        Node *node = &tree->nodes[tree->path[i]];
        node->visits++;
        node->wins += node->mover == 0 ? chance : 1.0 - chance;
    }
}

/* Iterations until `count` are done or the deadline is near: an iteration starts only if the
 * longest so far would still end by the deadline with time left to free the tree, which the
 * agent does before it answers (a full tree's pages take some milliseconds to give back). Runs
 * without the interpreter lock. */
static void run_until(Tree *tree, double deadline, long long count)
{
    double now = monotonic();
    while (tree->iterations < count &&
           now + tree->stall + (double)used_bytes(tree) * FREE_BYTE_SECONDS < deadline) {
        iterate(tree);
        tree->iterations++;
        double then = monotonic();
        if (then - now > tree->stall) {
            tree->stall = then - now;
        }
        now = then;
    }
}

/* -- the Python type -------------------------------------------------------------------------- */

static void tree_dealloc(Tree *tree)
{
    PyMem_RawFree(tree->nodes);
    PyMem_RawFree(tree->pool);
    PyMem_RawFree(tree->root_choices);
    PyMem_RawFree(tree->path);
    PyMem_RawFree(tree->choice_scratch);
    PyMem_RawFree(tree->keys);
    PyMem_RawFree(tree->key_scratch);
#ifdef MOVE_STORE
    store_close(&tree->store); /* safe on a store never opened: the type zeroes it */
#endif
    Py_TYPE(tree)->tp_free((PyObject *)tree);
}

/* A root choice given, read and checked legal: a legal move, or in parts an option for the
 * first part; -1 with an error set if it is not one. */
static int read_choice(Tree *tree, PyObject *value, Choice *choice)
{
#ifdef PARTS
    long part = PyLong_Check(value) ? PyLong_AsLong(value) : -1;
    if (part == -1 && PyErr_Occurred()) {
        return -1;
    }
    Part options[PARTS_CAPACITY];
    int count = list_parts(&tree->root.position, tree->root.prefix, 0, options);
    for (int i = 0; i < count; i++) {
        if ((long)options[i] == part) {
            *choice = options[i];
            return 0;
        }
    }
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "a first part must be an int, not %R", value);
    } else {
        PyErr_Format(PyExc_ValueError, "%R is not a first part in the state given", value);
    }
    return -1;
#else
    if (READ_MOVE(tree, value, choice) < 0) {
        return -1;
    }
    if (!is_legal(&tree->root.position, *choice)) {
        PyErr_Format(PyExc_ValueError, "move %R is not legal in the state given", value);
        return -1;
    }
    return 0;
#endif
}

/* The root: `state` and its choices `values`, read and checked legal, listed as the root's
 * (then arranged as any node's). -1 with an error set if they are not the game's. */
static int plant(Tree *tree, PyObject *state, PyObject *values)
{
    if (read_state(state, &tree->root.position) < 0) {
        return -1;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(values);
    tree->root_choices = PyMem_RawMalloc((size_t)(count ? count : 1) * sizeof(Choice));
    tree->nodes = PyMem_RawMalloc(sizeof(Node));
    tree->path = PyMem_RawMalloc(sizeof(int32_t));
    if (tree->root_choices == NULL || tree->nodes == NULL || tree->path == NULL ||
        grow((void **)&tree->pool, &tree->pool_room, (size_t)count, sizeof(Choice)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (read_choice(tree, PyTuple_GET_ITEM(values, i), &tree->root_choices[i]) < 0) {
            return -1;
        }
    }
    tree->root_count = count;
    memcpy(tree->pool, tree->root_choices, (size_t)count * sizeof(Choice));
    tree->node_room = tree->path_room = 1;
    tree->node_count = 1;
    tree->nodes[0] = (Node){.first_child = NO_NODE,
                            .last_child = NO_NODE,
                            .next_sibling = NO_NODE,
                            .untried = (int32_t)count,
                            .mover = (int8_t)(1 - turn_of(&tree->root.position))};
    tree->pool_count = (size_t)count;
    if (arrange(tree, &tree->root, 0, (int)count) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* NULL with a ValueError saying what the number `name` must be. */
static PyObject *refuse_number(const char *name, double value, const char *rule)
{
    PyObject *number = PyFloat_FromDouble(value);
    if (number != NULL) {
        PyErr_Format(PyExc_ValueError, "%s must be %s, not %R", name, rule, number);
        Py_DECREF(number);
    }
    return NULL;
}

static PyObject *tree_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"state",  "moves", "seed",  "exploration", "widening",
                            "plies",  "scale", "memory_limit", NULL};
    PyObject *state, *list, *seed_value, *widening_value;
    double exploration, scale;
    int plies;
    Py_ssize_t memory_limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!OdOidn:Tree", names, &state, &PyList_Type,
                                     &list, &seed_value, &exploration, &widening_value, &plies, &scale,
                                     &memory_limit)) {
        return NULL;
    }
    unsigned long long seed = PyLong_Check(seed_value) ? PyLong_AsUnsignedLongLong(seed_value) : 0;
    if (!PyLong_Check(seed_value) || (seed == (unsigned long long)-1 && PyErr_Occurred())) {
        PyErr_Clear();
        return PyErr_Format(PyExc_ValueError, "seed must be an int from 0 to 2**64 - 1, not %R",
                            seed_value);
    }
    double widening = NAN;
    if (widening_value != Py_None) {
        widening = PyFloat_AsDouble(widening_value);
        if (widening == -1.0 && PyErr_Occurred()) {
            return NULL;
        }
        if (!(widening >= 0.0)) {
            return refuse_number("widening", widening, "None or at least 0");
        }
    }
    if (!(exploration >= 0.0)) {
        return refuse_number("exploration", exploration, "at least 0");
    }
    if (!(scale > 0.0) || isinf(scale)) {
        return refuse_number("scale", scale, "a finite number above 0");
    }
    if (plies < 0) {
        return PyErr_Format(PyExc_ValueError, "plies must be at least 0, not %d", plies);
    }
    if (memory_limit < 0) {
        return PyErr_Format(PyExc_ValueError, "memory_limit must be at least 0, not %zd",
                            memory_limit);
    }
    if (PyList_GET_SIZE(list) == 0) {
        PyErr_SetString(PyExc_ValueError, "moves must hold at least one legal move");
        return NULL;
    }
    PyObject *values = PyList_AsTuple(list); /* reading a move may run code that changes a list */
    if (values == NULL) {
        return NULL;
    }
    Tree *tree = (Tree *)type->tp_alloc(type, 0);
    if (tree == NULL) {
        Py_DECREF(values);
        return NULL;
    }
    tree->random = seed;
    tree->exploration = exploration;
    tree->widening = widening;
    tree->scale = scale;
    tree->plies = plies;
    tree->memory_limit = (size_t)memory_limit;
#ifdef MOVE_STORE
    if (store_open(&tree->store) < 0) {
        Py_DECREF(values);
        Py_DECREF(tree);
        return PyErr_NoMemory();
    }
#endif
    int planted = plant(tree, state, values);
    Py_DECREF(values);
    if (planted < 0) {
        Py_DECREF(tree);
        return NULL;
    }
    return (PyObject *)tree;
}

static PyObject *tree_run(Tree *tree, PyObject *args)
{
    double deadline;
    long long count;
    if (!PyArg_ParseTuple(args, "dL:run", &deadline, &count)) {
        return NULL;
    }
    if (isnan(deadline)) {
        PyErr_SetString(PyExc_ValueError, "deadline must be a number, not nan");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS /* it reads and writes only its own C data */
    run_until(tree, deadline, count);
    Py_END_ALLOW_THREADS
    return PyLong_FromLongLong(tree->iterations);
}

/* The index in the given choices of a root child's choice. */
static Py_ssize_t root_index(const Tree *tree, Choice choice)
{
    Py_ssize_t index = 0;
    while (!same_choice(tree->root_choices[index], choice)) {
        index++;
    }
    return index;
}

static PyObject *tree_children(Tree *tree, PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(tree->nodes[0].children);
    int32_t at = tree->nodes[0].first_child;
    for (Py_ssize_t i = 0; list != NULL && at != NO_NODE; i++, at = tree->nodes[at].next_sibling) {
        const Node *child = &tree->nodes[at];
        PyObject *item = Py_BuildValue("nLd", root_index(tree, child->choice), child->visits,
                                       child->wins);
        if (item == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/* The most visited child of a node with children, the first of equals. */
static int32_t most_visited(const Tree *tree, const Node *node)
{
    int32_t best = node->first_child;
    for (int32_t at = best; at != NO_NODE; at = tree->nodes[at].next_sibling) {
        if (tree->nodes[at].visits > tree->nodes[best].visits) {
            best = at;
        }
    }
    return best;
}

/* The index in the given choices of the most visited root child, or of the likeliest-best
 * untried choice when no iteration ran. */
static PyObject *tree_best(Tree *tree, PyObject *Py_UNUSED(ignored))
{
    const Node *root = &tree->nodes[0];
    Choice best = root->children ? tree->nodes[most_visited(tree, root)].choice
                                 : tree->pool[root->listed_at + (size_t)root->untried - 1];
    return PyLong_FromSsize_t(root_index(tree, best));
}

#ifdef PARTS
/* The parts of the most visited child at each step from the root, as far as the tree has
 * grown them (at most a whole move's). */
static PyObject *tree_line(Tree *tree, PyObject *Py_UNUSED(ignored))
{
    PyObject *list = PyList_New(0);
    const Node *node = &tree->nodes[0];
    for (int length = 0; list != NULL && length < PARTS && node->children; length++) {
        node = &tree->nodes[most_visited(tree, node)];
        PyObject *part = PyLong_FromLong((long)node->choice);
        if (part == NULL || PyList_Append(list, part) < 0) {
            Py_CLEAR(list);
        }
        Py_XDECREF(part);
    }
    return list;
}
#endif

static PyObject *tree_iterations(Tree *tree, void *Py_UNUSED(closure))
{
    return PyLong_FromLongLong(tree->iterations);
}

static PyObject *tree_nodes(Tree *tree, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(tree->node_count);
}

static PyObject *tree_bytes(Tree *tree, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(used_bytes(tree));
}

static PyObject *tree_stall(Tree *tree, void *Py_UNUSED(closure))
{
    return PyFloat_FromDouble(tree->stall);
}

static PyMethodDef TREE_METHODS[] = {
    {"run", (PyCFunction)tree_run, METH_VARARGS,
     "run(deadline, iterations) -> the iterations done so far: iterates until `iterations` "
     "are done in all, or until an iteration as long as the longest so far, and freeing the "
     "tree after it, would end past `deadline` (time.perf_counter's seconds). Runs without the "
     "interpreter lock; one call at a time per Tree."},
    {"children", (PyCFunction)tree_children, METH_NOARGS,
     "children() -> [(index, visits, wins)] of the root's children in the order they were "
     "opened: the index of the move in the moves given, and the wins for the seat to move."},
    {"best", (PyCFunction)tree_best, METH_NOARGS,
     "best() -> the index in the moves given of the most visited move (the first opened of "
     "equals), or of the likeliest-best when none was tried."},
#ifdef PARTS
    {"line", (PyCFunction)tree_line, METH_NOARGS,
     "line() -> the most visited part at each step from the root, as far as the tree has grown "
     "(at most a whole move's parts)."},
#endif
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef TREE_FIELDS[] = {
    {"iterations", (getter)tree_iterations, NULL, "Iterations done.", NULL},
    {"nodes", (getter)tree_nodes, NULL, "Nodes in the tree, the root's included.", NULL},
    {"bytes", (getter)tree_bytes, NULL,
     "Bytes its nodes and listed choices use: at most memory_limit once the root is listed.",
     NULL},
    {"stall", (getter)tree_stall, NULL,
     "The longest iteration in seconds: no clock check runs during one.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TREE_TYPE = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = SEARCH_MODULE ".Tree",
    .tp_basicsize = sizeof(Tree),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Tree(state, moves, seed, exploration, widening, plies, scale, memory_limit): "
              "one move's MCTS from `state`, whose legal `moves` are the root's (in a game of "
              "moves in parts, the first part's options); random numbers from splitmix64 "
              "seeded by `seed`; UCB1's `exploration`; progressive widening by `widening` "
              "(None: every child before going deeper); playouts of at most `plies` random "
              "plies, an unfinished one judged by the evaluation squashed by `scale`; at most "
              "`memory_limit` bytes of nodes and listed choices, past which it stops growing.",
    .tp_new = tree_new,
    .tp_dealloc = (destructor)tree_dealloc,
    .tp_methods = TREE_METHODS,
    .tp_getset = TREE_FIELDS,
};

/* Readies the type and its constants at import; -1 with an error set if it cannot. */
static int prepare_tree(void)
{
    static const char *const MODULE = "arbiter.agents.search.mcts";
    return module_float(MODULE, "WIDENING_BASE", &WIDENING_BASE_COUNT) < 0 ||
                   module_float(MODULE, "FREE_BYTE_COST", &FREE_BYTE_SECONDS) < 0
               ? -1
               : PyType_Ready(&TREE_TYPE);
}

#endif
