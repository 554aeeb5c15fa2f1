/*
 * 06_nn_histogram/baseline_cublas.cu - the baselines a user would reach for.
 *
 * The squared distance expands as ||q||^2 + ||r||^2 - 2 q.r, and the dot
 * products of a chunk of queries with every reference are one matrix product.
 * Two libraries' products, two baselines:
 *   cublas-fp32  cuBLAS SGEMM on the float vectors (exact on byte data too: every
 *                product and partial sum is an integer below 2^24);
 *   cublas-int8  cuBLAS's integer GEMM (int8 inputs, int32 results) on the same
 *                tensor cores as versions 8-14.  int8 holds -128..127, so the byte
 *                components are centred, c - 128: a distance does not change when
 *                both points move by the same vector, and the norms are those of the
 *                centred vectors.  Byte data only (components 0..255).
 * Then a kernel adds the norms and finds each query's min/max, the thresholds
 * are computed as in every version, and a histogram kernel with a private
 * shared-memory histogram per block counts the bins.  The distances of a chunk
 * (chunk x R words) go through global memory three times: written by the GEMM,
 * read and rewritten by the norms/min/max kernel, read by the histogram.
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

/* A warp's min/max (of float bits: non-negative floats order as their bits) into query
 * q's, by shuffles and one atomic per warp. */
__device__ void fold_minmax(uint32_t mn, uint32_t mx, int q, uint32_t *smin, uint32_t *smax)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        mn = min(mn, __shfl_down_sync(FULL_MASK, mn, offset));
        mx = max(mx, __shfl_down_sync(FULL_MASK, mx, offset));
    }
    if (threadIdx.x % 32 == 0) {
        atomicMin(&smin[q], mn);
        atomicMax(&smax[q], mx);
    }
}

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
    fold_minmax(mn, mx, q, smin, smax);
}

/* One query per block row; each block counts a slice of the references into
 * its own histogram in shared memory (K counters) and adds it to the global one. */
__global__ void histogram_shared(const float *dist, int refs, size_t ld, int q0, int k,
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
    const float *row = dist + (size_t)blockIdx.y * ld;
    __syncthreads();
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < refs; r += gridDim.x * blockDim.x) {
        atomicAdd(&s_hist[nn_bin_guessed(row[r], thr, k, root, scale)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < k; b += blockDim.x)
        if (s_hist[b] != 0)
            atomicAdd(&hist[(size_t)q * k + b], s_hist[b]);
}

/* ---- cublas-int8: centred bytes, an integer GEMM, then the same passes ------ */

/* Rows of 4-byte-aligned int8 (ld a multiple of 16): cuBLAS's integer GEMM wants it. */
#define INT8_LD_ALIGN 16

/* Row i of src (rows x d floats, integers 0..255) as int8 c - 128 in dst (rows x ld,
 * zeros past d: they add nothing to any product or norm), and its squared norm. */
__global__ void centre_bytes(const float *src, int rows, int d, int ld, int8_t *dst, int *norm)
{
    __shared__ int s_norm;
    int row = blockIdx.x;
    if (threadIdx.x == 0)
        s_norm = 0;
    __syncthreads();
    int mine = 0;
    for (int j = threadIdx.x; j < ld; j += blockDim.x) {
        int c = j < d ? (int)src[(size_t)row * d + j] - 128 : 0;
        dst[(size_t)row * ld + j] = (int8_t)c;
        mine += c * c;
    }
    atomicAdd(&s_norm, mine);
    __syncthreads();
    if (threadIdx.x == 0)
        norm[row] = s_norm;
}

/* dot[q * ldd + r] holds q'.r' (centred); the squared distance ||q'||^2 + ||r'||^2 -
 * 2 q'.r' is an integer below 2^24, exact as a float: written as one, in place, with
 * each query's min/max folded in, as add_norms_minmax does for SGEMM's products. */
__global__ void add_norms_minmax_int8(int *dot, int refs, int ldd, int q0, const int *qnorm,
                                      const int *rnorm, uint32_t *smin, uint32_t *smax)
{
    int q = q0 + blockIdx.y;
    int qn = qnorm[q];
    int *row = dot + (size_t)blockIdx.y * ldd;
    uint32_t mn = 0xFFFFFFFFu, mx = 0;
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < refs; r += gridDim.x * blockDim.x) {
        float s = (float)(qn + rnorm[r] - 2 * row[r]);
        ((float *)row)[r] = s;
        mn = min(mn, __float_as_uint(s));
        mx = max(mx, __float_as_uint(s));
    }
    fold_minmax(mn, mx, q, smin, smax);
}

extern "C" const char *nn_cublas_absent(void) { return NULL; }

extern "C" const char *nn_cublas_int8_unusable(const nn_device *dev)
{
    if (!dev->bytes)
        return "the data are not bytes (integers 0..255, at most 256 dimensions)";
    if (gpu_compute_capability() < 61)
        return "integer GEMM needs compute capability 6.1 or newer";
    return NULL;
}

/* As many queries a chunk as a quarter of the free memory holds (rows of `row_bytes`);
 * 0 and a message if not even one fits, or if the bins do not fit in shared memory. */
static size_t baseline_chunk(const nn_problem *p, size_t row_bytes, const char *who, char *err,
                             size_t errlen)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t chunk = free_bytes / 4 / row_bytes;
    if (chunk < 1) {
        snprintf(err, errlen, "%s: not even one row of %d distances fits on the GPU", who, p->refs);
        return 0;
    }
    if ((size_t)p->bins * sizeof(uint32_t) > gpu_shared_memory_per_block()) {
        snprintf(err, errlen, "%s: %d bins do not fit in a block's shared memory", who, p->bins);
        return 0;
    }
    return chunk > (size_t)p->queries ? (size_t)p->queries : chunk;
}

