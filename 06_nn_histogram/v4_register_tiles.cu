/*
 * 06_nn_histogram/v4_register_tiles.cu - version 4: register tiles.
 *
 * What changed since version 3: the distance kernel.  Each thread keeps an
 * 8 x 8 tile of sums in registers and reads 16 values per 64 multiply-adds
 * (version 3: two shared-memory reads per multiply-add); the references come
 * transposed (dims x refs) so neighbouring threads read neighbouring ones.
 * And the dot-product form ||q||^2 + ||r||^2 - 2 q.r, the norms computed once
 * at setup: one multiply-add per pair and dimension, not two instructions.
 */
#include "cuda_check.h"
#include "gpu.h"
#include "nn_device.h"

#define F_THREADS 256
#define F_RPT 8                      /* references per thread per tile */
#define F_DC 4                       /* dimensions staged per step */
#define F_TILES_PER_BLOCK 4          /* few: a chunk's 32 queries need many blocks */
#define F_GROUPS 4                   /* groups of 8 queries per block: the whole chunk */

/* Thread t's share of the F_DC x TILE reference values of dimensions
 * [k0, k0 + F_DC) and references [r0, r0 + TILE): consecutive threads read
 * consecutive references (coalesced), and the loop is unrolled so that all
 * STAGE loads are in flight at once instead of one after another. */
template <int TILE, int STAGE>
static __device__ __forceinline__ void load_stage(const float *base_t, int refs, int d, int r0,
                                                  int k0, int t, float staged[STAGE])
{
#pragma unroll
    for (int i = 0; i < STAGE; i++) {
        int at = t + i * F_THREADS, kk = at / TILE, rr = at % TILE;
        staged[i] = (k0 + kk < d && r0 + rr < refs) ? base_t[(size_t)(k0 + kk) * refs + r0 + rr]
                                                    : 0.0f;
    }
}

/* Register tiling: a block's threads split into F_GROUPS
 * teams, one per group of 8 queries of the chunk, and each thread keeps an
 * 8 x F_RPT tile of dot products in registers: per dimension it reads 8 query
 * values (a broadcast) and F_RPT reference values (two 16-byte loads), and
 * does 8 x F_RPT multiply-adds with them, while the next step's reference
 * values load (load_stage).  The squared distance is ||q||^2 + ||r||^2 - 2 q.r,
 * written to the chunk's row of dist. */
