/*
 * 06_nn_histogram/v1_report.cu - version 1: the report's pipeline (report
 * 004), its float binning included.
 *
 * Where stage 06 starts: the pipeline as the report built it.  The distances
 * are tiled through shared memory (a block of 32 x 32 threads loads 32
 * queries and 64 references; each thread computes two distances) and stored
 * as sqrtf(s); 64 threads per query each count a section of them into a
 * histogram of their own in global memory, and an "adder" kernel sums the 64.
 * The bins come from the report's float rule (nn_report_bin in bin_rule.h): a
 * distance within float rounding of a bin edge can land in the neighbouring
 * bin, and the check counts the histograms that differ from the exact ones.
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
            dist[(size_t)ty * refs + r] = sqrtf(acc[j]); /* the report keeps the distance */
    }
}

/* As in the report: 64 threads per query, each scans a contiguous section of
 * the distances; thread 0 combines the 64 results. */
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
        smin[q0 + blockIdx.x] = __float_as_uint(mn); /* here: the distances, not squared */
        smax[q0 + blockIdx.x] = __float_as_uint(mx);
    }
}

/* The report's histcal: one block of 64 threads per query; thread t counts
 * its contiguous section of the distances into its own K counters in global
 * memory (atomicAdd as in the report, though no other thread touches them). */
static __global__ void histogram_per_thread(const float *dist, int refs, int q0, int k,
                                            const uint32_t *smin, const uint32_t *smax,
                                            uint32_t *thread_hist)
{
    int q = q0 + blockIdx.x, t = threadIdx.x, section = (refs + 63) / 64;
    float lo = __uint_as_float(smin[q]), hi = __uint_as_float(smax[q]);
    float inv_width = nn_report_inv_width(lo, hi, k);
    /* WRITE BEGIN report_histogram: histogram_per_thread and the adder, whole */
    uint32_t *mine = thread_hist + ((size_t)blockIdx.x * PER_THREAD_HISTS + t) * k;
    for (int b = 0; b < k; b++)
        mine[b] = 0;
    /* WRITE END report_histogram */
    const float *row = dist + (size_t)blockIdx.x * refs;
    int begin = t * section, end = begin + section < refs ? begin + section : refs;
    /* WRITE BEGIN report_histogram: histogram_per_thread and the adder, whole */
    /* LAB BEGIN section_counts: count each distance of the section in its own counters */
    for (int r = begin; r < end; r++)
        atomicAdd(&mine[nn_report_bin(row[r], lo, inv_width, k)], 1u);
    /* LAB END section_counts */
    /* WRITE END report_histogram */
}

/* The report's adder: bin j of each query is the sum of the 64 threads' bin j. */
static __global__ void adder(const uint32_t *thread_hist, int q0, int k, uint32_t *hist)
{
    int b = blockIdx.y * blockDim.x + threadIdx.x;
    if (b >= k)
        return;
    /* WRITE BEGIN report_histogram: histogram_per_thread and the adder, whole */
    const uint32_t *first = thread_hist + (size_t)blockIdx.x * PER_THREAD_HISTS * k;
    uint32_t sum = 0;
    /* LAB BEGIN adder_sum: sum bin b over the query's PER_THREAD_HISTS per-thread histograms */
    for (int t = 0; t < PER_THREAD_HISTS; t++)
        sum += first[(size_t)t * k + b];
    /* LAB END adder_sum */
    hist[(size_t)(q0 + blockIdx.x) * k + b] = sum;
    /* WRITE END report_histogram */
}

/* Chunk after chunk of queries: the distances of a chunk fill dev->dist. */
static void run(nn_device *dev, int reduce)
{
    (void)reduce;
    const nn_problem *p = &dev->p;
    for (int q0 = 0; q0 < p->queries; q0 += dev->chunk) {
        int count = p->queries - q0 < dev->chunk ? p->queries - q0 : dev->chunk;
        dim3 grid((unsigned)((p->refs + TILE_R - 1) / TILE_R));
        distances_tiled<<<grid, dim3(32, 32)>>>(dev->query, dev->base, count, p->refs, p->dims,
                                                 q0, dev->dist);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_DISTANCES);

        minmax_sections<<<count, 64>>>(dev->dist, p->refs, q0, dev->smin, dev->smax);
        CUDA_CHECK_LAUNCH();
        step_timer_mark(&dev->timer, 0, NN_STEP_MINMAX);

        /* no thresholds: the float rule bins each distance on its own */
        histogram_per_thread<<<count, PER_THREAD_HISTS>>>(dev->dist, p->refs, q0, p->bins,
                                                          dev->smin, dev->smax, dev->thread_hist);
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

extern const nn_version nn_version_1 = {"report, float bins", 1, run, step_bytes};
