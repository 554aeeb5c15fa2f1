/*
 * 06_nn_histogram/nn_histogram.cu - the nearest-neighbour distance histogram,
 * six versions, in the order the lesson builds them.
 *
 * The problem (course report 004): Q query points and R reference points in d
 * dimensions (SIFT1M: 10,000 x 1,000,000 x 128).  For each query, the distances
 * to every reference, their minimum and maximum, and the count of distances in
 * each of K equal-width bins from the minimum to the maximum.  Everything here
 * works on SQUARED distances s: the square root is monotone, so the minimum
 * and maximum are those of s, and the bin rule (bin_rule.h) takes s.  Binning
 * is exact: each query's K - 1 thresholds are computed once from the rule, and
 * a distance is binned by comparing it with them.
 *
 * Version 1 - the report's pipeline.  Queries in chunks of 32: one thread per
 *   (query, reference) pair computes the squared distance straight from global
 *   memory and writes it to a Q_chunk x R array; a min/max kernel (64 threads
 *   per query, each scanning a contiguous section, thread 0 combining); the
 *   thresholds; a histogram kernel with one global atomicAdd per distance.
 * Version 2 - the distances tiled through shared memory: a block loads 16
 *   queries and 64 references, 32 dimensions at a time, and every value loaded
 *   is used 16 or 64 times instead of once.
 * Version 3 - the reductions done well, in the steps of the class notes on
 *   reduction (report 002), selectable with --reduce: divergent branches ->
 *   strided indexing (no divergence, bank conflicts) -> sequential addressing
 *   (neither) -> warp shuffles.  The min/max kernel also reads coalesced.
 * Version 4 - fused: the distances are never written to global memory.  A
 *   first register-tiled pass computes them and keeps only each query's
 *   min/max; the thresholds follow; a second pass computes them again and bins
 *   each into a privatised histogram in shared memory (one per query of the
 *   block), flushed once to global memory.  Distances come from the dot
 *   product, ||q||^2 + ||r||^2 - 2 q.r: one multiply-add per dimension.
 * Version 5 - exact bins without reading the thresholds: the float guess of
 *   the bin is off by at most a per-query margin, measured once at the
 *   thresholds (bin_rule.h, nn_bin_fast); only a distance within the margin
 *   of a bin edge reads two thresholds.  Otherwise version 4.
 * Version 6 - integer tensor cores.  On byte data (integers 0..255, as SIFT
 *   is) the dot products are integer matrix products: mma.sync with u8 inputs
 *   and int32 sums is exact and many times faster than float32 multiply-adds.
 *   References and queries are stored once as bytes in the fragments' order
 *   (imma_layout.h).  Binning as in version 5, but 8 distances side by side
 *   with no branch between them (the square root's own special-case branch
 *   too: nn_sqrt_small), and for K <= 9 by comparing with each threshold.
 *   On other data, or a GPU older than compute capability 8.0, version 6
 *   runs version 5 and says so.
 *
 * Exactness: versions 1-3 sum (q_i - r_i)^2 and versions 4-5 use the dot
 * product, both in float32.  On integer data 0..255 with d <= 129 every partial
 * sum is an integer below 2^24, which float32 holds exactly, so every version
 * computes the exact squared distances - and, through the thresholds, the
 * exact bins (nn_exact_data in nn_problem.h).  Version 6 sums in int32, exact
 * on any byte data; its squared distances stay below 2^24, exact as floats,
 * up to 256 dimensions (nn_imma_data).
 *
 * Run:  build/bin/06_nn_histogram --version 4 --bins 5000
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

#define FULL_MASK 0xFFFFFFFFu

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

/* Version 6's copy of n vectors: bytes, padded to rows_pad rows and to whole
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

#define I_ROWS_ALIGN 32 /* packed rows come in whole warp steps (references) and blocks (queries) */

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

/* Version 6 needs byte data (nn_imma_data) and mma.sync with u8 inputs
 * (compute capability 8.0 and later); otherwise it runs version 5. */
