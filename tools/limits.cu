/*
 * tools/limits.cu - `make limits`: the floors of the GPU at hand, measured, so that every
 * "% of floor" in the course divides by a number that has a file behind it.
 *
 *   copy        device-to-device cudaMemcpy of 256 MiB, bytes read + written per second
 *               (the same measurement as every stage's "% of copy": gpu_copy_gbs);
 *   int8 mma    mma.sync.m16n8k32 on int8 with int32 accumulators (the instruction of
 *               stage 06's tensor-core versions), 2 x 16 x 8 x 32 operations each, from
 *               every multiprocessor, independent accumulators: operations per second;
 *   shared atomics  atomicAdd on a block's shared-memory counters at scattered addresses
 *               (as a histogram's counts land): atomics per second.
 *
 * Each is the median of 5 timed runs after a warm-up, CUDA events.  Prints a table and
 * one RESULT line; with --csv FILE appends the row to FILE (header first if new).
 * Exit 77 with no GPU, like every GPU program of the course.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_check.h"
#include "files.h"
#include "gpu.h"
#include "options.h"

#define RUNS 5

/* ---- int8 mma ------------------------------------------------------------------ */

#define MMA_CHAINS 8    /* independent accumulators per warp: enough in flight */
#define MMA_STEPS 4096  /* mma per chain per warp */

/* Each warp issues MMA_CHAINS x MMA_STEPS mma.sync.m16n8k32 (int8 in, int32 out).  The
 * operands are registers that never change; the accumulators feed back, so nothing is
 * optimised away, and one is written out at the end. */
__global__ void mma_loop(int seed, int *out)
{
#if __CUDA_ARCH__ >= 800
    unsigned a0 = seed * 0x01010101u + threadIdx.x, a1 = a0 ^ 0x5a5a5a5au, a2 = a0 + 3,
             a3 = a0 * 7u;
    unsigned b0 = a0 ^ 0x33333333u, b1 = a1 + 11;
    int acc[MMA_CHAINS][4] = {};
    for (int step = 0; step < MMA_STEPS; step++) {
#pragma unroll
        for (int c = 0; c < MMA_CHAINS; c++)
            asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+r"(acc[c][0]), "+r"(acc[c][1]), "+r"(acc[c][2]), "+r"(acc[c][3])
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    int sum = 0;
#pragma unroll
    for (int c = 0; c < MMA_CHAINS; c++)
        sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    if (sum == seed) /* almost never: keeps the work alive */
        out[0] = sum;
#else
    (void)seed;
    (void)out;
#endif
}

/* ---- shared-memory atomics --------------------------------------------------- */

#define ATOMIC_BINS 4096 /* counters per block: a histogram's worth */
#define ATOMIC_STEPS 4096

__global__ void shared_atomics(unsigned seed, unsigned *out)
{
    __shared__ unsigned s_count[ATOMIC_BINS];
    for (int i = threadIdx.x; i < ATOMIC_BINS; i += blockDim.x)
        s_count[i] = 0;
    __syncthreads();
    unsigned x = seed ^ (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u;
    for (int step = 0; step < ATOMIC_STEPS; step++) {
        x = x * 1664525u + 1013904223u; /* scattered bins, as distances fall */
        atomicAdd(&s_count[x >> 20], 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = s_count[seed % ATOMIC_BINS];
}

/* ---- timing --------------------------------------------------------------------- */

typedef struct {
    int blocks, threads;
    void *out;
} grid;

static void launch_mma(int run, void *state)
{
    grid *g = (grid *)state;
    mma_loop<<<g->blocks, g->threads>>>(run + 1, (int *)g->out);
    CUDA_CHECK_LAUNCH();
}

static void launch_atomics(int run, void *state)
{
    grid *g = (grid *)state;
    shared_atomics<<<g->blocks, g->threads>>>((unsigned)run + 1, (unsigned *)g->out);
    CUDA_CHECK_LAUNCH();
}

static int multiprocessors(void)
{
    int device = 0, count = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
}

/* int8 mma operations a second (2 x m x n x k per mma), or -1 before compute capability 8.0. */
static double imma_ops_per_s(void)
{
    if (gpu_compute_capability() < 80)
        return -1.0;
    grid g = {multiprocessors() * 4, 256, gpu_alloc(sizeof(int), 1)};
    double ms = gpu_median_ms(launch_mma, &g, RUNS);
    gpu_free(g.out);
    double mmas = (double)g.blocks * (g.threads / 32) * MMA_CHAINS * MMA_STEPS;
    return mmas * 2.0 * 16 * 8 * 32 / (ms / 1e3);
}

static double shared_atomics_per_s(void)
{
    grid g = {multiprocessors() * 8, 256, NULL};
    g.out = gpu_alloc((size_t)g.blocks * sizeof(unsigned), 1);
    double ms = gpu_median_ms(launch_atomics, &g, RUNS);
    gpu_free(g.out);
    return (double)g.blocks * g.threads * ATOMIC_STEPS / (ms / 1e3);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: limits [--csv FILE]\n"
               "measures the GPU's copy bandwidth, int8 mma rate and shared-memory atomic rate;\n"
               "--csv FILE appends the row to FILE (make limits: build/limits/<gpu>/limits.csv,\n"
               "SAVE=1: results/<gpu>/limits.csv)\n");
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (option_with_value(argc, argv, &i, "--csv", &csv)) {
            if (!csv || !*csv) {
                fprintf(stderr, "limits: error: --csv needs a value: the CSV file to append to\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "limits: error: unknown argument '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    /* the CSV is checked before the GPU and written after the work: a run that skips or
     * fails leaves no file behind */
    char err[512];
    if (csv && check_output_file(csv, err, sizeof err)) {
        fprintf(stderr, "limits: error: %s\n", err);
        return 2;
    }
    gpu_require("limits");

    char gpu[256], date[16];
    gpu_name(gpu, sizeof gpu);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    double copy_gbs = gpu_copy_gbs();
    double imma = imma_ops_per_s();
    double atomics = shared_atomics_per_s();

    printf("limits of %s (%s; median of %d runs after a warm-up)\n", gpu, date, RUNS);
    printf("  %-34s %12.1f GB/s (read + written)\n", "device-to-device copy", copy_gbs);
    if (imma > 0)
        printf("  %-34s %12.1f T operations/s\n", "int8 mma.sync.m16n8k32", imma / 1e12);
    else
        printf("  %-34s %12s (needs compute capability 8.0)\n", "int8 mma.sync.m16n8k32", "NA");
    printf("  %-34s %12.3g atomics/s\n", "shared-memory atomicAdd, 4096 bins", atomics);
    printf("RESULT stage=limits copy_gbs=%.1f imma_tops=%.1f shared_atomics_per_s=%.4g gpu=\"%s\"\n",
           copy_gbs, imma > 0 ? imma / 1e12 : -1.0, atomics, gpu);
    if (csv) {
        FILE *probe = fopen(csv, "r");
        int new_file = probe == NULL;
        if (probe)
            fclose(probe);
        FILE *out = fopen(csv, "a");
        if (!out) {
            fprintf(stderr, "limits: error: cannot write '%s'\n", csv);
            return 2;
        }
        if (new_file)
            fprintf(out, "date,copy_gbs,imma_tops,shared_atomics_per_s,gpu,command\n");
        fprintf(out, "%s,%.1f,%.1f,%.4g,%s,make limits\n", date, copy_gbs,
                imma > 0 ? imma / 1e12 : -1.0, atomics, gpu);
        fclose(out);
    }
    return 0;
}
