/* Watch Your Back! in C (games/watch_your_back.py states the rules): the position, the moves, the
 * rules that remove pieces, the shrinks, the end, and the evaluation's features. Static functions
 * only, included by the rules' kernel (games/native/watch_your_back.c) and by the agents'
 * compiled search (agents/native/watch_your_back.c).
 *
 * The representation is the Python module's: square (x, y) is bit 8 * y + x of a 64-bit board,
 * one board per colour, and every neighbour, flank and shrink ring is a table built once when
 * the module loads. */
#ifndef ARBITER_WATCH_YOUR_BACK_H
#define ARBITER_WATCH_YOUR_BACK_H

#include <stdint.h>
#include <stdlib.h>

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

static int any_step(Bitboard own, Bitboard other, int shrinks)
{
    return walk_steps(own, other, shrinks, stop_at_first, NULL);
}

/* -- the game ---------------------------------------------------------------------------------- */

/* A position: the colours' pieces, moves played (placements, moves and passes), turns since the
 * last shrink that eliminated nothing, the limit on those, and shrinks so far. */
typedef struct {
    Bitboard white, black;
    long long ply, since_capture, limit;
    int shrinks;
} Position;

/* watch_your_back.py's `outcome() is not None`. */
static int is_over(const Position *game)
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
static void after_moving(Position *game, int pieces_before)
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

/* A move: a placement on `start`, a slide or jump from `start` to `end`, or a pass. */
enum { PLACE, STEP, PASS_TURN };
typedef struct {
    uint8_t kind, start, end;
} Move;

/* The most moves: four steps for every square's piece, or a placement on every square. */
#define MOVES_CAPACITY (SQUARES * DIRECTIONS)

static int list_step(void *context, int start, const Step *step, int jumps)
{
    Move **next = context;
    int end = lowest_square(jumps ? step->landing : step->neighbour);
    *(*next)++ = (Move){STEP, (uint8_t)start, (uint8_t)end};
    return 0;
}

/* Every legal move into `out`, in watch_your_back.py's order (a lone pass when the mover has
 * no step). Returns how many. */
static inline int list_moves(const Position *game, Move *out)
{
    int seat = (int)(game->ply & 1);
    if (game->ply < PLACEMENTS) {
        int listed = 0;
        for (Bitboard free = ZONES[seat] & ~(game->white | game->black); free; free &= free - 1)
            out[listed++] = (Move){PLACE, (uint8_t)lowest_square(free), 0};
        return listed;
    }
    if (is_over(game))
        return 0;
    Bitboard own = seat ? game->black : game->white, other = seat ? game->white : game->black;
    Move *next = out;
    walk_steps(own, other, game->shrinks, list_step, &next);
    if (next == out)
        *next++ = (Move){PASS_TURN, 0, 0};
    return (int)(next - out);
}

/* Whether `move` is legal here: `WatchYourBackState.why_illegal` answers None. */
static inline int is_legal(const Position *game, Move move)
{
    int seat = (int)(game->ply & 1);
    Bitboard occupied = game->white | game->black;
    Bitboard own = seat ? game->black : game->white, other = seat ? game->white : game->black;
    if (is_over(game) || move.start >= SQUARES || move.end >= SQUARES)
        return 0;
    if (game->ply < PLACEMENTS)
        return move.kind == PLACE && (ZONES[seat] & ~occupied) >> move.start & 1;
    if (move.kind == PASS_TURN)
        return !any_step(own, other, game->shrinks);
    if (move.kind != STEP || !(own >> move.start & 1))
        return 0;
    int xa = move.start % SIZE, ya = move.start / SIZE, xb = move.end % SIZE, yb = move.end / SIZE;
    int distance = abs(xb - xa) + abs(yb - ya);
    if ((xa != xb && ya != yb) || distance < 1 || distance > 2 ||
        ((BLOCKED[game->shrinks] | occupied) >> move.end & 1))
        return 0;
    return distance == 1 || occupied >> (SIZE * ((ya + yb) / 2) + (xa + xb) / 2) & 1;
}

