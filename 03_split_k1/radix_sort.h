/*
 * 03_split_k1/radix_sort.h - the stage's building blocks (defined in test_hooks.cu),
 * callable on host arrays so that tests/test_03_split_k1.c can check each against a CPU version.
 */
#ifndef STAGE03_RADIX_SORT_H
#define STAGE03_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One split pass: the n keys ordered stably by bit `bit` (zeros first), into out. */
void s03_split(const uint32_t *keys, uint32_t *out, size_t n, int bit, int variant, int block,
               int scan_block);

/* The multi-block exclusive scan carried forward from stage 02 (device ms returned). */
double s03_exclusive_scan(const uint32_t *in, uint32_t *out, size_t n, int variant, int block);

#ifdef __cplusplus
}
#endif
#endif
