/*
 * 02_parallel_hist_scan/radix_sort.h - the stage's building blocks (defined in
 * test_hooks.cu), callable on host arrays so that tests/test_02_parallel_hist_scan.c
 * can check each one against a CPU version.
 */
#ifndef STAGE02_RADIX_SORT_H
#define STAGE02_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Histogram kernel `variant` (1 sectioned, 2 interleaved, 3 shared) of the
 * `width`-bit digit at `shift` of n keys, into hist[0 .. 2^width).  Returns the
 * number of threads the kernel ran with (one grid-stride sweep). */
int s02_histogram(const uint32_t *keys, size_t n, int shift, int width, int variant, int block,
                  uint32_t *hist);

/* Blocked mode's [digit][block] table of n keys, blocks of `block` keys:
 * table gets 2^width x ceil(n / block) counts. */
void s02_block_histograms(const uint32_t *keys, size_t n, int shift, int width, int block,
                          uint32_t *table);

/* Multi-block exclusive scan of n values with the in-block scan `variant`
 * (SCAN_HILLIS_STEELE or SCAN_BLELLOCH) and `block` threads per block.
 * Returns the device time of the scan in milliseconds. */
double s02_exclusive_scan(const uint32_t *in, uint32_t *out, size_t n, int variant, int block);

#ifdef __cplusplus
}
#endif
#endif
