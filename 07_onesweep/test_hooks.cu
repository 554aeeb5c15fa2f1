/*
 * 07_onesweep/test_hooks.cu - a step's building blocks, callable on host
 * arrays, for tests/test_07_onesweep.c (declared in onesweep.h).
 *
 * It includes the step's file (STEP_FILE, step STEP: the Makefile builds it
 * once per step), so that it can run the step's kernels one at a time; step
 * K's test program links it in place of the step.  Before the step it defines
 * the one hook a step's pass leaves for tests, TEST_HOLD_TILE: here a tile
 * (test_slow_tile) waits test_slow_ns nanoseconds before it publishes its
 * counts.  The step's own build, the one the course times, compiles nothing
 * in its place.
 */
#include <stdint.h>

__device__ long long test_slow_tile = -1;
__device__ unsigned test_slow_ns;
#define TEST_HOLD_TILE(tile)                                                                      \
    for (unsigned waited = 0; (long long)(tile) == test_slow_tile && waited < test_slow_ns;      \
         waited += 1000)                                                                          \
    __nanosleep(1000)

#include STEP_FILE
#include "onesweep.h"
#include "../tests/hooks.h"

#if STEP >= 14
/* The least grid of the default sort's histogram a test asked for (0: the GPU's). */
static int test_copy_blocks;
#endif

/* A sort's context for n keys with opt, the keys uploaded into its first buffer. */
static void context_with_keys(sort_context *c, const uint32_t *keys, size_t n,
                              const sort_options *opt)
{
    context_create(c, n, opt);
    CUDA_CHECK(cudaMemcpy(c->keys[0], keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
#if STEP >= 14
    if (test_copy_blocks > 0)
        c->copy_blocks = test_copy_blocks;
#endif
}

/* The histogram step alone, timed as the sort times it. */
static void run_histogram(sort_context *c, int passes)
{
    sort_report rep;
    report_clear(&rep, passes);
    step_timer_start(&c->timer);
    context_clear(c);
    histogram(c, passes);
    step_timer_collect(&c->timer, &rep);
}

void s07_histogram(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *starts)
{
    sort_options o = *opt;
    o.poison = 1;
    o.no_skip = 1;
    int passes = passes_for_bits(o.bits);
    sort_context c;
    context_with_keys(&c, keys, n, &o);
    run_histogram(&c, passes);
    hook_download(starts, c.d_starts, (size_t)passes << o.bits);
    context_destroy(&c);
}

void s07_first_pass(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *out,
                    uint32_t *lookback)
{
    sort_options o = *opt;
    o.poison = 1;
    o.no_skip = 1; /* pass 0 reads buffer 0 and writes buffer 1 */
    int passes = passes_for_bits(o.bits);
    sort_context c;
    context_with_keys(&c, keys, n, &o);
    sort_report rep;
    report_clear(&rep, passes);
    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, passes);
    sort_pass(&c, 0);
    step_timer_collect(&c.timer, &rep);
    hook_download(out, c.keys[1], n);
    hook_download(lookback, c.d_lookback, c.tiles << o.bits); /* pass 0's table */
    context_destroy(&c);
}

void s07_slow_tile(long long tile, unsigned ns)
{
    CUDA_CHECK(cudaMemcpyToSymbol(test_slow_tile, &tile, sizeof tile));
    CUDA_CHECK(cudaMemcpyToSymbol(test_slow_ns, &ns, sizeof ns));
}

#if STEP >= 10
int s07_pass_blocks(const sort_options *opt, int pairs, int *fits)
{
    int device = 0, blocks = 0, shared_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
#if STEP >= 11
    sort_options with = *opt;
    with.pairs = pairs;
#endif
#if STEP >= 16 /* pairs at the default shape may run the kernel of wide tiles */
    int kind = !pairs                          ? KEYS_ALONE
               : wide_pairs_fit(device, &with) ? SLOTS_IN_SHARED
                                               : SLOTS_IN_REGISTERS;
    int kpt = kind == SLOTS_IN_SHARED ? PAIRS_KPT : opt->kpt;
    size_t shared = layout_of(opt->block, kpt, opt->bits, kind).bytes;
#else
    int kind = pairs ? SLOTS_IN_REGISTERS : KEYS_ALONE;
    size_t shared = layout_of(opt->block, opt->kpt, opt->bits).bytes;
#endif
#if STEP >= 11 /* as sort_pass picks, for a pass of the full digit width */
    pass_kernel kernel = kernel_for(&with, opt->bits, kind);
#else
    pass_kernel kernel = kernel_for(kind);
#endif
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, opt->block, shared));
    CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                      device));
    /* a block also costs the driver 1 KB of the multiprocessor's shared memory */
    *fits = (int)((size_t)shared_per_sm / (shared + 1024));
    return blocks;
}
#endif

