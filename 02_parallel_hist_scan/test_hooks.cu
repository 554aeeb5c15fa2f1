/*
 * 02_parallel_hist_scan/test_hooks.cu - the stage's building blocks, callable on host
 * arrays, for tests/test_02_parallel_hist_scan.c (declared in radix_sort.h).
 *
 * It includes the algorithm file, so that it can reach the stage's kernels and
 * functions one step at a time; the test program links this file in place of
 * the stage's own object.  The algorithm file itself holds no test code.
 */
#include "radix_sort.cu"
#include "radix_sort.h"
#include "../tests/hooks.h"

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

void s02_block_histograms(const uint32_t *keys, size_t n, int shift, int width, int block,
                          uint32_t *table)
{
    size_t entries = ((size_t)1 << width) * blocks_for(n, block);
    uint32_t *d_keys = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    uint32_t *d_table = (uint32_t *)gpu_alloc(entries * sizeof(uint32_t), 1);
    CUDA_CHECK(cudaMemcpy(d_keys, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    gpu_block_histograms(d_keys, n, shift, width, block, d_table);
    CUDA_CHECK(cudaMemcpy(table, d_table, entries * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_table);
    gpu_free(d_keys);
}

DEFINE_SCAN_HOOK(s02_exclusive_scan)
