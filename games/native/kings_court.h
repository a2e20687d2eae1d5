/* King's Court in C (games/kings_court.py states the rules): slides found for all pieces at once
 * by shifting a board, jump sequences followed depth first through per-square jump tables
 * (remembering the squares visited since the last capture: the module's docstring explains why
 * that one test is the whole rule), and the evaluation's `jumpable`. Static functions only,
 * included by the rules' kernel (games/native/kings_court.c) and by the agents' compiled search
 * (agents/native/kings_court.c).
 *
 * The representation is the Python module's: squares 0..63 (`column + 8 * row`), one 64-bit board
 * per colour. A position's moves depend on the mover's and the opponent's boards, the opening
 * index (moves played, capped at 4: moves 1-4 each have their own limits, every later move is
 * alike) and the direction of move 1 (-1 when unknown or no longer needed). */
#ifndef ARBITER_KINGS_COURT_H
#define ARBITER_KINGS_COURT_H

#include <stdint.h>
#include <stdlib.h>

#include "splitmix64.h"

typedef uint64_t Bitboard;

enum { UP, DOWN, LEFT, RIGHT, DIRECTIONS };
static const int OPPOSITE[DIRECTIONS] = {DOWN, UP, RIGHT, LEFT};
static const int DELTA[DIRECTIONS] = {8, -8, -1, 1};

#define SQUARES 64
#define MIDGAME 4 /* the opening index of move 5 and every move after it */
#define FILE_A 0x0101010101010101ULL
#define FILE_H (FILE_A << 7)
#define FILE_AB (FILE_A | FILE_A << 1)
#define FILE_GH (FILE_A << 6 | FILE_A << 7)
#define COURT 0x00003C3C3C3C0000ULL /* C3-F6 */

/* The longest jump sequence, in squares. A jumping piece keeps the parity of its column and of
 * its row, so it stands on one class of 16 squares, and between two captures it never stands on
 * a square twice; the opponent has at most 63 pieces to capture (the mover holds a square), so
 * a sequence has at most 64 stretches of at most 16 squares. */
#define PATH_CAPACITY (SQUARES * 16)

typedef struct {
    Bitboard over; /* the square jumped over */
    uint8_t land;  /* the square landed on */
} Jump;

static Jump JUMPS[SQUARES][DIRECTIONS]; /* per square, the jumps that stay on the board */
static int JUMP_COUNT[SQUARES];

static inline int lowest_square(Bitboard board) { return __builtin_ctzll(board); }

static inline Bitboard shift(Bitboard board, int direction)
{
    switch (direction) {
    case UP:
        return board << 8;
    case DOWN:
        return board >> 8;
    case LEFT:
        return board >> 1 & ~FILE_H;
    default:
        return board << 1 & ~FILE_A;
    }
}

/* -- slides ------------------------------------------------------------------------------- */

/* Per direction, every square a legal slide in that direction reaches. */
static void slide_targets(Bitboard own, Bitboard opp, int opening, int first_direction,
                          Bitboard targets[DIRECTIONS])
{
    Bitboard empty = ~(own | opp);
    if (opening < 2) /* moves 1 and 2 slide into the Court */
        empty &= COURT;
    Bitboard own_court = own & COURT;
    Bitboard lone = (own_court & (own_court - 1)) == 0 ? own_court : 0;
    for (int direction = 0; direction < DIRECTIONS; direction++) {
        int allowed = opening != 1 ||
                      (first_direction >= 0 && direction == OPPOSITE[first_direction]);
        Bitboard reached = allowed ? shift(own, direction) & empty : 0;
        if (lone) /* the last Court piece may not slide out of the Court */
            reached &= ~(shift(lone, direction) & ~COURT);
        targets[direction] = reached;
    }
}

/* -- jumps -------------------------------------------------------------------------------- */

/* What a walk does with each legal jump sequence: returns 0 to go on, above 0 to stop, below 0
 * to stop on a failure (the sink's caller knows which: a Python error it set, or a list full). */
typedef int (*JumpSink)(void *context, const uint8_t *path, int length, Bitboard captured);

typedef struct {
    JumpSink sink;
    void *context;
    uint8_t path[PATH_CAPACITY];
} Walk;

/* Every legal continuation of the sequence in `walk->path[0..length)`, depth first, in the
 * order of kings_court.py's `_extend_jumps`. `opp` and `occupied` have this move's captures
 * removed and `occupied` leaves out the jumping piece; `visited` holds the squares passed since
 * the last capture. */