#if STEP >= 11
int s07_pass_for_default_shape(const sort_options *opt, int width, int pairs)
{
    return kernel_for(opt, width, pairs ? SLOTS_IN_REGISTERS : KEYS_ALONE) ==
           onesweep_pass<DEFAULT_BLOCK, DEFAULT_KPT, DEFAULT_WIDTH, KEYS_ALONE>;
}
#endif

#if STEP >= 12
/* One warp ranks kpt keys a lane (digit j * 32 + lane of `digits`) with its row of
 * masks and its row of 16-bit counts in shared memory, the counts starting at `start`. */
__global__ void rank_warp_kernel(const uint32_t *digits, int kpt, int bits, int crowded,
                                 const uint32_t *start, uint32_t *ranks, uint32_t *counts)
{
    extern __shared__ uint32_t shared[];
    const uint32_t bins = 1u << bits;
    uint32_t *masks = shared;                     /* bins words */
    uint16_t *count = (uint16_t *)(shared + bins); /* bins counters, from a word */
    for (uint32_t d = threadIdx.x; d < bins; d += 32) {
        masks[d] = 0;
        count[d] = (uint16_t)start[d];
    }
    __syncwarp();
    for (int j = 0; j < kpt; j++)
        ranks[j * 32 + threadIdx.x] =
            rank_in_warp_by_atomics_or_match(digits[j * 32 + threadIdx.x], masks, count, crowded);
    __syncwarp();
    for (uint32_t d = threadIdx.x; d < bins; d += 32)
        counts[d] = count[d];
}

void s07_rank_warp(const uint32_t *digits, int kpt, int bits, int crowded, const uint32_t *start,
                   uint32_t *ranks, uint32_t *counts)
{
    size_t bins = (size_t)1 << bits, keys = (size_t)kpt * 32;
    uint32_t *d_digits = hook_upload(digits, keys), *d_start = hook_upload(start, bins);
    uint32_t *d_ranks = (uint32_t *)gpu_alloc(keys * sizeof(uint32_t), 1);
    uint32_t *d_counts = (uint32_t *)gpu_alloc(bins * sizeof(uint32_t), 1);
    rank_warp_kernel<<<1, 32, bins * sizeof(uint32_t) + (bins + 1) / 2 * sizeof(uint32_t)>>>(
        d_digits, kpt, bits, crowded, d_start, d_ranks, d_counts);
    CUDA_CHECK_LAUNCH();
    hook_download(ranks, d_ranks, keys);
    hook_download(counts, d_counts, bins);
    gpu_free(d_counts);
    gpu_free(d_ranks);
    gpu_free(d_start);
    gpu_free(d_digits);
}
#endif

#if STEP >= 13
size_t s07_first_table(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *before,
                       uint32_t *after)
{
    sort_options o = *opt;
    o.poison = 1; /* the table starts as garbage */
    int passes = passes_in_range(&o);
    sort_context c;
    context_with_keys(&c, keys, n, &o);
    size_t words = c.tiles << o.bits;
    sort_report rep;
    report_clear(&rep, passes);
    step_timer_start(&c.timer);
    context_clear(&c);
    step_timer_collect(&c.timer, &rep);
    hook_download(before, c.d_lookback, words);
    step_timer_start(&c.timer);
    histogram(&c, passes);
    step_timer_collect(&c.timer, &rep);
    hook_download(after, c.d_lookback, words);
    context_destroy(&c);
    return words;
}

