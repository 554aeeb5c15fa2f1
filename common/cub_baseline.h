/*
 * cub_baseline.h - the library every GPU stage is measured against:
 * cub::DeviceRadixSort, behind C functions so that C code can call them; and
 * thrust::sort, what the course reports timed, on request (--thrust).
 * It is timed exactly like the stages: keys already on the device, a warm-up,
 * then the median of `runs` runs measured with CUDA events; allocation and
 * transfers are left out.
 *
 * A baseline is the library's fastest call for the same work.  CUB's radix sort takes
 * the count of keys as a template type, and each count type gets kernels of its own: on
 * Hopper, CUB's onesweep kernel for 32-bit keys sorted alone takes 74 registers a thread
 * with an `int` count and 56 with an `int64_t` one, which fits 3 of its 384-thread blocks
 * on a multiprocessor instead of 2 (07_onesweep/README.md, "CUB's fastest call").  So
 * every CUB sort here is timed in both forms, in turn, in the same process, and the
 * faster is the baseline.
 */
#ifndef COMMON_CUB_BASELINE_H
#define COMMON_CUB_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CUB's time on one sort, in both of its count types. */
typedef struct {
    double ms;     /* the faster call's median: the baseline every vs_cub divides by */
    double i32_ms; /* the median with an int count; -1: not run (more keys than an int counts) */
    double i64_ms; /* the median with an int64_t count */
} cub_times;

/* Which call was the faster: "i64" (int64_t count) or "i32" (int count). */
static inline const char *cub_call_name(const cub_times *t)
{
    return t->i32_ms > 0 && t->i32_ms < t->i64_ms ? "i32" : "i64";
}

/* Sorts keys (n of them) on the device with CUB: each count type `runs` times after one
 * warm-up, the two in turn.  Writes the sorted keys to out (may be NULL) and the medians
 * to *t.  Returns 0, or -1 with one line in err (for example: not enough device
 * memory). */
int cub_sort_keys(const uint32_t *keys, size_t n, int runs, uint32_t *out, cub_times *t,
                  char *err, size_t errlen);

/* thrust::sort of the same keys, timed as cub_sort_keys is (the copy of the input
 * into the array it sorts in place is left out of the time).  Thrust sorts 32-bit
 * keys with cub::DeviceRadixSort too, with a 64-bit count (CUB's faster kernels on
 * Hopper), but allocates and frees its temporary storage - a second array of n keys
 * and CUB's own - on every call, and waits for the GPU before it returns. */
int thrust_sort_keys(const uint32_t *keys, size_t n, int runs, uint32_t *out, double *median_ms,
                     char *err, size_t errlen);

/* The key types cub_sort_ordered reads the 4-byte keys as (sort_stage.h's key_type). */
enum { CUB_KEYS_U32 = 0, CUB_KEYS_I32 = 1, CUB_KEYS_F32 = 2 };

/* The other sorts a stage may be asked for: the keys read as key_type, ascending or
 * descending, by bits [begin_bit, end_bit) of their order-preserving form, with
 * values (NULL: keys only) that travel with them - cub::DeviceRadixSort::SortKeys,
 * SortPairs and their Descending forms, timed as cub_sort_keys is, in both count types.
 * out_keys and out_values may be NULL.  CUB's order is the course's (sort_stage.h) with
 * one exception: CUB treats -0.0 and +0.0 as equal keys. */
int cub_sort_ordered(const uint32_t *keys, const uint32_t *values, size_t n, int key_type,
                     int descending, int begin_bit, int end_bit, int runs, uint32_t *out_keys,
                     uint32_t *out_values, cub_times *t, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
