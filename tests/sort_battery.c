/* sort_battery.c - the sort battery of every stage (see sort_battery.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "options.h"
#include "reference.h"
#include "sort_battery.h"

static const size_t FIXED_SIZES[] = {
    0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513,
    1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 65535, 65536, 65537,
};
enum { FIXED_COUNT = sizeof FIXED_SIZES / sizeof FIXED_SIZES[0] };

#define MILLIONS_SIZE ((size_t)3000017) /* "a few million", not a power of two */
#define SMALL_LIMIT ((size_t)4097)      /* --small, --tiny: nothing larger than this */
#define TEST_TINY_SCALE (-2)             /* check.h's TEST_TINY */
/* The sweep's sizes by default (not --full): every one up to SWEEP_EVERY, then one in
 * SWEEP_STRIDE, a prime, so that the sizes land at every offset within a tile and a warp. */
#define SWEEP_EVERY ((size_t)256)
#define SWEEP_STRIDE ((size_t)61)
#define MAX_PRINTED_FAILURES 10

typedef struct {
    const char *label;
    const sort_options *opt;
    battery_result result;
    uint32_t *keys, *out, *ref;
    size_t capacity;
} battery;

static void ensure_capacity(battery *b, size_t n)
{
    if (n <= b->capacity)
        return;
    free(b->keys);
    free(b->out);
    free(b->ref);
    b->keys = malloc(n * sizeof *b->keys);
    b->out = malloc(n * sizeof *b->out);
    b->ref = malloc(n * sizeof *b->ref);
    if (!b->keys || !b->out || !b->ref) {
        fprintf(stderr, "sort battery: not enough host memory for %zu keys\n", n);
        exit(2);
    }
    b->capacity = n;
}

static void fail(battery *b, size_t n, key_dist dist, const char *what)
{
    if (++b->result.failures <= MAX_PRINTED_FAILURES)
        fprintf(stderr, "FAIL [%s] n=%zu dist=%s: %s\n", b->label, n, dist_name(dist), what);
}

static void check_one(battery *b, size_t n, key_dist dist)
{
    ensure_capacity(b, n ? n : 1);
    uint64_t seed = 1000003u * (uint64_t)n + (uint64_t)dist;
    make_keys(b->keys, n, dist, seed);
    fill_garbage(b->out, n, seed);
    if (reference_sort(b->keys, b->ref, n)) {
        fprintf(stderr, "sort battery: reference sort out of memory\n");
        exit(2);
    }
    b->result.sorts++;

    char err[512];
    if (check_sort_options(&STAGE, b->opt, n, err, sizeof err)) {
        fail(b, n, dist, err);
        return;
    }
    sort_report rep;
    if (stage_sort(b->keys, b->out, n, b->opt, &rep, err, sizeof err)) {
        fail(b, n, dist, err);
        return;
    }
    if (verify_sorted(b->out, b->ref, n, err, sizeof err))
        fail(b, n, dist, err);
}

static const size_t QUICK_SIZES[] = {0, 1, 2, 33, 4097, 65537};
static const size_t SMALL_SIZES[] = {0, 1, 2, 33, 1000, 4097};

/* Runs `sizes` and the neighbours of the first `multiples` multiples of the tile. */
static void check_sizes(battery *b, const size_t *sizes, int count, size_t tile, int multiples,
                        size_t limit, key_dist d)
{
    for (int i = 0; i < count; i++)
        check_one(b, sizes[i], d);
    for (size_t m = 1; m <= (size_t)multiples; m++)
        for (size_t n = m * tile - 1; n <= m * tile + 1; n++)
            if (n <= limit)
                check_one(b, n, d);
}

