/*
 * 05_warp_shuffle/step3_multisplit.cu - step 05.3: reduce-then-scan, whole
 * digits ranked inside each warp (a warp multisplit).
 *
 * What changed since step 05.2 (the whole story: README.md)
 *   No local sort of 1-bit splits: the upsweep only counts each tile's digits;
 *   the downsweep ranks every key by its whole digit with k ballots
 *   (warp_multisplit.cuh), reorders the tile and writes runs.  12 bytes of keys
 *   per key and pass instead of 20, at 05.2's 4-bit digits and 8 keys a thread.
 *
 * Steps of one pass: upsweep ("histogram", counts only), scan, downsweep
 * ("scatter": rank, reorder the tile, write runs).
 *
 * Run:  build/bin/05_warp_shuffle --step 3 --verbose  (4-bit digits, 256 threads x 8 keys)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "gpu_scan.cuh"
#include "sort_stage.h"
#include "timer.h"

#include "warp_scan.cuh"
#include "warp_multisplit.cuh"

enum { STEP_HISTOGRAM, STEP_SCAN, STEP_SCATTER };

#define MAX_KPT 16

const stage_info STAGE = {
    .name = "05_warp_shuffle",
    .title = "reduce-then-scan with a warp multisplit",
    .needs_gpu = 1,
    .nsteps = 3,
    .step_name = {"histogram", "scan", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_SCAN_BLOCK | USES_KPT | USES_SCAN,
    .defaults = {.bits = 4, .block = 256, .scan_block = 256, .kpt = 8,
                 .scan_variant = SCAN_HILLIS_STEELE},
    .range = {.bits = {1, 8}, .block = {32, 1024, 1}, .scan_block = {32, 1024, 1},
              .kpt = {1, MAX_KPT}},
};

/* Shared memory of the downsweep: the tile, each warp's count of each digit,
 * each digit's start in the tile and place in the output, the warps' totals. */
static size_t downsweep_shared_bytes(int block, int kpt, int bits)
{
    size_t bins = (size_t)1 << bits;
    return ((size_t)block * kpt + (block / 32) * bins + 2 * bins + 33) * sizeof(uint32_t);
}

static size_t tiles_for(size_t n, const sort_options *opt)
{
    size_t tile = (size_t)opt->block * opt->kpt;
    return (n + tile - 1) / tile;
}

/* Beyond the declared ranges: the tile must fit in a block's shared memory,
 * and the downsweep gives each digit a thread of its own. */
int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen)
{
    (void)n;
    if (opt->block < (1 << opt->bits)) {
        snprintf(err, errlen,
                 "--bits %d --block %d: the downsweep needs a thread per digit, "
                 "a block of at least %d threads",
                 opt->bits, opt->block, 1 << opt->bits);
        return -1;
    }
    size_t shared = downsweep_shared_bytes(opt->block, opt->kpt, opt->bits);
    if (shared > SHARED_MEMORY_PER_BLOCK) {
        snprintf(err, errlen,
                 "--block %d --kpt %d: a tile of %d keys needs %zu bytes of shared memory, more "
                 "than the %d a block may use; use fewer keys per thread or a smaller block",
                 opt->block, opt->kpt, opt->block * opt->kpt, shared, SHARED_MEMORY_PER_BLOCK);
        return -1;
    }
    return 0;
}

/* two key buffers (ping-pong) and the [digit][block] table */
size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    size_t table = ((size_t)1 << opt->bits) * tiles_for(n, opt);
    return (2 * n + table) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves, every pass (T: the table's 2^k x tiles counts,
 * read and written by each of the scan's two kernels): upsweep ("histogram"):
 * keys in, table out; downsweep ("scatter"): keys and table in, keys out.  No
 * local sort: 12 bytes of keys per key and pass, against the splits' 20. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_for_bits(opt->bits), keys = 4.0 * (double)n;
    double table = 4.0 * (double)((size_t)1 << opt->bits) * (double)tiles_for(n, opt);
    const double per_pass[] = {keys + table, 4 * table, 2 * keys + table};
    return passes * per_pass[step];
}

