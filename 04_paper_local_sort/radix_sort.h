/*
 * 04_paper_local_sort/radix_sort.h - the stage's building blocks (defined in
 * test_hooks.cu), callable on host arrays so that tests/test_04_paper_local_sort.c
 * can check each step of a pass against a CPU version.
 */
#ifndef STAGE04_RADIX_SORT_H
#define STAGE04_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "sort_stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one pass leaves after each of its steps (host arrays the caller
 * provides; a NULL one is not downloaded).  tiles = ceil(n / (block * kpt)),
 * bins = 2^width. */
typedef struct {
    uint32_t *tiles_sorted; /* n: the keys after the local sort (each tile sorted by digit) */
    uint32_t *table;        /* bins * tiles: count of digit d in tile b at [d * tiles + b] */
    uint32_t *starts;       /* tiles * bins: start of digit d's run in tile b at [b * bins + d] */
    uint32_t *scanned;      /* bins * tiles: the exclusive scan of table */
    uint32_t *out;          /* n: the keys after the scatter */
} s04_pass_outputs;

/* One pass by the `width`-bit digit at `shift`, with opt's block, kpt and scan. */
void s04_one_pass(const uint32_t *keys, size_t n, int shift, int width, const sort_options *opt,
                  s04_pass_outputs *out);

/* The multi-block exclusive scan carried forward (device ms returned). */
double s04_exclusive_scan(const uint32_t *in, uint32_t *out, size_t n, int variant, int block);

#ifdef __cplusplus
}
#endif
#endif
