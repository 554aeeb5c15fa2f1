/*
 * 06_nn_histogram/baseline_cublas.cu - the baseline a user would reach for.
 *
 * The squared distance expands as ||q||^2 + ||r||^2 - 2 q.r, and the dot
 * products of a chunk of queries with every reference are one matrix product:
 * cuBLAS SGEMM.  Then a kernel adds the norms and finds each query's min/max,
 * the thresholds are computed as in every version, and a histogram kernel with
 * a private shared-memory histogram per block counts the bins.  The distances
 * of a chunk (chunk x R floats) go through global memory three times: written
 * by SGEMM, read and rewritten by the norms/min/max kernel, read by the
 * histogram.
 */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>

#include "bin_rule.h"
#include "cuda_check.h"
#include "gpu.h"
#include "nn_device.h"

#define FULL_MASK 0xFFFFFFFFu

static const char *cublas_status_name(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "a cuBLAS error";
    }
}

#define CUBLAS_CHECK(call)                                                                   \
    do {                                                                                     \
        cublasStatus_t status_ = (call);                                                     \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                                              \
            fprintf(stderr, "%s:%d: %s in `%s`\n", __FILE__, __LINE__,                       \
                    cublas_status_name(status_), #call);                                     \
            exit(EXIT_CUDA_ERROR);                                                           \
        }                                                                                    \
    } while (0)

/* dist[q * refs + r] holds -2 q.r; make it the squared distance, and fold each
 * query's min/max in (warp shuffles, then one atomic per warp). */
__global__ void add_norms_minmax(float *dist, int refs, int q0, const float *qnorm,
                                 const float *rnorm, uint32_t *smin, uint32_t *smax)
{
    int q = q0 + blockIdx.y;
    float qn = qnorm[q];
    float *row = dist + (size_t)blockIdx.y * refs;
    uint32_t mn = 0xFFFFFFFFu, mx = 0;
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < refs; r += gridDim.x * blockDim.x) {
        float s = qn + rnorm[r] + row[r];
        s = s > 0.0f ? s : 0.0f;
        row[r] = s;
        mn = min(mn, __float_as_uint(s));
        mx = max(mx, __float_as_uint(s));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        mn = min(mn, __shfl_down_sync(FULL_MASK, mn, offset));
        mx = max(mx, __shfl_down_sync(FULL_MASK, mx, offset));
    }
    if (threadIdx.x % 32 == 0) {
        atomicMin(&smin[q], mn);
        atomicMax(&smax[q], mx);
    }
}

/* One query per block row; each block counts a slice of the references into
 * its own histogram in shared memory (K counters) and adds it to the global one. */
__global__ void histogram_shared(const float *dist, int refs, int q0, int k,
                                 const uint32_t *smin, const uint32_t *smax,
                                 const float *threshold, uint32_t *hist)
{
    extern __shared__ uint32_t s_hist[];
    int q = q0 + blockIdx.y;
    for (int b = threadIdx.x; b < k; b += blockDim.x)
        s_hist[b] = 0;
    float root, scale;
    nn_guess_params(__uint_as_float(smin[q]), __uint_as_float(smax[q]), k, &root, &scale);
    const float *thr = threshold + (size_t)q * (k - 1);
    const float *row = dist + (size_t)blockIdx.y * refs;
    __syncthreads();
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < refs; r += gridDim.x * blockDim.x) {
        atomicAdd(&s_hist[nn_bin_guessed(row[r], thr, k, root, scale)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < k; b += blockDim.x)
        if (s_hist[b] != 0)
            atomicAdd(&hist[(size_t)q * k + b], s_hist[b]);
}

extern "C" int nn_run_cublas(nn_device *dev, uint32_t *hist, nn_timing *timing, char *err,
                             size_t errlen)
{
    const nn_problem *p = &dev->p;
    /* as many queries per SGEMM as a quarter of the free memory holds */
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t row_bytes = (size_t)p->refs * sizeof(float);
    size_t chunk = free_bytes / 4 / row_bytes;
    if (chunk < 1) {
        snprintf(err, errlen, "cuBLAS baseline: not even one row of %d distances fits on the GPU",
                 p->refs);
        return -1;
    }
    if (chunk > (size_t)p->queries)
        chunk = (size_t)p->queries;
    if ((size_t)p->bins * sizeof(uint32_t) > gpu_shared_memory_per_block()) {
        snprintf(err, errlen, "cuBLAS baseline: %d bins do not fit in a block's shared memory",
                 p->bins);
        return -1;
    }
    float *dist = (float *)gpu_alloc(chunk * row_bytes, 1);
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    report_clear(&dev->report, 1);
    nn_clear_results(dev);
    step_timer_start(&dev->timer);
    const float minus_two = -2.0f, zero = 0.0f;
    for (int q0 = 0; q0 < p->queries; q0 += (int)chunk) {
        int count = p->queries - q0 < (int)chunk ? p->queries - q0 : (int)chunk;
        /* column-major view: base is d x R (lda = d), the chunk of queries d x count;
         * dist (R x count, ldc = R) = -2 base^T queries, so dist[q * R + r] = -2 q.r */
        CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, p->refs, count, p->dims,
                                 &minus_two, dev->base, p->dims,
                                 dev->query + (size_t)q0 * p->dims, p->dims, &zero, dist,
                                 p->refs));
        step_timer_mark(&dev->timer, 0, NN_STEP_DISTANCES);

        unsigned slices = (unsigned)((p->refs + 256 * 8 - 1) / (256 * 8));
        add_norms_minmax<<<dim3(slices, (unsigned)count), 256>>>(dist, p->refs, q0, dev->qnorm,
                                                                 dev->rnorm, dev->smin, dev->smax);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);

        nn_launch_thresholds(dev, q0, count, 0);
        step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);

        unsigned hist_slices = (unsigned)((p->refs + 256 * 32 - 1) / (256 * 32));
        histogram_shared<<<dim3(hist_slices, (unsigned)count), 256,
                           (size_t)p->bins * sizeof(uint32_t)>>>(dist, p->refs, q0, p->bins,
                                                                 dev->smin, dev->smax,
                                                                 dev->threshold, dev->hist);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
        nn_timer_flush(dev);
    }
    nn_timer_flush(dev);
    nn_timing_from_report(dev, timing);
    nn_download_hist(dev, hist);
    CUBLAS_CHECK(cublasDestroy(handle));
    gpu_free(dist);
    return 0;
}
