/*
 * 06_nn_histogram/nn_problem.h - one nearest-neighbour distance-histogram
 * problem, and the CPU reference that checks every GPU version.
 */
#ifndef STAGE06_NN_PROBLEM_H
#define STAGE06_NN_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The stage's default problem: SIFT1M's sizes, K = 5000, and the generator's seed (the
 * queries are made with it, the references with seed + 1) - 06_nn_histogram's defaults,
 * and the data of the grader's race (race.c), with fewer queries. */
#define NN_DEFAULT_QUERIES 10000
#define NN_DEFAULT_REFS 1000000
#define NN_DEFAULT_DIMS 128
#define NN_DEFAULT_BINS 5000
#define NN_DEFAULT_SEED 2026

typedef struct {
    int queries, refs, dims, bins;
    const float *query; /* queries x dims, row after row (host) */
    const float *base;  /* refs x dims (host) */
} nn_problem;

/* 1 if the GPU's squared distances are exact: every component an integer from
 * 0 to 255 and at most 129 dimensions.  Then every product, every partial sum
 * and ||q||^2 + ||r||^2 stay integers below 2^24, which float32 holds exactly,
 * in whatever order a kernel (or cuBLAS) adds them. */
int nn_exact_data(const nn_problem *p);

/* 1 if versions 7-10 (bytes, integer tensor cores) apply: every component
 * an integer from 0 to 255 and at most 256 dimensions.  Their int32 dot products are exact
 * for bytes in any number of dimensions; the limit keeps the squared
 * distances (at most 256 x 255^2) below 2^24, exact as the floats that the
 * thresholds compare. */
int nn_imma_data(const nn_problem *p);

/* The reference for query q, in double precision: the histogram by nn_bin
 * (hist[0 .. bins)), and the smallest and largest squared distances.  With
 * near_edge (bins + 1 counters, or NULL), near_edge[j] counts the distances
 * within float rounding of the edge between bins j - 1 and j: where the GPU's
 * float32 arithmetic may legitimately land on the other side.  With
 * report_hist (or NULL), also the histogram by the report's float rule
 * (nn_report_bin): what version 1 must count on exact data. */
void nn_reference_row(const nn_problem *p, int q, uint32_t *hist, uint32_t *near_edge,
                      uint32_t *report_hist, double *smin, double *smax);

/* The rows the check compares with the reference: `count` queries spread
 * evenly from the first to the last (all of them if count >= queries). */
int nn_sample_rows(int queries, int count, int *rows);

/* The reference of the sampled rows, computed once (in threads), reused for
 * every version of a run. */
typedef struct {
    int nrows, bins;
    int *rows;
    uint32_t *hist;      /* nrows x bins */
    uint32_t *near_edge; /* nrows x (bins + 1) */
    uint32_t *report_hist; /* nrows x bins: the report's float rule */
} nn_reference;

int nn_reference_create(const nn_problem *p, int sample, nn_reference *ref);
void nn_reference_destroy(nn_reference *ref);

/* Checks a GPU result (queries x bins counts): every row sums to the number of
 * references, and the sampled rows equal the reference - bin for bin when
 * `exact`, otherwise within near_edge at each bin's two edges.  0 if it passes;
 * otherwise -1 and one line in msg (the query, the bin and both counts). */
int nn_check(const nn_problem *p, const nn_reference *ref, const uint32_t *hist, int exact,
             char *msg, size_t msglen);

/* The check of a version that bins by the report's float rule (nn_report_bin):
 * every row sums to the number of references and, on exact data, every
 * sampled row equals the float rule's row of the CPU bin for bin.
 * *mismatched receives the number of sampled rows that differ from the exact
 * reference (within float rounding at edges on other data): the rule's cost,
 * not a failure.  0 if it passes; otherwise -1 and one line in msg. */
int nn_check_report_rule(const nn_problem *p, const nn_reference *ref, const uint32_t *hist,
                         int exact, int *mismatched, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
