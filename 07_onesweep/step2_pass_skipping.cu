/*
 * 07_onesweep/step2_pass_skipping.cu - step 07.2: a pass whose digit is the
 * same for every key is skipped.
 *
 * What changed since step 07.1 (the whole story: README.md)
 *   The histogram already shows such a pass: one digit holds all n keys, and
 *   a stable pass by it would move nothing.  The GPU plans the passes (skip,
 *   or which buffer to read), so that the host launches every pass and waits
 *   for nothing; a skipped pass returns at once.  --no-skip runs every pass.
 *
 * Steps: histogram (every pass's digit counts, once), then per pass scatter
 * (ticket, rank, look back, reorder the tile, write runs).
 *
 * Run:  build/bin/07_onesweep --step 2 --dist high --verbose
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda/atomic>

#include "cuda_check.h"
#include "gpu.h"
#include "sort_stage.h"
#include "timer.h"

#include "../05_warp_shuffle/warp_scan.cuh"
#include "../05_warp_shuffle/warp_multisplit.cuh"

enum { STEP_HISTOGRAM, STEP_SCATTER };

#define MAX_KPT 16

/* A look-back word: a tile's state for one digit in the top 2 bits, a count
 * below them.  Not ready yet (0), the tile's own count (AGGREGATE), or the
 * count of the tile and every tile before it (PREFIX). */
#define LOOKBACK_AGGREGATE (1u << 30)
#define LOOKBACK_PREFIX (2u << 30)
#define LOOKBACK_COUNT ((1u << 30) - 1)

/* Many blocks read and write a look-back word at once, so every access to one
 * is a device-scope atomic: a plain or volatile access there would be a data
 * race, whose result the CUDA memory model does not define.  Relaxed order is
 * enough: the word holds all a reader uses (flag and count together), so no
 * other write has to become visible with it - no acquire, no release. */
typedef cuda::atomic_ref<uint32_t, cuda::thread_scope_device> lookback_word;

/* Tests only (07_onesweep/test_hooks.cu sets them): tile test_slow_tile waits
 * test_slow_ns nanoseconds before it publishes its counts - a tile that runs
 * late, to show that the look-back still ends, and ends right. */
__device__ long long test_slow_tile = -1;
__device__ unsigned test_slow_ns;