battery_result run_sort_battery(const char *label, const sort_options *opt, size_t tile,
                                enum battery_depth depth, int scale)
{
    battery b = {.label = label, .opt = opt};
    if (scale == TEST_TINY_SCALE) {
        /* under racecheck and initcheck, where every launch is slower still: a part of a
         * tile, and a tile and one key (or the largest small size, where a tile is
         * larger), of random keys and of keys whose low 24 bits are all equal (a stage
         * that skips passes skips them there) */
        size_t two_tiles = tile + 1 <= SMALL_LIMIT ? tile + 1 : SMALL_LIMIT;
        check_one(&b, 33, DIST_UNIFORM);
        check_one(&b, two_tiles, DIST_UNIFORM);
        check_one(&b, two_tiles, DIST_HIGH);
    } else if (scale < 0) {
        /* under the sanitizer every launch is slow: few sizes, two distributions
         * (random keys, and keys whose low 24 bits are all equal) */
        const key_dist dists[] = {DIST_UNIFORM, DIST_HIGH};
        for (int k = 0; k < 2; k++)
            check_sizes(&b, SMALL_SIZES, sizeof SMALL_SIZES / sizeof SMALL_SIZES[0], tile, 2,
                        SMALL_LIMIT, dists[k]);
    } else {
        for (int d = 0; d < DIST_COUNT; d++) {
            if (depth == BATTERY_QUICK)
                check_sizes(&b, QUICK_SIZES, sizeof QUICK_SIZES / sizeof QUICK_SIZES[0], tile, 2,
                            (size_t)-1, (key_dist)d);
            else
                check_sizes(&b, FIXED_SIZES, FIXED_COUNT, tile, 4, (size_t)-1, (key_dist)d);
        }
        if (depth == BATTERY_SWEEP) {
            size_t stride = scale > 0 ? 1 : SWEEP_STRIDE;
            for (size_t n = 0; n <= 3 * tile; n += n < SWEEP_EVERY ? 1 : stride)
                check_one(&b, n, DIST_UNIFORM);
            /* a few million keys: uniform ones, and (--full) two distributions whose
             * digits crowd into few values */
            check_one(&b, MILLIONS_SIZE, DIST_UNIFORM);
            if (scale > 0) {
                check_one(&b, MILLIONS_SIZE, DIST_HIGH);
                check_one(&b, MILLIONS_SIZE, DIST_AND4);
            }
        }
    }
    printf("battery [%s]: %d sorts, %d failed\n", label, b.result.sorts, b.result.failures);
    free(b.keys);
    free(b.out);
    free(b.ref);
    return b.result;
}

/* Only a stage that sorts pairs defines stage_sort_pairs; for the others the
 * linker leaves this weak reference NULL. */
#pragma weak stage_sort_pairs

int check_ordered_sort(const char *label, const sort_options *opt, const uint32_t *keys, size_t n,
                       int pairs, char *msg, size_t msglen)
{
    size_t bytes = (n ? n : 1) * sizeof(uint32_t);
    uint32_t *vals = malloc(bytes), *out = malloc(bytes), *vout = malloc(bytes);
    uint32_t *ref = malloc(bytes), *vref = malloc(bytes);
    if (!vals || !out || !vout || !ref || !vref) {
        fprintf(stderr, "check_ordered_sort: not enough host memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        vals[i] = (uint32_t)i;
    fill_garbage(out, n, 6);
    fill_garbage(vout, n, 7);
    sort_report rep;
    char err[256] = "";
    int rc = -1;
    if (pairs && !stage_sort_pairs) {
        snprintf(msg, msglen, "%s: this stage sorts keys only", label);
    } else if (pairs ? stage_sort_pairs(keys, vals, out, vout, n, opt, &rep, err, sizeof err)
                     : stage_sort(keys, out, n, opt, &rep, err, sizeof err)) {
        snprintf(msg, msglen, "%s n=%zu: the sort failed: %s", label, n, err);
    } else if (reference_sort_ordered(keys, n, opt, ref, vref)) {
        snprintf(msg, msglen, "%s: not enough host memory for the reference", label);
    } else {
        size_t bad = n, vbad = n;
        for (size_t i = n; i-- > 0;) {
            if (out[i] != ref[i])
                bad = i;
            if (pairs && vout[i] != vref[i])
                vbad = i;
        }
        rc = bad == n && vbad == n ? 0 : -1;
        snprintf(msg, msglen, "%s n=%zu: keys differ at %zu, values at %zu (n: none)", label, n,
                 bad, vbad);
    }
    free(vals);
    free(out);
    free(vout);
    free(ref);
    free(vref);
    return rc;
}
