/*
 * 03_split_k1/test_hooks.cu - the stage's building blocks, callable on host
 * arrays, for tests/test_03_split_k1.c (declared in radix_sort.h).
 *
 * It includes the algorithm file, so that it can reach the stage's kernels and
 * functions one step at a time; the test program links this file in place of
 * the stage's own object.  The algorithm file itself holds no test code.
 */
#include "radix_sort.cu"
#include "radix_sort.h"
#include "../tests/hooks.h"

void s03_split(const uint32_t *keys, uint32_t *out, size_t n, int bit, int variant, int block,
               int scan_block)
{
    sort_options opt = {.block = block, .scan_block = scan_block, .scan_variant = variant,
                        .poison = 1};
    sort_report rep;
    report_clear(&rep, 32);
    sort_context c;
    context_create(&c, n, &opt, &rep);
    uint32_t *d_src = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    uint32_t *d_dst = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);
    CUDA_CHECK(cudaMemcpy(d_src, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    step_timer_start(&c.timer);
    split_pass(&c, d_src, d_dst, bit);
    step_timer_collect(&c.timer, &rep);
    CUDA_CHECK(cudaMemcpy(out, d_dst, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    gpu_free(d_dst);
    gpu_free(d_src);
    context_destroy(&c);
}

DEFINE_SCAN_HOOK(s03_exclusive_scan)
