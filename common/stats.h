/* stats.h - the median of repeated timings, and the grader's race. */
#ifndef COMMON_STATS_H
#define COMMON_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "keys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Index of the median of v[0..n) (the lower median for an even n). */
int median_index(const double *v, int n);

/* The grader's race (common/race.c, 06_nn_histogram/race.c, 08_multi_gpu/race.c): `runs`
 * runs (at most RACE_MAX_RUNS), each one call of time_one(RACE_COURSE, state), the
 * course's, and one of time_one(RACE_WORK, state), the student's, one right after the
 * other, who goes first alternating, so that neither always runs on a GPU the other has
 * just warmed.  Each call returns its time in ms.  Sets each file's fastest time, and the
 * ratio of the two, student / course.  Noise from elsewhere - another process on the
 * machine, on its caches and memory, on the GPU - only ever adds time: each file's fastest
 * run is the one it disturbed least.  On a busy 2-core machine the course's file raced
 * against itself stays closer to 1 this way than by the median of the runs' ratios
 * (tests/README.md, "Checks that involve time"). */
#define RACE_MAX_RUNS 100
enum { RACE_COURSE = 0, RACE_WORK = 1 }; /* time_one's who */
void race_pairs(double (*time_one)(int who, void *state), void *state, int runs,
                double *course_ms, double *work_ms, double *ratio);

/* A race's command line, [-n N] [--dist D] [--seed S] [--runs M] (common/race.c,
 * 08_multi_gpu/race.c): N up to n_max (default 2^24 + 1), D uniform, S the course's seed, M
 * 15.  A bad one: the usage on stderr, exit 2. */
typedef struct {
    size_t n;
    key_dist dist;
    uint64_t seed;
    int runs; /* timed sorts by each */
} race_config;
race_config race_parse_args(int argc, char **argv, size_t n_max);
/* "race: error: MESSAGE" and the usage on stderr, exit 2. */
void race_usage_error(const char *message);

#ifdef __cplusplus
}
#endif
#endif
