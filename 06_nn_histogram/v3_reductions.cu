/*
 * 06_nn_histogram/v3_reductions.cu - version 3: the min/max done well.
 *
 * What changed since version 2: the min/max kernel.  Version 2's 64 threads
 * per query each scanned a contiguous section (neighbouring threads read
 * addresses a section apart: uncoalesced), and thread 0 combined the 64
 * results alone.  Here 256 threads per query read the row together
 * (coalesced), then reduce their 256 results in one of the four steps of the
 * class notes on reduction (report 002), chosen with --reduce: divergent
 * branches -> strided indexing (no divergence, bank conflicts) -> sequential
 * addressing (neither) -> warp shuffles.
 */
#include "cuda_check.h"
#include "gpu.h"
#include "nn_device.h"

#define TILE_Q 32 /* queries per block: the chunk */
#define TILE_R 64 /* references per block */
#define TILE_D 32 /* dimensions per step (the report held all 128 at once; this takes any d) */

/* Thread (tx, ty) computes query ty's distances to references 2 tx and
 * 2 tx + 1 of the block's tile, as in the report. */
static __global__ void distances_tiled(const float *query, const float *base, int nq, int refs,
                                       int d, int q0, float *dist)
{
    __shared__ float qs[TILE_Q][TILE_D + 1], rs[TILE_R][TILE_D + 1]; /* +1: fewer bank conflicts */
    int tx = threadIdx.x, ty = threadIdx.y, t = ty * 32 + tx;
    int rb = blockIdx.x * TILE_R;
    float acc[2] = {0.0f, 0.0f};
    for (int k0 = 0; k0 < d; k0 += TILE_D) {
        for (int i = t; i < TILE_Q * TILE_D; i += 1024) { /* rows of 32 contiguous floats */
            int qi = i / TILE_D, k = i % TILE_D;
            qs[qi][k] = (qi < nq && k0 + k < d) ? query[(size_t)(q0 + qi) * d + k0 + k] : 0.0f;
        }
        for (int i = t; i < TILE_R * TILE_D; i += 1024) {
            int ri = i / TILE_D, k = i % TILE_D, r = rb + ri;
            rs[ri][k] = (r < refs && k0 + k < d) ? base[(size_t)r * d + k0 + k] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE_D; k++) {
            float qv = qs[ty][k];
            for (int j = 0; j < 2; j++) {
                float diff = qv - rs[2 * tx + j][k];
                acc[j] = fmaf(diff, diff, acc[j]);
            }
        }
        __syncthreads();
    }
    for (int j = 0; j < 2; j++) {
        int r = rb + 2 * tx + j;
        if (ty < nq && r < refs)
            dist[(size_t)ty * refs + r] = acc[j];
    }
}

#define REDUCE_THREADS 256

static __device__ void reduce_divergent(float *lo, float *hi)
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

static __device__ void reduce_strided(float *lo, float *hi)
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

static __device__ void reduce_sequential(float *lo, float *hi)
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

static __device__ void reduce_shuffle(float *lo, float *hi)
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
static __global__ void minmax_reduce(const float *dist, int refs, int q0, int variant,
                                     uint32_t *smin, uint32_t *smax)
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

/* The report's histcal: one block of 64 threads per query; thread t counts
 * its contiguous section of the distances into its own K counters in global
 * memory (atomicAdd as in the report, though no other thread touches them).
 * The bin: the exact rule, through the query's thresholds. */
static __global__ void histogram_per_thread(const float *dist, int refs, int q0, int k,
                                            const uint32_t *smin, const uint32_t *smax,
                                            const float *threshold, uint32_t *thread_hist)
{
    int q = q0 + blockIdx.x, t = threadIdx.x, section = (refs + 63) / 64;
    float root, scale;
    bin_guess_params(smin, smax, q, k, &root, &scale);
    const float *thr = threshold + (size_t)q * (k - 1);
    uint32_t *mine = thread_hist + ((size_t)blockIdx.x * PER_THREAD_HISTS + t) * k;
    for (int b = 0; b < k; b++)
        mine[b] = 0;
    const float *row = dist + (size_t)blockIdx.x * refs;
    int begin = t * section, end = begin + section < refs ? begin + section : refs;
    for (int r = begin; r < end; r++)
        atomicAdd(&mine[nn_bin_guessed(row[r], thr, k, root, scale)], 1u);
}

/* The report's adder: bin j of each query is the sum of the 64 threads' bin j. */
static __global__ void adder(const uint32_t *thread_hist, int q0, int k, uint32_t *hist)
{
    int b = blockIdx.y * blockDim.x + threadIdx.x;
    if (b >= k)
        return;
    const uint32_t *first = thread_hist + (size_t)blockIdx.x * PER_THREAD_HISTS * k;
    uint32_t sum = 0;
    for (int t = 0; t < PER_THREAD_HISTS; t++)
        sum += first[(size_t)t * k + b];
    hist[(size_t)(q0 + blockIdx.x) * k + b] = sum;
}

/* Chunk after chunk of queries: the distances of a chunk fill dev->dist. */
static void run(nn_device *dev, int reduce)
{
    const nn_problem *p = &dev->p;
    for (int q0 = 0; q0 < p->queries; q0 += dev->chunk) {
        int count = p->queries - q0 < dev->chunk ? p->queries - q0 : dev->chunk;
        dim3 grid((unsigned)((p->refs + TILE_R - 1) / TILE_R));
        distances_tiled<<<grid, dim3(32, 32)>>>(dev->query, dev->base, count, p->refs, p->dims,
                                                 q0, dev->dist);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_DISTANCES);

        minmax_reduce<<<count, REDUCE_THREADS>>>(dev->dist, p->refs, q0, reduce, dev->smin,
                                                 dev->smax);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);

        nn_launch_thresholds(dev, q0, count, 0);
        step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);

        histogram_per_thread<<<count, PER_THREAD_HISTS>>>(dev->dist, p->refs, q0, p->bins,
                                                          dev->smin, dev->smax, dev->threshold,
                                                          dev->thread_hist);
        CUDA_CHECK_LAUNCH();
        dim3 sum_grid((unsigned)count, (unsigned)((p->bins + 255) / 256));
        adder<<<sum_grid, 256>>>(dev->thread_hist, q0, p->bins, dev->hist);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
        nn_timer_flush(dev); /* a few marks per chunk: collect before the timer fills */
    }
}

/* The distances go through memory: written once, read by the min/max and by
 * the histogram; the vectors are read once per chunk of queries; the 64
 * histograms of each query are written (zeros, then counts: at least once)
 * and read once by the adder, which writes the counts. */
static double step_bytes(const nn_device *dev, int step)
{
    const nn_problem *p = &dev->p;
    const double q = p->queries, r = p->refs, d = p->dims, k = p->bins;
    const double distances = 4.0 * q * r, counts = 4.0 * q * k;
    const double thread_counts = PER_THREAD_HISTS * counts;
    double chunks = (double)nn_round_up(p->queries, dev->chunk) / dev->chunk;
    switch (step) {
    case NN_STEP_DISTANCES: return distances + 4.0 * d * (q + r * chunks);
    case NN_STEP_MINMAX: return distances;
    default: return distances + 2.0 * thread_counts + counts;
    }
}

extern const nn_version nn_version_3 = {"reductions done well", 0, run, step_bytes};
