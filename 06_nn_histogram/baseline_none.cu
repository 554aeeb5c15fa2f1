/*
 * 06_nn_histogram/baseline_none.cu - the cuBLAS baselines, left out: what a lab handout of
 * stage 06 builds in place of baseline_cublas.cu (tools/handout.sh copies it there).
 *
 * The baselines time cuBLAS's matrix products, then bin the distances with min/max and
 * histogram kernels of their own - kernels that would answer the holes of versions 3 to 5.
 * So a handout has none: its program and its tests run the versions alone, and say so.  The
 * course's repository (make run, make bench) times the baselines.
 */
#include <stdio.h>

#include "nn_histogram.h"

extern "C" const char *nn_cublas_absent(void)
{
    return "a lab handout leaves them out (their kernels would answer its holes)";
}

extern "C" const char *nn_cublas_int8_unusable(const nn_device *dev)
{
    (void)dev;
    return nn_cublas_absent();
}

extern "C" int nn_run_cublas(nn_device *dev, uint32_t *hist, nn_timing *timing, char *err,
                             size_t errlen)
{
    (void)dev, (void)hist, (void)timing;
    snprintf(err, errlen, "the cuBLAS baselines: %s", nn_cublas_absent());
    return -1;
}

extern "C" int nn_run_cublas_int8(nn_device *dev, uint32_t *hist, nn_timing *timing, char *err,
                                  size_t errlen)
{
    return nn_run_cublas(dev, hist, timing, err, errlen);
}
