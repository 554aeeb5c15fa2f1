/*
 * 06_nn_histogram/nn_device.h - what the versions (vN_*.cu), their shared
 * plumbing (nn_common.cu) and the cuBLAS baseline (baseline_cublas.cu) share
 * on the device.  Internal.
 */
#ifndef STAGE06_NN_DEVICE_H
#define STAGE06_NN_DEVICE_H

#include "nn_histogram.h"
#include "timer.h"

struct nn_device {
    nn_problem p;
    float *query;       /* queries x dims */
    float *base;        /* refs x dims, as in the file */
    float *base_t;      /* dims x refs: the same, transposed, for coalesced tiles */
    float *qnorm;       /* ||q||^2 per query */
    float *rnorm;       /* ||r||^2 per reference */
    uint32_t *smin;     /* per query, the bits of the smallest squared distance */
    uint32_t *smax;     /* ... and of the largest */
    float *threshold;   /* queries x (bins - 1): see bin_rule.h */
    float *margin;      /* per query, the margin of nn_bin_fast (versions 6 to 14) */
    uint32_t *hist;     /* queries x bins */
    float *dist;        /* chunk x refs distances (versions 1-4) */
    uint32_t *thread_hist; /* chunk x 64 x bins: versions 1-2's per-thread histograms */
    uint32_t *query4;   /* versions 7-10: the queries as bytes, 4 dimensions a word (queries x words) */
    uint32_t *base4;    /* ... and the references, transposed (words x refs) */
    int words;          /* words per vector: dims / 4, rounded up */
    int bytes;          /* 1 if the data are bytes (nn_imma_data): versions 7-10 apply */
    uint32_t *query8;   /* versions 8-14: the queries as bytes in fragment order (imma_layout.h) */
    uint32_t *base8;    /* ... and the references */
    int kblocks;        /* blocks of 128 dimensions per packed vector */
    int imma;           /* 1 if the tensor-core passes of versions 8-14 run here */
    char imma_why[160]; /* why it cannot */
    int chunk;          /* queries per chunk of versions 1-4 */
    double setup_ms;
    double pack_ms;     /* the part of setup_ms that made versions 7-10's byte copies */
    step_timer timer;
    sort_report report; /* one row: the steps' times, summed */
};

/* One version: its file (vN_*.cu) defines nn_version_N. */
typedef struct {
    const char *name;
    int report_bins; /* 1: bins by the report's float rule (nn_report_bin), inexact on purpose */
    void (*run)(nn_device *dev, int reduce); /* the whole problem, each step timed */
    /* the bytes step NN_STEP_* must move in device memory, as modelled there */
    double (*step_bytes)(const nn_device *dev, int step);
} nn_version;

extern const nn_version nn_version_1, nn_version_2, nn_version_3, nn_version_4, nn_version_5,
    nn_version_6, nn_version_7, nn_version_8, nn_version_9, nn_version_10, nn_version_11,
    nn_version_12, nn_version_13, nn_version_14;

/* Runs the version v describes on the whole problem, as nn_run_version runs version N
 * (timing->ran_version is left as it was): the grader's race (race.c) runs a student's
 * copy of a version this way, beside the course's. */
#ifdef __cplusplus
extern "C"
#endif
void nn_run_given(nn_device *dev, const nn_version *v, int reduce, uint32_t *hist,
                  nn_timing *timing);

#define FULL_MASK 0xFFFFFFFFu
#define PER_THREAD_HISTS 64 /* versions 1-2: threads (and histograms) per query, as in the report */

/* The steps every version shares (nn_common.cu): clear the min/max and the
 * counts, compute the thresholds of queries [q0, q0 + count) (and their
 * margins, with_margin), download the counts. */
void nn_clear_results(nn_device *dev);
void nn_launch_thresholds(nn_device *dev, int q0, int count, int with_margin);
void nn_download_hist(nn_device *dev, uint32_t *hist);
/* Collects the timer into dev->report (one row) and restarts it. */
void nn_timer_flush(nn_device *dev);
void nn_timing_from_report(const nn_device *dev, nn_timing *timing);
size_t nn_round_up(size_t x, size_t m);

#ifdef __CUDACC__
#include "bin_rule.h"

/* nn_guess_params (bin_rule.h) for query q, from its min/max bits. */
static __device__ __forceinline__ void bin_guess_params(const uint32_t *smin,
                                                        const uint32_t *smax, int q, int k,
                                                        float *root, float *scale)
{
    nn_guess_params(__uint_as_float(smin[q]), __uint_as_float(smax[q]), k, root, scale);
}
#endif

#endif