const stage_info STAGE = {
    .name = "07_onesweep",
    .title = "a pass whose digit is the same for every key is skipped",
    .needs_gpu = 1,
    .nsteps = 2,
    .step_name = {"histogram", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_KPT | USES_SKIP,
    .defaults = {.bits = 8, .block = 256, .kpt = 16},
    .range = {.bits = {1, 8}, .block = {32, 512, 1}, .kpt = {1, MAX_KPT}},
    .max_keys = LOOKBACK_COUNT,
};

/* Shared memory of a pass: the tile, each warp's count of each digit, each
 * digit's start in the tile and place in the output, the warps' totals. */
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
 * a pass gives each digit a thread of its own, and a look-back word holds a
 * count of at most 2^30 - 1 keys. */
int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen)
{
    if (n > LOOKBACK_COUNT) {
        snprintf(err, errlen,
                 "-n %zu: 07_onesweep sorts at most %u keys (a look-back word holds a 30-bit "
                 "count)", n, LOOKBACK_COUNT);
        return -1;
    }
    if (opt->block < (1 << opt->bits)) {
        snprintf(err, errlen,
                 "--bits %d --block %d: a pass needs a thread per digit, "
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

/* two key buffers (ping-pong), two look-back tables of 2^k words a tile (one
 * pass's, and the next pass's being cleared), the counts and the tickets */
size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    size_t lookback = ((size_t)1 << opt->bits) * tiles_for(n, opt);
    return (2 * n + 2 * lookback) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves (L: a pass's look-back words, 2^k a tile):
 * histogram: the keys once, for every pass; scatter, every pass: the keys in
 * and out, L written twice (aggregate, prefix) and cleared for the next pass.
 * 4 + 8 bytes of keys a key and pass: 36 for 4 passes, against 05.4's 48.
 * A skipped pass moves nothing; the model counts every pass. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_for_bits(opt->bits), keys = 4.0 * (double)n;
    double lookback = 4.0 * (double)((size_t)1 << opt->bits) * (double)tiles_for(n, opt);
    return step == STEP_HISTOGRAM ? keys : passes * (2 * keys + 3 * lookback);
}

/* ---- 1. histogram: every pass's digit counts, one read of the keys -------- */

__device__ uint32_t digit_of(uint32_t key, int shift, uint32_t mask) { return (key >> shift) & mask; }

/* One key's digits, one count each, in the block's counters. */
__device__ __forceinline__ void count_digits(uint32_t *s_count, uint32_t key, int bits, int passes)
{
    const uint32_t bins = 1u << bits;
    for (int p = 0; p < passes; p++)
        atomicAdd(&s_count[p * bins + digit_of(key, p * bits, bins - 1)], 1u);
}

/* This block's share of the keys, counted in s_count, four keys to a 16-byte
 * load. */
__device__ __forceinline__ void count_keys(uint32_t *s_count, const uint32_t *keys, size_t n,
                                           int bits, int passes)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint4 *keys4 = (const uint4 *)keys; /* cudaMalloc aligns to 256 bytes */
    for (size_t i = first; i < n / 4; i += stride) {
        uint4 k = keys4[i];
        count_digits(s_count, k.x, bits, passes);
        count_digits(s_count, k.y, bits, passes);
        count_digits(s_count, k.z, bits, passes);
        count_digits(s_count, k.w, bits, passes);
    }
    for (size_t i = n / 4 * 4 + first; i < n; i += stride)
        count_digits(s_count, keys[i], bits, passes);
}

/* counts[p * 2^bits + d]: the keys whose digit of pass p is d.  Each block
 * counts its share of the keys in shared memory (one counter a pass and
 * digit), then adds its counts to the global ones. */
__global__ void all_pass_histogram(const uint32_t *keys, size_t n, int bits, int passes,
                                   uint32_t *counts)
{
    extern __shared__ uint32_t s_count[]; /* passes x 2^bits */
    const uint32_t bins = 1u << bits;
    for (uint32_t i = threadIdx.x; i < passes * bins; i += blockDim.x)
        s_count[i] = 0;
    __syncthreads();
    count_keys(s_count, keys, n, bits, passes);
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < passes * bins; i += blockDim.x)
        if (s_count[i] != 0)
            atomicAdd(&counts[i], s_count[i]);
}

/* A pass's plan: skip it, or read buffer `from` (0 or 1) and write the other. */
enum { PLAN_SKIP = 2 };

/* One block, a thread a digit: each pass's counts become where each digit's
 * run starts in the output (an exclusive scan), and the passes' plan: a pass
 * where one digit holds all n keys would move nothing, and is skipped (unless
 * no_skip); the others read the buffer the pass before them wrote.
 * plan[passes] is the buffer that holds the sorted keys at the end. */
__global__ void digit_starts(uint32_t *counts, int bits, int passes, size_t n, int no_skip,
                             int *plan)
{
    /* WRITE BEGIN pass_plan: the passes planned on the GPU: digit_starts, whole (each pass's digit starts, and its plan: skip it, or the buffer it reads), and a pass that reads its plan - returning at once where it is skipped */
    __shared__ uint32_t s_warp[33];
    const uint32_t bins = 1u << bits, d = threadIdx.x;
    int from = 0;
    for (int p = 0; p < passes; p++) {
        uint32_t *pass = counts + (size_t)p * bins;
        uint32_t count = d < bins ? pass[d] : 0, all;
        uint32_t start = block_exclusive_scan(count, s_warp, &all);
        int one_digit = __syncthreads_or(d < bins && count == n);
        if (d < bins)
            pass[d] = start;
        /* LAB BEGIN plan: plan[p]: PLAN_SKIP where one digit holds all n keys (unless no_skip), else the buffer the pass reads (from); a pass that runs swaps the buffers for the next */
        if (d == 0)
            plan[p] = one_digit && !no_skip ? PLAN_SKIP : from;
        if (!one_digit || no_skip)
            from ^= 1;
        /* LAB END plan */
    }
    if (d == 0)
        plan[passes] = from;
    /* WRITE END pass_plan */
}

/* ---- 2. a pass: ticket, rank, look back, reorder, write runs ------------ */

/* Warp-striped: warp w holds the contiguous run [w * 32 * kpt, (w + 1) * 32 *
 * kpt) of tile b, and lane l its keys l, l + 32, l + 64 ..., so each load of
 * the warp is 32 neighbouring words.  The index of this thread's first key: */
__device__ __forceinline__ size_t warp_striped_first(size_t b, int kpt)
{
    return b * blockDim.x * kpt + (threadIdx.x / 32) * 32 * kpt + threadIdx.x % 32;
}

/* key[j] = the key at warp_striped_first(b, kpt) + 32 * j.  Past the end: keys
 * whose bits are all 1, which rank after every real key and are never written. */
__device__ __forceinline__ void load_warp_striped(const uint32_t *src, size_t n, size_t b,
                                                  int kpt, uint32_t *key)
{
    size_t first = warp_striped_first(b, kpt);
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt)
            key[j] = first + 32 * j < n ? src[first + 32 * j] : 0xFFFFFFFFu;
}