static int imma_usable(const nn_problem *p, char *why, size_t whylen)
{
    if (gpu_compute_capability() < 80) {
        snprintf(why, whylen, "integer mma needs compute capability 8.0 or later");
        return 0;
    }
    if (!nn_imma_data(p)) {
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
    int imma = imma_usable(p, why, sizeof why);
    int kblocks = (p->dims + IMMA_BLOCK_DIMS - 1) / IMMA_BLOCK_DIMS;
    size_t q_pad = round_up(q, I_ROWS_ALIGN), r_pad = round_up(r, I_ROWS_ALIGN);
    size_t packed_bytes = imma ? (q_pad + r_pad) * (size_t)kblocks * IMMA_BLOCK_DIMS : 0;
    size_t bytes = (q * d + 2 * r * d + q + r + (size_t)chunk * r) * sizeof(float) +
                   (2 * q + q * k) * sizeof(uint32_t) + q * (k > 1 ? k - 1 : 1) * sizeof(float) +
                   q * sizeof(float) + packed_bytes;
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
    if (imma) { /* timed on its own: it is version 6's one-off price */
        double p0 = host_time_ms();
        dev->kblocks = kblocks;
        dev->query8 = (uint32_t *)gpu_alloc(q_pad * kblocks * IMMA_BLOCK_DIMS, 1);
        dev->base8 = (uint32_t *)gpu_alloc(r_pad * kblocks * IMMA_BLOCK_DIMS, 1);
        pack_vectors(dev->query, p->queries, p->dims, (int)q_pad, kblocks, dev->query8);
        pack_vectors(dev->base, p->refs, p->dims, (int)r_pad, kblocks, dev->base8);
        CUDA_CHECK(cudaDeviceSynchronize());
        dev->pack_ms = host_time_ms() - p0;
    }
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
    gpu_free(dev->margin);
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

extern "C" double nn_device_setup_ms(const nn_device *dev) { return dev->setup_ms; }

extern "C" double nn_device_pack_ms(const nn_device *dev) { return dev->pack_ms; }

extern "C" const char *nn_version_name(int version)
{
    switch (version) {
    case 1: return "report pipeline";
    case 2: return "tiled distances";
    case 3: return "reductions done well";
    case 4: return "fused, register-tiled";
    case 5: return "fused, margin binning";
    case 6: return "integer tensor cores";
    default: return "?";
    }
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

/* nn_guess_params (bin_rule.h) for query q, from its min/max bits. */
__device__ void bin_guess_params(const uint32_t *smin, const uint32_t *smax, int q, int k,
                                 float *root, float *scale)
{
    nn_guess_params(__uint_as_float(smin[q]), __uint_as_float(smax[q]), k, root, scale);
}

/* ---- version 1: the report's pipeline -------------------------------------- */

/* One thread per (query, reference); both vectors read from global memory.
 * Neighbouring threads read references d floats apart: uncoalesced. */
__global__ void distances_naive(const float *query, const float *base, int refs, int d, int q0,
                                float *dist)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x, q = q0 + blockIdx.y;
    if (r >= refs)
        return;
    float s = 0.0f;
    for (int i = 0; i < d; i++) {
        float diff = query[(size_t)q * d + i] - base[(size_t)r * d + i];
        s = fmaf(diff, diff, s);
    }
    dist[(size_t)blockIdx.y * refs + r] = s;
}

/* As in the report: 64 threads per query, each scans a contiguous section of
 * the distances; thread 0 combines the 64 results. */
__global__ void minmax_sections(const float *dist, int refs, int q0, uint32_t *smin,
                                uint32_t *smax)
{
    __shared__ float lo[64], hi[64];
    const float *row = dist + (size_t)blockIdx.x * refs;
    int t = threadIdx.x, section = (refs + 63) / 64;
    int begin = t * section, end = begin + section < refs ? begin + section : refs;
    float mn = __uint_as_float(NN_NO_THRESHOLD), mx = 0.0f;
    for (int r = begin; r < end; r++) {
        mn = fminf(mn, row[r]);
        mx = fmaxf(mx, row[r]);
    }
    lo[t] = mn;
    hi[t] = mx;
    __syncthreads();
    if (t == 0) {
        for (int i = 1; i < 64; i++) {
            mn = fminf(mn, lo[i]);
            mx = fmaxf(mx, hi[i]);
        }
        smin[q0 + blockIdx.x] = __float_as_uint(mn);
        smax[q0 + blockIdx.x] = __float_as_uint(mx);
    }
}

/* One global atomicAdd per distance; with few bins they all collide. */
__global__ void histogram_global(const float *dist, int refs, int q0, int k,
                                 const uint32_t *smin, const uint32_t *smax,
                                 const float *threshold, uint32_t *hist)
{
    int q = q0 + blockIdx.y;
    float root, scale;
    bin_guess_params(smin, smax, q, k, &root, &scale);
    const float *row = dist + (size_t)blockIdx.y * refs;
    const float *thr = threshold + (size_t)q * (k - 1);
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < refs; r += gridDim.x * blockDim.x)
        atomicAdd(&hist[(size_t)q * k + nn_bin_guessed(row[r], thr, k, root, scale)], 1u);
}

/* ---- version 2: distances tiled through shared memory ---------------------- */

#define TILE_Q 16
#define TILE_R 64
#define TILE_D 32

/* A block computes TILE_Q x TILE_R distances; thread (tx, ty) does query ty and
 * references tx, tx + 16, tx + 32, tx + 48.  Each value loaded into shared
 * memory is used 16 (references) or 64 (queries) times. */
__global__ void distances_tiled(const float *query, const float *base, int nq, int refs, int d,
                                int q0, float *dist)
{
    __shared__ float qs[TILE_Q][TILE_D + 1], rs[TILE_R][TILE_D + 1]; /* +1: no bank conflicts */
    int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
    int qb = blockIdx.y * TILE_Q, rb = blockIdx.x * TILE_R;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < d; k0 += TILE_D) {
        for (int i = t; i < TILE_Q * TILE_D; i += 256) { /* rows of 32 contiguous floats */
            int qi = i / TILE_D, k = i % TILE_D, q = q0 + qb + qi;
            qs[qi][k] = (qb + qi < nq && k0 + k < d) ? query[(size_t)q * d + k0 + k] : 0.0f;
        }
        for (int i = t; i < TILE_R * TILE_D; i += 256) {
            int ri = i / TILE_D, k = i % TILE_D, r = rb + ri;
            rs[ri][k] = (r < refs && k0 + k < d) ? base[(size_t)r * d + k0 + k] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_D; k++) {
            float qv = qs[ty][k];
            for (int j = 0; j < 4; j++) {
                float diff = qv - rs[tx + 16 * j][k];
                acc[j] = fmaf(diff, diff, acc[j]);
            }
        }
        __syncthreads();
    }
    for (int j = 0; j < 4; j++) {
        int r = rb + tx + 16 * j;
        if (qb + ty < nq && r < refs)
            dist[(size_t)(qb + ty) * refs + r] = acc[j];
    }
}

/* ---- version 3: the reductions of the class notes -------------------------- */

#define REDUCE_THREADS 256

__device__ void reduce_divergent(float *lo, float *hi)
{
    unsigned t = threadIdx.x;
    for (unsigned stride = 1; stride < REDUCE_THREADS; stride *= 2) {
        if (t % (2 * stride) == 0) { /* active threads spread over every warp */
            lo[t] = fminf(lo[t], lo[t + stride]);
            hi[t] = fmaxf(hi[t], hi[t + stride]);
        }
        __syncthreads();
    }
}

__device__ void reduce_strided(float *lo, float *hi)
{
    unsigned t = threadIdx.x;
    for (unsigned stride = 1; stride < REDUCE_THREADS; stride *= 2) {
        unsigned i = 2 * stride * t; /* active threads packed, but i jumps by 2 * stride:
                                        threads of a warp meet in the same banks */
        if (i < REDUCE_THREADS) {
            lo[i] = fminf(lo[i], lo[i + stride]);
            hi[i] = fmaxf(hi[i], hi[i + stride]);
        }
        __syncthreads();
    }
}

__device__ void reduce_sequential(float *lo, float *hi)
{
    unsigned t = threadIdx.x;
    for (unsigned stride = REDUCE_THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride) { /* neighbouring threads, neighbouring words */
            lo[t] = fminf(lo[t], lo[t + stride]);
            hi[t] = fmaxf(hi[t], hi[t + stride]);
        }
        __syncthreads();
    }
}

__device__ void reduce_shuffle(float *lo, float *hi)
{
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    float mn = lo[t], mx = hi[t];
    for (int offset = 16; offset > 0; offset /= 2) { /* registers, no shared memory */
        mn = fminf(mn, __shfl_down_sync(FULL_MASK, mn, offset));
        mx = fmaxf(mx, __shfl_down_sync(FULL_MASK, mx, offset));
    }
    __syncthreads(); /* every thread has read its own slot before lane 0s overwrite */
    if (lane == 0) {
        lo[warp] = mn;
        hi[warp] = mx;
    }
    __syncthreads();
    if (warp == 0) {
        mn = lane < REDUCE_THREADS / 32 ? lo[lane] : __uint_as_float(NN_NO_THRESHOLD);
        mx = lane < REDUCE_THREADS / 32 ? hi[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) {
            mn = fminf(mn, __shfl_down_sync(FULL_MASK, mn, offset));
            mx = fmaxf(mx, __shfl_down_sync(FULL_MASK, mx, offset));
        }
        if (lane == 0) {
            lo[0] = mn;
            hi[0] = mx;
        }
    }
    __syncthreads();
}

