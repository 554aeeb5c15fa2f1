/*
 * 03_split_k1/radix_sort.cu - the whole sort on the GPU, with 1-bit digits.
 *
 * What changed since 02_parallel_hist_scan, and why (the whole story: README.md)
 *   The scatter moves to the GPU, and the per-pass transfers go with it.  A
 *   parallel scatter needs each key's place without waiting for the keys before
 *   it; with 1-bit digits that is a scan: a key with bit 0 goes to
 *   i - ones_before(i), a key with bit 1 to zeros + ones_before(i) - a stable
 *   "split".  No histogram (the scan's total counts the ones); 32 passes.
 *
 * Steps of one pass (bit b)
 *   1. scan: each block scans the bits of its tile, taken from the keys as they
 *      load (no array of flags), and the tiles' counts are scanned in turn;
 *   2. scatter: each key's rank is its tile's scanned count plus the scan inside
 *      the tile (no add-back pass over n values); the key goes to the other buffer.
 *
 * Run:  build/bin/03_split_k1 --scan blelloch --block 256 --verbose
 *       make diff FROM=02 TO=03
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "sort_stage.h"
#include "timer.h"

enum { STEP_SCAN, STEP_SCATTER };

#define MAX_SCAN_LEVELS 8

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

size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    (void)opt;
    /* two key buffers (ping-pong) and the in-tile scan of the bits */
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

/* ---- the split, on the GPU ------------------------------------------------ */

/* Rank and scatter, fused: block b handles tile b of the bit scan.  ones_before
 * of key i = the scanned count of ones of the tiles before (tile_ones[b]) + the
 * ones before i inside its tile (local_ones[i]); tile_ones[tiles] is the total. */
__global__ void split_scatter(const uint32_t *src, uint32_t *dst, size_t n, int bit,
                              const uint32_t *local_ones, const uint32_t *tile_ones,
                              size_t tiles, size_t tile)
{
    size_t base = (size_t)blockIdx.x * tile;
    uint32_t ones_before_tile = tile_ones[blockIdx.x];
    size_t zeros = n - tile_ones[tiles];
    for (size_t j = threadIdx.x; j < tile && base + j < n; j += blockDim.x) {
        size_t i = base + j;
        uint32_t key = src[i];
        size_t ones_before = ones_before_tile + local_ones[i];
        size_t rank = ((key >> bit) & 1u) ? zeros + ones_before : i - ones_before;
        dst[rank] = key;
    }
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
    launch_scan_tiles(d_src, c->d_local, c->n, bit, opt->scan_variant, opt->block, c->d_tile_ones);
    /* one extra zero after the counts: the exclusive scan turns it into the total */
    CUDA_CHECK(cudaMemsetAsync(c->d_tile_ones + c->tiles, 0, sizeof(uint32_t)));
    gpu_exclusive_scan(c->d_tile_ones, c->d_tile_ones, c->tiles + 1, &c->scan, 0);
    step_timer_mark(&c->timer, bit, STEP_SCAN);

    split_scatter<<<c->tiles, opt->block>>>(d_src, d_dst, c->n, bit, c->d_local, c->d_tile_ones,
                                             c->tiles, c->tile);
    CUDA_CHECK_LAUNCH();
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

    /* 32 passes: the result is back in d_a */
    t0 = host_time_ms();
    CUDA_CHECK(cudaMemcpy(keys_out, src, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_b);
    gpu_free(d_a);
    context_destroy(&c);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}