/* Ranks the tile held warp-striped in key[] by digit: pos[j] becomes the place
 * of key j in the tile stably sorted by digit.  Thread d (< 2^width) gets the
 * tile's count of digit d back, and s_start[d] holds where its run starts. */
__device__ __forceinline__ uint32_t multisplit_tile(const uint32_t *key, uint32_t *pos, int kpt,
                                                    int shift, int width, uint32_t *s_count,
                                                    uint32_t *s_start, uint32_t *s_scan)
{
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
    if (threadIdx.x < bins)
        for (unsigned w = 0; w < warps; w++) {
            uint32_t c = s_count[w * bins + threadIdx.x];
            s_count[w * bins + threadIdx.x] = count;
            count += c;
        }
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
}

/* Thread d of tile b publishes the tile's count of digit d as soon as it is
 * known, before the tile is ranked: the tiles after it need not wait for the
 * ranking.  Tile 0's count is its whole prefix. */
__device__ void publish_count(uint32_t *lookback, size_t b, uint32_t bins, uint32_t d,
                              uint32_t count)
{
    lookback_word(lookback[b * bins + d])
        .store((b == 0 ? LOOKBACK_PREFIX : LOOKBACK_AGGREGATE) | count, cuda::memory_order_relaxed);
}

/* Thread d of tile b: the keys of digit d in the tiles before b.  It walks
 * back over the tiles before, adding their counts, until one that knows its
 * whole prefix (PREFIX); then it publishes the tile's prefix for the tiles
 * after it. */
__device__ uint32_t look_back(uint32_t *lookback, size_t b, uint32_t bins, uint32_t d,
                              uint32_t count)
{
    if (b == 0)
        return 0;
    uint32_t before = 0;
    for (size_t j = b - 1;; j--) {
        uint32_t word;
        do /* a tile before has its ticket, so it runs: it will publish */
            word = lookback_word(lookback[j * bins + d]).load(cuda::memory_order_relaxed);
        while ((word & ~LOOKBACK_COUNT) == 0);
        before += word & LOOKBACK_COUNT;
        if (word & LOOKBACK_PREFIX)
            break;
    }
    lookback_word(lookback[b * bins + d])
        .store(LOOKBACK_PREFIX | (before + count), cuda::memory_order_relaxed);
    return before;
}

/* One pass over all tiles, from buffer plan[pass] into the other (or none:
 * a skipped pass returns at once).  A block takes the next tile by ticket (so
 * that the tiles it waits on belong to blocks that started before it), counts
 * its digits and publishes the counts, ranks the tile, finds each digit's
 * place in the output - where the digit's run starts (starts[d]) plus the
 * tile's prefix from the look-back - reorders the tile in shared memory and
 * writes each run of equal digits to consecutive addresses.  It also clears
 * its tile's words of the next pass's look-back table.  At most 64 registers a
 * thread (2 blocks of 512, or 4 of 256, on a multiprocessor): with more, fewer
 * tiles are in flight to hide the look-back's waits. */