static __global__ void __launch_bounds__(F_THREADS)
distances_tiled(const float *query, const float *base_t, const float *qnorm, const float *rnorm,
                int nq, int refs, int d, int q0, float *dist)
{
    constexpr int TQ = 8 * F_GROUPS;                  /* queries per block */
    constexpr int TEAM = F_THREADS / F_GROUPS;        /* threads per group of 8 queries */
    constexpr int TILE = TEAM * F_RPT;                /* references per tile */
    constexpr int STAGE = F_DC * TILE / F_THREADS;    /* values a thread stages per step */
    __shared__ __align__(16) float s_ref[F_DC * TILE];
    __shared__ float s_q[TQ * F_DC];

    const int t = threadIdx.x;
    const int g8 = t / TEAM * 8, tr = t % TEAM; /* queries q0 + g8 .. + 7; tile column tr */
    const int r_begin = blockIdx.x * F_TILES_PER_BLOCK * TILE;
    const int r_end = min(refs, r_begin + F_TILES_PER_BLOCK * TILE);
    float qn[8];
#pragma unroll
    for (int i = 0; i < 8; i++)
        qn[i] = q0 + g8 + i < nq ? qnorm[q0 + g8 + i] : 0.0f;

    /* WRITE BEGIN register_tiles: the kernel's loop over its tiles of references */
    float staged[STAGE];
    load_stage<TILE, STAGE>(base_t, refs, d, r_begin, 0, t, staged);
    for (int r0 = r_begin; r0 < r_end; r0 += TILE) {
        float acc[8][F_RPT];
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < F_RPT; j++)
                acc[i][j] = 0.0f;

        for (int k0 = 0; k0 < d; k0 += F_DC) {
            __syncthreads(); /* the previous step's values are used up */
#pragma unroll
            for (int i = 0; i < STAGE; i++)
                s_ref[t + i * F_THREADS] = staged[i];
            if (t < TQ * F_DC) {
                int qi = t / F_DC, kk = t % F_DC;
                s_q[t] = (q0 + qi < nq && k0 + kk < d) ? query[(size_t)(q0 + qi) * d + k0 + kk]
                                                       : 0.0f;
            }
            __syncthreads();
            /* the next step: the next dimensions, or the next tile's first */
            int next_k0 = k0 + F_DC < d ? k0 + F_DC : 0;
            int next_r0 = k0 + F_DC < d ? r0 : r0 + TILE;
            if (next_r0 < r_end)
                load_stage<TILE, STAGE>(base_t, refs, d, next_r0, next_k0, t, staged);
            /* LAB BEGIN register_tile: acc[i][j] += the products of the staged dimensions */
#pragma unroll
            for (int kk = 0; kk < F_DC; kk++) {
                const float4 *src = (const float4 *)(s_ref + kk * TILE + tr * F_RPT);
                float4 a = src[0], b = src[1];
                float r[F_RPT] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
#pragma unroll
                for (int i = 0; i < 8; i++) {
                    float qv = s_q[(g8 + i) * F_DC + kk];
#pragma unroll
                    for (int j = 0; j < F_RPT; j++)
                        acc[i][j] = fmaf(qv, r[j], acc[i][j]);
                }
            }
            /* LAB END register_tile */
        }

#pragma unroll
        for (int j = 0; j < F_RPT; j++) {
            int r = r0 + tr * F_RPT + j;
            if (r >= refs)
                break;
            float rn = rnorm[r];
#pragma unroll
            for (int i = 0; i < 8; i++) {
                int qi = g8 + i;
                if (q0 + qi >= nq)
                    break;
                /* LAB BEGIN dot_form: the squared distance from the dot product, never below 0 */
                float s = qn[i] + rn - 2.0f * acc[i][j];
                s = s > 0.0f ? s : 0.0f; /* rounding on non-integer data; never -0 */
                dist[(size_t)qi * refs + r] = s;
                /* LAB END dot_form */
            }
        }
    }
    /* WRITE END register_tiles */
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

#define HIST_THREADS 1024
#define HIST_BLOCKS_PER_QUERY 8 /* the flush of K counts per block stays small beside R */

/* A block counts a grid-stride share of one query's row into K counters in
 * shared memory, then adds the non-zero ones to the query's histogram. */
static __global__ void __launch_bounds__(HIST_THREADS)
histogram_shared(const float *dist, int refs, int q0, int k, const uint32_t *smin,
                 const uint32_t *smax, const float *threshold, uint32_t *hist)
{
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
    for (int b = threadIdx.x; b < k; b += blockDim.x)
        if (s_hist[b] != 0)
            atomicAdd(&hist[(size_t)q * k + b], s_hist[b]);
}

/* Chunk after chunk of queries: the distances of a chunk fill dev->dist. */
static void run(nn_device *dev, int reduce)
{
    const nn_problem *p = &dev->p;
    for (int q0 = 0; q0 < p->queries; q0 += dev->chunk) {
        int count = p->queries - q0 < dev->chunk ? p->queries - q0 : dev->chunk;
        size_t per_block = (size_t)F_THREADS / F_GROUPS * F_RPT * F_TILES_PER_BLOCK;
        distances_tiled<<<(unsigned)((p->refs + per_block - 1) / per_block), F_THREADS>>>(
            dev->query, dev->base_t, dev->qnorm, dev->rnorm, q0 + count, p->refs,
            p->dims, q0, dev->dist);
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

extern const nn_version nn_version_4 = {"register tiles", 0, run, step_bytes};