/* The rest of a chunk, after its min/max, for both baselines: the thresholds, then the
 * histogram pass over the chunk's float distances (row stride ld), each timed. */
static void thresholds_and_histogram(nn_device *dev, const float *dist, size_t ld, int q0,
                                     int count)
{
    const nn_problem *p = &dev->p;
    nn_launch_thresholds(dev, q0, count, 0);
    step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);
    unsigned hist_slices = (unsigned)((p->refs + 256 * 32 - 1) / (256 * 32));
    histogram_shared<<<dim3(hist_slices, (unsigned)count), 256,
                       (size_t)p->bins * sizeof(uint32_t)>>>(dist, p->refs, ld, q0, p->bins,
                                                             dev->smin, dev->smax,
                                                             dev->threshold, dev->hist);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
    nn_timer_flush(dev);
}

/* After the last chunk: the steps' times summed into timing, the counts downloaded. */
static void finish_baseline(nn_device *dev, int baseline, nn_timing *timing, uint32_t *hist)
{
    nn_timer_flush(dev);
    nn_timing_from_report(dev, timing);
    timing->ran_version = baseline;
    nn_download_hist(dev, hist);
}

extern "C" int nn_run_cublas_int8(nn_device *dev, uint32_t *hist, nn_timing *timing, char *err,
                                  size_t errlen)
{
    const nn_problem *p = &dev->p;
    const char *why = nn_cublas_int8_unusable(dev);
    if (why) {
        snprintf(err, errlen, "cuBLAS INT8 baseline: %s", why);
        return -1;
    }
    /* setup, not timed (like the versions' byte copies): centred bytes and their norms */
    int ld = (int)nn_round_up((size_t)p->dims, INT8_LD_ALIGN);
    size_t ldd = nn_round_up((size_t)p->refs, 4); /* int32 rows of the products */
    int8_t *query8 = (int8_t *)gpu_alloc((size_t)p->queries * ld, 1);
    int8_t *base8 = (int8_t *)gpu_alloc((size_t)p->refs * ld, 1);
    int *qnorm = (int *)gpu_alloc((size_t)p->queries * sizeof(int), 1);
    int *rnorm = (int *)gpu_alloc((size_t)p->refs * sizeof(int), 1);
    centre_bytes<<<p->queries, 128>>>(dev->query, p->queries, p->dims, ld, query8, qnorm);
    CUDA_CHECK_LAUNCH();
    centre_bytes<<<p->refs, 128>>>(dev->base, p->refs, p->dims, ld, base8, rnorm);
    CUDA_CHECK_LAUNCH();
    size_t chunk = baseline_chunk(p, ldd * sizeof(int), "cuBLAS INT8 baseline", err, errlen);
    if (chunk == 0)
        return -1;
    int *dot = (int *)gpu_alloc(chunk * ldd * sizeof(int), 1);
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));

    report_clear(&dev->report, 1);
    nn_clear_results(dev);
    step_timer_start(&dev->timer);
    const int one = 1, zero = 0;
    for (int q0 = 0; q0 < p->queries; q0 += (int)chunk) {
        int count = p->queries - q0 < (int)chunk ? p->queries - q0 : (int)chunk;
        /* as the SGEMM below: dot (R x count, ldc = ldd) = base8^T queries8 */
        CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, p->refs, count, ld, &one,
                                  base8, CUDA_R_8I, ld, query8 + (size_t)q0 * ld, CUDA_R_8I, ld,
                                  &zero, dot, CUDA_R_32I, (int)ldd, CUBLAS_COMPUTE_32I,
                                  CUBLAS_GEMM_DEFAULT));
        step_timer_mark(&dev->timer, 0, NN_STEP_DISTANCES);

        unsigned slices = (unsigned)((p->refs + 256 * 8 - 1) / (256 * 8));
        add_norms_minmax_int8<<<dim3(slices, (unsigned)count), 256>>>(
            dot, p->refs, (int)ldd, q0, qnorm, rnorm, dev->smin, dev->smax);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);

        thresholds_and_histogram(dev, (const float *)dot, ldd, q0, count);
    }
    finish_baseline(dev, NN_CUBLAS_INT8, timing, hist);
    CUBLAS_CHECK(cublasDestroy(handle));
    gpu_free(dot);
    gpu_free(rnorm);
    gpu_free(qnorm);
    gpu_free(base8);
    gpu_free(query8);
    return 0;
}

/* ---- cublas-fp32 ------------------------------------------------------------ */

extern "C" int nn_run_cublas(nn_device *dev, uint32_t *hist, nn_timing *timing, char *err,
                             size_t errlen)
{
    const nn_problem *p = &dev->p;
    size_t row_bytes = (size_t)p->refs * sizeof(float);
    size_t chunk = baseline_chunk(p, row_bytes, "cuBLAS FP32 baseline", err, errlen);
    if (chunk == 0)
        return -1;
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

        thresholds_and_histogram(dev, dist, (size_t)p->refs, q0, count);
    }
    finish_baseline(dev, NN_CUBLAS, timing, hist);
    CUBLAS_CHECK(cublasDestroy(handle));
    gpu_free(dist);
    return 0;
}
