/*
 * 06_nn_histogram/nn_histogram.cu - the nearest-neighbour distance histogram,
 * four versions, in the order the lesson builds them.
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
 *
 * Exactness: versions 1-3 sum (q_i - r_i)^2 and version 4 uses the dot
 * product, both in float32.  On integer data 0..255 with d <= 129 every partial
 * sum is an integer below 2^24, which float32 holds exactly, so every version
 * computes the exact squared distances - and, through the thresholds, the
 * exact bins (nn_exact_data in nn_problem.h).
 *
 * Run:  build/bin/06_nn_histogram --version 4 --bins 5000
 *       build/bin/06_nn_histogram -q 1000 -r 100000 --version all
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bin_rule.h"
#include "cuda_check.h"
#include "gpu.h"
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

extern "C" nn_device *nn_device_create(const nn_problem *p, char *err, size_t errlen)
{
    size_t q = (size_t)p->queries, r = (size_t)p->refs, d = (size_t)p->dims, k = (size_t)p->bins;
    int chunk = p->queries < 32 ? p->queries : 32;
    size_t bytes = (q * d + 2 * r * d + q + r + (size_t)chunk * r) * sizeof(float) +
                   (2 * q + q * k) * sizeof(uint32_t) + q * (k > 1 ? k - 1 : 1) * sizeof(float);
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
    step_timer_create(&dev->timer);
    dev->setup_ms = host_time_ms() - t0;
    return dev;
}

extern "C" void nn_device_destroy(nn_device *dev)
{
    if (!dev)
        return;
    step_timer_destroy(&dev->timer);
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

extern "C" const char *nn_version_name(int version)
{
    switch (version) {
    case 1: return "report pipeline";
    case 2: return "tiled distances";
    case 3: return "reductions done well";
    case 4: return "fused, register-tiled";
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

/* The K - 1 thresholds of each query, one block per query (bin_rule.h). */
__global__ void thresholds(const uint32_t *smin, const uint32_t *smax, int q0, int k,
                           float *threshold)
{
    int q = q0 + blockIdx.x;
    float lo = __uint_as_float(smin[q]), hi = __uint_as_float(smax[q]);
    for (int j = 1 + threadIdx.x; j < k; j += blockDim.x)
        threshold[(size_t)q * (k - 1) + (j - 1)] = nn_threshold(j, lo, hi, k);
}