/* One block per query: each thread reduces a grid-stride (coalesced) share of
 * the row, then the block reduces its REDUCE_THREADS partial results. */
__global__ void minmax_reduce(const float *dist, int refs, int q0, int variant, uint32_t *smin,
                              uint32_t *smax)
{
    __shared__ float lo[REDUCE_THREADS], hi[REDUCE_THREADS];
    const float *row = dist + (size_t)blockIdx.x * refs;
    float mn = __uint_as_float(NN_NO_THRESHOLD), mx = 0.0f;
    for (int r = threadIdx.x; r < refs; r += REDUCE_THREADS) {
        mn = fminf(mn, row[r]);
        mx = fmaxf(mx, row[r]);
    }
    lo[threadIdx.x] = mn;
    hi[threadIdx.x] = mx;
    __syncthreads();
    if (variant == NN_REDUCE_DIVERGENT)
        reduce_divergent(lo, hi);
    else if (variant == NN_REDUCE_STRIDED)
        reduce_strided(lo, hi);
    else if (variant == NN_REDUCE_SEQUENTIAL)
        reduce_sequential(lo, hi);
    else
        reduce_shuffle(lo, hi);
    if (threadIdx.x == 0) {
        smin[q0 + blockIdx.x] = __float_as_uint(lo[0]);
        smax[q0 + blockIdx.x] = __float_as_uint(hi[0]);
    }
}

/* ---- versions 1-3: chunk after chunk ---------------------------------------- */

static void run_chunked(nn_device *dev, int version, int reduce)
{
    const nn_problem *p = &dev->p;
    for (int q0 = 0; q0 < p->queries; q0 += dev->chunk) {
        int count = p->queries - q0 < dev->chunk ? p->queries - q0 : dev->chunk;
        if (version == 1) {
            dim3 grid((unsigned)((p->refs + 255) / 256), (unsigned)count);
            distances_naive<<<grid, 256>>>(dev->query, dev->base, p->refs, p->dims, q0, dev->dist);
        } else {
            dim3 grid((unsigned)((p->refs + TILE_R - 1) / TILE_R),
                      (unsigned)((count + TILE_Q - 1) / TILE_Q));
            distances_tiled<<<grid, dim3(16, 16)>>>(dev->query, dev->base, count, p->refs,
                                                     p->dims, q0, dev->dist);
        }
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_DISTANCES);

        if (version == 3)
            minmax_reduce<<<count, REDUCE_THREADS>>>(dev->dist, p->refs, q0, reduce, dev->smin,
                                                     dev->smax);
        else
            minmax_sections<<<count, 64>>>(dev->dist, p->refs, q0, dev->smin, dev->smax);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);

        nn_launch_thresholds(dev, q0, count, 0);
        step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);

        dim3 grid((unsigned)((p->refs + 255) / 256 < 1024 ? (p->refs + 255) / 256 : 1024),
                  (unsigned)count);
        histogram_global<<<grid, 256>>>(dev->dist, p->refs, q0, p->bins, dev->smin, dev->smax,
                                        dev->threshold, dev->hist);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
        nn_timer_flush(dev); /* a few marks per chunk: collect before the timer fills */
    }
}

/* ---- version 4: fused, register-tiled -------------------------------------- */

#define F_THREADS 256
#define F_TQ 8                       /* queries per block */
#define F_RPT 8                      /* references per thread per tile */
#define F_TILE (F_THREADS * F_RPT)   /* references per tile: 2048 */
#define F_DC 4                       /* dimensions staged per step */
#define F_TILES_PER_BLOCK 32
#define F_STAGE (F_DC * F_TILE / F_THREADS) /* values a thread stages per step: 32 */

enum { PASS_MINMAX = 0, PASS_HISTOGRAM = 1 };

/* Thread t's share of the F_DC x F_TILE reference values of dimensions
 * [k0, k0 + F_DC) and references [r0, r0 + F_TILE): consecutive threads read
 * consecutive references (coalesced), and the loop is unrolled so that all
 * F_STAGE loads are in flight at once instead of one after another. */
__device__ __forceinline__ void load_stage(const float *base_t, int refs, int d, int r0, int k0,
                                           int t, float staged[F_STAGE])
{
#pragma unroll
    for (int i = 0; i < F_STAGE; i++) {
        int at = t + i * F_THREADS, kk = at / F_TILE, rr = at % F_TILE;
        staged[i] = (k0 + kk < d && r0 + rr < refs) ? base_t[(size_t)(k0 + kk) * refs + r0 + rr]
                                                    : 0.0f;
    }
}

/* A block owns F_TQ queries (blockIdx.x) and F_TILES_PER_BLOCK tiles of
 * references (blockIdx.y).  The queries vary fastest in the grid, so the blocks
 * that run at the same time work on the same references, which then come from
 * the L2 cache rather than from DRAM.  Each thread computes an F_TQ x F_RPT
 * tile of dot products in registers: per dimension it reads F_RPT references
 * (two 16-byte loads) and F_TQ query values (the same address for the whole
 * block: a broadcast), for F_TQ * F_RPT multiply-adds.  While it does, the
 * next step's reference values are already on their way into its registers
 * (load_stage), so the wait for memory overlaps the arithmetic.  The squared
 * distance is ||q||^2 + ||r||^2 - 2 q.r.
 * PASS_MINMAX keeps the smallest and largest per query; PASS_HISTOGRAM bins
 * them into the block's private histograms (s_hist, when they fit in shared
 * memory) and adds those to the global counts once at the end.  With
 * margin_bins (version 5), a distance is binned by its float guess alone
 * unless it lies within the query's margin of an edge (nn_bin_fast). */
