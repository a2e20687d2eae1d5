/* The random numbers of a compiled playout: splitmix64, and an exactly uniform draw below n.
 *
 * A playout need not reproduce Python's `random` sequence, only draw each move uniformly from
 * the legal ones, so a generator of a few instructions is enough; Python seeds it once per
 * playout (`rng.getrandbits(64)`), so one `random.Random` still decides everything. */
#ifndef ARBITER_SPLITMIX64_H
#define ARBITER_SPLITMIX64_H

#include <stdint.h>

static inline uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A number in 0..n-1 (n > 0), every one equally likely: Lemire's multiply-and-reject, which
 * throws away the few products that would make the low values likelier than the high ones. */
static inline uint64_t splitmix64_below(uint64_t *state, uint64_t n)
{
    unsigned __int128 product = (unsigned __int128)splitmix64_next(state) * n;
    uint64_t low = (uint64_t)product;
    if (low < n) {
        uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            product = (unsigned __int128)splitmix64_next(state) * n;
            low = (uint64_t)product;
        }
    }
    return (uint64_t)(product >> 64);
}

#endif
