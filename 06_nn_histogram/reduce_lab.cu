/*
 * 06_nn_histogram/reduce_lab.cu - the reduction sequence of the class notes (course
 * report 002), on data already in fast memory, so that the tree is what is timed.
 *
 * Stage 06's version 3 reduces the distances of a query to their min/max with each of
 * these trees (--reduce) and all take the same time: reading the distances from global
 * memory dominates.  Here each block holds a tile of 1,024 values in shared memory,
 * loaded once, and reduces it again and again (REPEATS times); only the reduction is
 * left to time.  The variants, in the order of the notes, each one change:
 *   1 divergent    interleaved addressing, `if (t % (2 s) == 0)`: each step keeps
 *                  every other thread of a warp busy, the warps all stay
 *   2 strided      interleaved addressing, index 2 s t: the busy threads are packed into
 *                  few warps, but their reads stride through the banks (conflicts)
 *   3 sequential   sequential addressing, s from 512 down: packed threads, consecutive
 *                  banks
 *   4 two a thread the first step during the load: 512 threads each add two values
 *   5 last warp    the steps within one warp without __syncthreads (the warp's lanes
 *                  meet at __syncwarp: since Volta they may run apart)
 *   6 eight a thread  128 threads each add eight values first, in registers
 *   7 shuffles     eight a thread, then warp shuffles and one step in shared memory
 * Each block checks nothing itself: the host compares every block's sum with its own.
 * Sums are of uint32 (wrapping), the same in any order, so the check is exact.
 *
 * Run:  build/bin/06_reduce_lab [--repeats R] [--runs N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "keys.h"
#include "options.h"
#include "stats.h"

#define TILE 1024        /* values a block reduces */
#define VARIANTS 7
#define FULL_MASK 0xFFFFFFFFu

/* ---- the trees: each reduces s_in[0 .. TILE) (read only) to one sum in thread 0 --- */

/* 1, 2, 3: one value a thread (TILE threads), copied to s_work and reduced in place */
__device__ uint32_t reduce_divergent(const uint32_t *s_in, uint32_t *s_work)
{
    unsigned t = threadIdx.x;
    s_work[t] = s_in[t];
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0)
            s_work[t] += s_work[t + s];
        __syncthreads();
    }
    uint32_t sum = s_work[0];
    __syncthreads(); /* before the next repeat overwrites s_work */
    return sum;
}

__device__ uint32_t reduce_strided(const uint32_t *s_in, uint32_t *s_work)
{
    unsigned t = threadIdx.x;
    s_work[t] = s_in[t];
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned i = 2 * s * t;
        if (i < blockDim.x)
            s_work[i] += s_work[i + s];
        __syncthreads();
    }
    uint32_t sum = s_work[0];
    __syncthreads();
    return sum;
}

__device__ uint32_t reduce_sequential(const uint32_t *s_in, uint32_t *s_work)
{
    unsigned t = threadIdx.x;
    s_work[t] = s_in[t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s)
            s_work[t] += s_work[t + s];
        __syncthreads();
    }
    uint32_t sum = s_work[0];
    __syncthreads();
    return sum;
}

/* 4: TILE / 2 threads; the first step happens as the values are copied */
__device__ uint32_t reduce_two_a_thread(const uint32_t *s_in, uint32_t *s_work)
{
    unsigned t = threadIdx.x;
    s_work[t] = s_in[t] + s_in[t + blockDim.x];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s)
            s_work[t] += s_work[t + s];
        __syncthreads();
    }
    uint32_t sum = s_work[0];
    __syncthreads();
    return sum;
}

/* The last 64 values, by the first warp alone: no block barrier, but the lanes must
 * meet (__syncwarp) between a step's writes and the next step's reads. */
__device__ void last_warp(uint32_t *s_work, unsigned t)
{
    for (unsigned s = 32; s > 0; s /= 2) {
        uint32_t v = s_work[t] + s_work[t + s];
        __syncwarp();
        s_work[t] = v;
        __syncwarp();
    }
}

/* The sequential tree over s_work[0 .. blockDim.x), block steps down to 64 values and
 * the last six steps by the first warp alone (variants 5 and 6). */
