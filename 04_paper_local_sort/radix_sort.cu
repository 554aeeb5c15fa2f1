/*
 * 04_paper_local_sort/radix_sort.cu - the algorithm of Satish, Harris & Garland
 * ("Designing efficient sorting algorithms for manycore GPUs", IPDPS 2009).
 *
 * What changed since 03_split_k1, and why (the whole story: README.md)
 *   1-bit digits need 32 passes over all the keys.  Wider digits need fewer, but
 *   a key's place is no longer one scan away.  So each block sorts its tile of
 *   block x kpt keys by the digit in shared memory, with k 1-bit splits (stage
 *   03's split inside a block); the tiles' digit counts go to one [digit][tile]
 *   table, scanned once; and each tile's runs of equal digits are written to
 *   consecutive addresses: a coalesced scatter.
 *
 * Steps of one pass (k-bit digits, --bits 1..8, default 4 as in the paper)
 *   1. local_sort: each block sorts its tile by the digit (k splits, each ranked
 *      by a block-wide scan, --scan) and writes it back;
 *   2. histogram: each tile's digit runs: lengths to table[digit * tiles + tile],
 *      starts to the tile's row of the run starts;
 *   3. scan: one exclusive scan of the table (stage 03's multi-block scan);
 *   4. scatter: the key at place i of tile b, digit d, goes to
 *      scanned[d * tiles + b] + (i - start of d's run in tile b).
 *
 * Run:  build/bin/04_paper_local_sort --verbose       (4-bit digits, 256 threads x 8 keys)
 *       make diff FROM=03 TO=04
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "sort_stage.h"
#include "timer.h"

enum { STEP_LOCAL_SORT, STEP_HISTOGRAM, STEP_SCAN, STEP_SCATTER };

#define MAX_SCAN_LEVELS 8
#define MAX_KPT 16

const stage_info STAGE = {
    .name = "04_paper_local_sort",
    .title = "Satish et al.: local sort in shared memory, [digit][block] histograms, one scan, "
             "coalesced scatter",
    .needs_gpu = 1,
    .nsteps = 4,
    .step_name = {"local_sort", "histogram", "scan", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_SCAN_BLOCK | USES_KPT | USES_SCAN,
    .defaults = {.bits = 4, .block = 256, .scan_block = 256, .kpt = 8,
                 .scan_variant = SCAN_HILLIS_STEELE},
    .range = {.bits = {1, 8}, .block = {32, 1024, 1}, .scan_block = {32, 1024, 1},
              .kpt = {1, MAX_KPT}},
};

/* Shared memory of the local sort: the padded tile and the padded scan buffer. */
static size_t local_sort_shared_bytes(int block, int kpt)
{
    size_t tile = (size_t)block * kpt;
    return ((tile + tile / 32) + (block + block / 32)) * sizeof(uint32_t);
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

/* Device memory each step moves, every pass (T = 2^k x tiles counts in the
 * table): the local sort reads and writes the keys; the histogram reads them
 * and writes the table and the run starts; the scan reads and writes the table
 * twice (scan of the tiles, then adding their offsets); the scatter reads the
 * keys, the scanned table and the starts, and writes the keys. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_for_bits(opt->bits), keys = 4.0 * (double)n;
    double table = 4.0 * (double)((size_t)1 << opt->bits) * (double)tiles_for(n, opt);
    const double per_pass[] = {2 * keys, keys + 2 * table, 4 * table, 2 * keys + 2 * table};
    return passes * per_pass[step];
}

/* ---- scan: in-block scans ------------------------------------------------- */

/* Hillis-Steele, in place on s[0 .. blockDim.x), one value per thread.  After
 * it, s[t] holds the sum of the values before t (exclusive); returns the total.
 * Each step reads the value `offset` to the left, waits for every thread to
 * have read, then adds: without the barrier in between a thread could read a
 * value its neighbour has already updated in this step. */
__device__ uint32_t scan_hillis_steele(uint32_t *s)
{
    const unsigned t = threadIdx.x;
    __syncthreads(); /* the caller's writes to s are visible */
    uint32_t own = s[t];
    for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
        uint32_t left = t >= offset ? s[t - offset] : 0;
        __syncthreads();
        s[t] += left;
        __syncthreads();
    }
    uint32_t total = s[blockDim.x - 1];
    __syncthreads(); /* everyone has read the total before s changes */
    s[t] -= own;     /* inclusive -> exclusive */
    __syncthreads();
    return total;
}

/* Shared-memory index with one word of padding every 32 words: in the tree
 * walks below, addresses 2, 4, 8 ... words apart would otherwise fall into the
 * same bank (there are 32 banks of 4 bytes) and be served one after another. */
