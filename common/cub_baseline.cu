/*
 * cub_baseline.cu - CUB's radix sort as the reference for speed (see cub_baseline.h).
 * This is the only C++ in the sort course: CUB is a C++ template library, so it
 * lives in its own file behind a C function.
 */
#include <cub/device/device_radix_sort.cuh>

#include <cstdio>
#include <vector>

#include "cub_baseline.h"
#include "cuda_check.h"
#include "gpu.h"
#include "stats.h"

extern "C" int cub_sort_keys(const uint32_t *keys, size_t n, int runs, uint32_t *out,
                             double *median_ms, char *err, size_t errlen)
{
    if (n > (size_t)INT32_MAX) {
        snprintf(err, errlen, "CUB baseline: %zu keys is more than this wrapper's int count", n);
        return -1;
    }
    const int count = (int)n;
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, (const uint32_t *)nullptr,
                                              (uint32_t *)nullptr, count));
    if (gpu_require_memory(2 * n * sizeof(uint32_t) + temp_bytes, "the CUB baseline", err,
                           errlen) != 0)
        return -1;

    uint32_t *d_in = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 0);
    uint32_t *d_out = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), 0);
    void *d_temp = gpu_alloc(temp_bytes, 0);
    CUDA_CHECK(cudaMemcpy(d_in, keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> times(runs);
    for (int r = -1; r < runs; r++) { /* r = -1 is the warm-up */
        CUDA_CHECK(cudaEventRecord(start));
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_in, d_out, count));
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (r >= 0)
            times[r] = ms;
    }
    *median_ms = times[median_index(times.data(), runs)];

    if (out)
        CUDA_CHECK(cudaMemcpy(out, d_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    gpu_free(d_temp);
    gpu_free(d_out);
    gpu_free(d_in);
    return 0;
}
