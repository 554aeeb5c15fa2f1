/*
 * 07_onesweep/test_hooks.cu - a step's building blocks, callable on host
 * arrays, for tests/test_07_onesweep.c (declared in onesweep.h).
 *
 * It includes the step's file (STEP_FILE, step STEP: the Makefile builds it
 * once per step), so that it can run the step's kernels one at a time and
 * set its test-only variables; step K's test program links it in place of the
 * step.
 */
#include STEP_FILE
#include "onesweep.h"
#include "../tests/hooks.h"

void s07_histogram(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *starts)
{
    sort_options o = *opt;
    o.poison = 1;
    o.no_skip = 1;
    sort_report rep;
    report_clear(&rep, passes_for_bits(o.bits));
    sort_context c;
    context_create(&c, n, &o, &rep);
    uint32_t *d_keys = hook_upload(keys, n);
    int passes = passes_for_bits(o.bits);
    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, d_keys, passes);
    step_timer_collect(&c.timer, &rep);
    hook_download(starts, c.d_starts, (size_t)passes << o.bits);
    gpu_free(d_keys);
    context_destroy(&c);
}

void s07_first_pass(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *out,
                    uint32_t *lookback)
{
    sort_options o = *opt;
    o.poison = 1;
    o.no_skip = 1; /* pass 0 reads buffer 0 and writes buffer 1 */
    sort_report rep;
    report_clear(&rep, passes_for_bits(o.bits));
    sort_context c;
    context_create(&c, n, &o, &rep);
    uint32_t *d_a = hook_upload(keys, n);
    uint32_t *d_b = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, d_a, passes_for_bits(o.bits));
#if STEP >= 9 /* the pass also moves values, where there are any (here none) */
    sort_pass(&c, d_a, d_b, NULL, NULL, 0, 0, bits_in_pass(o.bits, 0));
#else
    sort_pass(&c, d_a, d_b, 0, 0, bits_in_pass(o.bits, 0));
#endif
    step_timer_collect(&c.timer, &rep);
    hook_download(out, d_b, n);
    hook_download(lookback, c.d_lookback, c.tiles << o.bits); /* pass 0's table (the first up to 07.18) */
    gpu_free(d_b);
    gpu_free(d_a);
    context_destroy(&c);
}

#if STEP >= 10
int s07_pass_blocks(const sort_options *opt, int pairs, int *fits)
{
    int blocks = 0, shared_per_sm = 0;
#if STEP >= 20 /* pairs at the default shape may run the kernel of wide tiles */
    sort_options with = *opt;
    with.pairs = pairs;
    opt = &with;
    size_t shared = pairs && wide_pairs(opt) ? wide_pairs_shared_bytes(opt->bits)
                                             : downsweep_shared_bytes(opt->block, opt->kpt, opt->bits);
#else
    size_t shared = downsweep_shared_bytes(opt->block, opt->kpt, opt->bits);
#endif
#if STEP >= 11 /* as sort_pass picks, for a pass of the full digit width */
    onesweep_kernel kernel = pass_kernel(opt, opt->bits, pairs);
#else
    onesweep_kernel kernel = pairs ? onesweep_pass_pairs : onesweep_pass; /* as sort_pass picks */
#endif
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, opt->block, shared));
    CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
    /* a block also costs the driver 1 KB of the multiprocessor's shared memory */
    *fits = (int)((size_t)shared_per_sm / (shared + 1024));
    return blocks;
}
#endif

#if STEP >= 11
int s07_pass_for_default_shape(const sort_options *opt, int width, int pairs)
{
    return pass_kernel(opt, width, pairs) == onesweep_pass_512x16;
}
#endif