__global__ void __launch_bounds__(512, 2) onesweep_pass(uint32_t *buffer0, uint32_t *buffer1, size_t n, int pass,
                              int shift, int width, int kpt, const int *plan,
                              const uint32_t *starts, uint32_t *lookback,
                              uint32_t *next_lookback, uint32_t *tickets)
{
    extern __shared__ uint32_t shared[];
    __shared__ uint32_t s_ticket;
    const uint32_t bins = 1u << width, mask = bins - 1;
    const unsigned tile = blockDim.x * kpt;
    uint32_t *s_tile = shared;                           /* tile words */
    uint32_t *s_count = s_tile + tile;                   /* (blockDim.x / 32) x bins words */
    uint32_t *s_start = s_count + blockDim.x / 32 * bins; /* bins words */
    uint32_t *s_place = s_start + bins;                   /* bins words */
    uint32_t *s_scan = s_place + bins;                    /* 33 words */

    /* WRITE BEGIN pass_plan: the passes planned on the GPU: digit_starts, whole (each pass's digit starts, and its plan: skip it, or the buffer it reads), and a pass that reads its plan - returning at once where it is skipped */
    /* WRITE STUB const uint32_t *src = buffer0; */
    /* WRITE STUB uint32_t *dst = buffer1; */
    const int from = plan[pass];
    /* LAB BEGIN skip: a skipped pass moves nothing: it only clears its tile's words of the next pass's look-back table, and returns */
    if (from == PLAN_SKIP) { /* nothing to move; the next pass's table still needs clearing */
        for (uint32_t d = threadIdx.x; d < bins; d += blockDim.x)
            next_lookback[(size_t)blockIdx.x * bins + d] = 0;
        return;
    }
    /* LAB END skip */
    const uint32_t *src = from ? buffer1 : buffer0;
    uint32_t *dst = from ? buffer0 : buffer1;
    /* WRITE END pass_plan */
    if (threadIdx.x == 0)
        s_ticket = atomicAdd(tickets, 1u);
    for (uint32_t d = threadIdx.x; d < bins; d += blockDim.x)
        s_place[d] = 0; /* the tile's count of each digit, first */
    __syncthreads();
    const size_t b = s_ticket;
    uint32_t key[MAX_KPT], pos[MAX_KPT];
    load_warp_striped(src, n, b, kpt, key);
    size_t first = warp_striped_first(b, kpt);
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt && first + 32 * j < n) /* the padding is not counted */
            atomicAdd(&s_place[digit_of(key[j], shift, mask)], 1u);
    __syncthreads();
    uint32_t count = threadIdx.x < bins ? s_place[threadIdx.x] : 0;
    for (unsigned waited = 0; (long long)b == test_slow_tile && waited < test_slow_ns;
         waited += 1000)
        __nanosleep(1000);
    if (threadIdx.x < bins)
        publish_count(lookback, b, bins, threadIdx.x, count);
    multisplit_tile(key, pos, kpt, shift, width, s_count, s_start, s_scan);
    if (threadIdx.x < bins) {
        uint32_t before = look_back(lookback, b, bins, threadIdx.x, count);
        s_place[threadIdx.x] = starts[threadIdx.x] + before - s_start[threadIdx.x];
        next_lookback[b * bins + threadIdx.x] = 0;
    }
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt)
            s_tile[pos[j]] = key[j];
    __syncthreads();

    size_t base = b * tile;
    size_t valid = n - base < tile ? n - base : tile;
    for (unsigned i = threadIdx.x; i < valid; i += blockDim.x) {
        uint32_t k = s_tile[i];
        dst[s_place[digit_of(k, shift, mask)] + i] = k;
    }
}

/* ---- the sort -------------------------------------------------------------- */

typedef struct {
    size_t n;
    const sort_options *opt;
    size_t tile, tiles;     /* keys per tile (block x kpt), number of tiles */
    uint32_t *d_starts;     /* [pass][digit] counts, then where each run starts */
    uint32_t *d_lookback;   /* two tables of tiles x 2^bits words, then the tickets */
    uint32_t *d_tickets;    /* one counter a pass */
    int *d_plan;            /* each pass's plan, then the buffer of the sorted keys */
    int histogram_blocks;   /* 4 a multiprocessor: the histogram's grid */
    step_timer timer;
    sort_report *rep;
} sort_context;

