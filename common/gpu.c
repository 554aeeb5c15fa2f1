/* gpu.c - device detection and allocation helpers (see gpu.h). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_check.h"
#include "gpu.h"
#include "stats.h"

enum { EXIT_SKIP = 77 };

gpu_state gpu_classify(int status, int count, int driver_library, int device_files, char *why,
                       size_t whylen)
{
    if (status == cudaSuccess && count > 0) {
        snprintf(why, whylen, "ok");
        return GPU_READY;
    }
    if (status == cudaSuccess || status == cudaErrorNoDevice) {
        snprintf(why, whylen, "the NVIDIA driver is loaded but finds no GPU");
        return GPU_ABSENT;
    }
    if (!driver_library) {
        snprintf(why, whylen, "no NVIDIA driver is loaded on this machine");
        return GPU_ABSENT;
    }
    if (!device_files) {
        snprintf(why, whylen, "the NVIDIA driver's library is installed, but there is no GPU "
                              "device (no /dev/nvidia*)");
        return GPU_ABSENT;
    }
    if (status == cudaErrorInsufficientDriver) {
        snprintf(why, whylen, "the NVIDIA driver is older than this program's CUDA runtime "
                              "(%d.%d) needs: update the driver",
                 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        return GPU_BROKEN;
    }
    snprintf(why, whylen, "a GPU and its driver are there, but CUDA cannot use them: %s (%s)",
             cudaGetErrorName((cudaError_t)status), cudaGetErrorString((cudaError_t)status));
    return GPU_BROKEN;
}

static int driver_library_loads(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib)
        return 0;
    dlclose(lib);
    return 1;
}

gpu_state gpu_probe(char *why, size_t whylen)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    cudaGetLastError(); /* a failed query must not poison later calls */
    int files = access("/dev/nvidiactl", F_OK) == 0 || access("/dev/nvidia0", F_OK) == 0 ||
                access("/dev/dxg", F_OK) == 0; /* /dev/dxg: a GPU under WSL */
    return gpu_classify(status, count, status == cudaSuccess || driver_library_loads(), files,
                        why, whylen);
}

void gpu_require(const char *who)
{
    char why[256];
    switch (gpu_probe(why, sizeof why)) {
    case GPU_READY:
        return;
    case GPU_ABSENT:
        printf("SKIP: no CUDA device: %s needs one (%s)\n", who, why);
        exit(EXIT_SKIP);
    case GPU_BROKEN:
    default:
        fprintf(stderr, "%s: error: %s\n", who, why);
        exit(EXIT_CUDA_ERROR);
    }
}

double gpu_median_ms(void (*work)(int run, void *state), void *state, int runs)
{
    double ms[100];
    if (runs < 1 || runs > 100)
        runs = runs < 1 ? 1 : 100;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = 0; r <= runs; r++) { /* r = 0: the warm-up */
        float elapsed = 0.0f;
        CUDA_CHECK(cudaEventRecord(start, 0));
        work(r, state);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
        if (r > 0)
            ms[r - 1] = elapsed;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms[median_index(ms, runs)];
}

typedef struct {
    void *from, *to;
    size_t bytes;
} copy_job;

static void copy_once(int run, void *state)
{
    (void)run;
    copy_job *c = (copy_job *)state;
    CUDA_CHECK(cudaMemcpy(c->to, c->from, c->bytes, cudaMemcpyDeviceToDevice));
}

double gpu_copy_gbs(void)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t bytes = (size_t)256 << 20;
    while (bytes > ((size_t)1 << 20) && 2 * bytes + ((size_t)64 << 20) > free_bytes)
        bytes /= 2;
    copy_job c = {gpu_alloc(bytes, 1), gpu_alloc(bytes, 1), bytes};
    double ms = gpu_median_ms(copy_once, &c, 5);
    gpu_free(c.from);
    gpu_free(c.to);
    return 2.0 * (double)bytes / ms / 1e6;
}

void gpu_name(char *buf, size_t len)
{
    char why[128];
    if (gpu_probe(why, sizeof why) != GPU_READY) {
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