__global__ void __launch_bounds__(F_THREADS)
fused_pass(int pass, const float *query, const float *base_t, const float *qnorm,
           const float *rnorm, int nq, int refs, int d, int k, uint32_t *smin, uint32_t *smax,
           const float *threshold, const float *margin, int margin_bins, uint32_t *hist,
           int shared_hist)
{
    extern __shared__ __align__(16) float smem[];
    float *s_ref = smem;                  /* F_DC x F_TILE */
    float *s_q = s_ref + F_DC * F_TILE;   /* F_TQ x F_DC */
    uint32_t *s_hist = (uint32_t *)(s_q + F_TQ * F_DC); /* F_TQ x k */
    __shared__ float s_root[F_TQ], s_scale[F_TQ], s_margin[F_TQ];
    __shared__ uint32_t s_min[F_TQ], s_max[F_TQ];

    const int t = threadIdx.x, q0 = blockIdx.x * F_TQ;
    const int r_begin = blockIdx.y * F_TILES_PER_BLOCK * F_TILE;
    const int r_end = refs - r_begin < F_TILES_PER_BLOCK * F_TILE ? refs
                                                                   : r_begin + F_TILES_PER_BLOCK * F_TILE;
    if (pass == PASS_HISTOGRAM && shared_hist)
        for (int i = t; i < F_TQ * k; i += F_THREADS)
            s_hist[i] = 0;
    if (t < F_TQ) {
        s_min[t] = 0xFFFFFFFFu;
        s_max[t] = 0;
        if (pass == PASS_HISTOGRAM && q0 + t < nq) {
            bin_guess_params(smin, smax, q0 + t, k, &s_root[t], &s_scale[t]);
            s_margin[t] = margin_bins ? margin[q0 + t] : 0.0f;
        }
    }
    float qn[F_TQ];
    uint32_t my_min[F_TQ], my_max[F_TQ];
#pragma unroll
    for (int i = 0; i < F_TQ; i++) {
        qn[i] = q0 + i < nq ? qnorm[q0 + i] : 0.0f;
        my_min[i] = 0xFFFFFFFFu;
        my_max[i] = 0;
    }

    float staged[F_STAGE];
    load_stage(base_t, refs, d, r_begin, 0, t, staged);
    for (int r0 = r_begin; r0 < r_end; r0 += F_TILE) {
        float acc[F_TQ][F_RPT];
#pragma unroll
        for (int i = 0; i < F_TQ; i++)
#pragma unroll
            for (int j = 0; j < F_RPT; j++)
                acc[i][j] = 0.0f;

        for (int k0 = 0; k0 < d; k0 += F_DC) {
            __syncthreads(); /* the previous step's values are used up */
#pragma unroll
            for (int i = 0; i < F_STAGE; i++)
                s_ref[t + i * F_THREADS] = staged[i];
            if (t < F_TQ * F_DC) {
                int qi = t / F_DC, kk = t % F_DC;
                s_q[t] = (q0 + qi < nq && k0 + kk < d) ? query[(size_t)(q0 + qi) * d + k0 + kk]
                                                       : 0.0f;
            }
            __syncthreads();
            /* the next step: the next dimensions, or the next tile's first */
            int next_k0 = k0 + F_DC < d ? k0 + F_DC : 0;
            int next_r0 = k0 + F_DC < d ? r0 : r0 + F_TILE;
            if (next_r0 < r_end)
                load_stage(base_t, refs, d, next_r0, next_k0, t, staged);
#pragma unroll
            for (int kk = 0; kk < F_DC; kk++) {
                const float4 *src = (const float4 *)(s_ref + kk * F_TILE + t * F_RPT);
                float4 a = src[0], b = src[1];
                float r[F_RPT] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
                for (int i = 0; i < F_TQ; i++) {
                    float qv = s_q[i * F_DC + kk];
#pragma unroll
                    for (int j = 0; j < F_RPT; j++)
                        acc[i][j] = fmaf(qv, r[j], acc[i][j]);
                }
            }
        }

#pragma unroll
        for (int j = 0; j < F_RPT; j++) {
            int r = r0 + t * F_RPT + j;
            if (r >= refs)
                break;
            float rn = rnorm[r];
#pragma unroll
            for (int i = 0; i < F_TQ; i++) {
                if (q0 + i >= nq)
                    break;
                float s = qn[i] + rn - 2.0f * acc[i][j];
                s = s > 0.0f ? s : 0.0f; /* rounding on non-integer data; never -0 */
                if (pass == PASS_MINMAX) {
                    my_min[i] = min(my_min[i], __float_as_uint(s));
                    my_max[i] = max(my_max[i], __float_as_uint(s));
                } else {
                    const float *thr = threshold + (size_t)(q0 + i) * (k - 1);
                    int b = margin_bins
                                ? nn_bin_fast(s, thr, k, s_root[i], s_scale[i], s_margin[i])
                                : nn_bin_guessed(s, thr, k, s_root[i], s_scale[i]);
                    uint32_t *counter = shared_hist ? &s_hist[i * k + b]
                                                    : &hist[(size_t)(q0 + i) * k + b];
                    atomicAdd(counter, 1u);
                }
            }
        }
    }

    if (pass == PASS_MINMAX) {
#pragma unroll
        for (int i = 0; i < F_TQ; i++) { /* the warp's min/max, then one shared atomic */
            uint32_t mn = my_min[i], mx = my_max[i];
            for (int offset = 16; offset > 0; offset /= 2) {
                mn = min(mn, __shfl_down_sync(FULL_MASK, mn, offset));
                mx = max(mx, __shfl_down_sync(FULL_MASK, mx, offset));
            }
            if (t % 32 == 0) {
                atomicMin(&s_min[i], mn);
                atomicMax(&s_max[i], mx);
            }
        }
        __syncthreads();
        if (t < F_TQ && q0 + t < nq) {
            atomicMin(&smin[q0 + t], s_min[t]);
            atomicMax(&smax[q0 + t], s_max[t]);
        }
    } else if (shared_hist) {
        __syncthreads();
        for (int i = t; i < F_TQ * k; i += F_THREADS)
            if (s_hist[i] != 0 && q0 + i / k < nq)
                atomicAdd(&hist[(size_t)q0 * k + i], s_hist[i]);
    }
}

static void run_fused(nn_device *dev, int margin_bins)
{
    const nn_problem *p = &dev->p;
    size_t staging = (F_DC * F_TILE + F_TQ * F_DC) * sizeof(float);
    size_t with_hist = staging + (size_t)F_TQ * p->bins * sizeof(uint32_t);
    /* the private histograms need F_TQ x K counters: with too many bins for this
     * GPU's shared memory, the counts go straight to global memory */
    int shared_hist = with_hist + 1024 <= gpu_shared_memory_optin(); /* room for static arrays */
    size_t hist_bytes = shared_hist ? with_hist : staging;
    CUDA_CHECK(cudaFuncSetAttribute(fused_pass, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)hist_bytes));
    size_t refs_per_block = (size_t)F_TILE * F_TILES_PER_BLOCK;
    dim3 grid((unsigned)((p->queries + F_TQ - 1) / F_TQ),
              (unsigned)((p->refs + refs_per_block - 1) / refs_per_block));

    fused_pass<<<grid, F_THREADS, staging>>>(PASS_MINMAX, dev->query, dev->base_t, dev->qnorm,
                                             dev->rnorm, p->queries, p->refs, p->dims, p->bins,
                                             dev->smin, dev->smax, dev->threshold, dev->margin,
                                             margin_bins, dev->hist, 0);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);
    nn_launch_thresholds(dev, 0, p->queries, margin_bins);
    step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);
    fused_pass<<<grid, F_THREADS, hist_bytes>>>(PASS_HISTOGRAM, dev->query, dev->base_t,
                                                dev->qnorm, dev->rnorm, p->queries, p->refs,
                                                p->dims, p->bins, dev->smin, dev->smax,
                                                dev->threshold, dev->margin, margin_bins,
                                                dev->hist, shared_hist);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
}

