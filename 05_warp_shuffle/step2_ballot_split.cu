/*
 * 05_warp_shuffle/step2_ballot_split.cu - step 05.2: each split ranked by
 * ballots, with no scan inside a warp.
 *
 * What changed since step 05.1 (the whole story: README.md)
 *   For each key slot, one __ballot_sync tells every lane which lanes hold a
 *   one, and __popc counts those below it: the ones before a key inside its
 *   warp, with no shuffle scan.  Only the warps' totals are still scanned.
 *
 * Steps of one pass: local_sort, histogram (runs), scan, scatter (of runs).
 *
 * Run:  build/bin/05_warp_shuffle --step 2 --verbose  (4-bit digits, 256 threads x 8 keys)
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

enum { STEP_LOCAL_SORT, STEP_HISTOGRAM, STEP_SCAN, STEP_SCATTER };

#define MAX_KPT 16

const stage_info STAGE = {
    .name = "05_warp_shuffle",
    .title = "each split ranked by ballots, no scan inside a warp",
    .needs_gpu = 1,
    .nsteps = 4,
    .step_name = {"local_sort", "histogram", "scan", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_SCAN_BLOCK | USES_KPT | USES_SCAN,
    .defaults = {.bits = 4, .block = 256, .scan_block = 256, .kpt = 8,
                 .scan_variant = SCAN_HILLIS_STEELE},
    .range = {.bits = {1, 8}, .block = {32, 1024, 1}, .scan_block = {32, 1024, 1},
              .kpt = {1, MAX_KPT}},
};

/* Shared memory of the local sort: the padded tile and the warps' totals. */
static size_t local_sort_shared_bytes(int block, int kpt)
{
    size_t tile = (size_t)block * kpt;
    return ((tile + tile / 32) + 33) * sizeof(uint32_t);
}

static size_t tiles_for(size_t n, const sort_options *opt)
{
    size_t tile = (size_t)opt->block * opt->kpt;
    return (n + tile - 1) / tile;
}

/* Beyond the declared ranges: the tile must fit in a block's shared memory. */
int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen)
{
    (void)n;
    size_t shared = local_sort_shared_bytes(opt->block, opt->kpt);
    if (shared > SHARED_MEMORY_PER_BLOCK) {
        snprintf(err, errlen,
                 "--block %d --kpt %d: a tile of %d keys needs %zu bytes of shared memory, more "
                 "than the %d a block may use; use fewer keys per thread or a smaller block",
                 opt->block, opt->kpt, opt->block * opt->kpt, shared, SHARED_MEMORY_PER_BLOCK);
        return -1;
    }
    return 0;
}

/* two key buffers (ping-pong), the [digit][block] table and the run starts */
size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    size_t table = ((size_t)1 << opt->bits) * tiles_for(n, opt);
    return (2 * n + 2 * table) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves, every pass (T: the table's 2^k x tiles counts,
 * read and written by each of the scan's two kernels; the starts are as many):
 * local sort: keys in and out; histogram: keys in, table and starts out;
 * scatter: keys, table and starts in, keys out. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_for_bits(opt->bits), keys = 4.0 * (double)n;
    double table = 4.0 * (double)((size_t)1 << opt->bits) * (double)tiles_for(n, opt);
    const double per_pass[] = {2 * keys, keys + 2 * table, 4 * table, 2 * keys + 2 * table};
    return passes * per_pass[step];
}

/* ---- 1. local sort: a tile sorted by its digit in shared memory ----------- */

__device__ uint32_t digit_of(uint32_t key, int shift, uint32_t mask) { return (key >> shift) & mask; }

/* The ones before this thread's keys, with no scan inside the warp.  For each
 * of the kpt key slots a ballot tells which lanes hold a one, and __popc
 * counts those below this lane; only the warps' totals are scanned. */
