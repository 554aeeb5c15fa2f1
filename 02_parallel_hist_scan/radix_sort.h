/*
 * 02_parallel_hist_scan/radix_sort.h - the building blocks of the stage's steps
 * (defined in test_hooks.cu, built once per step), callable on host arrays so
 * that tests/test_02_parallel_hist_scan.c can check each one against a CPU
 * version.
 */
#ifndef STAGE02_RADIX_SORT_H
#define STAGE02_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Steps 1 and 2: histogram kernel `variant` (1 sectioned, 2 interleaved, 3 shared)
 * of the `width`-bit digit at `shift` of n keys, into hist[0 .. 2^width).
 * Returns the number of threads the kernel ran with (one grid-stride sweep). */
int s02_histogram(const uint32_t *keys, size_t n, int shift, int width, int variant, int block,
                  uint32_t *hist);

/* Steps 2 and 3: multi-block exclusive scan of n values with the in-block scan
 * `variant` (SCAN_HILLIS_STEELE or SCAN_BLELLOCH) and `block` threads per block.
 * Returns the device time of the scan in milliseconds. */
double s02_exclusive_scan(const uint32_t *in, uint32_t *out, size_t n, int variant, int block);

/* Step 3: the [digit][block] table of n keys, blocks of `block` keys: table
 * gets 2^width x ceil(n / block) counts, block b's count of digit d at
 * [d * blocks + b]. */
void s02_block_histograms(const uint32_t *keys, size_t n, int shift, int width, int block,
                          uint32_t *table);

/* Step 3: one pass's scatter, a thread a block: keys (n) into out by the
 * `width`-bit digit at `shift`, given the table scanned (2^width x ceil(n /
 * block) counts, as s02_block_histograms leaves them, then exclusive-scanned). */
void s02_block_scatter(const uint32_t *keys, uint32_t *out, size_t n, int shift, int width,
                       int block, const uint32_t *scanned);

#ifdef __cplusplus
}
#endif
#endif