/* ---- 1. upsweep: count each tile's digits, read only ---------------------- */

__device__ uint32_t digit_of(uint32_t key, int shift, uint32_t mask) { return (key >> shift) & mask; }

/* Warp-striped: warp w holds the contiguous run [w * 32 * kpt, (w + 1) * 32 *
 * kpt) of the tile, and lane l its keys l, l + 32, l + 64 ..., so each load of
 * the warp is 32 neighbouring words.  The index of this thread's first key: */
__device__ __forceinline__ size_t warp_striped_first(int kpt)
{
    return (size_t)blockIdx.x * blockDim.x * kpt + (threadIdx.x / 32) * 32 * kpt +
           threadIdx.x % 32;
}

/* key[j] = the key at warp_striped_first(kpt) + 32 * j.  Past the end: keys
 * whose bits are all 1, which rank after every real key and are never written. */
__device__ __forceinline__ void load_warp_striped(const uint32_t *src, size_t n, int kpt,
                                                  uint32_t *key)
{
    size_t first = warp_striped_first(kpt);
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt)
            key[j] = first + 32 * j < n ? src[first + 32 * j] : 0xFFFFFFFFu;
}

/* Tile b's count of digit d goes to table[d * tiles + b], column-major for the
 * scan.  The keys are read - all kpt loads of a thread in flight at once - and
 * nothing else is written. */
__global__ void upsweep(const uint32_t *keys, size_t n, int shift, uint32_t mask, int kpt,
                        uint32_t *table)
{
    extern __shared__ uint32_t s_count[]; /* one counter per digit */
    for (uint32_t d = threadIdx.x; d <= mask; d += blockDim.x)
        s_count[d] = 0;
    __syncthreads();
    uint32_t key[MAX_KPT];
    load_warp_striped(keys, n, kpt, key);
    size_t first = warp_striped_first(kpt);
    /* LAB BEGIN upsweep_count: count each of this thread's keys in the block's counter of its digit */
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt && first + 32 * j < n) /* the padding is not counted */
            atomicAdd(&s_count[digit_of(key[j], shift, mask)], 1u);
    /* LAB END upsweep_count */
    __syncthreads();
    for (uint32_t d = threadIdx.x; d <= mask; d += blockDim.x)
        table[(size_t)d * gridDim.x + blockIdx.x] = s_count[d];
}

/* ---- 3. downsweep: rank by whole digits, reorder, write runs ------------- */

/* Ranks the tile held warp-striped in key[] by digit: pos[j] becomes the place
 * of key j in the tile stably sorted by digit.  Thread d (< 2^width) gets the
 * tile's count of digit d back, and s_start[d] holds where its run starts. */
__device__ __forceinline__ uint32_t multisplit_tile(const uint32_t *key, uint32_t *pos, int kpt,
                                                    int shift, int width, uint32_t *s_count,
                                                    uint32_t *s_start, uint32_t *s_scan)
{
    /* WRITE BEGIN multisplit: lanes_with_digit, rank_in_warp and multisplit_tile, whole */
    /* WRITE STUB return 0; */
    const uint32_t bins = 1u << width, mask = bins - 1;
    const unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
    uint32_t *my_count = s_count + warp * bins; /* this warp's running count of each digit */
    for (uint32_t i = threadIdx.x; i < warps * bins; i += blockDim.x)
        s_count[i] = 0;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++) /* the warp's keys in input order: stable */
        if (j < kpt)
            pos[j] = rank_in_warp(digit_of(key[j], shift, mask), width, my_count);
    __syncthreads();
    /* thread d: the warps' counts of digit d become where each warp's keys of
     * d start among the tile's; their sum is the tile's count of d */
    uint32_t count = 0, all;
    /* LAB BEGIN warp_offsets: each warp's count of digit d becomes the keys of d before it */
    if (threadIdx.x < bins)
        for (unsigned w = 0; w < warps; w++) {
            uint32_t c = s_count[w * bins + threadIdx.x];
            s_count[w * bins + threadIdx.x] = count;
            count += c;
        }
    /* LAB END warp_offsets */
    uint32_t start = block_exclusive_scan(count, s_scan, &all); /* ends with a barrier */
    if (threadIdx.x < bins)
        s_start[threadIdx.x] = start;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt) {
            uint32_t d = digit_of(key[j], shift, mask);
            pos[j] += s_start[d] + my_count[d];
        }
    return count;
    /* WRITE END multisplit */
}

