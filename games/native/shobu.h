/* Shobu in C (games/shobu.py states the rules): turn generation, the legality of one turn,
 * making a turn, the end checks, and the evaluation's balance. Static functions only, included by
 * the rules' kernel (games/native/shobu.c) and by the agents' compiled search
 * (agents/native/shobu.c).
 *
 * The representation is the Python module's: a square is board * 16 + row * 4 + column, each
 * colour's stones one 64-bit set. */
#ifndef ARBITER_SHOBU_H
#define ARBITER_SHOBU_H

#include <math.h>
#include <stdint.h>

#include "splitmix64.h"

typedef uint64_t Bits;

enum { SQUARES = 64, DIRECTIONS = 8, VECTORS = 16, GROUPS = 32 };

static const int DELTAS[DIRECTIONS][2] = {
    {0, 1}, {1, 1}, {1, 0}, {1, -1}, {0, -1}, {-1, -1}, {-1, 0}, {-1, 1},
};
/* (column, row) steps of each direction, in games/shobu.py's DIRECTIONS order. */

static const Bits BOARD_MASK[4] = {
    0xFFFFull, 0xFFFFull << 16, 0xFFFFull << 32, 0xFFFFull << 48,
};
static const Bits COLOUR_MASK[2] = {
    0xFFFFull | 0xFFFFull << 32, 0xFFFFull << 16 | 0xFFFFull << 48,
};

/* Tables built once at import, as games/shobu.py builds its own from DELTAS. */
static Bits KEEP[DIRECTIONS];  /* squares that stay on their board after one step */
static int LEFT[DIRECTIONS], RIGHT[DIRECTIONS];  /* the shifts of one step */
static int REACH[VECTORS];  /* landing square minus starting square */
static int LANDING[VECTORS][SQUARES];  /* -1: the move leaves the board */
static Bits PATH[VECTORS][SQUARES];  /* squares entered, landing included; 0 off the board */
static Bits BEYOND[VECTORS][SQUARES];  /* where a pushed stone ends; 0 pushes it off */

static int on_board(int column, int row) { return 0 <= column && column < 4 && 0 <= row && row < 4; }

static void build_tables(void)
{
    for (int d = 0; d < DIRECTIONS; d++) {
        int dc = DELTAS[d][0], dr = DELTAS[d][1], shift = dr * 4 + dc;
        KEEP[d] = 0;
        for (int s = 0; s < SQUARES; s++)
            if (on_board((s & 3) + dc, ((s >> 2) & 3) + dr))
                KEEP[d] |= 1ull << s;
        LEFT[d] = shift > 0 ? shift : 0;
        RIGHT[d] = shift < 0 ? -shift : 0;
    }
    for (int v = 0; v < VECTORS; v++) {
        int dc = DELTAS[v >> 1][0], dr = DELTAS[v >> 1][1], distance = (v & 1) + 1;
        REACH[v] = distance * (dr * 4 + dc);
        for (int s = 0; s < SQUARES; s++) {
            int board = s >> 4, column = s & 3, row = (s >> 2) & 3;
            int land_column = column + dc * distance, land_row = row + dr * distance;
            if (!on_board(land_column, land_row)) {
                LANDING[v][s] = -1;
                PATH[v][s] = BEYOND[v][s] = 0;
                continue;
            }
            LANDING[v][s] = board * 16 + land_row * 4 + land_column;
            PATH[v][s] = 0;
            for (int i = 1; i <= distance; i++)
                PATH[v][s] |= 1ull << (board * 16 + (row + dr * i) * 4 + column + dc * i);
            int past_column = land_column + dc, past_row = land_row + dr;
            BEYOND[v][s] = on_board(past_column, past_row)
                               ? 1ull << (board * 16 + past_row * 4 + past_column)
                               : 0;
        }
    }
}

static Bits step(Bits bits, int direction)
{
    return ((bits & KEEP[direction]) << LEFT[direction]) >> RIGHT[direction];
}

