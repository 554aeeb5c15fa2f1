/*
 * 02_parallel_hist_scan/step3_block_table.cu - step 02.3: a [digit][block]
 * table of counts, and with it the scatter on the GPU (course report 000's
 * level 1, report 001's baseline04-v2).
 *
 * What changed since step 02.2 (the whole story: README.md)
 *   Each block of --block keys counts its own digits, into column b of a
 *   [digit][block] table; scanned as one array, the table tells every block
 *   where its keys of each digit start.  The blocks' scatters no longer wait
 *   for one another, so the scatter moves to the GPU - parallel across blocks,
 *   still sequential within one - and the keys stay on the GPU between passes.
 *
 * Steps of one pass: 1. histogram (a column per block); 2. scan of the table
 * (common/gpu_scan.cuh); 3. scatter (GPU, a thread a block of keys).
 *
 * Run:  build/bin/02_parallel_hist_scan --step 3 --block 256 --verbose
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "gpu_scan.cuh"
#include "sort_stage.h"
#include "timer.h"

enum { STEP_HISTOGRAM, STEP_SCAN, STEP_SCATTER };

/* The table may not grow past this many counters. */
#define MAX_TABLE_ENTRIES ((size_t)1 << 27)

const stage_info STAGE = {
    .name = "02_parallel_hist_scan",
    .title = "a [digit][block] table: the scatter on the GPU, a thread a block of keys",
    .needs_gpu = 1,
    .nsteps = 3,
    .step_name = {"histogram", "scan", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_SCAN_BLOCK | USES_SCAN,
    .defaults = {.bits = 6, .block = 256, .scan_block = 256, .scan_variant = SCAN_BLELLOCH},
    .range = {.bits = {1, 8}, .block = {32, 1024, 1}, .scan_block = {32, 1024, 1}},
};

static size_t blocks_for(size_t n, int block) { return (n + (size_t)block - 1) / (size_t)block; }

/* Beyond the declared ranges: the table must stay of a size the scan takes. */
int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen)
{
    size_t entries = ((size_t)1 << opt->bits) * blocks_for(n, opt->block);
    if (entries > MAX_TABLE_ENTRIES) {
        snprintf(err, errlen,
                 "--bits %d and --block %d need a [digit][block] table of %zu counters (at most "
                 "%zu): use a larger --block or fewer bits",
                 opt->bits, opt->block, entries, MAX_TABLE_ENTRIES);
        return -1;
    }
    return 0;
}

/* The counts: 2^k per block of keys. */
static size_t table_len(const sort_options *opt, size_t n)
{
    size_t blocks = blocks_for(n, opt->block);
    return ((size_t)1 << opt->bits) * (blocks ? blocks : 1);
}

/* two key buffers (ping-pong) and the table */
size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    return (2 * n + table_len(opt, n)) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves, every pass: the histogram reads the keys and
 * writes the table; the scan reads and writes the table in each of its two
 * kernels; the scatter reads the keys and writes them (the table's words it
 * reads and updates stay in the cache). */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_for_bits(opt->bits), counts = 4.0 * (double)table_len(opt, n);
    switch (step) {
    case STEP_HISTOGRAM: return passes * (4.0 * (double)n + counts);
    case STEP_SCAN: return passes * 4.0 * counts;
    case STEP_SCATTER: return passes * 8.0 * (double)n;
    default: return 0;
    }
}

/* ---- the table and the scatter, on the GPU -------------------------------- */

/* Block b counts its own blockDim.x keys, one a thread, into column b of the
 * table: table[digit * blocks + b], so that the scan of the whole table puts,
 * for each digit, the blocks in their order. */
__global__ void histogram_blocks(const uint32_t *keys, size_t n, int shift, uint32_t mask,
                                 uint32_t *table)
{
    extern __shared__ uint32_t local[]; /* mask + 1 counters */
    /* WRITE BEGIN block_table: histogram_blocks and scatter_blocks, whole */
    for (uint32_t d = threadIdx.x; d <= mask; d += blockDim.x)
        local[d] = 0;
    __syncthreads();
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    /* LAB BEGIN block_count: count this thread's key (if any) into local, in shared */
    if (i < n)
        atomicAdd(&local[(keys[i] >> shift) & mask], 1u);
    /* LAB END block_count */
    __syncthreads();
    /* LAB BEGIN block_column: write the block's counts into its column of the table */
    for (uint32_t d = threadIdx.x; d <= mask; d += blockDim.x)
        table[(size_t)d * gridDim.x + blockIdx.x] = local[d];
    /* LAB END block_column */
    /* WRITE END block_table */
}

