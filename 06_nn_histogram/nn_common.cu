/*
 * 06_nn_histogram/nn_common.cu - what every version of stage 06 shares: the
 * data on the device, the thresholds, the timer, the table of versions and
 * the entry point.  The versions themselves are one file each, in the order
 * the lesson builds them (make diff FROM=06.N TO=06.N+1 shows one step):
 *
 *   v1_report.cu         report 004's pipeline: tiled distances, 64 threads'
 *                        histograms summed by an adder, float bins (inexact)
 *   v2_exact_bins.cu     the same with the exact rule (bin_rule.h)
 *   v3_privatised.cu     the min/max reduced well; one histogram per block in
 *                        shared memory
 *   v4_register_tiles.cu each thread an 8 x 8 tile of dot products in registers
 *   v5_fused.cu          fused: no distances in memory, all queries in one grid
 *   v6_margin_bins.cu    exact bins without reading the thresholds
 *   v7_bytes.cu          bytes in place of floats: 4 dimensions a word, __dp4a
 *   v8_tensor_cores.cu   integer tensor cores on byte data
 *   v9_binning.cu        a thread's distances binned side by side, no branches
 *   v10_copies.cu        histogram copies, so that a warp's atomics do not collide
 *   v11_warps.cu         more warps a block: latency hidden by occupancy
 *   v12_packed_counters.cu  16-bit counters: twice the queries a block at large K
 *   v13_minmax_queries.cu   a min/max pass of 64 queries a block
 *   v14_swapped_operands.cu queries as the mma's A operand, references as B
 *
 * The problem (course report 004): Q query points and R reference points in d
 * dimensions (SIFT1M: 10,000 x 1,000,000 x 128).  For each query, the distances
 * to every reference, their minimum and maximum, and the count of distances in
 * each of K equal-width bins from the minimum to the maximum.  Every version
 * but the report's works on SQUARED distances s: the square root is monotone,
 * so the minimum and maximum are those of s, and the bin rule (bin_rule.h)
 * takes s.  Binning is exact: each query's K - 1 thresholds are computed once
 * from the rule, and a distance is binned by comparing it with them.
 *
 * Exactness: versions 1-3 sum (q_i - r_i)^2 and versions 4-6 use the dot
 * product, both in float32.  On integer data 0..255 with d <= 129 every partial
 * sum is an integer below 2^24, which float32 holds exactly, so every version
 * computes the exact squared distances - and, through the thresholds, the
 * exact bins (nn_exact_data in nn_problem.h).  Versions 7-10 sum in int32,
 * exact on any byte data; their squared distances stay below 2^24, exact as
 * floats, up to 256 dimensions (nn_imma_data).  Version 1 alone bins by the report's
 * float rule and gets some rows wrong, as the report did.
 *
 * Run:  build/bin/06_nn_histogram --version 8 --bins 5000    (make diff FROM=06.7 TO=06.8)
 *       build/bin/06_nn_histogram -q 1000 -r 100000 --version all
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bin_rule.h"
#include "cuda_check.h"
#include "gpu.h"
#include "imma_layout.h"
#include "nn_device.h"

/* ---- setup: the data on the device ---------------------------------------- */

/* dst[c * rows + r] = src[r * cols + c], through a shared tile so that both the
 * reads and the writes are coalesced.  Rows (references) run along grid x. */
__global__ void transpose(const float *src, float *dst, int rows, int cols)
{
    __shared__ float tile[32][33]; /* 33: the column reads hit 32 different banks */
    int r0 = blockIdx.x * 32, c0 = blockIdx.y * 32;
    for (int i = threadIdx.y; i < 32; i += blockDim.y) { /* read rows: along the columns */
        int r = r0 + i, c = c0 + threadIdx.x;
        if (r < rows && c < cols)
            tile[i][threadIdx.x] = src[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int i = threadIdx.y; i < 32; i += blockDim.y) { /* write columns: along the rows */
        int c = c0 + i, r = r0 + threadIdx.x;
        if (r < rows && c < cols)
            dst[(size_t)c * rows + r] = tile[threadIdx.x][i];
    }
}

/* ||x||^2 of each of n vectors, one warp per vector. */
__global__ void squared_norms(const float *x, int n, int d, float *norm)
{
    int v = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (v >= n)
        return;
    float sum = 0.0f;
    for (int i = lane; i < d; i += 32) {
        float a = x[(size_t)v * d + i];
        sum = fmaf(a, a, sum);
    }
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(FULL_MASK, sum, offset);
    if (lane == 0)
        norm[v] = sum;
}

/* Versions 7-10's copy of n vectors: bytes, 4 dimensions to a word (the last word
 * padded with zeros), word w of vector v at w * n + v when transposed (the
 * references: neighbouring threads read neighbouring vectors), else at
 * v * words + w. */
__global__ void pack_words(const float *src, int n, int d, int words, int transposed,
                           uint32_t *dst)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n * words)
        return;
    size_t v = transposed ? i % n : i / words;
    int w = (int)(transposed ? i / n : i % words);
    uint32_t word = 0;
    for (int b = 0; b < 4; b++)
        if (4 * w + b < d)
            word |= (uint32_t)src[v * d + 4 * w + b] << (8 * b);
    dst[i] = word;
}