#define PAD(i) ((i) + ((i) >> 5))

/* Blelloch, in place on s[PAD(0 .. count)), count a power of two up to
 * 2 * blockDim.x (each thread handles two values).  Exclusive; returns the total. */
__device__ uint32_t scan_blelloch(uint32_t *s, unsigned count)
{
    const unsigned t = threadIdx.x;
    unsigned offset = 1;
    /* up-sweep: after it, s[PAD(count - 1)] holds the total */
    for (unsigned active = count / 2; active > 0; active /= 2) {
        __syncthreads();
        if (t < active) {
            unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            s[PAD(right)] += s[PAD(left)];
        }
        offset *= 2;
    }
    __syncthreads();
    uint32_t total = s[PAD(count - 1)];
    __syncthreads(); /* everyone has read the total before it is cleared */
    if (t == 0)
        s[PAD(count - 1)] = 0;
    /* down-sweep: each node passes its prefix to its left child, and the
     * prefix plus the left child's sum to its right child */
    for (unsigned active = 1; active < count; active *= 2) {
        offset /= 2;
        __syncthreads();
        if (t < active) {
            unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            uint32_t left_sum = s[PAD(left)];
            s[PAD(left)] = s[PAD(right)];
            s[PAD(right)] += left_sum;
        }
    }
    __syncthreads();
    return total;
}

/* ---- scan: the multi-block scan ------------------------------------------- */

/* Values one block scans: one per thread (Hillis-Steele) or two (Blelloch). */
static size_t scan_tile(int variant, int block)
{
    return variant == SCAN_BLELLOCH ? 2 * (size_t)block : (size_t)block;
}

/* The value the scan sees at index i: the value itself (bit < 0), or, fused
 * into the load, bit `bit` of the key. */
__device__ uint32_t scan_input(const uint32_t *in, size_t i, int bit)
{
    return bit < 0 ? in[i] : (in[i] >> bit) & 1u;
}

/* Scans each tile of `in` into `out` (exclusive, in place allowed) and writes
 * each tile's total to tile_sums (if there is more than one tile). */
__global__ void scan_tiles_hillis_steele(const uint32_t *in, uint32_t *out, size_t n, int bit,
                                         uint32_t *tile_sums)
{
    extern __shared__ uint32_t s[];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? scan_input(in, i, bit) : 0;
    uint32_t total = scan_hillis_steele(s);
    if (i < n)
        out[i] = s[threadIdx.x];
    if (tile_sums && threadIdx.x == 0)
        tile_sums[blockIdx.x] = total;
}

__global__ void scan_tiles_blelloch(const uint32_t *in, uint32_t *out, size_t n, int bit,
                                    uint32_t *tile_sums)
{
    extern __shared__ uint32_t s[];
    const unsigned count = 2 * blockDim.x;
    size_t base = (size_t)blockIdx.x * count;
    /* thread t loads values t and t + blockDim.x: neighbouring threads, neighbouring words */
    for (unsigned j = threadIdx.x; j < count; j += blockDim.x)
        s[PAD(j)] = base + j < n ? scan_input(in, base + j, bit) : 0;
    uint32_t total = scan_blelloch(s, count);
    for (unsigned j = threadIdx.x; j < count; j += blockDim.x)
        if (base + j < n)
            out[base + j] = s[PAD(j)];
    if (tile_sums && threadIdx.x == 0)
        tile_sums[blockIdx.x] = total;
}

/* Adds to every value of tile b the scanned total of the tiles before it. */
__global__ void add_tile_offsets(uint32_t *data, size_t n, size_t tile, const uint32_t *offsets)
{
    size_t base = (size_t)blockIdx.x * tile;
    uint32_t add = offsets[blockIdx.x];
    for (size_t j = threadIdx.x; j < tile && base + j < n; j += blockDim.x)
        data[base + j] += add;
}

/* The tile totals of every level of the recursion, allocated once per sort. */
typedef struct {
    uint32_t *sums[MAX_SCAN_LEVELS];
    int variant, block;
} scan_plan;

static void scan_plan_create(scan_plan *plan, size_t n, int variant, int block, int poison)
{
    memset(plan, 0, sizeof *plan);
    plan->variant = variant;
    plan->block = block;
    size_t tile = scan_tile(variant, block);
    for (int level = 0; n > 1 && level < MAX_SCAN_LEVELS; level++) {
        size_t tiles = (n + tile - 1) / tile;
        if (tiles > 1)
            plan->sums[level] = (uint32_t *)gpu_alloc(tiles * sizeof(uint32_t), poison);
        n = tiles;
    }
}