/* One group of legal turns: every passive landing with every aggressive landing of one vector,
 * the passive half on one homeboard colour (games/shobu.py's `_turn_groups`). */
typedef struct {
    int vector;
    Bits passive, aggressive;
} Group;

/* The legal turns of the seat `mover`, grouped as games/shobu.py groups them and in its order;
 * stops after the first group when `first_only`. Returns the number of groups. */
static int turn_groups(Bits black, Bits white, int mover, Group groups[GROUPS], int first_only)
{
    Bits own = mover ? white : black, opp = mover ? black : white;
    Bits homes = own & (BOARD_MASK[2 * mover] | BOARD_MASK[2 * mover + 1]);
    Bits empty = ~(own | opp);
    int count = 0;
    for (int d = 0; d < DIRECTIONS; d++) {
        Bits passive[2], aggressive[2];
        passive[0] = step(homes, d) & empty;
        passive[1] = step(passive[0], d) & empty;
        /* The aggressive rule: no own stone on the path, at most one opposing stone on it, and
         * that one pushed onto an empty square or off the board. */
        Bits stone_ahead = step(own | opp, (d + 4) & 7);
        Bits one = step(own, d) & ~own;
        Bits two = step(one, d) & ~own;
        Bits over_opp = step(one & opp, d);
        aggressive[1] = two & ~(over_opp & opp) & ~((over_opp | opp) & stone_ahead);
        aggressive[0] = one & ~(opp & stone_ahead);
        for (int far = 0; far < 2; far++)
            for (int colour = 0; colour < 2; colour++) {
                Bits p = passive[far] & BOARD_MASK[2 * mover + colour];
                Bits a = aggressive[far] & COLOUR_MASK[1 - colour];
                if (p && a) {
                    groups[count++] = (Group){2 * d + far, p, a};
                    if (first_only)
                        return count;
                }
            }
    }
    return count;
}

static int any_board_cleared(Bits black, Bits white)
{
    for (int board = 0; board < 4; board++)
        if (!(black & BOARD_MASK[board]) || !(white & BOARD_MASK[board]))
            return 1;
    return 0;
}

/* The ends that need no turn generation: a board cleared of one side, or the no-capture limit. */
static int ended_by_stones_or_count(Bits black, Bits white, long long since, long long limit)
{
    return since >= limit || any_board_cleared(black, white);
}

static inline int nth_square(Bits bits, long long n)
{
    for (; n > 0; n--)
        bits &= bits - 1;
    return __builtin_ctzll(bits);
}

static long long group_size(const Group *group)
{
    return (long long)__builtin_popcountll(group->passive) * __builtin_popcountll(group->aggressive);
}

typedef struct {
    int passive, aggressive, direction, distance;
} Turn;

/* The `index`-th legal turn, in legal_moves() order, of `count` groups. */
static inline Turn turn_at(const Group *groups, int count, long long index)
{
    for (int g = 0; g < count; g++) {
        long long size = group_size(&groups[g]);
        if (index < size) {
            long long aggressives = __builtin_popcountll(groups[g].aggressive);
            int vector = groups[g].vector, back = REACH[vector];
            return (Turn){
                nth_square(groups[g].passive, index / aggressives) - back,
                nth_square(groups[g].aggressive, index % aggressives) - back,
                vector >> 1,
                (vector & 1) + 1,
            };
        }
        index -= size;
    }
    return (Turn){-1, -1, -1, -1}; /* unreachable: callers draw below the total */
}

/* Makes a turn known to be on the board: the stones move, a hit stone is pushed on or off. */
static void make_turn(Bits *own, Bits *opp, long long *since, Turn turn)
{
    int vector = turn.direction * 2 + turn.distance - 1;
    *own ^= (1ull << turn.passive) | (1ull << LANDING[vector][turn.passive]) |
            (1ull << turn.aggressive);
    *own ^= 1ull << LANDING[vector][turn.aggressive];
    Bits hit = PATH[vector][turn.aggressive] & *opp;
    *since += 1;
    if (hit) {
        Bits beyond = BEYOND[vector][turn.aggressive];
        *opp = (*opp ^ hit) | beyond;
        if (!beyond)
            *since = 0;
    }
}