/* Thread b walks block b of the keys in order, each key to the next free slot
 * of its digit in the block's column of the scanned table: stable, and no two
 * threads ever write the same slot. */
__global__ void scatter_blocks(const uint32_t *src, uint32_t *dst, size_t n, int shift,
                               uint32_t mask, int block, size_t nblocks, uint32_t *table)
{
    /* WRITE BEGIN block_table: histogram_blocks and scatter_blocks, whole */
    size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblocks)
        return;
    size_t end = (b + 1) * (size_t)block < n ? (b + 1) * (size_t)block : n;
    /* LAB BEGIN block_scatter: each key of block b to the next free slot of its digit in column b */
    for (size_t i = b * (size_t)block; i < end; i++) {
        uint32_t key = src[i];
        dst[table[((key >> shift) & mask) * nblocks + b]++] = key;
    }
    /* LAB END block_scatter */
    /* WRITE END block_table */
}

/* ---- one pass --------------------------------------------------------------- */

typedef struct {
    size_t n;
    const sort_options *opt;
    size_t nblocks;      /* blocks of --block keys: the table's columns */
    uint32_t *d_table;   /* 2^k counts per block, [digit][block], then scanned in place */
    scan_plan scan;
    step_timer timer;
    sort_report *rep;
} sort_context;

static void sort_pass(sort_context *c, const uint32_t *d_src, uint32_t *d_dst, int pass,
                      int shift, int width)
{
    const sort_options *opt = c->opt;
    uint32_t mask = (1u << width) - 1;
    size_t nbins = (size_t)mask + 1;

    histogram_blocks<<<c->nblocks, opt->block, nbins * sizeof(uint32_t)>>>(d_src, c->n, shift,
                                                                           mask, c->d_table);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_HISTOGRAM);
    gpu_exclusive_scan(c->d_table, c->d_table, nbins * c->nblocks, &c->scan, 0);
    step_timer_mark(&c->timer, pass, STEP_SCAN);
    scatter_blocks<<<blocks_for(c->nblocks, opt->block), opt->block>>>(
        d_src, d_dst, c->n, shift, mask, opt->block, c->nblocks, c->d_table);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_SCATTER);
}

static void context_create(sort_context *c, size_t n, const sort_options *opt, sort_report *rep)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->opt = opt;
    c->rep = rep;
    c->nblocks = blocks_for(n, opt->block);
    c->d_table = (uint32_t *)gpu_alloc(table_len(opt, n) * sizeof(uint32_t), opt->poison);
    scan_plan_create(&c->scan, table_len(opt, n), opt->scan_variant, opt->scan_block,
                     opt->poison);
    step_timer_create(&c->timer);
}

static void context_destroy(sort_context *c)
{
    step_timer_destroy(&c->timer);
    scan_plan_destroy(&c->scan);
    gpu_free(c->d_table);
}

int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
               sort_report *rep, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    int passes = passes_for_bits(opt->bits);
    report_clear(rep, passes);
    if (n == 0)
        return 0;

    /* setup: device buffers and the one upload */
    double t0 = host_time_ms();
    sort_context c;
    context_create(&c, n, opt, rep);
    uint32_t *d_a = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
    uint32_t *d_b = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
    CUDA_CHECK(cudaMemcpy(d_a, keys_in, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    rep->setup_ms = host_time_ms() - t0;

    step_timer_start(&c.timer);
    uint32_t *src = d_a, *dst = d_b;
    for (int pass = 0; pass < passes; pass++) {
        sort_pass(&c, src, dst, pass, pass * opt->bits, bits_in_pass(opt->bits, pass));
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    step_timer_collect(&c.timer, rep);

    /* the one download */
    t0 = host_time_ms();
    CUDA_CHECK(cudaMemcpy(keys_out, src, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_b);
    gpu_free(d_a);
    context_destroy(&c);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}
