/*
 * 02_parallel_hist_scan/step1_gpu_histogram.cu - step 02.1: the histogram on
 * the GPU; scan and scatter still on the CPU.
 *
 * What changed since 01_sequential (the whole story: README.md)
 *   Counting digits runs in parallel on the GPU (gpu_histogram.cuh: three
 *   kernels, from one global atomic a key to a private histogram per block).
 *   The scan of the 2^k counts and the scatter, a chain of "next free slot"
 *   steps, stay on the CPU, so every pass now sends the counts to the host and
 *   the keys back to the GPU.
 *
 * Steps of one pass: 1. histogram (GPU: gpu_histogram.cuh); 2. transfer;
 * 3. scan (CPU); 4. scatter (CPU).
 *
 * Run:  build/bin/02_parallel_hist_scan --step 1 --hist 3 --verbose
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "sort_stage.h"
#include "timer.h"

#include "gpu_histogram.cuh"

enum { STEP_HISTOGRAM, STEP_SCAN, STEP_TRANSFER, STEP_SCATTER };

const stage_info STAGE = {
    .name = "02_parallel_hist_scan",
    .title = "histogram on the GPU, scan and scatter still sequential on the CPU",
    .needs_gpu = 1,
    .nsteps = 4,
    .step_name = {"histogram", "scan", "transfer", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_HIST,
    .defaults = {.bits = 6, .block = 256, .hist_variant = HIST_SHARED},
    .range = {.bits = {1, 8}, .block = {32, 1024, 1}},
};

/* The declared ranges (STAGE.range) are all this step needs. */
int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen)
{
    (void)opt, (void)n, (void)err, (void)errlen;
    return 0;
}

/* The counts: 2^k. */
static size_t table_len(const sort_options *opt, size_t n)
{
    (void)n;
    return (size_t)1 << opt->bits;
}

size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    return (n + table_len(opt, n)) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves, every pass: the histogram reads the keys.  The
 * transfer crosses PCIe and the scan and the scatter run on the host: not
 * counted. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_for_bits(opt->bits);
    switch (step) {
    case STEP_HISTOGRAM: return passes * 4.0 * (double)n;
    default: return 0;
    }
}

/* ---- scan and scatter on the host, as in stage 01 ------------------------- */

/* In place: count[i] becomes the sum of count[0 .. i-1]. */
static void exclusive_scan(uint32_t *count, size_t len)
{
    uint32_t running = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t c = count[i];
        count[i] = running;
        running += c;
    }
}

/* offset[d] is the next free output slot for digit d; it is used up as keys land. */
static void scatter(const uint32_t *src, uint32_t *dst, size_t n, int shift, uint32_t mask,
                    uint32_t *offset)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t key = src[i];
        dst[offset[(key >> shift) & mask]++] = key;
    }
}

/* ---- one pass --------------------------------------------------------------- */

typedef struct {
    size_t n;
    const sort_options *opt;
    uint32_t *d_keys;    /* the keys in their current order, for the histogram */
    uint32_t *d_hist;    /* 2^k counts */
    uint32_t *h_offsets; /* the counts on the host, then scanned in place */
    step_timer timer;
    sort_report *rep;
} sort_context;

static void sort_pass(sort_context *c, const uint32_t *src, uint32_t *dst, int pass, int shift,
                      int width, int last)
{
    const sort_options *opt = c->opt;
    uint32_t mask = (1u << width) - 1;
    size_t nbins = (size_t)mask + 1;

    gpu_histogram(c->d_keys, c->n, shift, width, opt->hist_variant, opt->block, c->d_hist);
    step_timer_mark(&c->timer, pass, STEP_HISTOGRAM);
    CUDA_CHECK(cudaMemcpy(c->h_offsets, c->d_hist, nbins * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
    step_timer_mark(&c->timer, pass, STEP_TRANSFER);

    double t0 = host_time_ms();
    exclusive_scan(c->h_offsets, nbins);
    c->rep->pass_ms[pass][STEP_SCAN] = host_time_ms() - t0;
    t0 = host_time_ms();
    scatter(src, dst, c->n, shift, mask, c->h_offsets);
    c->rep->pass_ms[pass][STEP_SCATTER] = host_time_ms() - t0;
    step_timer_resume(&c->timer);

    if (!last) { /* the next histogram needs the keys in their new order */
        CUDA_CHECK(cudaMemcpy(c->d_keys, dst, c->n * sizeof(uint32_t), cudaMemcpyHostToDevice));
        step_timer_mark(&c->timer, pass, STEP_TRANSFER);
    }
}

static void context_create(sort_context *c, size_t n, const sort_options *opt, sort_report *rep)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->opt = opt;
    c->rep = rep;
    /* WRITE BEGIN first_kernels: a first GPU lab: the counting loops, their launch, device memory */
    c->d_keys = (uint32_t *)gpu_alloc((n ? n : 1) * sizeof(uint32_t), opt->poison);
    c->d_hist = (uint32_t *)gpu_alloc(table_len(opt, n) * sizeof(uint32_t), opt->poison);
    /* WRITE END first_kernels */
    step_timer_create(&c->timer);
}

static void context_destroy(sort_context *c)
{
    step_timer_destroy(&c->timer);
    gpu_free(c->d_hist);
    gpu_free(c->d_keys);
}

int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
               sort_report *rep, char *err, size_t errlen)
{
    int passes = passes_for_bits(opt->bits);
    report_clear(rep, passes);
    if (n == 0)
        return 0;

    /* setup: pinned host buffers (fast transfers), device buffers, the first upload */
    double t0 = host_time_ms();
    uint32_t *h_a = NULL, *h_b = NULL, *h_offsets = NULL;
    size_t bytes = (n ? n : 1) * sizeof(uint32_t);
    if (cudaMallocHost(&h_a, bytes) != cudaSuccess || cudaMallocHost(&h_b, bytes) != cudaSuccess ||
        cudaMallocHost(&h_offsets, table_len(opt, n) * sizeof(uint32_t)) != cudaSuccess) {
        cudaGetLastError();
        if (h_a)
            cudaFreeHost(h_a);
        if (h_b)
            cudaFreeHost(h_b);
        snprintf(err, errlen, "not enough pinned host memory to sort %zu keys", n);
        return -1;
    }
    sort_context c;
    context_create(&c, n, opt, rep);
    c.h_offsets = h_offsets;
    memcpy(h_a, keys_in, n * sizeof(uint32_t));
    /* WRITE BEGIN first_kernels: a first GPU lab: the counting loops, their launch, device memory */
    CUDA_CHECK(cudaMemcpy(c.d_keys, h_a, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    /* WRITE END first_kernels */
    rep->setup_ms = host_time_ms() - t0;

    step_timer_start(&c.timer);
    uint32_t *src = h_a, *dst = h_b;
    for (int pass = 0; pass < passes; pass++) {
        sort_pass(&c, src, dst, pass, pass * opt->bits, bits_in_pass(opt->bits, pass),
                  pass == passes - 1);
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    step_timer_collect(&c.timer, rep);

    t0 = host_time_ms();
    memcpy(keys_out, src, n * sizeof(uint32_t));
    context_destroy(&c);
    CUDA_CHECK(cudaFreeHost(h_offsets));
    CUDA_CHECK(cudaFreeHost(h_b));
    CUDA_CHECK(cudaFreeHost(h_a));
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}