int s07_last_table(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *table)
{
    sort_options o = *opt;
    o.poison = 1;
    int passes = passes_in_range(&o), runs = 0;
    sort_context c;
    context_with_keys(&c, keys, n, &o);
    sort_report rep;
    report_clear(&rep, passes);
    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, passes);
    for (int pass = 0; pass < passes; pass++)
        sort_pass(&c, pass);
    step_timer_collect(&c.timer, &rep);
    int plan[MAX_PASSES + 1];
    CUDA_CHECK(cudaMemcpy(plan, c.d_plan, (passes + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int p = 0; p < passes; p++)
        runs += plan[p] != PLAN_SKIP;
    hook_download(table, c.d_lookback, c.tiles << o.bits);
    context_destroy(&c);
    return runs;
}
#endif

#if STEP >= 14
void s07_copy_blocks(int blocks) { test_copy_blocks = blocks; }
#endif

#if STEP >= 15
int s07_crowded_passes(const uint32_t *keys, size_t n, const sort_options *opt, int *crowded)
{
    sort_options o = *opt;
    o.poison = 1;
    int passes = passes_in_range(&o);
    sort_context c;
    context_with_keys(&c, keys, n, &o);
    run_histogram(&c, passes);
    int plan[MAX_PASSES + 1];
    CUDA_CHECK(cudaMemcpy(plan, c.d_plan, (passes + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int p = 0; p < passes; p++)
        crowded[p] = plan[p] != PLAN_SKIP && (plan[p] & PLAN_CROWDED) != 0;
    context_destroy(&c);
    return passes;
}

/* One block counts one tile as a crowded pass does (count_tile, by match), the ranks of
 * its keys in the 16-bit words a pass keeps them in, its counters in a row a warp. */
__global__ void count_ranks_kernel(const uint32_t *keys, int kpt, int bits, uint32_t *ranks,
                                   uint32_t *counts)
{
    extern __shared__ uint32_t shared[];
    __shared__ uint32_t s_crowding;
    const unsigned tile = blockDim.x * kpt, rows = blockDim.x / 32 << bits;
    uint16_t *s_rank = (uint16_t *)shared;            /* tile ranks */
    uint16_t *s_count = s_rank + (tile + 1) / 2 * 2; /* a row of counters a warp, from a word */
    for (unsigned i = threadIdx.x; i < rows; i += blockDim.x)
        s_count[i] = 0;
    if (threadIdx.x == 0)
        s_crowding = 0;
    __syncthreads();
    pass_shared sh = {};
    sh.masks = (uint32_t *)s_rank;
    sh.counts = s_count;
    sh.crowding = &s_crowding;
    tile_view t = {blockDim.x, kpt, 0, bits, tile, 0, 0, tile};
    t.first = warp_striped_first(0, kpt, blockDim.x);
    uint32_t key[MAX_KPT];
    for (int j = 0; j < kpt; j++)
        key[j] = keys[t.first + 32 * j];
#if STEP >= 16 /* count_tile's loop runs to a bound the kernel gives */
    uint32_t count = count_tile<MAX_KPT, KEYS_ALONE>(key, t, sh, 1);
#else
    uint32_t count = count_tile<KEYS_ALONE>(key, t, sh, 1);
#endif
    __syncthreads();
    for (unsigned i = threadIdx.x; i < tile; i += blockDim.x)
        ranks[i] = s_rank[i];
    if (threadIdx.x < (1u << bits))
        counts[threadIdx.x] = count;
}

void s07_count_ranks(const uint32_t *keys, int block, int kpt, int bits, uint32_t *ranks,
                     uint32_t *counts)
{
    size_t bins = (size_t)1 << bits, tile = (size_t)block * kpt;
    uint32_t *d_keys = hook_upload(keys, tile);
    uint32_t *d_ranks = (uint32_t *)gpu_alloc(tile * sizeof(uint32_t), 1);
    uint32_t *d_counts = (uint32_t *)gpu_alloc(bins * sizeof(uint32_t), 1);
    size_t shared = ((tile + 1) / 2 * 2 + (size_t)block / 32 * bins) * sizeof(uint16_t);
    count_ranks_kernel<<<1, block, shared>>>(d_keys, kpt, bits, d_ranks, d_counts);
    CUDA_CHECK_LAUNCH();
    hook_download(ranks, d_ranks, tile);
    hook_download(counts, d_counts, bins);
    gpu_free(d_counts);
    gpu_free(d_ranks);
    gpu_free(d_keys);
}
#endif

#if STEP >= 16
int s07_wide_pairs(const sort_options *opt, int *blocks)
{
    int device = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    const int wide = wide_pairs_fit(device, opt); /* the sort's own choice */
    const size_t shared = layout_of(DEFAULT_BLOCK, PAIRS_KPT, opt->bits, SLOTS_IN_SHARED).bytes;
    const pass_kernel kernel = onesweep_pass<DEFAULT_BLOCK, PAIRS_KPT, 0, SLOTS_IN_SHARED>;
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    *blocks = 0;
    if ((size_t)optin >= shared) { /* else no block of it may start: none a multiprocessor */
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, DEFAULT_BLOCK, shared));
    }
    return wide;
}
#endif

#if STEP >= 17
uint32_t s07_bin_of(uint32_t digit) { return bin_of(digit); }
#endif
