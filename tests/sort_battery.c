/* sort_battery.c - the sort battery of every stage (see sort_battery.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "reference.h"
#include "sort_battery.h"

static const size_t FIXED_SIZES[] = {
    0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513,
    1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 65535, 65536, 65537,
};
enum { FIXED_COUNT = sizeof FIXED_SIZES / sizeof FIXED_SIZES[0] };

#define MILLIONS_SIZE ((size_t)3000017) /* "a few million", not a power of two */
#define SMALL_LIMIT ((size_t)4100)      /* --small: nothing larger than this */
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
    if (stage_check_options(b->opt, n, err, sizeof err)) {
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

battery_result run_sort_battery(const char *label, const sort_options *opt, size_t tile,
                                enum battery_depth depth, int small)
{
    battery b = {.label = label, .opt = opt};
    size_t limit = small ? SMALL_LIMIT : (size_t)-1;

    /* under the sanitizer: the distributions that stress different passes */
    static const key_dist SMALL_DISTS[] = {DIST_UNIFORM, DIST_EQUAL, DIST_HIGH, DIST_AND4};
    int ndists = small ? (int)(sizeof SMALL_DISTS / sizeof SMALL_DISTS[0]) : DIST_COUNT;
    for (int k = 0; k < ndists; k++) {
        key_dist d = small ? SMALL_DISTS[k] : (key_dist)k;
        for (int i = 0; i < FIXED_COUNT; i++)
            if (FIXED_SIZES[i] <= limit)
                check_one(&b, FIXED_SIZES[i], d);
        for (size_t m = 1; m <= 4; m++)
            for (size_t n = m * tile - 1; n <= m * tile + 1; n++)
                if (n <= limit)
                    check_one(&b, n, d);
    }
    if (depth == BATTERY_SWEEP) {
        size_t last = 3 * tile < limit ? 3 * tile : limit;
        size_t step = small ? 37 : 1; /* under the sanitizer, every 37th size */
        for (size_t n = 0; n <= last; n += step)
            check_one(&b, n, DIST_UNIFORM);
        if (!small) {
            check_one(&b, MILLIONS_SIZE, DIST_UNIFORM);
            check_one(&b, MILLIONS_SIZE, DIST_HIGH);
            check_one(&b, MILLIONS_SIZE, DIST_AND4);
        }
    }
    printf("battery [%s]: %d sorts, %d failed\n", label, b.result.sorts, b.result.failures);
    free(b.keys);
    free(b.out);
    free(b.ref);
    return b.result;
}