/* One pass between the two key buffers, as its plan says.  Pass p uses
 * look-back table p % 2 and clears the other for pass p + 1 (pass p - 1, its
 * last user, has finished; a skipped pass clears it too). */
static void sort_pass(sort_context *c, uint32_t *d_a, uint32_t *d_b, int pass, int shift,
                      int width)
{
    const sort_options *opt = c->opt;
    size_t bins = (size_t)1 << opt->bits, table = bins * c->tiles;
    uint32_t *lookback = c->d_lookback + (size_t)(pass % 2) * table;
    uint32_t *next = c->d_lookback + (size_t)((pass + 1) % 2) * table;
    onesweep_pass<<<c->tiles, opt->block, downsweep_shared_bytes(opt->block, opt->kpt, width)>>>(
        d_a, d_b, c->n, pass, shift, width, opt->kpt, c->d_plan, c->d_starts + pass * bins,
        lookback, next, c->d_tickets + pass);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_SCATTER);
}

/* Every pass's digit counts, where each digit's run starts, and the passes'
 * plan - on the GPU: the host launches every pass and waits for nothing. */
static void histogram(sort_context *c, const uint32_t *d_keys, int passes)
{
    const sort_options *opt = c->opt;
    size_t bins = (size_t)1 << opt->bits;
    all_pass_histogram<<<c->histogram_blocks, 256, passes * bins * sizeof(uint32_t)>>>(d_keys, c->n, opt->bits,
                                                                           passes, c->d_starts);
    CUDA_CHECK_LAUNCH();
    digit_starts<<<1, bins < 32 ? 32 : bins>>>(c->d_starts, opt->bits, passes, c->n, opt->no_skip,
                                               c->d_plan);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, 0, STEP_HISTOGRAM);
}

static void context_create(sort_context *c, size_t n, const sort_options *opt, sort_report *rep)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->opt = opt;
    c->rep = rep;
    c->tile = (size_t)opt->block * opt->kpt;
    c->tiles = tiles_for(n, opt);
    size_t bins = (size_t)1 << opt->bits, table = bins * c->tiles;
    c->d_starts = (uint32_t *)gpu_alloc(MAX_PASSES * bins * sizeof(uint32_t), opt->poison);
    c->d_lookback = (uint32_t *)gpu_alloc((2 * table + MAX_PASSES) * sizeof(uint32_t), opt->poison);
    c->d_tickets = c->d_lookback + 2 * table;
    c->d_plan = (int *)gpu_alloc((MAX_PASSES + 1) * sizeof(int), opt->poison);
    CUDA_CHECK(cudaDeviceGetAttribute(&c->histogram_blocks, cudaDevAttrMultiProcessorCount, 0));
    c->histogram_blocks *= 4;
    step_timer_create(&c->timer);
}

/* Before every sort: zero counts, both look-back tables and the tickets. */
static void context_clear(sort_context *c)
{
    size_t bins = (size_t)1 << c->opt->bits, table = bins * c->tiles;
    CUDA_CHECK(cudaMemsetAsync(c->d_starts, 0, MAX_PASSES * bins * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemsetAsync(c->d_lookback, 0, (2 * table + MAX_PASSES) * sizeof(uint32_t)));
}

static void context_destroy(sort_context *c)
{
    step_timer_destroy(&c->timer);
    gpu_free(c->d_plan);
    gpu_free(c->d_lookback);
    gpu_free(c->d_starts);
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
    context_clear(&c);
    histogram(&c, d_a, passes);
    for (int pass = 0; pass < passes; pass++)
        sort_pass(&c, d_a, d_b, pass, pass * opt->bits, bits_in_pass(opt->bits, pass));
    step_timer_collect(&c.timer, rep);

    t0 = host_time_ms();
    int plan[MAX_PASSES + 1]; /* each pass's plan, then the buffer of the sorted keys */
    CUDA_CHECK(cudaMemcpy(plan, c.d_plan, (passes + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int pass = 0; pass < passes; pass++)
        if (plan[pass] == PLAN_SKIP)
            rep->skipped |= 1u << pass;
    const uint32_t *src = plan[passes] ? d_b : d_a;
    CUDA_CHECK(cudaMemcpy(keys_out, src, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_b);
    gpu_free(d_a);
    context_destroy(&c);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}
