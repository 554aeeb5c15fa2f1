/*
 * 04_paper_local_sort/test_hooks.cu - the stage's building blocks, callable on host
 * arrays, for tests/test_04_paper_local_sort.c (declared in radix_sort.h).
 *
 * It includes the algorithm file, so that it can reach the stage's kernels and
 * functions one step at a time; the test program links this file in place of
 * the stage's own object.  The algorithm file itself holds no test code.
 */
#include "radix_sort.cu"
#include "radix_sort.h"
#include "../tests/hooks.h"

void s04_one_pass(const uint32_t *keys, size_t n, int shift, int width, const sort_options *opt,
                  s04_pass_outputs *out)
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
    uint32_t *d_src = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    uint32_t *d_dst = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    CUDA_CHECK(cudaMemcpy(d_src, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));

    /* the steps of sort_pass, one at a time, each result downloaded */
    local_sort<<<c.tiles, o.block, local_sort_shared_bytes(o.block, o.kpt)>>>(
        d_src, n, shift, width, o.kpt, o.scan_variant);
    CUDA_CHECK_LAUNCH();
    hook_download(out->tiles_sorted, d_src, n);
    tile_histogram<<<c.tiles, o.block, 2 * bins * sizeof(uint32_t)>>>(d_src, n, shift, mask,
                                                                      c.tile, c.d_table,
                                                                      c.d_starts);
    CUDA_CHECK_LAUNCH();
    hook_download(out->table, c.d_table, table);
    hook_download(out->starts, c.d_starts, table);
    gpu_exclusive_scan(c.d_table, c.d_table, table, &c.scan, 0);
    hook_download(out->scanned, c.d_table, table);
    scatter_tiles<<<c.tiles, o.block, bins * sizeof(uint32_t)>>>(d_src, d_dst, n, shift, mask,
                                                                 c.tile, c.d_table, c.d_starts);
    CUDA_CHECK_LAUNCH();
    hook_download(out->out, d_dst, n);

    gpu_free(d_dst);
    gpu_free(d_src);
    context_destroy(&c);
}

DEFINE_SCAN_HOOK(s04_exclusive_scan)