/* ---- version 6: integer tensor cores ---------------------------------------- */

#define I_WARPS 8                  /* warps per block */
#define I_HIST_WARPS_ONE_GROUP 24  /* ... when one group fills the shared memory (plan_imma) */
#define I_HIST_WARPS 16            /* ... in the histogram pass otherwise (plan_imma) */
#define I_MTILES 2                 /* 16-reference tiles per warp step */
#define I_STEP (16 * I_MTILES)     /* references per warp step: 32 */
#define I_MAX_GROUPS 4             /* groups of 8 queries per block: up to 32 queries */
#define I_MINMAX_REFS 65536        /* references per block in the min/max pass */

/* c += a b for one 16 x 8 tile and 32 dimensions: bytes in, int32 sums out. */
__device__ __forceinline__ void mma_u8(int c[4], const uint32_t a[4], const uint32_t b[2])
{
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    (void)c, (void)a, (void)b;
    __trap(); /* never launched: imma_usable() rejects these GPUs */
#endif
}

/* A thread's 8 packed words of one vector and block, from its two 16-byte pieces. */
__device__ __forceinline__ void words_of(uint4 lo, uint4 hi, uint32_t w[8])
{
    w[0] = lo.x, w[1] = lo.y, w[2] = lo.z, w[3] = lo.w;
    w[4] = hi.x, w[5] = hi.y, w[6] = hi.z, w[7] = hi.w;
}

/* The A words of a warp step (I_MTILES tiles, rows g and g + 8 of each) for
 * block kb of the dimensions.  `rows` points at this thread's share of row g
 * of the step's first tile: row g + 8 * h of tile mt is (16 mt + 8 h) rows on,
 * and a packed row is KB blocks of 8 uint4. */
template <int KB>
__device__ __forceinline__ void load_step(const uint4 *rows, int kb, uint32_t wa[I_MTILES][2][8])
{
#pragma unroll
    for (int mt = 0; mt < I_MTILES; mt++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const uint4 *p = rows + ((mt * 16 + half * 8) * KB + kb) * 8;
            words_of(p[0], p[1], wa[mt][half]);
        }
}

/* A block owns NQ groups of 8 queries and a range of references; each warp
 * takes steps of 32 references through the range.  Per step and 128
 * dimensions a thread loads 4 x 32 bytes of references (its share of the
 * A fragments, straight from global memory into registers) and reads the
 * queries' B fragments from shared memory; the warp then issues 4 mma per
 * tile and query group.  The int32 results are exact dot products, and
 * s = ||q||^2 + ||r||^2 - 2 q.r is an exact integer below 2^24.
 * PASS_MINMAX keeps each query's smallest and largest s; PASS_HISTOGRAM bins
 * s as version 5 does (or, for K <= SMALLK + 1, by comparing it with each
 * threshold) into `copies` private histograms per query in shared memory
 * (lane % copies picks one, copies a power of two: with 32 copies no two
 * lanes of a warp ever collide), or straight into global memory when
 * copies = 0.  The pass, NQ, the warps per block, SMALLK and KB (blocks of
 * 128 dimensions) are template parameters: the accumulators stay in
 * registers, every loop over them unrolls, and each pass is compiled with
 * only its own registers. */
