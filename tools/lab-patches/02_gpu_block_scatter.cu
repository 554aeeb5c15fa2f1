/* Lab experiment 02-gpuscatter (tools/lab-experiments.sh): step 02.3's scatter, a thread
 * a block of keys (course report 000's level 1), against the two other ways report 003
 * built it; this sort_pass replaces step 02.3's.  LAB_SCATTER chooses:
 *   loop       report 003's version 2: a thread a key, its rank among its block's keys of
 *              its digit found by a loop over the keys before it
 *   localsort  report 003's version 3: each block sorts its keys by digit in shared
 *              memory first (a key's place: the block's keys of a smaller digit, and
 *              those of its digit before it, counted by loops), then a thread a key finds
 *              its rank by walking back to the start of its digit's run
 * Any other value (or none): the step's own scatter_blocks. */
#include <stdlib.h>
#include <string.h>

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

static void sort_pass(sort_context *c, const uint32_t *d_src, uint32_t *d_dst, int pass,
                      int shift, int width)
{
    const sort_options *opt = c->opt;
    uint32_t mask = (1u << width) - 1;
    size_t nbins = (size_t)mask + 1, nblocks = c->nblocks;
    const char *variant = getenv("LAB_SCATTER") ? getenv("LAB_SCATTER") : "";

    histogram_blocks<<<nblocks, opt->block, nbins * sizeof(uint32_t)>>>(d_src, c->n, shift,
                                                                        mask, c->d_table);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_HISTOGRAM);
    gpu_exclusive_scan(c->d_table, c->d_table, nbins * nblocks, &c->scan, 0);
    step_timer_mark(&c->timer, pass, STEP_SCAN);
    if (!strcmp(variant, "loop")) {
        scatter_loop<<<(unsigned)nblocks, opt->block>>>(d_src, d_dst, c->n, shift, mask, nblocks,
                                                         c->d_table);
    } else if (!strcmp(variant, "localsort")) { /* sorts d_src's blocks in place: the pass
                                                    leaves d_src for the next anyway */
        local_counting_sort<<<(unsigned)nblocks, opt->block, opt->block * sizeof(uint32_t)>>>(
            (uint32_t *)d_src, c->n, shift, mask);
        CUDA_CHECK_LAUNCH();
        scatter_walk_back<<<(unsigned)nblocks, opt->block>>>(d_src, d_dst, c->n, shift, mask,
                                                              nblocks, c->d_table);
    } else {
        scatter_blocks<<<blocks_for(nblocks, opt->block), opt->block>>>(
            d_src, d_dst, c->n, shift, mask, opt->block, nblocks, c->d_table);
    }
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_SCATTER);
}
