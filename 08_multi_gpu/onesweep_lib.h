/*
 * 08_multi_gpu/onesweep_lib.h - stage 07's onesweep sort (onesweep_kernels.cu) as a
 * library on device arrays, for the steps of stage 08: each GPU counts, partitions and
 * sorts its keys with it.
 *
 * Every call works on the current device (cudaSetDevice) and its legacy default
 * stream, as stage 07 does; a stream made with cudaStreamCreate is ordered with it.
 */
#ifndef STAGE08_ONESWEEP_LIB_H
#define STAGE08_ONESWEEP_LIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct os_sorter os_sorter;

/* Scratch for sorts of up to cap keys on the current device.  A sort of more keys than
 * 07 sorts at once (2^30 - 1) runs its passes chunk by chunk, and one of 2^32 keys or more
 * is first cut in three by its top byte (onesweep_lib.cu, "the large path"); such a cut
 * waits for the GPU. */
os_sorter *os_create(size_t cap);

/* Tests only: sorters created after this call chunk at chunk_keys (rounded down to whole
 * tiles) and cut above wide_keys, so that the large path runs on small inputs; 0, 0 goes
 * back to the limits of 07's look-back words and of 32-bit places. */
void os_force_limits(size_t chunk_keys, size_t wide_keys);
void os_destroy(os_sorter *s);

/* counts[d] += the number of keys whose top 8 bits are d (256 counters on the device,
 * zeroed by the caller): stage 07's histogram kernel, one pass of bits 24..31.  Past 2^32 - 1
 * keys it waits for the GPU, to stop with one line where a count would not fit 32 bits. */
void os_top_digit_counts(os_sorter *s, const uint32_t *d_keys, size_t n, uint32_t *d_counts);

/* Sorts n keys (n <= cap; d_a 16-byte aligned, as cudaMalloc's are) by bits [begin_bit, end_bit), stably, between the two
 * buffers, without waiting for the GPU.  A pass whose digit is the same for every key
 * is skipped, so the result may end in either buffer: os_sorted says which, once the
 * device has finished the sort (after a cudaDeviceSynchronize). */
void os_sort(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin_bit, int end_bit);
uint32_t *os_sorted(const os_sorter *s, uint32_t *d_a, uint32_t *d_b);

/* The same sort, its result always in d_b (copied there on the GPU where it ended in
 * d_a): for several sorts issued in a row with one sorter.  d_a must be 16-byte aligned
 * (07's histogram reads four keys at once); d_b need not be. */
void os_sort_into_b(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin_bit,
                    int end_bit);

#ifdef __cplusplus
}
#endif
#endif
