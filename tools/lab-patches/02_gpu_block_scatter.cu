/* Lab experiment 02-gpuscatter (tools/lab-experiments.sh): the scatter of blocked mode
 * on the GPU, as the course reports built it, in place of stage 02's host scatter.  The
 * table is already scanned on the device (c->d_hist); each pass scatters from the
 * device keys into a device buffer.  LAB_SCATTER chooses the report's version:
 *   serial     report 000's level 1: one thread a block of keys, walking it in order
 *              (parallel across blocks, sequential within one)
 *   loop       report 003's version 2: a thread a key, its rank among its block's keys of
 *              its digit found by a loop over the keys before it
 *   localsort  report 003's version 3: each block sorts its keys by digit in shared
 *              memory first (a key's place: the block's keys of a smaller digit, and
 *              those of its digit before it, counted by loops), then a thread a key finds
 *              its rank by walking back to the start of its digit's run
 * The keys go back to the host after the last pass only (the "transfer" step). */
#include <stdlib.h>
#include <string.h>

__global__ void scatter_serial(const uint32_t *src, uint32_t *dst, size_t n, int shift,
                               uint32_t mask, int block, size_t nblocks, uint32_t *table)
{
    size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblocks)
        return;
    size_t end = (b + 1) * (size_t)block < n ? (b + 1) * (size_t)block : n;
    for (size_t i = b * (size_t)block; i < end; i++) {
        uint32_t key = src[i];
        dst[table[((key >> shift) & mask) * nblocks + b]++] = key;
    }
}

/* one CUDA block a block of keys, a thread a key */
__global__ void scatter_loop(const uint32_t *src, uint32_t *dst, size_t n, int shift,
                             uint32_t mask, size_t nblocks, const uint32_t *table)
{
    size_t first = (size_t)blockIdx.x * blockDim.x, i = first + threadIdx.x;
    if (i >= n)
        return;
    uint32_t key = src[i], d = (key >> shift) & mask, rank = 0;
    for (size_t j = first; j < i; j++)
        rank += ((src[j] >> shift) & mask) == d;
    dst[table[d * nblocks + blockIdx.x] + rank] = key;
}

__global__ void local_counting_sort(uint32_t *keys, size_t n, int shift, uint32_t mask)
{
    extern __shared__ uint32_t s_keys[];
    size_t first = (size_t)blockIdx.x * blockDim.x, i = first + threadIdx.x;
    unsigned valid = n - first < blockDim.x ? (unsigned)(n - first) : blockDim.x;
    if (threadIdx.x < valid)
        s_keys[threadIdx.x] = keys[i];
    __syncthreads();
    uint32_t key = 0, place = 0;
    if (threadIdx.x < valid) {
        key = s_keys[threadIdx.x];
        uint32_t d = (key >> shift) & mask;
        for (unsigned j = 0; j < valid; j++) {
            uint32_t e = (s_keys[j] >> shift) & mask;
            place += e < d || (e == d && j < threadIdx.x);
        }
    }
    __syncthreads(); /* every key read before any is moved */
    if (threadIdx.x < valid)
        s_keys[place] = key;
    __syncthreads();
    if (threadIdx.x < valid)
        keys[i] = s_keys[threadIdx.x];
}

__global__ void scatter_walk_back(const uint32_t *sorted, uint32_t *dst, size_t n, int shift,
                                  uint32_t mask, size_t nblocks, const uint32_t *table)
{
    size_t first = (size_t)blockIdx.x * blockDim.x, i = first + threadIdx.x;
    if (i >= n)
        return;
    uint32_t key = sorted[i], d = (key >> shift) & mask, rank = 0;
    for (size_t j = i; j > first && ((sorted[j - 1] >> shift) & mask) == d; j--)
        rank++;
    dst[table[d * nblocks + blockIdx.x] + rank] = key;
}

static void sort_pass(sort_context *c, const uint32_t *src, uint32_t *dst, int pass, int shift,
                      int width, int last)
{
    /* the host scatters and the plain histogram are not used here */
    (void)src, (void)&scatter, (void)&block_scatter, (void)&gpu_histogram;
    static uint32_t *d_out = NULL;
    static size_t d_out_n = 0;
    const sort_options *opt = c->opt;
    uint32_t mask = (1u << width) - 1;
    size_t nbins = (size_t)mask + 1;
    size_t nblocks = table_blocks(opt, c->n);
    const char *variant = getenv("LAB_SCATTER") ? getenv("LAB_SCATTER") : "serial";

    if (d_out_n < c->n) { /* once: the first (warm-up) run pays for it */
        if (d_out)
            CUDA_CHECK(cudaFree(d_out));
        CUDA_CHECK(cudaMalloc(&d_out, c->n * sizeof(uint32_t)));
        d_out_n = c->n;
    }
    gpu_block_histograms(c->d_keys, c->n, shift, width, opt->block, c->d_hist);
    step_timer_mark(&c->timer, pass, STEP_HISTOGRAM);
    gpu_exclusive_scan(c->d_hist, c->d_hist, nbins * nblocks, &c->scan, 0);
    step_timer_mark(&c->timer, pass, STEP_SCAN);

    if (c->n > 0) {
        if (!strcmp(variant, "loop")) {
            scatter_loop<<<(unsigned)nblocks, opt->block>>>(c->d_keys, d_out, c->n, shift, mask,
                                                             nblocks, c->d_hist);
        } else if (!strcmp(variant, "localsort")) {
            local_counting_sort<<<(unsigned)nblocks, opt->block, opt->block * sizeof(uint32_t)>>>(
                c->d_keys, c->n, shift, mask);
            CUDA_CHECK_LAUNCH();
            scatter_walk_back<<<(unsigned)nblocks, opt->block>>>(c->d_keys, d_out, c->n, shift,
                                                                  mask, nblocks, c->d_hist);
        } else {
            scatter_serial<<<(unsigned)((nblocks + 255) / 256), 256>>>(
                c->d_keys, d_out, c->n, shift, mask, opt->block, nblocks, c->d_hist);
        }
        CUDA_CHECK_LAUNCH();
    }
    step_timer_mark(&c->timer, pass, STEP_SCATTER);
    CUDA_CHECK(cudaMemcpy(c->d_keys, d_out, c->n * sizeof(uint32_t), cudaMemcpyDeviceToDevice));
    if (last)
        CUDA_CHECK(cudaMemcpy(dst, d_out, c->n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    step_timer_mark(&c->timer, pass, STEP_TRANSFER);
}