template <int PASS, int NQ, int WARPS, int SMALLK, int KB>
__global__ void __launch_bounds__(WARPS * 32, WARPS <= 8 ? 2 : 1)
imma_pass(const uint4 *query8, const uint4 *base8, const float *qnorm, const float *rnorm, int nq,
          int refs, int refs_per_block, int k, uint32_t *smin, uint32_t *smax,
          const float *threshold, const float *margin, uint32_t *hist, int copies)
{
    extern __shared__ __align__(16) uint4 i_smem[];
    uint4 *s_qlo = i_smem;                            /* NQ x KB x 32 lanes */
    uint4 *s_qhi = s_qlo + NQ * KB * 32;
    uint32_t *s_hist = (uint32_t *)(s_qhi + NQ * KB * 32); /* NQ*8 x k x copies */
    __shared__ int s_qn[NQ * 8];
    __shared__ float s_root[NQ * 8], s_scale[NQ * 8], s_margin[NQ * 8];
    __shared__ int s_min[NQ * 8], s_max[NQ * 8];
    __shared__ __align__(16) float s_thr[NQ * 8 * (SMALLK ? SMALLK : 1)]; /* +inf padded */

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const int q0 = blockIdx.x * NQ * 8;
    const int r_begin = blockIdx.y * refs_per_block;
    const int r_end = refs - r_begin < refs_per_block ? refs : r_begin + refs_per_block;
    const int block_vec = KB * (IMMA_BLOCK_DIMS / 16); /* uint4 per packed vector */

    /* the queries' B fragments, one 32-byte piece per (group, block, lane);
     * the packed queries are padded to whole groups, so every row exists */
    for (int i = threadIdx.x; i < NQ * KB * 32; i += WARPS * 32) {
        int l = i % 32, n = i / 32 / KB, kb = i / 32 % KB;
        const uint4 *src = query8 + (size_t)(q0 + n * 8 + l / 4) * block_vec + kb * 8 + 2 * (l % 4);
        s_qlo[i] = src[0];
        s_qhi[i] = src[1];
    }
    for (int i = threadIdx.x; i < NQ * 8; i += WARPS * 32) {
        int q = q0 + i;
        s_qn[i] = q < nq ? (int)qnorm[q] : 0; /* exact: an integer below 2^24 */
        s_min[i] = INT_MAX;
        s_max[i] = INT_MIN;
        s_root[i] = s_scale[i] = s_margin[i] = 0.0f;
        if (PASS == PASS_HISTOGRAM && q < nq) {
            bin_guess_params(smin, smax, q, k, &s_root[i], &s_scale[i]);
            s_margin[i] = margin[q];
        }
        for (int b = 0; b < SMALLK; b++)
            s_thr[i * SMALLK + b] = q < nq && b < k - 1 ? threshold[(size_t)q * (k - 1) + b]
                                                        : __uint_as_float(NN_NO_THRESHOLD);
    }
    if (PASS == PASS_HISTOGRAM && copies)
        for (int i = threadIdx.x; i < NQ * 8 * k * copies; i += WARPS * 32)
            s_hist[i] = 0;
    __syncthreads();

    /* What this thread needs of its 2 queries per group, in registers for the
     * whole range when there are few groups (with 4 groups, 32 more registers
     * would cost a block per multiprocessor: read from shared memory then). */
    constexpr bool HOIST = NQ <= 2;
    int h_qn[NQ][2];
    float h_root[NQ][2], h_scale[NQ][2], h_margin[NQ][2];
    int my_min[NQ][2], my_max[NQ][2]; /* of s - ||q||^2, which needs no add per distance */
#pragma unroll
    for (int n = 0; n < NQ; n++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            int ql = n * 8 + imma_c_query(lane, j);
            my_min[n][j] = INT_MAX, my_max[n][j] = INT_MIN;
            if (HOIST) {
                h_qn[n][j] = s_qn[ql];
                h_root[n][j] = s_root[ql], h_scale[n][j] = s_scale[ql];
                h_margin[n][j] = s_margin[ql];
            }
        }
    const int copy = lane & (copies - 1); /* copies is a power of two */

    /* this thread's share of row g of the warp's first step, and of its norms */
    int r0 = r_begin + warp * I_STEP;
    const uint4 *rows = base8 + (size_t)(r0 + g) * block_vec + 2 * t;
    const float *rnorms = rnorm + r0 + g;
    const size_t rows_per_step = (size_t)WARPS * I_STEP;
    uint32_t wa[I_MTILES][2][8];
    if (r0 < r_end)
        load_step<KB>(rows, 0, wa);
    for (; r0 < r_end; r0 += WARPS * I_STEP, rows += rows_per_step * block_vec,
                       rnorms += rows_per_step) {
        int acc[I_MTILES][NQ][4];
#pragma unroll
        for (int mt = 0; mt < I_MTILES; mt++)
#pragma unroll
            for (int n = 0; n < NQ; n++)
                acc[mt][n][0] = acc[mt][n][1] = acc[mt][n][2] = acc[mt][n][3] = 0;
#pragma unroll
        for (int kb = 0; kb < KB; kb++) {
            if (kb > 0)
                load_step<KB>(rows, kb, wa);
#pragma unroll
            for (int n = 0; n < NQ; n++) {
                uint32_t wb[8];
                int piece = (n * KB + kb) * 32 + lane;
                words_of(s_qlo[piece], s_qhi[piece], wb);
#pragma unroll
                for (int c = 0; c < 4; c++) {
                    uint32_t b[2];
                    imma_b_fragment(wb, c, b);
#pragma unroll
                    for (int mt = 0; mt < I_MTILES; mt++) {
                        uint32_t a[4];
                        imma_a_fragment(wa[mt][0], wa[mt][1], c, a);
                        mma_u8(acc[mt][n], a, b);
                    }
                }
            }
        }
        /* the next step's first block is on its way while this one is binned */
        const bool full_step = r0 + I_STEP <= r_end; /* all but a range's last step */
        if (r0 + WARPS * I_STEP < r_end)
            load_step<KB>(rows + rows_per_step * block_vec, 0, wa);

        /* ||r||^2 of rows g and g + 8 of each tile; past the end of the
         * range (the last step only) a reference is absent */
        int rn[I_MTILES][2];
        unsigned present = (1u << (I_MTILES * 2)) - 1; /* bit 2 mt + half */
#pragma unroll
        for (int mt = 0; mt < I_MTILES; mt++)
#pragma unroll
            for (int half = 0; half < 2; half++) {
                bool in = full_step || r0 + mt * 16 + half * 8 + g < r_end;
                rn[mt][half] = in ? (int)rnorms[mt * 16 + half * 8] : 0;
                if (!in)
                    present &= ~(1u << (2 * mt + half));
            }

        /* c[i] of a tile is query imma_c_query(lane, i), which depends on i % 2
         * only: a thread holds 2 queries per group (j), each for 4 references
         * (c[j] and c[2 + j] of each of its 2 tiles: e = 2 mt + half).  The 8
         * distances of a group are binned side by side, without a branch, so
         * that their instructions interleave; the rare unsure ones afterwards. */
        constexpr int E = I_MTILES * 2;
#pragma unroll
        for (int n = 0; n < NQ; n++) {
            int ql[2], d[2][E]; /* d: s - ||q||^2 = ||r||^2 - 2 q.r */
            bool query_in[2];
#pragma unroll
            for (int j = 0; j < 2; j++) {
                ql[j] = n * 8 + imma_c_query(lane, j);
                query_in[j] = q0 + ql[j] < nq;
#pragma unroll
                for (int mt = 0; mt < I_MTILES; mt++)
#pragma unroll
                    for (int half = 0; half < 2; half++)
                        d[j][2 * mt + half] = rn[mt][half] - 2 * acc[mt][n][2 * half + j];
            }
            if constexpr (PASS == PASS_MINMAX) {
#pragma unroll
                for (int j = 0; j < 2; j++)
#pragma unroll
                    for (int e = 0; e < E; e++) {
                        bool in = present >> e & 1u;
                        my_min[n][j] = min(my_min[n][j], in ? d[j][e] : INT_MAX);
                        my_max[n][j] = max(my_max[n][j], in ? d[j][e] : INT_MIN);
                    }
            } else {
                int qn[2], bin[2][E];
#pragma unroll
                for (int j = 0; j < 2; j++)
                    qn[j] = HOIST ? h_qn[n][j] : s_qn[ql[j]];
                if (SMALLK) { /* K <= SMALLK + 1: count the thresholds at or below s */
#pragma unroll
                    for (int j = 0; j < 2; j++) {
                        const float *thr = s_thr + ql[j] * SMALLK;
#pragma unroll
                        for (int e = 0; e < E; e++) {
                            float s = (float)(qn[j] + d[j][e]);
                            bin[j][e] = 0;
#pragma unroll
                            for (int b = 0; b < SMALLK; b++)
                                bin[j][e] += s >= thr[b];
                        }
                    }
                } else {
                    float root[2], scale[2], qmargin[2];
#pragma unroll
                    for (int j = 0; j < 2; j++) {
                        root[j] = HOIST ? h_root[n][j] : s_root[ql[j]];
                        scale[j] = HOIST ? h_scale[n][j] : s_scale[ql[j]];
                        qmargin[j] = HOIST ? h_margin[n][j] : s_margin[ql[j]];
                    }
                    bool any_unsure = false;
#pragma unroll
                    for (int j = 0; j < 2; j++)
#pragma unroll
                        for (int e = 0; e < E; e++) {
                            float g_s = nn_guess_small((float)(qn[j] + d[j][e]), root[j], scale[j]);
                            any_unsure |= !nn_bin_sure_guess(g_s, k, qmargin[j], &bin[j][e]);
                        }
                    if (any_unsure) { /* rare: find which, and ask the thresholds */
#pragma unroll
                        for (int j = 0; j < 2; j++) {
                            const float *thr = threshold + (size_t)(q0 + ql[j]) * (k - 1);
#pragma unroll
                            for (int e = 0; e < E; e++) {
                                float s = (float)(qn[j] + d[j][e]);
                                if (query_in[j] && (present >> e & 1u) &&
                                    !nn_bin_sure_guess(nn_guess_small(s, root[j], scale[j]), k,
                                                       qmargin[j], &bin[j][e]))
                                    bin[j][e] = nn_bin_from_thresholds(s, thr, k, bin[j][e]);
                            }
                        }
                    }
                }
                /* separate loops, so that the compiler knows which memory each
                 * atomic goes to (a generic atomic on shared memory is slow), and
                 * none of them waits on a test in the usual, full step */
#pragma unroll
                for (int j = 0; j < 2; j++) {
                    if (!query_in[j])
                        continue;
                    if (copies) {
                        uint32_t *counts = s_hist + ql[j] * k * copies + copy;
                        if (full_step) {
#pragma unroll
                            for (int e = 0; e < E; e++)
                                atomicAdd(&counts[bin[j][e] * copies], 1u);
                        } else {
#pragma unroll
                            for (int e = 0; e < E; e++)
                                if (present >> e & 1u)
                                    atomicAdd(&counts[bin[j][e] * copies], 1u);
                        }
                    } else {
                        uint32_t *counts = hist + (size_t)(q0 + ql[j]) * k;
#pragma unroll
                        for (int e = 0; e < E; e++)
                            if (present >> e & 1u)
                                atomicAdd(&counts[bin[j][e]], 1u);
                    }
                }
            }
        }
    }

    if (PASS == PASS_MINMAX) {
        /* lanes with the same t hold the same queries: combine over g */
#pragma unroll
        for (int n = 0; n < NQ; n++)
#pragma unroll
            for (int j = 0; j < 2; j++) {
                int mn = my_min[n][j], mx = my_max[n][j];
                for (int offset = 4; offset < 32; offset *= 2) {
                    mn = min(mn, __shfl_xor_sync(FULL_MASK, mn, offset));
                    mx = max(mx, __shfl_xor_sync(FULL_MASK, mx, offset));
                }
                if (g == 0) {
                    atomicMin(&s_min[n * 8 + 2 * t + j], mn);
                    atomicMax(&s_max[n * 8 + 2 * t + j], mx);
                }
            }
        __syncthreads();
        /* s = ||q||^2 + d; integers below 2^24 are exact floats, in the same
         * order as their bits */
        for (int i = threadIdx.x; i < NQ * 8; i += WARPS * 32)
            if (q0 + i < nq && s_min[i] != INT_MAX) {
                atomicMin(&smin[q0 + i], __float_as_uint((float)(s_qn[i] + s_min[i])));
                atomicMax(&smax[q0 + i], __float_as_uint((float)(s_qn[i] + s_max[i])));
            }
    } else if (copies) {
        __syncthreads();
        for (int i = threadIdx.x; i < NQ * 8 * k; i += WARPS * 32) {
            uint32_t count = 0;
            for (int c = 0; c < copies; c++)
                count += s_hist[i * copies + c];
            if (count != 0 && q0 + i / k < nq)
                atomicAdd(&hist[(size_t)q0 * k + i], count);
        }
    }
}