static int extend_jumps(Walk *walk, int length, int here, Bitboard opp, Bitboard occupied,
                        Bitboard visited, Bitboard captured, int keeps_court)
{
    for (int i = 0; i < JUMP_COUNT[here]; i++) {
        const Jump *jump = &JUMPS[here][i];
        Bitboard land = 1ULL << jump->land;
        if ((land & occupied) || !(jump->over & occupied))
            continue;
        Bitboard next_opp = opp, next_occupied = occupied, next_visited, next_captured = captured;
        if (jump->over & opp) { /* a capture: a fresh stretch begins */
            next_opp ^= jump->over;
            next_occupied ^= jump->over;
            next_captured |= jump->over;
            next_visited = land;
        } else if (land & visited) {
            continue;
        } else {
            next_visited = visited | land;
        }
        walk->path[length] = jump->land;
        if (keeps_court || (land & COURT)) {
            int status = walk->sink(walk->context, walk->path, length + 1, next_captured);
            if (status)
                return status;
        }
        int status = extend_jumps(walk, length + 1, jump->land, next_opp, next_occupied,
                                  next_visited, next_captured, keeps_court);
        if (status)
            return status;
    }
    return 0;
}

/* Every legal jump sequence, grouped by the jumping piece, lowest square first. */
static int walk_jumps(Walk *walk, Bitboard own, Bitboard opp)
{
    Bitboard occupied = own | opp, empty = ~occupied;
    Bitboard starts = own & ((occupied >> 8 & empty >> 16) | (occupied << 8 & empty << 16) |
                             (occupied << 1 & empty << 2 & ~FILE_AB) |
                             (occupied >> 1 & empty >> 2 & ~FILE_GH));
    Bitboard own_court = own & COURT;
    while (starts) {
        Bitboard bit = starts & (0 - starts);
        starts ^= bit;
        int start = lowest_square(bit);
        walk->path[0] = (uint8_t)start;
        int status =
            extend_jumps(walk, 1, start, opp, occupied ^ bit, bit, 0, (own_court & ~bit) != 0);
        if (status)
            return status;
    }
    return 0;
}

static int stop_at_first(void *context, const uint8_t *path, int length, Bitboard captured)
{
    (void)context, (void)path, (void)length, (void)captured;
    return 1;
}

static int any_legal_move(Bitboard own, Bitboard opp, int opening, int first_direction)
{
    Bitboard targets[DIRECTIONS];
    slide_targets(own, opp, opening, first_direction, targets);
    if (targets[UP] | targets[DOWN] | targets[LEFT] | targets[RIGHT])
        return 1;
    if (opening != MIDGAME)
        return 0;
    Walk walk = {.sink = stop_at_first, .context = NULL};
    return walk_jumps(&walk, own, opp) > 0;
}

/* The jump tables, built once at import. */
static void build_jump_tables(void)
{
    for (int square = 0; square < SQUARES; square++) {
        JUMP_COUNT[square] = 0;
        int column = square % 8, row = square / 8;
        const int steps[DIRECTIONS][2] = {{0, 1}, {0, -1}, {-1, 0}, {1, 0}};
        for (int direction = 0; direction < DIRECTIONS; direction++) {
            int c = column + 2 * steps[direction][0], r = row + 2 * steps[direction][1];
            if (c < 0 || c >= 8 || r < 0 || r >= 8)
                continue;
            Jump *jump = &JUMPS[square][JUMP_COUNT[square]++];
            jump->over = 1ULL << (square + DELTA[direction]);
            jump->land = (uint8_t)(square + 2 * DELTA[direction]);
        }
    }
}

/* The victims with an attacker on one side and an empty square on the other, in a line
 * (agents/evaluations/kings_court.py's `jumpable`). */
static inline Bitboard jumpable_squares(Bitboard victims, Bitboard attackers, Bitboard empty)
{
    Bitboard west_attacker = (attackers << 1) & ~FILE_A, east_attacker = (attackers >> 1) & ~FILE_H;
    Bitboard west_empty = (empty << 1) & ~FILE_A, east_empty = (empty >> 1) & ~FILE_H;
    Bitboard south_attacker = attackers << 8, north_attacker = attackers >> 8;
    Bitboard south_empty = empty << 8, north_empty = empty >> 8;
    return victims & ((west_attacker & east_empty) | (east_attacker & west_empty) |
                      (south_attacker & north_empty) | (north_attacker & south_empty));
}