/* A position as games/shobu.py's state holds it: read from a state's attributes, and written to
 * a new state of that state's own class, so this file keeps no copy of the class. */
typedef struct {
    Bits black, white;
    long long ply, since, limit;
} Position;

static int mover_of(const Position *position) { return (int)(position->ply & 1); }

static int ended_at(const Position *position)
{
    return ended_by_stones_or_count(position->black, position->white, position->since,
                                    position->limit);
}

/* The most turns a position can have: every group with a passive stone on each square of its
 * board and an aggressive one on each square of the other colour's two boards. */
#define TURNS_CAPACITY (GROUPS * 16 * 32)

/* Every legal turn into `out`, in the Python rules' order. Returns how many. */
static inline int list_turns(const Position *position, Turn *out)
{
    if (ended_at(position))
        return 0;
    Group groups[GROUPS];
    int count = turn_groups(position->black, position->white, mover_of(position), groups, 0);
    int listed = 0;
    for (int g = 0; g < count; g++) {
        int vector = groups[g].vector, back = REACH[vector];
        for (Bits p = groups[g].passive; p; p &= p - 1)
            for (Bits a = groups[g].aggressive; a; a &= a - 1)
                out[listed++] = (Turn){__builtin_ctzll(p) - back, __builtin_ctzll(a) - back,
                                       vector >> 1, (vector & 1) + 1};
    }
    return listed;
}

/* Whether `turn` (its parts in range) is legal here: `ShobuState.why_illegal` answers None. */
static inline int turn_is_legal(const Position *position, Turn turn)
{
    if (ended_at(position))
        return 0;
    int vector = turn.direction * 2 + turn.distance - 1;
    int passive_landing = LANDING[vector][turn.passive];
    int aggressive_landing = LANDING[vector][turn.aggressive];
    if (passive_landing < 0 || aggressive_landing < 0)
        return 0;
    Group groups[GROUPS];
    int count = turn_groups(position->black, position->white, mover_of(position), groups, 0);
    for (int g = 0; g < count; g++)
        if (groups[g].vector == vector && (groups[g].passive >> passive_landing & 1) &&
            (groups[g].aggressive >> aggressive_landing & 1))
            return 1;
    return 0;
}

/* Plays a legal turn and passes the move. */
static inline void play_turn(Position *position, Turn turn)
{
    int mover = mover_of(position);
    make_turn(mover ? &position->white : &position->black,
              mover ? &position->black : &position->white, &position->since, turn);
    position->ply += 1;
}

/* A legal turn drawn uniformly (its index in the rules' order, found by group sizes instead of
 * listing), as `random_move` draws one; 0 when the mover has none. */
static inline int random_turn(const Position *position, uint64_t *seed, Turn *turn)
{
    Group groups[GROUPS];
    int count = turn_groups(position->black, position->white, mover_of(position), groups, 0);
    if (count == 0)
        return 0;
    long long total = 0;
    for (int g = 0; g < count; g++)
        total += group_size(&groups[g]);
    *turn = turn_at(groups, count, (long long)splitmix64_below(seed, (uint64_t)total));
    return 1;
}

/* agents/evaluations/shobu.py's `balance`: each board's term for `mine`, summed as signed
 * squares. */
static inline double balance_sum(Bits mine, Bits theirs, int my_turn, double tempo)
{
    double total = 0.0;
    for (int board = 0; board < 4; board++) {
        int own = __builtin_popcountll((mine >> (16 * board)) & 0xFFFF);
        int other = __builtin_popcountll((theirs >> (16 * board)) & 0xFFFF);
        int lead = own - other;
        double term = lead > 0   ? lead + (4 - other)
                      : lead < 0 ? lead - (4 - own)
                      : my_turn  ? tempo * (own + other)
                                 : -tempo * (own + other);
        total += term * fabs(term);
    }
    return total;
}

#endif
