/* gpu.c - device detection and allocation helpers (see gpu.h). */
#include <stdio.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"

int gpu_available(char *why, size_t whylen)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        snprintf(why, whylen, "%s", cudaGetErrorString(status));
        cudaGetLastError(); /* the failed query must not poison later calls */
        return 0;
    }
    if (count == 0) {
        snprintf(why, whylen, "no device found");
        return 0;
    }
    snprintf(why, whylen, "ok");
    return 1;
}

void gpu_name(char *buf, size_t len)
{
    char why[128];
    if (!gpu_available(why, sizeof why)) {
        snprintf(buf, len, "none");
        return;
    }
    struct cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    snprintf(buf, len, "%s", prop.name);
}

int gpu_require_memory(size_t bytes, const char *what, char *err, size_t errlen)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    /* keep a margin for the CUDA context and the library's own buffers */
    size_t margin = 64u << 20;
    if (bytes + margin > free_bytes) {
        snprintf(err, errlen,
                 "%s needs %.2f GiB of GPU memory, but only %.2f GiB of %.2f GiB are free",
                 what, bytes / 1073741824.0, free_bytes / 1073741824.0,
                 total_bytes / 1073741824.0);
        return -1;
    }
    return 0;
}

void *gpu_alloc(size_t bytes, int poison)
{
    void *p = NULL;
    if (bytes == 0)
        bytes = 4; /* a valid pointer even for an empty input */
    CUDA_CHECK(cudaMalloc(&p, bytes));
    if (poison)
        CUDA_CHECK(cudaMemset(p, 0xA5, bytes));
    return p;
}

void gpu_free(void *p) { CUDA_CHECK(cudaFree(p)); }

size_t gpu_shared_memory_per_block(void)
{
    int device = 0, bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlock, device));
    return (size_t)bytes;
}

size_t gpu_shared_memory_optin(void)
{
    int device = 0, bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return (size_t)bytes;
}

int gpu_compute_capability(void)
{
    int device = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    return 10 * major + minor;
}
