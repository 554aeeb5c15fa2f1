/*
 * 06_nn_histogram/nn_histogram.h - the GPU versions of stage 06 and the cuBLAS
 * baseline, behind C functions the driver (main.c) and the tests call.
 */
#ifndef STAGE06_NN_HISTOGRAM_H
#define STAGE06_NN_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "nn_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { NN_STEP_DISTANCES, NN_STEP_MINMAX, NN_STEP_THRESHOLDS, NN_STEP_HISTOGRAM, NN_STEPS };
#define NN_VERSIONS 14          /* versions 1 .. 14, one file each: vN_*.cu */
#define NN_CUBLAS (-1)          /* the cuBLAS FP32 baseline, where a version number is expected */
#define NN_CUBLAS_INT8 (-3)     /* the cuBLAS INT8 baseline (byte data only) */
#define NN_VERSION_REDUCE 3     /* the version whose min/max --reduce chooses */
#define NN_VERSION_BYTES 7      /* from here on, byte data only: on other data version 6 runs */
#define NN_VERSION_IMMA 8       /* from here on, a tensor-core pass, where it applies */

/* The reduction steps of the class notes, for version 3's min/max (--reduce). */
enum {
    NN_REDUCE_DIVERGENT = 1,  /* if (t % (2 * stride) == 0): most of each warp idles */
    NN_REDUCE_STRIDED = 2,    /* index 2 * stride * t: no divergence, bank conflicts */
    NN_REDUCE_SEQUENTIAL = 3, /* stride halving from blockDim / 2: neither */
    NN_REDUCE_SHUFFLE = 4,    /* warp shuffles, one shared-memory step */
};

typedef struct {
    double step_ms[NN_STEPS]; /* device time of each step, CUDA events */
    double total_ms;          /* the sum of the steps */
    int ran_version;          /* the version that ran (nn_version_runs_as) */
} nn_timing;

/* The problem's data on the device, uploaded once and shared by every run of
 * every version (the upload is not part of any version's time). */
typedef struct nn_device nn_device;

/* NULL and one line in err if the GPU cannot hold the problem. */
nn_device *nn_device_create(const nn_problem *p, char *err, size_t errlen);
void nn_device_destroy(nn_device *dev);
/* Fills the buffers a version writes (distances, per-query limits, thresholds, margins,
 * histograms) with garbage: the tests and the grader's race call it before each run, so
 * that a version that forgets to write one cannot pass on what the run before it left. */
void nn_device_poison_scratch(nn_device *dev);
double nn_device_setup_ms(const nn_device *dev);
/* The part of the setup that made versions 7-10's byte copies (0 if they do not apply). */
double nn_device_pack_ms(const nn_device *dev);

const char *nn_version_name(int version);

/* 1 if the version bins by the report's float rule (nn_report_bin in
 * bin_rule.h): its histograms may differ from the exact ones, as the
 * report's did, and the check counts the rows that do (nn_check_report_rule). */
int nn_version_report_bins(int version);

/* NULL if versions 8-14 run their tensor-core passes on this problem and GPU,
 * else why not (they run version 7's __dp4a pass then, or version 6 on data
 * that are not bytes: nn_version_runs_as). */
const char *nn_imma_unusable(const nn_device *dev);

/* Switches the tensor-core passes off, so that versions 8-14 run their
 * __dp4a pass (version 7's) as on a GPU without integer mma: for the tests. */
void nn_device_without_tensor_cores(nn_device *dev);

/* The version that runs when `version` is asked for: versions 7-10 need byte
 * data (else version 6 runs). */
int nn_version_runs_as(const nn_device *dev, int version);

/* Runs one version (1 .. NN_VERSIONS) on the whole problem; hist receives
 * queries x bins counts.  reduce: version 3's reduction (NN_REDUCE_*).
 * The version that ran is in timing->ran_version (nn_version_runs_as). */
int nn_run_version(nn_device *dev, int version, int reduce, uint32_t *hist, nn_timing *timing,
                   char *err, size_t errlen);

/* The bytes step NN_STEP_* of a version (or NN_CUBLAS) must move in device
 * memory, as modelled next to each version (vN_*.cu): the driver's GB/s. */
double nn_step_bytes(const nn_device *dev, int version, int step);

/* How many floats of {0} and [1, 2^24] versions 9-10's branch-free square root
 * (nn_sqrt_small in bin_rule.h) gets different from __fsqrt_rn: must be 0. */
long long nn_sqrt_small_check(void);

/* The baseline a user would reach for (cublas-fp32): cuBLAS SGEMM for the dot products,
 * ||q||^2 + ||r||^2 - 2 q.r, then min/max and histogram kernels over the
 * distances (same bin rule, same thresholds). */
int nn_run_cublas(nn_device *dev, uint32_t *hist, nn_timing *timing, char *err, size_t errlen);

/* The same on cuBLAS's integer GEMM (int8 in, int32 out: the tensor cores versions
 * 8-10 use), the bytes centred to -128..127.  NULL from nn_cublas_int8_unusable
 * where it applies (byte data, compute capability 6.1+), else why not. */
const char *nn_cublas_int8_unusable(const nn_device *dev);
int nn_run_cublas_int8(nn_device *dev, uint32_t *hist, nn_timing *timing, char *err,
                       size_t errlen);

/* NULL where the cuBLAS baselines are built (the course's repository), else why not: a lab
 * handout builds baseline_none.cu in their place, since their min/max and histogram kernels
 * would answer the holes of versions 3-5. */
const char *nn_cublas_absent(void);

/* 1 for the two library baselines' numbers (NN_CUBLAS, NN_CUBLAS_INT8), 0 for a version. */
static inline int nn_is_baseline(int version) { return version < 0; }

#ifdef __cplusplus
}
#endif
#endif