static void scan_plan_destroy(scan_plan *plan)
{
    for (int level = 0; level < MAX_SCAN_LEVELS; level++)
        if (plan->sums[level])
            gpu_free(plan->sums[level]);
}

/* Scans the tiles of n values (or of the bits `bit` of n keys), `block`
 * threads per tile; writes each tile's total to sums when it is not NULL. */
static void launch_scan_tiles(const uint32_t *d_in, uint32_t *d_out, size_t n, int bit,
                              int variant, int block, uint32_t *sums)
{
    size_t tile = scan_tile(variant, block);
    size_t tiles = (n + tile - 1) / tile;
    if (variant == SCAN_BLELLOCH)
        scan_tiles_blelloch<<<tiles, block, PAD(tile) * sizeof(uint32_t)>>>(d_in, d_out, n, bit,
                                                                            sums);
    else
        scan_tiles_hillis_steele<<<tiles, block, tile * sizeof(uint32_t)>>>(d_in, d_out, n, bit,
                                                                            sums);
    CUDA_CHECK_LAUNCH();
}

/* Exclusive scan of n values on the device, any n (in == out allowed). */
static void gpu_exclusive_scan(const uint32_t *d_in, uint32_t *d_out, size_t n,
                               const scan_plan *plan, int level)
{
    if (n == 0)
        return;
    size_t tile = scan_tile(plan->variant, plan->block);
    size_t tiles = (n + tile - 1) / tile;
    uint32_t *sums = tiles > 1 ? plan->sums[level] : NULL;
    launch_scan_tiles(d_in, d_out, n, -1, plan->variant, plan->block, sums);
    if (tiles > 1) {
        gpu_exclusive_scan(sums, sums, tiles, plan, level + 1);
        add_tile_offsets<<<tiles, plan->block>>>(d_out, n, tile, sums);
        CUDA_CHECK_LAUNCH();
    }
}

/* ---- 1. local sort: a tile sorted by its digit in shared memory ----------- */

__device__ uint32_t digit_of(uint32_t key, int shift, uint32_t mask) { return (key >> shift) & mask; }

/* One stable 1-bit split of the tile s_keys (PAD-indexed, `tile` keys) by
 * bit `bit`; thread t owns the keys t * kpt ... t * kpt + kpt - 1.  s_scan is
 * the scan buffer (PAD-indexed for Blelloch). */
__device__ void split_tile(uint32_t *s_keys, uint32_t *s_scan, unsigned tile, int kpt, int bit,
                           int variant)
{
    const unsigned t = threadIdx.x;
    uint32_t key[MAX_KPT];
    uint32_t ones = 0;
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++) {
        if (j < kpt) { /* a constant index after unrolling: key[] stays in registers */
            key[j] = s_keys[PAD(t * kpt + j)];
            ones += (key[j] >> bit) & 1u;
        }
    }
    /* ones before this thread's keys, over the whole tile */
    uint32_t total_ones;
    if (variant == SCAN_BLELLOCH) {
        s_scan[PAD(t)] = ones;
        total_ones = scan_blelloch(s_scan, blockDim.x);
        ones = s_scan[PAD(t)];
    } else {
        s_scan[t] = ones;
        total_ones = scan_hillis_steele(s_scan);
        ones = s_scan[t];
    }
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
__global__ void local_sort(uint32_t *keys, size_t n, int shift, int width, int kpt, int variant)
{
    extern __shared__ uint32_t shared[];
    const unsigned tile = blockDim.x * kpt;
    uint32_t *s_keys = shared;                    /* PAD(tile) words */
    uint32_t *s_scan = shared + PAD(tile);        /* PAD(blockDim.x) words */
    size_t base = (size_t)blockIdx.x * tile;

    /* coalesced load; past the end, padding keys whose bits are all 1 */
    for (unsigned j = threadIdx.x; j < tile; j += blockDim.x)
        s_keys[PAD(j)] = base + j < n ? keys[base + j] : 0xFFFFFFFFu;
    __syncthreads();

    for (int bit = shift; bit < shift + width; bit++)
        split_tile(s_keys, s_scan, tile, kpt, bit, variant);

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
    size_t tile, tiles;  /* keys per tile (block x kpt), number of tiles */
    uint32_t *d_table;   /* [digit][tile] counts, then scanned in place */
    uint32_t *d_starts;  /* [tile][digit] start of each digit's run */
    scan_plan scan;      /* for the table */
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
        d_src, c->n, shift, width, opt->kpt, opt->scan_variant);
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
