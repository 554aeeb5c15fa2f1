/*
 * 05_warp_shuffle/test_hooks.cu - a step's building blocks, callable on host
 * arrays, for tests/test_05_warp_shuffle.c (declared in radix_sort.h).
 *
 * It includes the step's file (STEP_FILE, step STEP: the Makefile builds it
 * once per step), so that it can launch the step's kernels one at a time and
 * wrap its device functions (the warp-shuffle scan, the multisplit ranking) in
 * kernels of their own; step K's test program links it in place of the step.
 */
#include STEP_FILE
#include "radix_sort.h"
#include "../tests/hooks.h"

void s05_one_pass(const uint32_t *keys, size_t n, int shift, int width, const sort_options *opt,
                  s05_pass_outputs *out)
{
    sort_options o = *opt;
    o.bits = width;
    o.poison = 1;
    sort_report rep;
    report_clear(&rep, 1);
    sort_context c;
    context_create(&c, n, &o, &rep);
    uint32_t mask = (1u << width) - 1;
    size_t bins = (size_t)mask + 1, table = bins * c.tiles;
    uint32_t *d_src = hook_upload(keys, n);
    uint32_t *d_dst = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);

    /* the steps of sort_pass, one at a time, each result downloaded */
#if STEP >= 3
    {
        upsweep<<<c.tiles, o.block, bins * sizeof(uint32_t)>>>(d_src, n, shift, mask, o.kpt,
                                                               c.d_table);
        CUDA_CHECK_LAUNCH();
        hook_download(out->table, c.d_table, table);
        gpu_exclusive_scan(c.d_table, c.d_table, table, &c.scan, 0);
        hook_download(out->scanned, c.d_table, table);
        downsweep<<<c.tiles, o.block, downsweep_shared_bytes(o.block, o.kpt, width)>>>(
            d_src, d_dst, n, shift, width, o.kpt, c.d_table);
        CUDA_CHECK_LAUNCH();
    }
#else
    {
        local_sort<<<c.tiles, o.block, local_sort_shared_bytes(o.block, o.kpt)>>>(
            d_src, n, shift, width, o.kpt);
        CUDA_CHECK_LAUNCH();
        hook_download(out->tiles_sorted, d_src, n);
        tile_histogram<<<c.tiles, o.block, 2 * bins * sizeof(uint32_t)>>>(
            d_src, n, shift, mask, c.tile, c.d_table, c.d_starts);
        CUDA_CHECK_LAUNCH();
        hook_download(out->table, c.d_table, table);
        hook_download(out->starts, c.d_starts, table);
        gpu_exclusive_scan(c.d_table, c.d_table, table, &c.scan, 0);
        hook_download(out->scanned, c.d_table, table);
        scatter_tiles<<<c.tiles, o.block, bins * sizeof(uint32_t)>>>(
            d_src, d_dst, n, shift, mask, c.tile, c.d_table, c.d_starts);
        CUDA_CHECK_LAUNCH();
    }
#endif
    hook_download(out->out, d_dst, n);

    gpu_free(d_dst);
    gpu_free(d_src);
    context_destroy(&c);
}

__global__ void block_scan_kernel(const uint32_t *in, uint32_t *out, uint32_t *totals)
{
    __shared__ uint32_t s_warp[33];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t total;
    out[i] = block_exclusive_scan(in[i], s_warp, &total);
    if (threadIdx.x == 0)
        totals[blockIdx.x] = total;
}

void s05_block_scan(const uint32_t *in, uint32_t *out, uint32_t *totals, size_t blocks, int block)
{
    size_t n = blocks * block;
    uint32_t *d_in = hook_upload(in, n);
    uint32_t *d_out = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    uint32_t *d_totals = (uint32_t *)gpu_alloc(blocks * sizeof(uint32_t), 1);
    block_scan_kernel<<<blocks, block>>>(d_in, d_out, d_totals);
    CUDA_CHECK_LAUNCH();
    hook_download(out, d_out, n);
    hook_download(totals, d_totals, blocks);
    gpu_free(d_totals);
    gpu_free(d_out);
    gpu_free(d_in);
}

#if STEP >= 3
/* The downsweep's first half: load, rank; then each key's place goes out. */
__global__ void tile_ranks_kernel(const uint32_t *keys, size_t n, int shift, int width, int kpt,
                                  uint32_t *places, uint32_t *counts)
{
    extern __shared__ uint32_t shared[];
    const uint32_t bins = 1u << width;
    uint32_t *s_count = shared;                              /* warps x bins words */
    uint32_t *s_start = s_count + blockDim.x / 32 * bins;     /* bins words */
    uint32_t *s_scan = s_start + bins;                        /* 33 words */
    uint32_t key[MAX_KPT], pos[MAX_KPT];
    load_warp_striped(keys, n, kpt, key);
    uint32_t count = multisplit_tile(key, pos, kpt, shift, width, s_count, s_start, s_scan);
    size_t first = warp_striped_first(kpt);
    for (int j = 0; j < kpt; j++)
        if (first + 32 * j < n)
            places[first + 32 * j] = pos[j];
    if (threadIdx.x < bins)
        counts[(size_t)blockIdx.x * bins + threadIdx.x] = count;
}

void s05_tile_ranks(const uint32_t *keys, size_t n, int shift, int width, const sort_options *opt,
                    uint32_t *places, uint32_t *counts)
{
    size_t tile = (size_t)opt->block * opt->kpt, tiles = (n + tile - 1) / tile;
    size_t bins = (size_t)1 << width;
    uint32_t *d_keys = hook_upload(keys, n);
    uint32_t *d_places = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    uint32_t *d_counts = (uint32_t *)gpu_alloc(tiles * bins * sizeof(uint32_t), 1);
    size_t shared = ((size_t)opt->block / 32 * bins + bins + 33) * sizeof(uint32_t);
    tile_ranks_kernel<<<tiles, opt->block, shared>>>(d_keys, n, shift, width, opt->kpt, d_places,
                                                     d_counts);
    CUDA_CHECK_LAUNCH();
    hook_download(places, d_places, n);
    hook_download(counts, d_counts, tiles * bins);
    gpu_free(d_counts);
    gpu_free(d_places);
    gpu_free(d_keys);
}
#endif
