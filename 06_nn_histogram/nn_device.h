/*
 * 06_nn_histogram/nn_device.h - what the versions (nn_histogram.cu) and the
 * cuBLAS baseline (baseline_cublas.cu) share on the device.  Internal.
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
    float *margin;      /* per query, the margin of nn_bin_fast (versions 5 and 6) */
    uint32_t *hist;     /* queries x bins */
    float *dist;        /* chunk x refs squared distances (versions 1-3) */
    uint32_t *query8;   /* version 6: the queries as bytes in fragment order (imma_layout.h) */
    uint32_t *base8;    /* ... and the references */
    int kblocks;        /* blocks of 128 dimensions per packed vector */
    int imma;           /* 1 if version 6 can run here, on these data */
    char imma_why[160]; /* why it cannot */
    int chunk;          /* queries per chunk of versions 1-3 */
    double setup_ms;
    double pack_ms;     /* the part of setup_ms that made version 6's byte copies */
    step_timer timer;
    sort_report report; /* one row: the steps' times, summed */
};

/* Both files' steps: clear the min/max and the counts, compute the thresholds
 * of queries [q0, q0 + count) (and their margins, with_margin), download the
 * counts. */
void nn_clear_results(nn_device *dev);
void nn_launch_thresholds(nn_device *dev, int q0, int count, int with_margin);
void nn_download_hist(nn_device *dev, uint32_t *hist);
/* Collects the timer into dev->report (one row) and restarts it. */
void nn_timer_flush(nn_device *dev);
void nn_timing_from_report(const nn_device *dev, nn_timing *timing);

#endif
