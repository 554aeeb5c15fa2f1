/* stats.h - the median of repeated timings. */
#ifndef COMMON_STATS_H
#define COMMON_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Index of the median of v[0..n) (the lower median for an even n). */
int median_index(const double *v, int n);

#ifdef __cplusplus
}
#endif
#endif
