/*
 * 06_nn_histogram/v0_naive.cu - version 0: the straightforward pipeline, the
 * starting point the report improves on.
 *
 * Queries in chunks of 32.  One thread per (query, reference) pair computes
 * the squared distance straight from global memory and writes it to a
 * chunk x R array; a min/max kernel (64 threads per query, each scanning a
 * contiguous section, thread 0 combining); the thresholds (bin_rule.h); a
 * histogram kernel with one global atomicAdd per distance, exact bins.
 */
#include "cuda_check.h"
#include "gpu.h"
#include "nn_device.h"

/* One thread per (query, reference); both vectors read from global memory.
 * Neighbouring threads read references d floats apart: uncoalesced. */
static __global__ void distances_naive(const float *query, const float *base, int refs, int d,
                                       int q0, float *dist)
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

/* 64 threads per query, each scans a contiguous section of the distances;
 * thread 0 combines the 64 results. */
static __global__ void minmax_sections(const float *dist, int refs, int q0, uint32_t *smin,
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
static __global__ void histogram_global(const float *dist, int refs, int q0, int k,
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

/* Chunk after chunk of queries: the distances of a chunk fill dev->dist. */
static void run(nn_device *dev, int reduce)
{
    (void)reduce;
    const nn_problem *p = &dev->p;
    for (int q0 = 0; q0 < p->queries; q0 += dev->chunk) {
        int count = p->queries - q0 < dev->chunk ? p->queries - q0 : dev->chunk;
        dim3 grid((unsigned)((p->refs + 255) / 256), (unsigned)count);
        distances_naive<<<grid, 256>>>(dev->query, dev->base, p->refs, p->dims, q0, dev->dist);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_DISTANCES);

        minmax_sections<<<count, 64>>>(dev->dist, p->refs, q0, dev->smin, dev->smax);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);

        nn_launch_thresholds(dev, q0, count, 0);
        step_timer_mark(&dev->timer, 0, NN_STEP_THRESHOLDS);

        dim3 hgrid((unsigned)((p->refs + 255) / 256 < 1024 ? (p->refs + 255) / 256 : 1024),
                   (unsigned)count);
        histogram_global<<<hgrid, 256>>>(dev->dist, p->refs, q0, p->bins, dev->smin, dev->smax,
                                         dev->threshold, dev->hist);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_HISTOGRAM);
        nn_timer_flush(dev); /* a few marks per chunk: collect before the timer fills */
    }
}

/* The distances go through memory: written once, read by the min/max and by
 * the histogram; the vectors are read once per chunk of queries. */
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

extern const nn_version nn_version_0 = {"naive", 0, run, step_bytes};
