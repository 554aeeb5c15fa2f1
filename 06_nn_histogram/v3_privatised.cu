/*
 * 06_nn_histogram/v3_privatised.cu - version 3: reductions and privatisation.
 *
 * What changed since version 2: the two steps that combine many values into
 * few.  The min/max: 256 threads per query read its row together (coalesced)
 * and reduce their results by one of the four steps of the class notes on
 * reduction (report 002), chosen with --reduce.  The histogram: blocks of 1024
 * threads count into one histogram per block in shared memory and add its K
 * counts to the query's once - privatisation (report 002).  No adder.
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
    /* WRITE BEGIN privatised: reduce_shuffle and histogram_shared, whole */
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    float mn = lo[t], mx = hi[t];
    /* LAB BEGIN warp_minmax: the warp's min and max in lane 0, by __shfl_down_sync */
    for (int offset = 16; offset > 0; offset /= 2) { /* registers, no shared memory */
        mn = fminf(mn, __shfl_down_sync(FULL_MASK, mn, offset));
        mx = fmaxf(mx, __shfl_down_sync(FULL_MASK, mx, offset));
    }
    /* LAB END warp_minmax */
    __syncthreads(); /* every thread has read its own slot before lane 0s overwrite */
    if (lane == 0) {
        lo[warp] = mn;
        hi[warp] = mx;
    }
    __syncthreads();
    if (warp == 0) {
        mn = lane < REDUCE_THREADS / 32 ? lo[lane] : __uint_as_float(NN_NO_THRESHOLD);
        mx = lane < REDUCE_THREADS / 32 ? hi[lane] : 0.0f;
        /* LAB BEGIN warp_minmax: the warp's min and max in lane 0, by __shfl_down_sync */
        for (int offset = 16; offset > 0; offset /= 2) {
            mn = fminf(mn, __shfl_down_sync(FULL_MASK, mn, offset));
            mx = fmaxf(mx, __shfl_down_sync(FULL_MASK, mx, offset));
        }
        /* LAB END warp_minmax */
        if (lane == 0) {
            lo[0] = mn;
            hi[0] = mx;
        }
    }
    __syncthreads();
    /* WRITE END privatised */
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

#define HIST_THREADS 1024
#define HIST_BLOCKS_PER_QUERY 8 /* the flush of K counts per block stays small beside R */

/* A block counts a grid-stride share of one query's row into K counters in
 * shared memory, then adds the non-zero ones to the query's histogram. */
static __global__ void __launch_bounds__(HIST_THREADS)
histogram_shared(const float *dist, int refs, int q0, int k, const uint32_t *smin,
                 const uint32_t *smax, const float *threshold, uint32_t *hist)
{
    /* WRITE BEGIN privatised: reduce_shuffle and histogram_shared, whole */
    extern __shared__ uint32_t s_hist[];
    int q = q0 + blockIdx.y;
    for (int b = threadIdx.x; b < k; b += blockDim.x)
        s_hist[b] = 0;
    float root, scale;
    bin_guess_params(smin, smax, q, k, &root, &scale);
    const float *thr = threshold + (size_t)q * (k - 1);
    __syncthreads();
    const float *row = dist + (size_t)blockIdx.y * refs;
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < refs; r += gridDim.x * blockDim.x)
        atomicAdd(&s_hist[nn_bin_guessed(row[r], thr, k, root, scale)], 1u);
    __syncthreads();
    /* LAB BEGIN private_merge: add the block's non-zero shared-memory counters to the query's histogram */
    for (int b = threadIdx.x; b < k; b += blockDim.x)
        if (s_hist[b] != 0)
            atomicAdd(&hist[(size_t)q * k + b], s_hist[b]);
    /* LAB END private_merge */
    /* WRITE END privatised */
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

        int per_query = (p->refs + HIST_THREADS * 16 - 1) / (HIST_THREADS * 16);
        per_query = per_query < HIST_BLOCKS_PER_QUERY ? per_query : HIST_BLOCKS_PER_QUERY;
        dim3 hist_grid((unsigned)per_query, (unsigned)count);
        histogram_shared<<<hist_grid, HIST_THREADS, p->bins * sizeof(uint32_t)>>>(
            dev->dist, p->refs, q0, p->bins, dev->smin, dev->smax, dev->threshold, dev->hist);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
        nn_timer_flush(dev); /* a few marks per chunk: collect before the timer fills */
    }
}

/* The distances go through memory: written once, read by the min/max and by
 * the histogram; the vectors are read once per chunk of queries; the counts
 * are written once (shared memory takes the rest). */
static double step_bytes(const nn_device *dev, int step)
{
    const nn_problem *p = &dev->p;
    const double q = p->queries, r = p->refs, d = p->dims, k = p->bins;
    const double distances = 4.0 * q * r, counts = 4.0 * q * k;
    double chunks = (double)nn_round_up(p->queries, dev->chunk) / dev->chunk;
    switch (step) {
    case NN_STEP_DISTANCES: return distances + 4.0 * d * (q + r * chunks);
    case NN_STEP_MINMAX: return distances;
    default: return distances + counts;
    }
}

extern const nn_version nn_version_3 = {"reductions, privatised", 0, run, step_bytes};
