/*
 * 02_parallel_hist_scan/test_hooks.cu - a step's building blocks, callable on
 * host arrays, for tests/test_02_parallel_hist_scan.c (declared in radix_sort.h).
 *
 * It includes the step's file (STEP_FILE, step STEP: the Makefile builds it
 * once per step), so that it can reach the step's kernels and functions one at
 * a time; step K's test program links it in place of the step.  The step files
 * themselves hold no test code.
 */
#include STEP_FILE
#include "radix_sort.h"
#include "../tests/hooks.h"

#if STEP <= 2
int s02_histogram(const uint32_t *keys, size_t n, int shift, int width, int variant, int block,
                  uint32_t *hist)
{
    uint32_t *d_keys = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    uint32_t *d_hist = (uint32_t *)gpu_alloc(((size_t)1 << width) * sizeof(uint32_t), 1);
    CUDA_CHECK(cudaMemcpy(d_keys, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    gpu_histogram(d_keys, n, shift, width, variant, block, d_hist);
    CUDA_CHECK(cudaMemcpy(hist, d_hist, ((size_t)1 << width) * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
    gpu_free(d_hist);
    gpu_free(d_keys);
    return histogram_grid(block) * block;
}
#endif

#if STEP >= 2
DEFINE_SCAN_HOOK(s02_exclusive_scan)
#endif

#if STEP == 3
void s02_block_histograms(const uint32_t *keys, size_t n, int shift, int width, int block,
                          uint32_t *table)
{
    size_t nblocks = blocks_for(n, block), entries = ((size_t)1 << width) * nblocks;
    uint32_t mask = (1u << width) - 1;
    uint32_t *d_keys = hook_upload(keys, n);
    uint32_t *d_table = (uint32_t *)gpu_alloc(entries * sizeof(uint32_t), 1);
    histogram_blocks<<<nblocks, block, ((size_t)mask + 1) * sizeof(uint32_t)>>>(d_keys, n, shift,
                                                                                 mask, d_table);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(table, d_table, entries * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_table);
    gpu_free(d_keys);
}

void s02_block_scatter(const uint32_t *keys, uint32_t *out, size_t n, int shift, int width,
                       int block, const uint32_t *scanned)
{
    size_t nblocks = blocks_for(n, block), entries = ((size_t)1 << width) * nblocks;
    uint32_t *d_keys = hook_upload(keys, n);
    uint32_t *d_table = hook_upload(scanned, entries);
    uint32_t *d_out = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    scatter_blocks<<<blocks_for(nblocks, block), block>>>(d_keys, d_out, n, shift,
                                                           (1u << width) - 1, block, nblocks,
                                                           d_table);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_out);
    gpu_free(d_table);
    gpu_free(d_keys);
}
#endif