__device__ uint32_t tree_then_last_warp(uint32_t *s_work, unsigned t)
{
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (t < s)
            s_work[t] += s_work[t + s];
        __syncthreads();
    }
    if (t < 32)
        last_warp(s_work, t);
    __syncthreads();
    uint32_t sum = s_work[0];
    __syncthreads();
    return sum;
}

/* 5: as 4, the steps within one warp without __syncthreads */
__device__ uint32_t reduce_last_warp(const uint32_t *s_in, uint32_t *s_work)
{
    unsigned t = threadIdx.x;
    s_work[t] = s_in[t] + s_in[t + blockDim.x];
    return tree_then_last_warp(s_work, t);
}

/* Eight values of s_in in registers: t, t + 128, ... (consecutive threads, consecutive
 * banks). */
__device__ uint32_t eight_values(const uint32_t *s_in, unsigned t)
{
    uint32_t v = 0;
#pragma unroll
    for (int j = 0; j < 8; j++)
        v += s_in[t + j * blockDim.x];
    return v;
}

/* 6: TILE / 8 threads, eight values each first, then as 5 */
__device__ uint32_t reduce_eight_a_thread(const uint32_t *s_in, uint32_t *s_work)
{
    unsigned t = threadIdx.x;
    s_work[t] = eight_values(s_in, t);
    return tree_then_last_warp(s_work, t);
}

