/*
 * 07_onesweep/onesweep.h - the building blocks of the stage's steps, callable
 * on host arrays (07_onesweep/test_hooks.cu, built once per step), so that
 * tests/test_07_onesweep.c can check each of them against a CPU version.
 */
#ifndef STAGE07_ONESWEEP_H
#define STAGE07_ONESWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "sort_stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The histogram step on n keys (n >= 1) with opt's digit width: starts[p * 2^bits + d]
 * gets where the run of digit d starts in the output of pass p (an exclusive scan of
 * the pass's digit counts), for every pass. */
void s07_histogram(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *starts);

/* The first pass alone (digit bits 0 .. bits-1), every pass planned to run: out gets
 * its output, lookback the pass's look-back words after it (tiles x 2^bits). */
void s07_first_pass(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *out,
                    uint32_t *lookback);

/* From now on tile `tile` of every pass waits `ns` nanoseconds before it publishes its
 * counts (tile -1: none). */
void s07_slow_tile(long long tile, unsigned ns);

/* Step 07.10 on: how many blocks of the pass kernel at opt's shape a multiprocessor of
 * this GPU holds (the occupancy calculator), for keys alone (pairs 0) or pairs (the
 * kernel the sort picks: from 07.16 on, wide tiles where they fit); and in *fits, how
 * many its shared memory alone would hold. */
int s07_pass_blocks(const sort_options *opt, int pairs, int *fits);

/* Step 07.11 on: 1 if a pass of digit width `width` at opt's shape runs the kernel
 * compiled for the default shape, 0 if it runs the general one. */
int s07_pass_for_default_shape(const sort_options *opt, int width, int pairs);

/* Step 07.12 on: one warp ranks kpt keys a lane (digits[j * 32 + lane]: key j of lane
 * `lane`, digits below 2^bits) as a pass's warp does - by its masks, or by match where
 * crowded - with its counts of the digits starting at start[d] (each below 4096): ranks
 * gets each key's place (its digit's count before the key), counts the counts after. */
void s07_rank_warp(const uint32_t *digits, int kpt, int bits, int crowded, const uint32_t *start,
                   uint32_t *ranks, uint32_t *counts);

/* Step 07.13 on: the look-back table (tiles x 2^bits words, the count returned) after
 * the sort's clear (before) and after the histogram step (after), the table allocated
 * full of garbage; either pointer may be NULL.  n >= 1. */
size_t s07_first_table(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *before,
                       uint32_t *after);

/* Step 07.13 on: a whole sort of n keys (n >= 1) with opt, as its passes leave the one
 * look-back table (tiles x 2^bits words) in table; returns how many passes ran. */
int s07_last_table(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *table);

/* Step 07.14 on: the least grid of the default sort's histogram (all_pass_histogram_8x4)
 * from now on - blocks, in place of what the GPU holds at once (0: back to that) - so
 * that a test can run it on a small grid and see that the grid still grows with n. */
void s07_copy_blocks(int blocks);

/* Step 07.15 on: the histogram step on n keys (n >= 1), as a sort with opt plans it;
 * crowded[p] gets 1 if pass p is planned to count its tiles' digits by match, 0 if
 * by one atomic a lane (or is skipped).  Returns the number of passes. */
int s07_crowded_passes(const uint32_t *keys, size_t n, const sort_options *opt, int *crowded);

/* Step 07.15 on: one block of `block` threads counts a tile of block x kpt keys (keys[i]:
 * the tile's key i, warp-striped as a pass holds it; digits below 2^bits) as a crowded
 * pass does: ranks[i] gets key i's rank among its warp's keys of its digit (as the count
 * left it), counts[d] the tile's count of digit d. */
void s07_count_ranks(const uint32_t *keys, int block, int kpt, int bits, uint32_t *ranks,
                     uint32_t *counts);

/* Step 07.16 on: 1 where a sort of pairs with opt runs the pass of wide tiles, 512 x 24
 * (SLOTS_IN_SHARED), else 0; blocks gets how many blocks of that pass the GPU holds a
 * multiprocessor (the occupancy calculator's count). */
int s07_wide_pairs(const sort_options *opt, int *blocks);

/* Step 07.17 on: where digit's lane-mask word and counter sit in a warp's rows (bin_of). */
uint32_t s07_bin_of(uint32_t digit);

/* The flags of a look-back word. */
#define S07_AGGREGATE (1u << 30)
#define S07_PREFIX (2u << 30)

#ifdef __cplusplus
}
#endif
#endif
