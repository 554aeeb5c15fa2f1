/*
 * test_util.h - helpers the stage test programs share.
 */
#ifndef TESTS_TEST_UTIL_H
#define TESTS_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "keys.h"

static inline uint32_t *alloc_u32(size_t n)
{
    uint32_t *p = malloc((n ? n : 1) * sizeof *p);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(2);
    }
    return p;
}

/* Writes len bytes to a new file (test fixtures); exits if it cannot. */
static inline void write_bytes(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fclose(f);
}

/* A stage's exclusive-scan hook: scans n values with `variant` and `block`. */
typedef double (*scan_hook)(const uint32_t *in, uint32_t *out, size_t n, int variant, int block);

/* Runs the hook on n random values below mask + 1 (small enough that the sums
 * of millions stay exact) into a garbage-filled buffer, and compares with the
 * CPU's exclusive scan.  Returns the first wrong index, or n if all are right. */
static inline size_t scan_hook_first_error(scan_hook scan, size_t n, int variant, int block,
                                           uint32_t mask)
{
    uint32_t *in = alloc_u32(n), *out = alloc_u32(n);
    make_keys(in, n, DIST_UNIFORM, n + 1);
    for (size_t i = 0; i < n; i++)
        in[i] &= mask;
    fill_garbage(out, n, 2);
    scan(in, out, n, variant, block);
    uint32_t running = 0;
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++) {
        if (out[i] != running)
            bad = i;
        running += in[i];
    }
    free(in);
    free(out);
    return bad;
}

#endif