/* Plays a legal `move`, with the captures, the count and the shrinks it brings. */
static inline void play(Position *game, Move move)
{
    int seat = (int)(game->ply & 1);
    Bitboard *own = seat ? &game->black : &game->white, *enemy = seat ? &game->white : &game->black;
    if (game->ply < PLACEMENTS) {
        arrive(move.start, own, enemy, CORNERS[0]);
        game->ply++;
        game->shrinks = 0;
        game->since_capture = 0;
        return;
    }
    int pieces_before = count(game->white | game->black);
    if (move.kind == STEP) {
        *own ^= 1ULL << move.start;
        arrive(move.end, own, enemy, CORNERS[game->shrinks]);
    }
    after_moving(game, pieces_before);
}

/* A move drawn uniformly over `list_moves`'s, from `rng`, for a game not over: a placement
 * square or a step by its index, and a lone pass without a draw; 0 when the mover would place
 * but its zone is full (only a hand-made position has that). */
static inline int random_move(const Position *game, uint64_t *rng, Move *move)
{
    Move moves[MOVES_CAPACITY];
    int listed = list_moves(game, moves);
    if (listed == 0) {
        return 0;
    }
    *move = listed == 1 && moves[0].kind == PASS_TURN
                ? moves[0]
                : moves[splitmix64_below(rng, (uint64_t)listed)];
    return 1;
}

/* -- the tables -------------------------------------------------------------------------------- */

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

static void build_square_tables(int square)
{
    int x = square % SIZE, y = square / SIZE;
    MOVE_COUNT[square] = FLANK_COUNT[square] = SIDE_COUNT[square] = 0;
    for (int d = 0; d < DIRECTIONS; d++) {
        int nx = x + STEP_X[d], ny = y + STEP_Y[d], bx = x + 2 * STEP_X[d], by = y + 2 * STEP_Y[d];
        if (!on_board(nx, ny))
            continue;
        Step *step = &MOVES[square][MOVE_COUNT[square]++];
        step->neighbour = 1ULL << (SIZE * ny + nx);
        step->landing = on_board(bx, by) ? 1ULL << (SIZE * by + bx) : 0;
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
}

static void build_rules_tables(void)
{
    build_boards();
    for (int square = 0; square < SQUARES; square++)
        build_square_tables(square);
}

/* -- the evaluation's features (agents/evaluations/watch_your_back.py states them) ------------- */

#define NOT_COLUMN_0 (~0x0101010101010101ULL)
#define NOT_COLUMN_7 (~0x8080808080808080ULL)

static inline Bitboard east(Bitboard bits) { return (bits << 1) & NOT_COLUMN_0; }
static inline Bitboard west(Bitboard bits) { return (bits >> 1) & NOT_COLUMN_7; }
static inline Bitboard south(Bitboard bits) { return bits << SIZE; }
static inline Bitboard north(Bitboard bits) { return bits >> SIZE; }

/* The open squares `pieces` reach with one slide, or one jump over an occupied square. */
static inline Bitboard reach_squares(Bitboard pieces, Bitboard occupied, Bitboard open_squares)
{
    Bitboard stepped[DIRECTIONS] = {east(pieces), west(pieces), south(pieces), north(pieces)};
    Bitboard reached = (stepped[0] | stepped[1] | stepped[2] | stepped[3]) & open_squares;
    reached |= (east(stepped[0] & occupied) | west(stepped[1] & occupied) |
                south(stepped[2] & occupied) | north(stepped[3] & occupied)) &
               open_squares;
    return reached;
}

/* Pieces flanked on one side by `hostile` with an enemy able to arrive on the other side. */
static inline Bitboard danger_squares(Bitboard pieces, Bitboard hostile, Bitboard arrivals)
{
    Bitboard danger = (east(hostile) & west(arrivals)) | (west(hostile) & east(arrivals)) |
                      (south(hostile) & north(arrivals)) | (north(hostile) & south(arrivals));
    return pieces & danger;
}

#endif