/* Versions 8-10's copy of n vectors: bytes, padded to rows_pad rows and to whole
 * blocks of 128 dimensions, each block's words in the fragments' order. */
__global__ void pack_bytes(const float *src, int n, int d, int rows_pad, int kblocks,
                           uint32_t *dst)
{
    size_t words_per_row = (size_t)kblocks * IMMA_BLOCK_WORDS;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows_pad * words_per_row)
        return;
    size_t row = i / words_per_row;
    int w = (int)(i % words_per_row);
    dst[i] = row < (size_t)n ? imma_pack_word(src + row * d, d, w) : 0u;
}

/* packed rows come in whole warp steps (references) and blocks (queries: up to
 * 64 in the min/max pass of versions 13 and 14) */
#define I_ROWS_ALIGN 64

size_t nn_round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

/* Versions 7-10 need byte data in at most 256 dimensions (nn_imma_data;
 * otherwise version 6 runs), and the tensor-core passes of versions 8-14
 * mma.sync with u8 inputs (compute capability 7.5 and later, Turing in four
 * m8n8k16 instructions a tile; otherwise they run version 7's __dp4a pass). */
static int imma_usable(int byte_data, char *why, size_t whylen)
{
    if (gpu_compute_capability() < 75) {
        snprintf(why, whylen, "integer mma needs compute capability 7.5 or later");
        return 0;
    }
    if (!byte_data) {
        snprintf(why, whylen, "the data are not integers 0..255 in at most 256 dimensions");
        return 0;
    }
    return 1;
}

static void pack_vectors(const float *src, int n, int d, int rows_pad, int kblocks,
                         uint32_t *dst)
{
    size_t words = (size_t)rows_pad * kblocks * IMMA_BLOCK_WORDS;
    pack_bytes<<<(unsigned)((words + 255) / 256), 256>>>(src, n, d, rows_pad, kblocks, dst);
    CUDA_CHECK_LAUNCH();
}

