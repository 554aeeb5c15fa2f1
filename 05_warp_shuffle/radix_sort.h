/*
 * 05_warp_shuffle/radix_sort.h - the building blocks of the stage's steps,
 * callable on host arrays (05_warp_shuffle/test_hooks.cu, built once per step),
 * so that tests/test_05_warp_shuffle.c can check each of them against a CPU
 * version.
 */
#ifndef STAGE05_RADIX_SORT_H
#define STAGE05_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "sort_stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one pass leaves after each of its steps (host arrays the caller
 * provides; a NULL one is not downloaded).  tiles = ceil(n / (block * kpt)),
 * bins = 2^width.  Steps 3 and 4 (the multisplit) have no local sort and no run
 * starts: they leave tiles_sorted and starts alone. */
typedef struct {
    uint32_t *tiles_sorted; /* n: the keys after the local sort (steps 1, 2) */
    uint32_t *table;        /* bins * tiles: count of digit d in tile b at [d * tiles + b] */
    uint32_t *starts;       /* tiles * bins: start of digit d's run in tile b (steps 1, 2) */
    uint32_t *scanned;      /* bins * tiles: the exclusive scan of table */
    uint32_t *out;          /* n: the keys after the scatter / downsweep */
} s05_pass_outputs;

/* One pass by the `width`-bit digit at `shift`, with opt's block, kpt and scan. */
void s05_one_pass(const uint32_t *keys, size_t n, int shift, int width, const sort_options *opt,
                  s05_pass_outputs *out);

/* The block-wide exclusive scan built from warp shuffles, on each block of
 * `block` values of in (blocks * block of them): out gets the scan within the
 * block, totals[b] block b's sum. */
void s05_block_scan(const uint32_t *in, uint32_t *out, uint32_t *totals, size_t blocks, int block);

/* Steps 3 and 4 only: the multisplit's ranking of each tile (block * kpt keys, warp-striped):
 * places[i] becomes the place of key i in its tile stably sorted by digit, and
 * counts[b * bins + d] tile b's count of digit d.  The padding of a partial
 * last tile counts as keys of the largest digit. */
void s05_tile_ranks(const uint32_t *keys, size_t n, int shift, int width, const sort_options *opt,
                    uint32_t *places, uint32_t *counts);

#ifdef __cplusplus
}
#endif
#endif
