/*
 * hooks.h - what the stages' test_hooks.cu share.  Include it after the
 * stage's radix_sort.cu:
 *
 *   #include "radix_sort.cu"
 *   #include "../tests/hooks.h"
 *   DEFINE_SCAN_HOOK(s04_exclusive_scan)
 *
 * hook_upload / hook_download move host arrays to and from the device (a
 * NULL host array is not downloaded).  DEFINE_SCAN_HOOK defines the
 * exclusive-scan hook: the multi-block scan the stage uses (scan_plan_create,
 * gpu_exclusive_scan, scan_plan_destroy, from common/gpu_scan.cuh) on host
 * arrays, returning its device time.
 */
#ifndef TESTS_HOOKS_H
#define TESTS_HOOKS_H

static inline uint32_t *hook_upload(const uint32_t *host, size_t count)
{
    uint32_t *device = (uint32_t *)gpu_alloc(count * sizeof(uint32_t), 1);
    CUDA_CHECK(cudaMemcpy(device, host, count * sizeof(uint32_t), cudaMemcpyHostToDevice));
    return device;
}

static inline void hook_download(uint32_t *host, const uint32_t *device, size_t count)
{
    if (host)
        CUDA_CHECK(cudaMemcpy(host, device, count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
}

#define DEFINE_SCAN_HOOK(name)                                                            \
    double name(const uint32_t *in, uint32_t *out, size_t n, int variant, int block)      \
    {                                                                                     \
        uint32_t *d_data = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 1);               \
        scan_plan plan;                                                                   \
        scan_plan_create(&plan, n, variant, block, 1);                                    \
        CUDA_CHECK(cudaMemcpy(d_data, in, n * sizeof(uint32_t), cudaMemcpyHostToDevice)); \
        cudaEvent_t start, stop;                                                          \
        CUDA_CHECK(cudaEventCreate(&start));                                              \
        CUDA_CHECK(cudaEventCreate(&stop));                                               \
        CUDA_CHECK(cudaEventRecord(start));                                               \
        gpu_exclusive_scan(d_data, d_data, n, &plan, 0);                                  \
        CUDA_CHECK(cudaEventRecord(stop));                                                \
        CUDA_CHECK(cudaEventSynchronize(stop));                                           \
        float ms = 0.0f;                                                                  \
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));                               \
        CUDA_CHECK(cudaMemcpy(out, d_data, n * sizeof(uint32_t), cudaMemcpyDeviceToHost)); \
        CUDA_CHECK(cudaEventDestroy(start));                                              \
        CUDA_CHECK(cudaEventDestroy(stop));                                               \
        scan_plan_destroy(&plan);                                                         \
        gpu_free(d_data);                                                                 \
        return ms;                                                                        \
    }

#endif