/* How one pass is laid out: query groups per block, warps per block,
 * histogram copies (0: the counts go to global memory), references per block,
 * dynamic shared memory. */
typedef struct {
    int groups, warps, copies, refs_per_block;
    size_t smem;
} imma_plan;

static imma_plan plan_imma(const nn_device *dev, int pass)
{
    const nn_problem *p = &dev->p;
    imma_plan plan = {I_MAX_GROUPS, I_WARPS, 0, I_MINMAX_REFS, 0};
    size_t fragments = (size_t)I_MAX_GROUPS * dev->kblocks * 32 * 2 * sizeof(uint4);
    size_t room = gpu_shared_memory_optin() - 2048; /* the static arrays */
    if (pass == PASS_HISTOGRAM) {
        /* as many queries as have a histogram in shared memory (fewer queries
         * per block means the references are read more often) */
        size_t per_query = (size_t)p->bins * sizeof(uint32_t);
        while (plan.groups > 1 && fragments + plan.groups * 8 * per_query > room)
            plan.groups /= 2;
        if (fragments + plan.groups * 8 * per_query <= room) {
            /* extra copies where they are cheap, against colliding lanes */
            size_t cheap = room < 48 * 1024 ? room : 48 * 1024;
            plan.copies = 1;
            while (plan.copies < 32 &&
                   fragments + plan.groups * 8 * per_query * plan.copies * 2 <= cheap)
                plan.copies *= 2;
        } else {
            plan.groups = I_MAX_GROUPS;
        }
        /* The histograms fill the shared memory, or the registers (128 a
         * thread) allow 512 threads a multiprocessor: 16 warps a block,
         * where two blocks of 8 may not fit.  One group at K = 5000 leaves
         * room for more threads at 80 registers: 24 warps, so that while
         * some wait for their references or their atomics, others have
         * work.  On the H100 at K = 5000 (1,000 queries, before the
         * epilogue was made branch-free): 8 warps 8.5 ms, 16 warps 4.9 ms,
         * 24 warps 3.8 ms, 32 warps 3.8 ms (and spills) */
        plan.warps = plan.groups == 1 ? I_HIST_WARPS_ONE_GROUP : I_HIST_WARPS;
        /* enough references per block that the final flush of its K counters
         * per query is small beside the distances it counted */
        plan.refs_per_block = (int)round_up((size_t)(64 * p->bins > I_MINMAX_REFS ? 64 * p->bins
                                                                                   : I_MINMAX_REFS),
                                            plan.warps * I_STEP);
    }
    /* the grid's y dimension holds at most 65535 ranges */
    size_t least = round_up(((size_t)p->refs + 65534) / 65535, plan.warps * I_STEP);
    if ((size_t)plan.refs_per_block < least)
        plan.refs_per_block = (int)least;
    plan.smem = (size_t)plan.groups * dev->kblocks * 32 * 2 * sizeof(uint4) +
                (size_t)plan.groups * 8 * p->bins * plan.copies * sizeof(uint32_t);
    return plan;
}

