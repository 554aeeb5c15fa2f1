/*
 * keys.h - the inputs of the sort programs: generated distributions and raw files.
 *
 * Every distribution is made from a seed, so a failing case can be replayed
 * with the same -n, --dist and --seed.
 */
#ifndef COMMON_KEYS_H
#define COMMON_KEYS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DIST_UNIFORM,  /* uniform random 32-bit words */
    DIST_EQUAL,    /* every key the same value */
    DIST_SORTED,   /* already in order (with repeats) */
    DIST_REVERSED, /* in reverse order */
    DIST_FEW,      /* 16 distinct values, shuffled */
    DIST_AND2,     /* AND of 2 random words: each bit is 1 with probability 1/4 */
    DIST_AND4,     /* AND of 4 random words: each bit is 1 with probability 1/16 */
    DIST_HIGH,     /* keys differ only in their top 8 bits; the low 24 bits are one constant */
    DIST_LOW,      /* keys differ only in their low 8 bits; the high 24 bits are one constant */
    DIST_COUNT
} key_dist;

const char *dist_name(key_dist d);
/* 0 and *d set, or -1 if the name is unknown. */
int dist_from_name(const char *name, key_dist *d);
/* "uniform, equal, sorted, ..." for help and error messages. */
const char *dist_list(void);

/* "key" or "keys", as n asks: "1 key", "0 keys". */
static inline const char *keys_word(size_t n) { return n == 1 ? "key" : "keys"; }

/* One step of splitmix64: a small, good, seedable generator. */
uint64_t rng_next(uint64_t *state);

void make_keys(uint32_t *keys, size_t n, key_dist dist, uint64_t seed);

/* Fill with garbage (never zeros) before a buffer is used in a test. */
void fill_garbage(uint32_t *buf, size_t n, uint64_t seed);

/* Raw little-endian uint32 files.  0 on success; -1 and one line in err
 * (missing file, a size that is not a multiple of 4, too many keys, I/O error).
 * *keys is malloc'ed; free it. */
int read_keys_file(const char *path, size_t max_keys, uint32_t **keys, size_t *n,
                   char *err, size_t errlen);
int write_keys_file(const char *path, const uint32_t *keys, size_t n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
