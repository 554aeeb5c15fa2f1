/*
 * 02_parallel_hist_scan/gpu_histogram.cuh - the histogram kernels of steps
 * 02.1 and 02.2, the lesson of step 02.1 (02.2's, the scan, is
 * common/gpu_scan.cuh).  `make diff FROM=01 TO=02.1` shows where a pass calls
 * them.  Read this file whole, in order:
 *
 *   --hist 1, sectioned:   thread t counts a contiguous section, one global
 *                          atomicAdd per key; a warp's loads are not coalesced;
 *   --hist 2, interleaved: a grid-stride loop, coalesced; still one global
 *                          atomicAdd per key on the same 2^k counters;
 *   --hist 3, shared:      a histogram per block in shared memory, added to the
 *                          global one once (the default).
 */

enum { HIST_SECTIONED = 1, HIST_INTERLEAVED = 2, HIST_SHARED = 3 };

/* 1. Sectioned: thread t counts keys [t * section, (t + 1) * section). */
__global__ void histogram_sectioned(const uint32_t *keys, size_t n, int shift, uint32_t mask,
                                    uint32_t *hist)
{
    /* WRITE BEGIN first_kernels: a first GPU lab: the counting loops, their launch, device memory */
    size_t threads = (size_t)gridDim.x * blockDim.x;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t section = (n + threads - 1) / threads;
    size_t begin = t * section;
    size_t end = begin + section < n ? begin + section : n;
    /* LAB BEGIN sectioned: count the keys [begin, end) into hist, one global atomic each */
    for (size_t i = begin; i < end; i++)
        atomicAdd(&hist[(keys[i] >> shift) & mask], 1u);
    /* LAB END sectioned */
    /* WRITE END first_kernels */
}

/* 2. Interleaved: the threads of a warp read neighbouring keys (coalesced). */
__global__ void histogram_interleaved(const uint32_t *keys, size_t n, int shift, uint32_t mask,
                                      uint32_t *hist)
{
    /* WRITE BEGIN first_kernels: a first GPU lab: the counting loops, their launch, device memory */
    /* LAB BEGIN interleaved: count keys i, i + threads, ... into hist (a warp: 32 neighbours) */
    size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads)
        atomicAdd(&hist[(keys[i] >> shift) & mask], 1u);
    /* LAB END interleaved */
    /* WRITE END first_kernels */
}

/* 3. Privatised: a histogram per block in shared memory, merged at the end. */
__global__ void histogram_shared(const uint32_t *keys, size_t n, int shift, uint32_t mask,
                                 uint32_t *hist)
{
    extern __shared__ uint32_t local[]; /* mask + 1 counters */
    for (uint32_t d = threadIdx.x; d <= mask; d += blockDim.x)
        local[d] = 0;
    __syncthreads();

    /* WRITE BEGIN first_kernels: a first GPU lab: the counting loops, their launch, device memory */
    /* LAB BEGIN private_count: count this block's keys (interleaved) into local, in shared */
    size_t threads = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads)
        atomicAdd(&local[(keys[i] >> shift) & mask], 1u);
    /* LAB END private_count */
    /* WRITE END first_kernels */
    __syncthreads();

    /* LAB BEGIN private_merge: add this block's counts to hist, skipping the zeros */
    for (uint32_t d = threadIdx.x; d <= mask; d += blockDim.x)
        if (local[d] != 0)
            atomicAdd(&hist[d], local[d]);
    /* LAB END private_merge */
}

/* Enough blocks to fill every multiprocessor once: each thread then loops. */
static int histogram_grid(int block)
{
    int device = 0, sms = 0, threads_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor,
                                      device));
    return sms * (threads_per_sm / block);
}

static void gpu_histogram(const uint32_t *d_keys, size_t n, int shift, int width, int variant,
                          int block, uint32_t *d_hist)
{
    uint32_t mask = (1u << width) - 1;
    int grid = histogram_grid(block);
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, ((size_t)mask + 1) * sizeof(uint32_t)));
    if (n == 0)
        return;
    /* WRITE BEGIN first_kernels: a first GPU lab: the counting loops, their launch, device memory */
    if (variant == HIST_SECTIONED)
        histogram_sectioned<<<grid, block>>>(d_keys, n, shift, mask, d_hist);
    else if (variant == HIST_INTERLEAVED)
        histogram_interleaved<<<grid, block>>>(d_keys, n, shift, mask, d_hist);
    else
        histogram_shared<<<grid, block, ((size_t)mask + 1) * sizeof(uint32_t)>>>(
            d_keys, n, shift, mask, d_hist);
    CUDA_CHECK_LAUNCH();
    /* WRITE END first_kernels */
}