template <int PASS, int NQ, int WARPS, int SMALLK, int KB>
static void launch_imma(nn_device *dev, const imma_plan *plan)
{
    const nn_problem *p = &dev->p;
    CUDA_CHECK(cudaFuncSetAttribute(imma_pass<PASS, NQ, WARPS, SMALLK, KB>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)plan->smem));
    dim3 grid((unsigned)((p->queries + NQ * 8 - 1) / (NQ * 8)),
              (unsigned)((p->refs + plan->refs_per_block - 1) / plan->refs_per_block));
    imma_pass<PASS, NQ, WARPS, SMALLK, KB><<<grid, WARPS * 32, plan->smem>>>(
        (const uint4 *)dev->query8, (const uint4 *)dev->base8, dev->qnorm, dev->rnorm, p->queries,
        p->refs, plan->refs_per_block, p->bins, dev->smin, dev->smax, dev->threshold, dev->margin,
        dev->hist, plan->copies);
    CUDA_CHECK_LAUNCH();
}

/* The kernel for this pass and plan; KB, the blocks of 128 dimensions, is 1
 * or 2 (version 6 takes at most 256 dimensions). */
template <int KB>
static void run_imma_pass_kb(nn_device *dev, int pass, const imma_plan *plan)
{
    if (pass == PASS_MINMAX)
        launch_imma<PASS_MINMAX, I_MAX_GROUPS, I_WARPS, 0, KB>(dev, plan);
    else if (plan->groups == 4 && dev->p.bins <= 5) /* a few thresholds: compare with each */
        launch_imma<PASS_HISTOGRAM, 4, I_HIST_WARPS, 4, KB>(dev, plan);
    else if (plan->groups == 4 && dev->p.bins <= 9)
        launch_imma<PASS_HISTOGRAM, 4, I_HIST_WARPS, 8, KB>(dev, plan);
    else if (plan->groups == 4)
        launch_imma<PASS_HISTOGRAM, 4, I_HIST_WARPS, 0, KB>(dev, plan);
    else if (plan->groups == 2)
        launch_imma<PASS_HISTOGRAM, 2, I_HIST_WARPS, 0, KB>(dev, plan);
    else
        launch_imma<PASS_HISTOGRAM, 1, I_HIST_WARPS_ONE_GROUP, 0, KB>(dev, plan);
}

static void run_imma_pass(nn_device *dev, int pass)
{
    imma_plan plan = plan_imma(dev, pass);
    if (dev->kblocks == 1)
        run_imma_pass_kb<1>(dev, pass, &plan);
    else
        run_imma_pass_kb<2>(dev, pass, &plan);
}

static void run_imma(nn_device *dev)
{
    run_imma_pass(dev, PASS_MINMAX);
    step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);
    nn_launch_thresholds(dev, 0, dev->p.queries, 1);
    step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);
    run_imma_pass(dev, PASS_HISTOGRAM);
    step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
}

extern "C" const char *nn_imma_unusable(const nn_device *dev)
{
    return dev->imma ? NULL : dev->imma_why;
}

/* ---- the bytes each step moves ------------------------------------------------ */

/* What each step of a version must read and write in device memory, as
 * modelled here: a vector is read once per block (or chunk) of queries that
 * needs it - most of those reads are served by the L2 cache, so the GB/s of
 * a fused pass can pass the device's copy bandwidth - and the distances, where
 * a version keeps them, are written once and read once per later step.
 * Version 0 is the cuBLAS baseline.  The driver divides by each step's time. */
extern "C" double nn_step_bytes(const nn_device *dev, int version, int step)
{
    const nn_problem *p = &dev->p;
    const double q = p->queries, r = p->refs, d = p->dims, k = p->bins;
    const double distances = 4.0 * q * r, counts = 4.0 * q * k;
    if (step == NN_STEP_THRESHOLDS)
        return 4.0 * q * (k - 1) + 8.0 * q; /* the thresholds written, min/max read */
    if (version <= 3) { /* cuBLAS and versions 1-3: the distances go through memory */
        switch (step) {
        case NN_STEP_DISTANCES: {
            /* the references once per chunk of queries (cuBLAS's chunks are as large
             * as the memory allows: once) */
            double chunks = (double)round_up(p->queries, dev->chunk) / dev->chunk;
            return distances + 4.0 * d * (q + r * (version == 0 ? 1.0 : chunks));
        }
        case NN_STEP_MINMAX: return distances;
        default: return distances + counts;
        }
    }
    if (step == NN_STEP_DISTANCES)
        return 0; /* fused: no distances in memory */
    if (version == 6 && dev->imma) { /* bytes, 128 dimensions a block */
        double row = 128.0 * dev->kblocks;
        imma_plan plan = plan_imma(dev, step == NN_STEP_MINMAX ? PASS_MINMAX : PASS_HISTOGRAM);
        double blocks = (double)round_up(p->queries, plan.groups * 8) / (plan.groups * 8);
        double refs_read = r * row * blocks;
        return refs_read + q * row + (step == NN_STEP_HISTOGRAM ? counts : 0.0);
    }
    /* versions 4 and 5: floats, F_TQ queries a block */
    double blocks = (double)round_up(p->queries, F_TQ) / F_TQ;
    return 4.0 * d * (r * blocks + q) + (step == NN_STEP_HISTOGRAM ? counts : 0.0);
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

extern "C" int nn_run_version(nn_device *dev, int version, int reduce, uint32_t *hist,
                              nn_timing *timing, char *err, size_t errlen)
{
    if (version < 1 || version > NN_VERSIONS) {
        snprintf(err, errlen, "--version %d: versions are 1 to %d", version, NN_VERSIONS);
        return -1;
    }
    if (version == 6 && !dev->imma)
        version = 5;
    report_clear(&dev->report, 1);
    nn_clear_results(dev);
    step_timer_start(&dev->timer);
    if (version == 6)
        run_imma(dev);
    else if (version >= 4)
        run_fused(dev, version == 5);
    else
        run_chunked(dev, version, reduce);
    nn_timer_flush(dev);
    nn_timing_from_report(dev, timing);
    timing->ran_version = version;
    nn_download_hist(dev, hist);
    return 0;
}