extern "C" nn_device *nn_device_create(const nn_problem *p, char *err, size_t errlen)
{
    size_t q = (size_t)p->queries, r = (size_t)p->refs, d = (size_t)p->dims, k = (size_t)p->bins;
    int chunk = p->queries < 32 ? p->queries : 32;
    char why[160];
    int byte_data = nn_imma_data(p), words = (p->dims + 3) / 4; /* one pass over the data */
    int imma = imma_usable(byte_data, why, sizeof why);
    int kblocks = (p->dims + IMMA_BLOCK_DIMS - 1) / IMMA_BLOCK_DIMS;
    size_t q_pad = nn_round_up(q, I_ROWS_ALIGN), r_pad = nn_round_up(r, I_ROWS_ALIGN);
    size_t packed_bytes = (imma ? (q_pad + r_pad) * (size_t)kblocks * IMMA_BLOCK_DIMS : 0) +
                          (byte_data ? (q + r) * (size_t)words * 4 : 0);
    size_t thread_hists = (size_t)chunk * PER_THREAD_HISTS * k;
    size_t bytes = (q * d + 2 * r * d + q + r + (size_t)chunk * r) * sizeof(float) +
                   (2 * q + q * k + thread_hists) * sizeof(uint32_t) +
                   q * (k > 1 ? k - 1 : 1) * sizeof(float) + q * sizeof(float) + packed_bytes;
    if (gpu_require_memory(bytes, "this problem", err, errlen))
        return NULL;
    nn_device *dev = (nn_device *)calloc(1, sizeof *dev);
    if (!dev) {
        snprintf(err, errlen, "not enough host memory");
        return NULL;
    }
    double t0 = host_time_ms();
    dev->p = *p;
    dev->chunk = chunk;
    dev->imma = imma;
    dev->bytes = byte_data;
    dev->words = words;
    snprintf(dev->imma_why, sizeof dev->imma_why, "%s", imma ? "" : why);
    dev->query = (float *)gpu_alloc(q * d * sizeof(float), 1);
    dev->base = (float *)gpu_alloc(r * d * sizeof(float), 1);
    dev->base_t = (float *)gpu_alloc(r * d * sizeof(float), 1);
    dev->qnorm = (float *)gpu_alloc(q * sizeof(float), 1);
    dev->rnorm = (float *)gpu_alloc(r * sizeof(float), 1);
    dev->smin = (uint32_t *)gpu_alloc(q * sizeof(uint32_t), 1);
    dev->smax = (uint32_t *)gpu_alloc(q * sizeof(uint32_t), 1);
    dev->threshold = (float *)gpu_alloc(q * (k > 1 ? k - 1 : 1) * sizeof(float), 1);
    dev->hist = (uint32_t *)gpu_alloc(q * k * sizeof(uint32_t), 1);
    dev->dist = (float *)gpu_alloc((size_t)chunk * r * sizeof(float), 1);
    dev->thread_hist = (uint32_t *)gpu_alloc(thread_hists * sizeof(uint32_t), 1);
    dev->margin = (float *)gpu_alloc(q * sizeof(float), 1);
    CUDA_CHECK(cudaMemcpy(dev->query, p->query, q * d * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dev->base, p->base, r * d * sizeof(float), cudaMemcpyHostToDevice));
    dim3 tb(32, 8), tg((unsigned)((r + 31) / 32), (unsigned)((d + 31) / 32));
    transpose<<<tg, tb>>>(dev->base, dev->base_t, p->refs, p->dims);
    CUDA_CHECK_LAUNCH();
    squared_norms<<<(unsigned)((q * 32 + 255) / 256), 256>>>(dev->query, p->queries, p->dims,
                                                             dev->qnorm);
    CUDA_CHECK_LAUNCH();
    squared_norms<<<(unsigned)((r * 32 + 255) / 256), 256>>>(dev->base, p->refs, p->dims,
                                                             dev->rnorm);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    double p0 = host_time_ms(); /* timed on its own: versions 7-10's one-off price */
    if (byte_data) {
        dev->query4 = (uint32_t *)gpu_alloc(q * words * sizeof(uint32_t), 1);
        dev->base4 = (uint32_t *)gpu_alloc(r * words * sizeof(uint32_t), 1);
        pack_words<<<(unsigned)((q * words + 255) / 256), 256>>>(dev->query, p->queries, p->dims,
                                                                 words, 0, dev->query4);
        CUDA_CHECK_LAUNCH();
        pack_words<<<(unsigned)((r * words + 255) / 256), 256>>>(dev->base, p->refs, p->dims,
                                                                 words, 1, dev->base4);
        CUDA_CHECK_LAUNCH();
    }
    if (imma) {
        dev->kblocks = kblocks;
        dev->query8 = (uint32_t *)gpu_alloc(q_pad * kblocks * IMMA_BLOCK_DIMS, 1);
        dev->base8 = (uint32_t *)gpu_alloc(r_pad * kblocks * IMMA_BLOCK_DIMS, 1);
        pack_vectors(dev->query, p->queries, p->dims, (int)q_pad, kblocks, dev->query8);
        pack_vectors(dev->base, p->refs, p->dims, (int)r_pad, kblocks, dev->base8);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    dev->pack_ms = host_time_ms() - p0;
    step_timer_create(&dev->timer);
    dev->setup_ms = host_time_ms() - t0;
    return dev;
}

extern "C" void nn_device_destroy(nn_device *dev)
{
    if (!dev)
        return;
    step_timer_destroy(&dev->timer);
    gpu_free(dev->base8);
    gpu_free(dev->query8);
    gpu_free(dev->base4);
    gpu_free(dev->query4);
    gpu_free(dev->margin);
    gpu_free(dev->thread_hist);
    gpu_free(dev->dist);
    gpu_free(dev->hist);
    gpu_free(dev->threshold);
    gpu_free(dev->smax);
    gpu_free(dev->smin);
    gpu_free(dev->rnorm);
    gpu_free(dev->qnorm);
    gpu_free(dev->base_t);
    gpu_free(dev->base);
    gpu_free(dev->query);
    free(dev);
}

extern "C" void nn_device_poison_scratch(nn_device *dev)
{
    size_t q = (size_t)dev->p.queries, r = (size_t)dev->p.refs, k = (size_t)dev->p.bins;
    CUDA_CHECK(cudaMemset(dev->smin, 0xA5, q * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(dev->smax, 0xA5, q * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(dev->threshold, 0xA5, q * (k > 1 ? k - 1 : 1) * sizeof(float)));
    CUDA_CHECK(cudaMemset(dev->margin, 0xA5, q * sizeof(float)));
    CUDA_CHECK(cudaMemset(dev->hist, 0xA5, q * k * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(dev->dist, 0xA5, (size_t)dev->chunk * r * sizeof(float)));
    CUDA_CHECK(cudaMemset(dev->thread_hist, 0xA5,
                          (size_t)dev->chunk * PER_THREAD_HISTS * k * sizeof(uint32_t)));
    CUDA_CHECK(cudaDeviceSynchronize());
}

extern "C" double nn_device_setup_ms(const nn_device *dev) { return dev->setup_ms; }

extern "C" double nn_device_pack_ms(const nn_device *dev) { return dev->pack_ms; }

/* ---- the versions ----------------------------------------------------------- */

static const nn_version *const versions[NN_VERSIONS] = {
    &nn_version_1, &nn_version_2, &nn_version_3, &nn_version_4, &nn_version_5,
    &nn_version_6,  &nn_version_7,  &nn_version_8,  &nn_version_9,  &nn_version_10,
    &nn_version_11, &nn_version_12, &nn_version_13, &nn_version_14,
};

/* version N is versions[N - 1] */
static int known_version(int version) { return version >= 1 && version <= NN_VERSIONS; }

extern "C" const char *nn_version_name(int version)
{
    return known_version(version) ? versions[version - 1]->name : "?";
}

extern "C" int nn_version_report_bins(int version)
{
    return known_version(version) && versions[version - 1]->report_bins;
}

/* ---- shared by every version ---------------------------------------------- */

void nn_clear_results(nn_device *dev)
{
    size_t q = (size_t)dev->p.queries;
    CUDA_CHECK(cudaMemsetAsync(dev->smin, 0xFF, q * sizeof(uint32_t))); /* above any float */
    CUDA_CHECK(cudaMemsetAsync(dev->smax, 0, q * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemsetAsync(dev->hist, 0, q * dev->p.bins * sizeof(uint32_t)));
}

/* The K - 1 thresholds of each query, one block per query (bin_rule.h); with
 * margin != NULL, also the query's margin (nn_bin_fast): the largest crossing
 * of a bin edge by the float guess, over every threshold, reduced in the block. */
#define THRESHOLD_THREADS 256
__global__ void __launch_bounds__(THRESHOLD_THREADS)
thresholds(const uint32_t *smin, const uint32_t *smax, int q0, int k, float *threshold,
           float *margin)
{
    __shared__ double s_worst[THRESHOLD_THREADS / 32];
    int q = q0 + blockIdx.x;
    float lo = __uint_as_float(smin[q]), hi = __uint_as_float(smax[q]);
    float root, scale;
    nn_guess_params(lo, hi, k, &root, &scale);
    double worst = margin && scale > 0.0f ? nn_margin_top(hi, k, root, scale) : 0.0;
    for (int j = 1 + threadIdx.x; j < k; j += blockDim.x) {
        float x = nn_threshold(j, lo, hi, k);
        threshold[(size_t)q * (k - 1) + (j - 1)] = x;
        if (margin && scale > 0.0f) /* scale = 0: min = max, no edges to cross */
            worst = fmax(worst, nn_margin_at(j, x, root, scale));
    }
    if (!margin)
        return;
    for (int offset = 16; offset > 0; offset /= 2)
        worst = fmax(worst, __shfl_down_sync(FULL_MASK, worst, offset));
    if (threadIdx.x % 32 == 0)
        s_worst[threadIdx.x / 32] = worst;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < THRESHOLD_THREADS / 32; w++)
            worst = fmax(worst, s_worst[w]);
        margin[q] = nn_margin_float(worst);
    }
}

void nn_launch_thresholds(nn_device *dev, int q0, int count, int with_margin)
{
    /* with one bin there are no thresholds, but the margin is still written */
    if ((dev->p.bins > 1 || with_margin) && count > 0) {
        thresholds<<<count, THRESHOLD_THREADS>>>(dev->smin, dev->smax, q0, dev->p.bins,
                                                 dev->threshold, with_margin ? dev->margin : NULL);
        CUDA_CHECK_LAUNCH();
    }
}

void nn_download_hist(nn_device *dev, uint32_t *hist)
{
    CUDA_CHECK(cudaMemcpy(hist, dev->hist,
                          (size_t)dev->p.queries * dev->p.bins * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
}

void nn_timer_flush(nn_device *dev)
{
    step_timer_collect(&dev->timer, &dev->report);
    step_timer_start(&dev->timer);
}

void nn_timing_from_report(const nn_device *dev, nn_timing *timing)
{
    timing->ran_version = 0;
    timing->total_ms = 0.0;
    for (int s = 0; s < NN_STEPS; s++) {
        timing->step_ms[s] = dev->report.pass_ms[0][s];
        timing->total_ms += timing->step_ms[s];
    }
}

/* ---- the bytes each step moves ------------------------------------------------ */

/* What each step must read and write in device memory, as modelled next to
 * each version: a vector is read once per block (or chunk) of queries that
 * needs it - most of those reads are served by the L2 cache, so the GB/s of
 * a fused pass can pass the device's copy bandwidth - and the distances, where
 * a version keeps them, are written once and read once per later step.  The
 * driver divides by each step's time. */
extern "C" double nn_step_bytes(const nn_device *dev, int version, int step)
{
    const nn_problem *p = &dev->p;
    const double q = p->queries, r = p->refs, d = p->dims, k = p->bins;
    if (step == NN_STEP_THRESHOLDS) /* the thresholds written, min/max read */
        return nn_is_baseline(version) || !versions[version - 1]->report_bins
                   ? 4.0 * q * (k - 1) + 8.0 * q : 0.0;
    if (!nn_is_baseline(version))
        return versions[version - 1]->step_bytes(dev, step);
    /* cuBLAS: the distances (float, or int32 products) go through memory; the
     * vectors (float, or one byte a component) are read once (its chunks are as
     * large as the memory allows) */
    const double distances = 4.0 * q * r, counts = 4.0 * q * k;
    const double component = version == NN_CUBLAS_INT8 ? 1.0 : 4.0;
    switch (step) {
    case NN_STEP_DISTANCES: return distances + component * d * (q + r);
    case NN_STEP_MINMAX: return distances;
    default: return distances + counts;
    }
}

/* ---- a check for the tests --------------------------------------------------- */

/* Counts the floats x in [lo, hi] (as bits) where nn_sqrt_small(x) differs
 * from __fsqrt_rn(x). */
__global__ void sqrt_small_mismatches(uint32_t lo, uint32_t hi, unsigned long long *count)
{
    unsigned long long mine = 0;
    for (uint64_t u = lo + (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; u <= hi;
         u += (uint64_t)gridDim.x * blockDim.x) {
        float x = __uint_as_float((uint32_t)u);
        mine += __float_as_uint(nn_sqrt_small(x)) != __float_as_uint(__fsqrt_rn(x));
    }
    if (mine)
        atomicAdd(count, mine);
}

extern "C" long long nn_sqrt_small_check(void)
{
    unsigned long long *d_count, count = 0;
    CUDA_CHECK(cudaMalloc(&d_count, sizeof *d_count));
    CUDA_CHECK(cudaMemset(d_count, 0, sizeof *d_count));
    sqrt_small_mismatches<<<1024, 256>>>(0u, 0u, d_count); /* 0 */
    CUDA_CHECK_LAUNCH();
    sqrt_small_mismatches<<<4096, 256>>>(0x3F800000u, 0x4B800000u, d_count); /* 1 .. 2^24 */
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_count));
    return (long long)count;
}

/* ---- entry point ------------------------------------------------------------ */

extern "C" const char *nn_imma_unusable(const nn_device *dev)
{
    return dev->imma ? NULL : dev->imma_why;
}

extern "C" void nn_device_without_tensor_cores(nn_device *dev)
{
    dev->imma = 0;
    snprintf(dev->imma_why, sizeof dev->imma_why, "the tensor-core passes are switched off");
}

extern "C" int nn_version_runs_as(const nn_device *dev, int version)
{
    if (version >= NN_VERSION_BYTES && !dev->bytes)
        return NN_VERSION_BYTES - 1;
    return version;
}

extern "C" int nn_run_version(nn_device *dev, int version, int reduce, uint32_t *hist,
                              nn_timing *timing, char *err, size_t errlen)
{
    if (!known_version(version)) {
        snprintf(err, errlen, "--version %d: versions are 1 to %d", version, NN_VERSIONS);
        return -1;
    }
    version = nn_version_runs_as(dev, version);
    nn_run_given(dev, versions[version - 1], reduce, hist, timing);
    timing->ran_version = version;
    return 0;
}

extern "C" void nn_run_given(nn_device *dev, const nn_version *v, int reduce, uint32_t *hist,
                             nn_timing *timing)
{
    report_clear(&dev->report, 1);
    nn_clear_results(dev);
    step_timer_start(&dev->timer);
    v->run(dev, reduce);
    nn_timer_flush(dev);
    nn_timing_from_report(dev, timing);
    nn_download_hist(dev, hist);
}
