/*
 * scan_check.h - the tests of the GPU scans (stages 02-04) against the CPU's: a scan hook
 * run on random values, its output compared with an exclusive scan computed here.  Apart
 * from test_util.h, which every stage's test includes: this CPU scan is no part of stage
 * 01's handout, where it would answer the lab's scan hole.
 */
#ifndef TESTS_SCAN_CHECK_H
#define TESTS_SCAN_CHECK_H

#include <stdint.h>
#include <stdlib.h>

#include "keys.h"
#include "test_util.h"

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