#if STEP >= 13
int s07_crowded_passes(const uint32_t *keys, size_t n, const sort_options *opt, int *crowded)
{
    sort_options o = *opt;
    o.poison = 1;
    int passes = passes_in_range(&o);
    sort_report rep;
    report_clear(&rep, passes);
    sort_context c;
    context_create(&c, n, &o, &rep);
    uint32_t *d_keys = hook_upload(keys, n);
    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, d_keys, passes);
    step_timer_collect(&c.timer, &rep);
    int plan[MAX_PASSES + 1];
    CUDA_CHECK(cudaMemcpy(plan, c.d_plan, (passes + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int p = 0; p < passes; p++)
        crowded[p] = plan[p] != PLAN_SKIP && (plan[p] & PLAN_CROWDED) != 0;
    gpu_free(d_keys);
    context_destroy(&c);
    return passes;
}
#endif

#if STEP >= 14
size_t s07_first_table(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *before,
                       uint32_t *after)
{
    sort_options o = *opt;
    o.poison = 1; /* the table starts as garbage */
    int passes = passes_in_range(&o);
    sort_report rep;
    report_clear(&rep, passes);
    sort_context c;
    context_create(&c, n, &o, &rep);
    uint32_t *d_keys = hook_upload(keys, n);
    size_t words = c.tiles << o.bits;
    step_timer_start(&c.timer);
    context_clear(&c);
    step_timer_collect(&c.timer, &rep);
    if (before)
        hook_download(before, c.d_lookback, words);
    step_timer_start(&c.timer);
    histogram(&c, d_keys, passes);
    step_timer_collect(&c.timer, &rep);
    if (after)
        hook_download(after, c.d_lookback, words);
    gpu_free(d_keys);
    context_destroy(&c);
    return words;
}
#endif

#if STEP >= 15
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

#if STEP >= 16
/* One block counts one tile as a crowded pass does (count_tile, by match), the ranks of
 * its keys in the 16-bit words a pass keeps them in, its counters in a row a warp. */
__global__ void count_ranks_kernel(const uint32_t *keys, int kpt, int bits, uint32_t *ranks,
                                   uint32_t *counts)
{
    extern __shared__ uint32_t shared[];
    __shared__ uint32_t s_crowding;
    const unsigned tile = blockDim.x * kpt, counters = blockDim.x / 32 << bits;
    uint16_t *s_rank = (uint16_t *)shared;  /* tile ranks */
    uint16_t *s_count = s_rank + (tile + 1) / 2 * 2; /* a row of counters a warp, from a word */
    for (unsigned i = threadIdx.x; i < counters; i += blockDim.x)
        s_count[i] = 0;
    if (threadIdx.x == 0)
        s_crowding = 0;
    __syncthreads();
    uint32_t key[MAX_KPT];
    size_t first = warp_striped_first(0, kpt, blockDim.x);
    for (int j = 0; j < kpt; j++)
        key[j] = keys[first + 32 * j];
#if STEP >= 20 /* count_tile's loops run to a bound the kernel gives */
    uint32_t count = count_tile(key, kpt, 0, bits, s_count, &s_crowding, blockDim.x, 1, 1, s_rank,
                                MAX_KPT);
#else
    uint32_t count = count_tile(key, kpt, 0, bits, s_count, &s_crowding, blockDim.x, 1, 1, s_rank);
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

#if STEP >= 17
void s07_copy_blocks(int blocks) { test_copy_blocks = blocks; }
#endif

#if STEP >= 20
int s07_wide_pairs(const sort_options *opt, int *blocks)
{
    int wide = pass_kernel(opt, opt->bits, 1) == onesweep_pass_pairs_512x24;
    size_t shared = wide_pairs_shared_bytes(opt->bits);
    int optin = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    *blocks = 0;
    if ((size_t)optin >= shared) { /* else no block of it may start: none a multiprocessor */
        CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass_pairs_512x24,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, onesweep_pass_pairs_512x24,
                                                                 512, shared));
    }
    return wide;
}
#endif

#if STEP >= 19
int s07_last_table(const uint32_t *keys, size_t n, const sort_options *opt, uint32_t *table)
{
    sort_options o = *opt;
    o.poison = 1;
    int passes = passes_in_range(&o), runs = 0;
    sort_report rep;
    report_clear(&rep, passes);
    sort_context c;
    context_create(&c, n, &o, &rep);
    uint32_t *d_a = hook_upload(keys, n);
    uint32_t *d_b = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, d_a, passes);
    for (int pass = 0; pass < passes; pass++) {
        int shift = first_bit(&o) + pass * o.bits;
        int width = last_bit(&o) - shift < o.bits ? last_bit(&o) - shift : o.bits;
        sort_pass(&c, d_a, d_b, NULL, NULL, pass, shift, width);
    }
    step_timer_collect(&c.timer, &rep);
    int plan[MAX_PASSES + 1];
    CUDA_CHECK(cudaMemcpy(plan, c.d_plan, (passes + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int p = 0; p < passes; p++)
        runs += plan[p] != PLAN_SKIP;
    hook_download(table, c.d_lookback, c.tiles << o.bits);
    gpu_free(d_b);
    gpu_free(d_a);
    context_destroy(&c);
    return runs;
}
#endif

void s07_slow_tile(long long tile, unsigned ns)
{
    CUDA_CHECK(cudaMemcpyToSymbol(test_slow_tile, &tile, sizeof tile));
    CUDA_CHECK(cudaMemcpyToSymbol(test_slow_ns, &ns, sizeof ns));
}
