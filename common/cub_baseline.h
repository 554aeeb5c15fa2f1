/*
 * cub_baseline.h - the library every GPU stage is measured against:
 * cub::DeviceRadixSort::SortKeys, behind a C function so that C code can call it.
 * It is timed exactly like the stages: keys already on the device, a warm-up,
 * then the median of `runs` runs measured with CUDA events; allocation and
 * transfers are left out.
 */
#ifndef COMMON_CUB_BASELINE_H
#define COMMON_CUB_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts keys (n of them) on the device with CUB, `runs` times after one
 * warm-up.  Writes the sorted keys to out (may be NULL) and the median time in
 * milliseconds to *median_ms.  Returns 0, or -1 with one line in err (for
 * example: not enough device memory). */
int cub_sort_keys(const uint32_t *keys, size_t n, int runs, uint32_t *out, double *median_ms,
                  char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