void nn_launch_thresholds(nn_device *dev, int q0, int count)
{
    if (dev->p.bins > 1 && count > 0) {
        thresholds<<<count, 256>>>(dev->smin, dev->smax, q0, dev->p.bins, dev->threshold);
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

        nn_launch_thresholds(dev, q0, count);
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

enum { PASS_MINMAX = 0, PASS_HISTOGRAM = 1 };

/* A block owns F_TQ queries and F_TILES_PER_BLOCK tiles of references.  Each
 * thread computes an F_TQ x F_RPT tile of dot products in registers: per
 * dimension it reads F_RPT references (two 16-byte loads) and F_TQ query values
 * (the same address for the whole block: a broadcast), for F_TQ * F_RPT
 * multiply-adds.  The squared distance is ||q||^2 + ||r||^2 - 2 q.r.
 * PASS_MINMAX keeps the smallest and largest per query; PASS_HISTOGRAM bins
 * them into the block's private histograms (s_hist, when they fit in shared
 * memory) and adds those to the global counts once at the end. */
__global__ void __launch_bounds__(F_THREADS)
fused_pass(int pass, const float *query, const float *base_t, const float *qnorm,
           const float *rnorm, int nq, int refs, int d, int k, uint32_t *smin, uint32_t *smax,
           const float *threshold, uint32_t *hist, int shared_hist)
{
    extern __shared__ __align__(16) float smem[];
    float *s_ref = smem;                  /* F_DC x F_TILE */
    float *s_q = s_ref + F_DC * F_TILE;   /* F_TQ x F_DC */
    uint32_t *s_hist = (uint32_t *)(s_q + F_TQ * F_DC); /* F_TQ x k */
    __shared__ float s_root[F_TQ], s_scale[F_TQ];
    __shared__ uint32_t s_min[F_TQ], s_max[F_TQ];

    const int t = threadIdx.x, q0 = blockIdx.y * F_TQ;
    if (pass == PASS_HISTOGRAM && shared_hist)
        for (int i = t; i < F_TQ * k; i += F_THREADS)
            s_hist[i] = 0;
    if (t < F_TQ) {
        s_min[t] = 0xFFFFFFFFu;
        s_max[t] = 0;
        if (pass == PASS_HISTOGRAM && q0 + t < nq)
            bin_guess_params(smin, smax, q0 + t, k, &s_root[t], &s_scale[t]);
    }
    float qn[F_TQ];
    uint32_t my_min[F_TQ], my_max[F_TQ];
#pragma unroll
    for (int i = 0; i < F_TQ; i++) {
        qn[i] = q0 + i < nq ? qnorm[q0 + i] : 0.0f;
        my_min[i] = 0xFFFFFFFFu;
        my_max[i] = 0;
    }

    for (int tile = 0; tile < F_TILES_PER_BLOCK; tile++) {
        int r0 = (blockIdx.x * F_TILES_PER_BLOCK + tile) * F_TILE;
        if (r0 >= refs)
            break;
        float acc[F_TQ][F_RPT];
#pragma unroll
        for (int i = 0; i < F_TQ; i++)
#pragma unroll
            for (int j = 0; j < F_RPT; j++)
                acc[i][j] = 0.0f;

        for (int k0 = 0; k0 < d; k0 += F_DC) {
            __syncthreads(); /* the previous step's values are used up */
            for (int i = t; i < F_DC * F_TILE; i += F_THREADS) { /* coalesced: dims x refs */
                int kk = i / F_TILE, rr = i % F_TILE;
                s_ref[i] = (k0 + kk < d && r0 + rr < refs)
                               ? base_t[(size_t)(k0 + kk) * refs + r0 + rr]
                               : 0.0f;
            }
            if (t < F_TQ * F_DC) {
                int qi = t / F_DC, kk = t % F_DC;
                s_q[t] = (q0 + qi < nq && k0 + kk < d) ? query[(size_t)(q0 + qi) * d + k0 + kk]
                                                       : 0.0f;
            }
            __syncthreads();
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
                    int q = q0 + i;
                    int b = nn_bin_guessed(s, threshold + (size_t)q * (k - 1), k, s_root[i],
                                           s_scale[i]);
                    atomicAdd(shared_hist ? &s_hist[i * k + b] : &hist[(size_t)q * k + b], 1u);
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

static void run_fused(nn_device *dev)
{
    const nn_problem *p = &dev->p;
    size_t staging = (F_DC * F_TILE + F_TQ * F_DC) * sizeof(float);
    size_t with_hist = staging + (size_t)F_TQ * p->bins * sizeof(uint32_t);
    int device = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    /* the private histograms need F_TQ x K counters: with too many bins for this
     * GPU's shared memory, the counts go straight to global memory */
    int shared_hist = with_hist + 1024 <= (size_t)optin; /* leave room for the static arrays */
    size_t hist_bytes = shared_hist ? with_hist : staging;
    CUDA_CHECK(cudaFuncSetAttribute(fused_pass, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)hist_bytes));
    size_t refs_per_block = (size_t)F_TILE * F_TILES_PER_BLOCK;
    dim3 grid((unsigned)((p->refs + refs_per_block - 1) / refs_per_block),
              (unsigned)((p->queries + F_TQ - 1) / F_TQ));

    fused_pass<<<grid, F_THREADS, staging>>>(PASS_MINMAX, dev->query, dev->base_t, dev->qnorm,
                                             dev->rnorm, p->queries, p->refs, p->dims, p->bins,
                                             dev->smin, dev->smax, dev->threshold, dev->hist, 0);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);
    nn_launch_thresholds(dev, 0, p->queries);
    step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);
    fused_pass<<<grid, F_THREADS, hist_bytes>>>(PASS_HISTOGRAM, dev->query, dev->base_t,
                                                dev->qnorm, dev->rnorm, p->queries, p->refs,
                                                p->dims, p->bins, dev->smin, dev->smax,
                                                dev->threshold, dev->hist, shared_hist);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
}

/* ---- entry point ------------------------------------------------------------ */

extern "C" int nn_run_version(nn_device *dev, int version, int reduce, uint32_t *hist,
                              nn_timing *timing, char *err, size_t errlen)
{
    if (version < 1 || version > NN_VERSIONS) {
        snprintf(err, errlen, "--version %d: versions are 1 to %d", version, NN_VERSIONS);
        return -1;
    }
    report_clear(&dev->report, 1);
    nn_clear_results(dev);
    step_timer_start(&dev->timer);
    if (version == 4)
        run_fused(dev);
    else
        run_chunked(dev, version, reduce);
    nn_timer_flush(dev);
    nn_timing_from_report(dev, timing);
    nn_download_hist(dev, hist);
    return 0;
}
