/*
 * 03_split_k1/radix_sort.cu - the whole sort on the GPU, with 1-bit digits.
 *
 * What changed since step 02.3 (the whole story: README.md)
 *   Every key gets a thread of its own in the scatter, where 02.3's thread
 *   walked a whole block of keys.  With 1-bit digits each key's place is one
 *   scan away: a 0 goes to i - ones_before(i), a 1 to zeros + ones_before(i), a
 *   stable "split".  No histogram and no table; 32 passes.
 *
 * Steps of one pass (bit b): 1. scan of the bits, tile by tile, then of the
 * tiles' counts; 2. scatter: each key to its rank, in the other buffer.
 *
 * Run:  build/bin/03_split_k1 --scan blelloch --block 256 --verbose
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "gpu_scan.cuh"
#include "sort_stage.h"
#include "timer.h"

enum { STEP_SCAN, STEP_SCATTER };

const stage_info STAGE = {
    .name = "03_split_k1",
    .title = "the whole sort on the GPU with 1-bit digits: each pass a split (scan of bits)",
    .needs_gpu = 1,
    .nsteps = 2,
    .step_name = {"scan", "scatter"},
    .uses = USES_BLOCK | USES_SCAN_BLOCK | USES_SCAN,
    .defaults = {.bits = 1, .block = 256, .scan_block = 256, .scan_variant = SCAN_BLELLOCH},
    .range = {.block = {32, 1024, 1}, .scan_block = {32, 1024, 1}},
};

/* The declared ranges (STAGE.range) are all this stage needs. */
int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen)
{
    (void)opt;
    (void)n;
    (void)err;
    (void)errlen;
    return 0;
}

/* two key buffers (ping-pong) and the in-tile scan of the bits */
size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    (void)opt;
    return 3 * n * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves, in each of the 32 passes: the scan reads the
 * keys and writes each key's ones_before in its tile; the scatter reads the
 * keys and those counts and writes the keys. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    (void)opt;
    return 32.0 * (step == STEP_SCAN ? 8.0 : 12.0) * (double)n;
}

/* ---- the split, on the GPU ------------------------------------------------ */

/* Rank and scatter, fused: block b handles tile b of the bit scan.  ones_before
 * of key i = the scanned count of ones of the tiles before (tile_ones[b]) + the
 * ones before i inside its tile (local_ones[i]); tile_ones[tiles] is the total. */
__global__ void split_scatter(const uint32_t *src, uint32_t *dst, size_t n, int bit,
                              const uint32_t *local_ones, const uint32_t *tile_ones,
                              size_t tiles, size_t tile)
{
    /* WRITE BEGIN split: one split by a bit: the scan, split_scatter and its launch */
    size_t base = (size_t)blockIdx.x * tile;
    uint32_t ones_before_tile = tile_ones[blockIdx.x];
    size_t zeros = n - tile_ones[tiles];
    for (size_t j = threadIdx.x; j < tile && base + j < n; j += blockDim.x) {
        size_t i = base + j;
        uint32_t key = src[i];
        /* LAB BEGIN split_rank: key i to its place - after every 0 if its bit is 1 - in dst */
        size_t ones_before = ones_before_tile + local_ones[i];
        size_t rank = ((key >> bit) & 1u) ? zeros + ones_before : i - ones_before;
        dst[rank] = key;
        /* LAB END split_rank */
    }
    /* WRITE END split */
}

/* ---- one pass ------------------------------------------------------------- */

typedef struct {
    size_t n;
    const sort_options *opt;
    size_t tile, tiles;   /* the bit scan's tiles */
    uint32_t *d_local;    /* ones before each key inside its tile */
    uint32_t *d_tile_ones; /* ones per tile, then scanned; tiles + 1 entries */
    scan_plan scan;       /* for the tiles' counts */
    step_timer timer;
    sort_report *rep;
} sort_context;

/* One split of src into dst by bit `bit`. */
static void split_pass(sort_context *c, const uint32_t *d_src, uint32_t *d_dst, int bit)
{
    const sort_options *opt = c->opt;
    /* WRITE BEGIN split: one split by a bit: the scan, split_scatter and its launch */
    launch_scan_tiles(d_src, c->d_local, c->n, bit, opt->scan_variant, opt->block, c->d_tile_ones);
    /* LAB BEGIN tile_scan: the tiles' counts of ones, scanned in place, their total after them */
    /* one extra zero after the counts: the exclusive scan turns it into the total */
    CUDA_CHECK(cudaMemsetAsync(c->d_tile_ones + c->tiles, 0, sizeof(uint32_t)));
    gpu_exclusive_scan(c->d_tile_ones, c->d_tile_ones, c->tiles + 1, &c->scan, 0);
    /* LAB END tile_scan */
    /* WRITE END split */
    step_timer_mark(&c->timer, bit, STEP_SCAN);

    /* WRITE BEGIN split: one split by a bit: the scan, split_scatter and its launch */
    split_scatter<<<c->tiles, opt->block>>>(d_src, d_dst, c->n, bit, c->d_local, c->d_tile_ones,
                                             c->tiles, c->tile);
    CUDA_CHECK_LAUNCH();
    /* WRITE END split */
    step_timer_mark(&c->timer, bit, STEP_SCATTER);
}

static void context_create(sort_context *c, size_t n, const sort_options *opt, sort_report *rep)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->opt = opt;
    c->rep = rep;
    c->tile = scan_tile(opt->scan_variant, opt->block);
    c->tiles = (n + c->tile - 1) / c->tile;
    c->d_local = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
    c->d_tile_ones = (uint32_t *)gpu_alloc((c->tiles + 1) * sizeof(uint32_t), opt->poison);
    scan_plan_create(&c->scan, c->tiles + 1, opt->scan_variant, opt->scan_block, opt->poison);
    step_timer_create(&c->timer);
}

static void context_destroy(sort_context *c)
{
    step_timer_destroy(&c->timer);
    scan_plan_destroy(&c->scan);
    gpu_free(c->d_tile_ones);
    gpu_free(c->d_local);
}

int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
               sort_report *rep, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    report_clear(rep, 32);
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
    for (int bit = 0; bit < 32; bit++) {
        split_pass(&c, src, dst, bit);
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    step_timer_collect(&c.timer, rep);

    t0 = host_time_ms();
    CUDA_CHECK(cudaMemcpy(keys_out, src, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_b);
    gpu_free(d_a);
    context_destroy(&c);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}