__device__ __forceinline__ uint32_t ballot_ones_before(const uint32_t *key, int kpt, int bit,
                                                       uint32_t *s_scan, uint32_t *total)
{
    /* WRITE BEGIN ballot_ones: ballot_ones_before: one ballot and two popcounts a key slot */
    /* WRITE STUB return 0; */
    const unsigned below_me = (1u << (threadIdx.x % 32)) - 1;
    uint32_t below = 0, in_warp = 0;
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++) {
        if (j < kpt) {
            /* LAB BEGIN ballot_ones: key slot j's ballot of the bit: below and in_warp gain its ones */
            unsigned ones = __ballot_sync(FULL_WARP, (key[j] >> bit) & 1u);
            below += __popc(ones & below_me);
            in_warp += __popc(ones);
            /* LAB END ballot_ones */
        }
    }
    /* LAB BEGIN ones_before: the ones in the warps before this thread's plus those below it in its warp */
    /* LAB STUB return 0; */
    return scan_warp_totals(in_warp, s_scan, total) + below;
    /* LAB END ones_before */
    /* WRITE END ballot_ones */
}

/* One stable 1-bit split of the tile s_keys (PAD-indexed, `tile` keys) by
 * bit `bit`; thread t owns the keys t * kpt ... t * kpt + kpt - 1.  s_scan
 * holds the warps' totals (33 words). */
__device__ void split_tile(uint32_t *s_keys, uint32_t *s_scan, unsigned tile, int kpt, int bit)
{
    const unsigned t = threadIdx.x;
    uint32_t key[MAX_KPT];
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++) {
        if (j < kpt) { /* a constant index after unrolling: key[] stays in registers */
            key[j] = s_keys[PAD(t * kpt + j)];
        }
    }
    /* ones before this thread's keys, over the whole tile */
    uint32_t total_ones;
    uint32_t ones = ballot_ones_before(key, kpt, bit, s_scan, &total_ones);
    /* every thread has read its keys (the scans end with a barrier): write */
    uint32_t zeros = tile - total_ones;
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++) {
        if (j < kpt) {
            uint32_t i = t * kpt + j, b = (key[j] >> bit) & 1u;
            uint32_t rank = b ? zeros + ones : i - ones;
            ones += b;
            s_keys[PAD(rank)] = key[j];
        }
    }
    __syncthreads();
}

/* Each block sorts its tile of `keys` (in place) by the digit at `shift`. */
__global__ void local_sort(uint32_t *keys, size_t n, int shift, int width, int kpt)
{
    extern __shared__ uint32_t shared[];
    const unsigned tile = blockDim.x * kpt;
    uint32_t *s_keys = shared;                    /* PAD(tile) words */
    uint32_t *s_scan = shared + PAD(tile);        /* 33 words */
    size_t base = (size_t)blockIdx.x * tile;

    /* coalesced load; past the end, padding keys whose bits are all 1 */
    for (unsigned j = threadIdx.x; j < tile; j += blockDim.x)
        s_keys[PAD(j)] = base + j < n ? keys[base + j] : 0xFFFFFFFFu;
    __syncthreads();

    for (int bit = shift; bit < shift + width; bit++)
        split_tile(s_keys, s_scan, tile, kpt, bit);

    for (unsigned j = threadIdx.x; j < tile; j += blockDim.x)
        if (base + j < n)
            keys[base + j] = s_keys[PAD(j)];
}

/* ---- 2. histogram: the digit runs of each sorted tile --------------------- */

/* Tile b's count of digit d goes to table[d * tiles + b] (column-major, for
 * the scan); where d's run starts in the tile goes to starts[b * bins + d]. */