/* Each block ranks its tile, reorders it in shared memory and writes each run
 * of equal digits to consecutive addresses: the key at place i of the
 * reordered tile, digit d, goes to scanned[d * tiles + b] + i - start of d. */
__global__ void downsweep(const uint32_t *src, uint32_t *dst, size_t n, int shift, int width,
                          int kpt, const uint32_t *scanned)
{
    extern __shared__ uint32_t shared[];
    const uint32_t bins = 1u << width, mask = bins - 1;
    const unsigned tile = blockDim.x * kpt;
    uint32_t *s_tile = shared;                           /* tile words */
    uint32_t *s_count = s_tile + tile;                   /* (blockDim.x / 32) x bins words */
    uint32_t *s_start = s_count + blockDim.x / 32 * bins; /* bins words */
    uint32_t *s_place = s_start + bins;                   /* bins words */
    uint32_t *s_scan = s_place + bins;                    /* 33 words */

    uint32_t key[MAX_KPT], pos[MAX_KPT];
    load_warp_striped(src, n, kpt, key);
    multisplit_tile(key, pos, kpt, shift, width, s_count, s_start, s_scan);
    if (threadIdx.x < bins)
        s_place[threadIdx.x] =
            scanned[(size_t)threadIdx.x * gridDim.x + blockIdx.x] - s_start[threadIdx.x];
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt)
            s_tile[pos[j]] = key[j];
    __syncthreads();

    size_t base = (size_t)blockIdx.x * tile;
    size_t valid = n - base < tile ? n - base : tile;
    for (unsigned i = threadIdx.x; i < valid; i += blockDim.x) {
        uint32_t k = s_tile[i];
        dst[s_place[digit_of(k, shift, mask)] + i] = k;
    }
}

/* ---- one pass ------------------------------------------------------------- */

typedef struct {
    size_t n;
    const sort_options *opt;
    size_t tile, tiles;   /* keys per tile (block x kpt), number of tiles */
    uint32_t *d_table;    /* [digit][tile] counts, then scanned in place */
    scan_plan scan;       /* for the tiles' counts */
    step_timer timer;
    sort_report *rep;
} sort_context;

/* The three steps of one pass, from src into dst: no local sort. */
static void sort_pass(sort_context *c, uint32_t *d_src, uint32_t *d_dst, int pass, int shift,
                      int width)
{
    const sort_options *opt = c->opt;
    uint32_t mask = (1u << width) - 1;
    size_t bins = (size_t)mask + 1;

    upsweep<<<c->tiles, opt->block, bins * sizeof(uint32_t)>>>(d_src, c->n, shift, mask, opt->kpt,
                                                               c->d_table);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_HISTOGRAM);

    gpu_exclusive_scan(c->d_table, c->d_table, bins * c->tiles, &c->scan, 0);
    step_timer_mark(&c->timer, pass, STEP_SCAN);

    downsweep<<<c->tiles, opt->block, downsweep_shared_bytes(opt->block, opt->kpt, width)>>>(
        d_src, d_dst, c->n, shift, width, opt->kpt, c->d_table);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_SCATTER);
}

static void context_create(sort_context *c, size_t n, const sort_options *opt, sort_report *rep)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->opt = opt;
    c->rep = rep;
    c->tile = (size_t)opt->block * opt->kpt;
    c->tiles = tiles_for(n, opt);
    size_t table = ((size_t)1 << opt->bits) * c->tiles;
    c->d_table = (uint32_t *)gpu_alloc(table * sizeof(uint32_t), opt->poison);
    scan_plan_create(&c->scan, table, opt->scan_variant, opt->scan_block, opt->poison);
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

    t0 = host_time_ms();
    CUDA_CHECK(cudaMemcpy(keys_out, src, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_b);
    gpu_free(d_a);
    context_destroy(&c);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}
