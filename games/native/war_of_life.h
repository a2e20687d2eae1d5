/* War of Life in C (games/war_of_life.py states the rules): Conway's Crank, move generation, the
 * legality check and playing a move. Static functions only, included by the rules' kernel
 * (games/native/war_of_life.c) and by the agents' compiled search (agents/native/war_of_life.c).
 *
 * A board is the Python module's two 64-bit bitboards, blue and red, with square s = file + 8 *
 * rank (a1 = 0, h8 = 63), so a position passes in and out as plain unsigned 64-bit integers and
 * Conway's Crank is the module's bit-plane arithmetic on machine words. */
#ifndef ARBITER_WAR_OF_LIFE_H
#define ARBITER_WAR_OF_LIFE_H

#include <stdint.h>

#include "splitmix64.h"

#define NOT_FILE_A 0xFEFEFEFEFEFEFEFEULL
#define NOT_FILE_H 0x7F7F7F7F7F7F7F7FULL

static uint64_t from_west(uint64_t board) { return (board << 1) & NOT_FILE_A; }

static uint64_t from_east(uint64_t board) { return (board >> 1) & NOT_FILE_H; }

/* Each cell's count of neighbours in `board` as bit planes (bit 0, bit 1, at least 4), the sum
 * written as bit0 + 2 * t with t in 0..4, rows summed first: the Python module's derivation. */
static void neighbour_count_planes(uint64_t board, uint64_t *bit0, uint64_t *bit1,
                                   uint64_t *many) {
    uint64_t west = from_west(board), east = from_east(board);
    uint64_t mid0 = west ^ east, mid1 = west & east;
    uint64_t row0 = mid0 ^ board, row1 = mid1 | (mid0 & board);
    uint64_t south0 = row0 << 8, south1 = row1 << 8;
    uint64_t north0 = row0 >> 8, north1 = row1 >> 8;
    uint64_t half = south0 ^ mid0;
    uint64_t carry = (south0 & mid0) | (north0 & half);
    uint64_t pair_a = south1 ^ mid1, pair_b = north1 ^ carry;
    *bit0 = half ^ north0;
    *bit1 = pair_a ^ pair_b;
    *many = (south1 & mid1) | (north1 & carry) | (pair_a & pair_b);
}

/* Survivors keep their colour on 2 or 3 neighbours; a birth on exactly 3 takes the colour that
 * holds at least 2 of them (blue's count there is 0..3, so its bit 1 decides). */
static void crank_boards(uint64_t *blue, uint64_t *red) {
    uint64_t occupied = *blue | *red;
    uint64_t bit0, bit1, many, blue_bit0, blue_bit1, blue_many;
    neighbour_count_planes(occupied, &bit0, &bit1, &many);
    neighbour_count_planes(*blue, &blue_bit0, &blue_bit1, &blue_many);
    uint64_t stays = bit1 & ~many;
    uint64_t births = stays & bit0 & ~occupied;
    uint64_t blue_births = births & blue_bit1;
    *blue = (*blue & stays) | blue_births;
    *red = (*red & stays) | (births ^ blue_births);
}

/* The cells in `board` or next to one: a piece can move iff it is next to an empty cell. */
static uint64_t touching(uint64_t board) {
    uint64_t row = board | from_west(board) | from_east(board);
    return row | (row << 8) | (row >> 8);
}

static uint64_t neighbours_of(int square) {
    uint64_t bit = 1ULL << square;
    return touching(bit) & ~bit;
}

/* A position: the boards by colour (blue moves on even plies) and the moves played. */
typedef struct {
    uint64_t boards[2];
    int ply;
} Position;

/* A step of the piece on `source` to the empty neighbouring square `target`. */
typedef struct {
    uint8_t source, target;
} Move;

#define MOVES_CAPACITY (64 * 8)

/* Whether the game is over: a side has no piece, the move limit `exhausted_at` is reached, or
 * the mover cannot step (a stalemate). */
static inline int game_over(const Position *position, int exhausted_at)
{
    uint64_t blue = position->boards[0], red = position->boards[1];
    uint64_t empty = ~(blue | red);
    return !(blue && red) || position->ply >= exhausted_at ||
           !(position->boards[position->ply & 1] & touching(empty));
}

/* Every move of a game not over into `out`, by source square then target square, both from a1,
 * as the Python module lists them. Returns how many. */
static inline int list_moves_until(const Position *position, int exhausted_at, Move *out)
{
    uint64_t blue = position->boards[0], red = position->boards[1];
    if (!(blue && red) || position->ply >= exhausted_at) {
        return 0;
    }
    uint64_t empty = ~(blue | red);
    int count = 0;
    for (uint64_t rest = position->boards[position->ply & 1]; rest; rest &= rest - 1) {
        int source = __builtin_ctzll(rest);
        for (uint64_t targets = neighbours_of(source) & empty; targets; targets &= targets - 1) {
            out[count++] = (Move){(uint8_t)source, (uint8_t)__builtin_ctzll(targets)};
        }
    }
    return count;
}

/* Whether `move` is legal: `WarOfLifeState.why_illegal` answers None. */
static inline int is_legal_until(const Position *position, int exhausted_at, Move move)
{
    uint64_t occupied = position->boards[0] | position->boards[1];
    return move.source < 64 && move.target < 64 && !game_over(position, exhausted_at) &&
           (position->boards[position->ply & 1] >> move.source & 1) &&
           (neighbours_of(move.source) >> move.target & 1) && !(occupied >> move.target & 1);
}

/* Plays a legal `move`, cranks the board and counts the move. */
static inline void play(Position *position, Move move)
{
    position->boards[position->ply & 1] ^= (1ULL << move.source) | (1ULL << move.target);
    crank_boards(&position->boards[0], &position->boards[1]);
    position->ply++;
}

/* A move drawn uniformly over the legal ones into `move` (the index `random` draws, in
 * `list_moves_until`'s order, found by counting instead of listing); 0 when the game is over. */
static inline int random_move(const Position *position, int exhausted_at, uint64_t *random,
                              Move *move)
{
    if (game_over(position, exhausted_at)) {
        return 0;
    }
    uint64_t mine = position->boards[position->ply & 1];
    uint64_t empty = ~(position->boards[0] | position->boards[1]);
    int count = 0;
    for (uint64_t rest = mine; rest; rest &= rest - 1) {
        count += __builtin_popcountll(neighbours_of(__builtin_ctzll(rest)) & empty);
    }
    int index = (int)splitmix64_below(random, (uint64_t)count);
    int source = 0;
    uint64_t targets = 0;
    for (uint64_t rest = mine; rest; rest &= rest - 1) {
        source = __builtin_ctzll(rest);
        targets = neighbours_of(source) & empty;
        int here = __builtin_popcountll(targets);
        if (index < here) {
            break;
        }
        index -= here;
    }
    for (; index > 0; index--) {
        targets &= targets - 1;
    }
    *move = (Move){(uint8_t)source, (uint8_t)__builtin_ctzll(targets)};
    return 1;
}

#endif