__global__ void tile_histogram(const uint32_t *sorted, size_t n, int shift, uint32_t mask,
                               size_t tile, uint32_t *table, uint32_t *starts)
{
    extern __shared__ uint32_t s_run[]; /* start and end of each digit's run */
    const uint32_t bins = mask + 1;
    uint32_t *s_start = s_run, *s_end = s_run + bins;
    for (uint32_t d = threadIdx.x; d < bins; d += blockDim.x)
        s_start[d] = s_end[d] = 0; /* a digit with no keys: an empty run */
    __syncthreads();

    size_t base = (size_t)blockIdx.x * tile;
    size_t valid = n - base < tile ? n - base : tile;
    for (size_t j = threadIdx.x; j < valid; j += blockDim.x) {
        uint32_t d = digit_of(sorted[base + j], shift, mask);
        if (j == 0 || digit_of(sorted[base + j - 1], shift, mask) != d)
            s_start[d] = (uint32_t)j;
        if (j == valid - 1 || digit_of(sorted[base + j + 1], shift, mask) != d)
            s_end[d] = (uint32_t)j + 1;
    }
    __syncthreads();

    for (uint32_t d = threadIdx.x; d < bins; d += blockDim.x) {
        table[(size_t)d * gridDim.x + blockIdx.x] = s_end[d] - s_start[d];
        starts[(size_t)blockIdx.x * bins + d] = s_start[d];
    }
}

/* ---- 4. scatter: runs of equal digits to consecutive addresses ------------ */

__global__ void scatter_tiles(const uint32_t *sorted, uint32_t *dst, size_t n, int shift,
                              uint32_t mask, size_t tile, const uint32_t *scanned,
                              const uint32_t *starts)
{
    extern __shared__ uint32_t s_offset[]; /* per digit: where its run goes, minus its start */
    const uint32_t bins = mask + 1;
    for (uint32_t d = threadIdx.x; d < bins; d += blockDim.x)
        s_offset[d] = scanned[(size_t)d * gridDim.x + blockIdx.x] -
                      starts[(size_t)blockIdx.x * bins + d];
    __syncthreads();

    size_t base = (size_t)blockIdx.x * tile;
    size_t valid = n - base < tile ? n - base : tile;
    for (size_t j = threadIdx.x; j < valid; j += blockDim.x) {
        uint32_t key = sorted[base + j];
        dst[s_offset[digit_of(key, shift, mask)] + (uint32_t)j] = key;
    }
}

/* ---- one pass ------------------------------------------------------------- */

typedef struct {
    size_t n;
    const sort_options *opt;
    size_t tile, tiles;   /* keys per tile (block x kpt), number of tiles */
    uint32_t *d_table;    /* [digit][tile] counts, then scanned in place */
    uint32_t *d_starts;   /* [tile][digit] start of each digit's run */
    scan_plan scan;       /* for the tiles' counts */
    step_timer timer;
    sort_report *rep;
} sort_context;

/* The four steps of one pass, from src (locally sorted in place) into dst. */
static void sort_pass(sort_context *c, uint32_t *d_src, uint32_t *d_dst, int pass, int shift,
                      int width)
{
    const sort_options *opt = c->opt;
    uint32_t mask = (1u << width) - 1;
    size_t bins = (size_t)mask + 1;

    local_sort<<<c->tiles, opt->block, local_sort_shared_bytes(opt->block, opt->kpt)>>>(
        d_src, c->n, shift, width, opt->kpt);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_LOCAL_SORT);

    tile_histogram<<<c->tiles, opt->block, 2 * bins * sizeof(uint32_t)>>>(
        d_src, c->n, shift, mask, c->tile, c->d_table, c->d_starts);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_HISTOGRAM);

    gpu_exclusive_scan(c->d_table, c->d_table, bins * c->tiles, &c->scan, 0);
    step_timer_mark(&c->timer, pass, STEP_SCAN);

    scatter_tiles<<<c->tiles, opt->block, bins * sizeof(uint32_t)>>>(
        d_src, d_dst, c->n, shift, mask, c->tile, c->d_table, c->d_starts);
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
    c->d_starts = (uint32_t *)gpu_alloc(table * sizeof(uint32_t), opt->poison);
    scan_plan_create(&c->scan, table, opt->scan_variant, opt->scan_block, opt->poison);
    step_timer_create(&c->timer);
}

static void context_destroy(sort_context *c)
{
    step_timer_destroy(&c->timer);
    scan_plan_destroy(&c->scan);
    gpu_free(c->d_starts);
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