/* 7: eight a thread, then each warp by shuffles, the warps' sums by the first warp */
__device__ uint32_t reduce_shuffles(const uint32_t *s_in, uint32_t *s_work)
{
    unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    uint32_t v = eight_values(s_in, t);
    for (unsigned offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    if (lane == 0)
        s_work[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? s_work[lane] : 0;
        for (unsigned offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    __syncthreads(); /* s_work is read before the next repeat writes it */
    return v;
}

/* Each block: its tile from global memory into shared memory once, then `repeats`
 * reductions of it; the sum of the last goes to sums[block] (all are the same). */
__global__ void reduce_tiles(const uint32_t *in, int variant, int repeats, uint32_t *sums)
{
    __shared__ uint32_t s_in[TILE], s_work[TILE];
    for (unsigned i = threadIdx.x; i < TILE; i += blockDim.x)
        s_in[i] = in[(size_t)blockIdx.x * TILE + i];
    __syncthreads();
    uint32_t sum = 0;
    for (int r = 0; r < repeats; r++) {
        switch (variant) {
        case 1: sum = reduce_divergent(s_in, s_work); break;
        case 2: sum = reduce_strided(s_in, s_work); break;
        case 3: sum = reduce_sequential(s_in, s_work); break;
        case 4: sum = reduce_two_a_thread(s_in, s_work); break;
        case 5: sum = reduce_last_warp(s_in, s_work); break;
        case 6: sum = reduce_eight_a_thread(s_in, s_work); break;
        default: sum = reduce_shuffles(s_in, s_work); break;
        }
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = sum;
}

/* ---- the host ------------------------------------------------------------------ */

static const char *const NAMES[VARIANTS + 1] = {
    "", "divergent", "strided", "sequential", "two-a-thread", "last-warp", "eight-a-thread",
    "shuffles"};

/* threads a block of each variant runs: one value, two, or eight a thread */
static int threads_of(int variant)
{
    return variant <= 3 ? TILE : variant <= 5 ? TILE / 2 : TILE / 8;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: 06_reduce_lab [--repeats R] [--runs N] [--blocks B]\n"
               "the reduction sequence of the class notes (report 002) on tiles of %d values\n"
               "already in shared memory: each block reduces its tile R times (default 1000);\n"
               "the median of N timed runs (default 5) after a warm-up; B blocks (default: 8\n"
               "per multiprocessor)\n", TILE);
}

int main(int argc, char **argv)
{
    uint64_t repeats = 1000, runs = 5, blocks = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        const char *name = argv[i], *value = NULL;
        uint64_t *field = option_with_value(argc, argv, &i, "--repeats", &value) ? &repeats
                          : option_with_value(argc, argv, &i, "--runs", &value)  ? &runs
                          : option_with_value(argc, argv, &i, "--blocks", &value) ? &blocks
                                                                                 : NULL;
        if (!field) {
            fprintf(stderr, "06_reduce_lab: error: unknown option '%.60s' (see --help)\n", name);
            return 2;
        }
        uint64_t max = field == &runs ? RUNS_MAX : field == &repeats ? 100000 : 1000000;
        if (parse_number(value, 1, max, field)) {
            char option[64];
            snprintf(option, sizeof option, "%.*s", (int)strcspn(name, "="), name);
            fprintf(stderr, "06_reduce_lab: error: %s '%.60s': expected a whole number from 1 to %llu\n",
                    option, value ? value : "", (unsigned long long)max);
            return 2;
        }
    }
    gpu_require("06_reduce_lab");
    if (blocks == 0) {
        int device = 0, sms = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        blocks = 8 * (uint64_t)sms;
    }
    size_t n = (size_t)blocks * TILE;
    uint32_t *keys = (uint32_t *)malloc(n * sizeof *keys);
    uint32_t *expect = (uint32_t *)malloc(blocks * sizeof *expect);
    uint32_t *got = (uint32_t *)malloc(blocks * sizeof *got);
    double *ms = (double *)malloc(runs * sizeof *ms);
    if (!keys || !expect || !got || !ms) {
        fprintf(stderr, "06_reduce_lab: error: not enough host memory\n");
        return 2;
    }
    make_keys(keys, n, DIST_UNIFORM, 2026);
    for (size_t b = 0; b < blocks; b++) {
        uint32_t s = 0;
        for (int i = 0; i < TILE; i++)
            s += keys[b * TILE + i];
        expect[b] = s;
    }
    uint32_t *d_in = (uint32_t *)gpu_alloc(n * sizeof *d_in, 1);
    uint32_t *d_sums = (uint32_t *)gpu_alloc(blocks * sizeof *d_sums, 1);
    CUDA_CHECK(cudaMemcpy(d_in, keys, n * sizeof *d_in, cudaMemcpyHostToDevice));
    char gpu[256];
    gpu_name(gpu, sizeof gpu);
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    printf("06_reduce_lab - %llu blocks, each reducing its %d values in shared memory %llu times\n",
           (unsigned long long)blocks, TILE, (unsigned long long)repeats);
    printf("  %-16s %8s %12s %14s %12s  %s\n", "variant", "threads", "ms", "ns a tile", "vs previous",
           "check");
    int all_ok = 1;
    double prev = 0.0;
    for (int v = 1; v <= VARIANTS; v++) {
        for (int r = -1; r < (int)runs; r++) { /* r = -1: the warm-up */
            CUDA_CHECK(cudaMemset(d_sums, 0xA5, blocks * sizeof *d_sums));
            CUDA_CHECK(cudaEventRecord(start, 0));
            reduce_tiles<<<(unsigned)blocks, threads_of(v)>>>(d_in, v, (int)repeats, d_sums);
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaEventRecord(stop, 0));
            CUDA_CHECK(cudaEventSynchronize(stop));
            float elapsed = 0.0f;
            CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
            if (r >= 0)
                ms[r] = elapsed;
        }
        CUDA_CHECK(cudaMemcpy(got, d_sums, blocks * sizeof *got, cudaMemcpyDeviceToHost));
        size_t wrong = 0;
        for (size_t b = 0; b < blocks; b++)
            wrong += got[b] != expect[b];
        all_ok &= wrong == 0;
        double median = ms[median_index(ms, (int)runs)];
        double ns = median * 1e6 / ((double)blocks * (double)repeats);
        printf("  %d %-14s %8d %12.3f %14.2f ", v, NAMES[v], threads_of(v), median, ns);
        if (prev > 0)
            printf("%11.2fx", prev / ns);
        else
            printf("%12s", "-");
        printf("  %s\n", wrong ? "FAIL" : "PASS");
        if (wrong)
            printf("    %zu of %llu block sums differ from the host's\n", wrong,
                   (unsigned long long)blocks);
        printf("RESULT stage=06_reduce_lab variant=%d name=%s threads=%d blocks=%llu repeats=%llu "
               "runs=%llu ms=%.3f ns_per_tile=%.2f check=%s gpu=\"%s\"\n",
               v, NAMES[v], threads_of(v), (unsigned long long)blocks, (unsigned long long)repeats,
               (unsigned long long)runs, median, ns, wrong ? "FAIL" : "PASS", gpu);
        prev = ns;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    gpu_free(d_sums);
    gpu_free(d_in);
    free(ms);
    free(got);
    free(expect);
    free(keys);
    return all_ok ? 0 : 1;
}