/* -- the random move ---------------------------------------------------------------------------- */

/* A playout's game: the kernel's arguments, and the plies played since they were read. */
typedef struct {
    Bitboard white, black;
    int turn, opening, first_direction;
    long long since_capture, limit, plies;
} Game;

/* A jump sequence as a playout needs it: where it starts and ends and what it takes. */
typedef struct {
    Bitboard captured;
    uint8_t start, end;
} JumpRecord;

/* The jump sequences of a position, in `legal_moves`' order; its memory is reused. */
typedef struct {
    JumpRecord *items;
    size_t count, capacity;
} JumpList;

/* Adds a sequence to a JumpList; -1 when memory runs out. */
static int record_jump(void *context, const uint8_t *path, int length, Bitboard captured)
{
    JumpList *list = context;
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 64;
        JumpRecord *items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL)
            return -1;
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = (JumpRecord){captured, path[0], path[length - 1]};
    return 0;
}

/* The end checks that need no move generation (kings_court.py's `_early_outcome`). */
static int game_ended_early(const Game *game)
{
    Bitboard mover = game->turn ? game->black : game->white;
    return (game->opening >= 2 && !(mover & COURT)) || game->since_capture > game->limit;
}

/* The k-th slide of `targets`, direction by direction (the order of `legal_moves`). */
static void nth_slide(const Bitboard targets[DIRECTIONS], uint64_t k, int *direction, int *end)
{
    for (*direction = 0;; (*direction)++) {
        uint64_t here = (uint64_t)__builtin_popcountll(targets[*direction]);
        if (k < here)
            break;
        k -= here;
    }
    Bitboard left = targets[*direction];
    while (k--)
        left &= left - 1;
    *end = lowest_square(left);
}

/* A move drawn: a slide (`jump` -1) in `direction` to `end`, or the jump sequence of index
 * `jump` in the JumpList it was drawn from. */
typedef struct {
    int direction, end;
    long long jump;
} Drawn;

/* A legal move of `game` drawn uniformly (its index in `legal_moves`' order, from `rng`), its
 * jumps listed into `jumps`; 1, or 0 when there is none, or -1 when memory runs out. */
static int random_move(const Game *game, JumpList *jumps, uint64_t *rng, Drawn *drawn)
{
    Bitboard own = game->turn ? game->black : game->white;
    Bitboard opp = game->turn ? game->white : game->black;
    Bitboard targets[DIRECTIONS];
    slide_targets(own, opp, game->opening, game->first_direction, targets);
    uint64_t slides = 0;
    for (int direction = 0; direction < DIRECTIONS; direction++)
        slides += (uint64_t)__builtin_popcountll(targets[direction]);
    jumps->count = 0;
    if (game->opening == MIDGAME) {
        Walk walk = {.sink = record_jump, .context = jumps};
        if (walk_jumps(&walk, own, opp) < 0)
            return -1;
    }
    uint64_t total = slides + jumps->count;
    if (total == 0)
        return 0;
    uint64_t k = splitmix64_below(rng, total);
    *drawn = (Drawn){0, 0, -1};
    if (k < slides)
        nth_slide(targets, k, &drawn->direction, &drawn->end);
    else
        drawn->jump = (long long)(k - slides);
    return 1;
}

/* Plays a move `random_move` drew from `jumps`. */
static void play_drawn(Game *game, const JumpList *jumps, Drawn drawn)
{
    Bitboard *own = game->turn ? &game->black : &game->white;
    Bitboard *opp = game->turn ? &game->white : &game->black;
    int first_direction = -1;
    if (drawn.jump < 0) {
        *own ^= 1ULL << (drawn.end - DELTA[drawn.direction]) | 1ULL << drawn.end;
        game->since_capture++;
        if (game->opening == 0)
            first_direction = drawn.direction;
    } else {
        const JumpRecord *jump = &jumps->items[drawn.jump];
        /* not a toggle: a sequence may end on the square it left, after capturing */
        *own = (*own & ~(1ULL << jump->start)) | 1ULL << jump->end;
        *opp &= ~jump->captured;
        game->since_capture = jump->captured ? 0 : game->since_capture + 1;
    }
    game->first_direction = first_direction;
    game->turn ^= 1;
    if (game->opening < MIDGAME)
        game->opening++;
    game->plies++;
}

#endif
