/*
 * gpu_scan.cuh - the exclusive scan on the GPU that stages 02 to 05 share: a
 * block scans its tile in shared memory (Hillis-Steele or Blelloch, --scan),
 * the tiles' totals are scanned by the same function, and each tile adds its
 * total back - for any length.  Stage 02 introduces it (its README explains
 * it step by step); stage 03 reads the bits of the keys straight into it
 * (scan_input); stages 04 and 05 scan their [digit][tile] tables with it.
 *
 * It is included by the stage files (each stage is one program), not
 * compiled on its own.  Its lab questions (padding, block sizes) live in the
 * READMEs of stages 02 and 04.
 */
#ifndef COMMON_GPU_SCAN_CUH
#define COMMON_GPU_SCAN_CUH

#include <stdint.h>
#include <string.h>

#include "cuda_check.h"
#include "gpu.h"
#include "sort_stage.h"

#define MAX_SCAN_LEVELS 8

/* ---- scan: in-block scans ------------------------------------------------- */

/* Hillis-Steele, in place on s[0 .. blockDim.x), one value per thread.  After
 * it, s[t] holds the sum of the values before t (exclusive); returns the total.
 * Each step reads the value `offset` to the left, waits for every thread to
 * have read, then adds: without the barrier in between a thread could read a
 * value its neighbour has already updated in this step. */
__device__ uint32_t scan_hillis_steele(uint32_t *s)
{
    /* WRITE BEGIN block_scans: the in-block scans, Hillis-Steele and Blelloch: exclusive, in place, the total returned */
    /* WRITE STUB return 0; */
    const unsigned t = threadIdx.x;
    __syncthreads(); /* the caller's writes to s are visible */
    uint32_t own = s[t];
    for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
        /* LAB BEGIN hs_step: one step: read the value offset to the left (none: 0), all wait, add it to s[t], all wait */
        uint32_t left = t >= offset ? s[t - offset] : 0;
        __syncthreads();
        s[t] += left;
        __syncthreads();
        /* LAB END hs_step */
    }
    uint32_t total = s[blockDim.x - 1];
    __syncthreads(); /* everyone has read the total before s changes */
    s[t] -= own;     /* inclusive -> exclusive */
    __syncthreads();
    return total;
    /* WRITE END block_scans */
}

/* Shared-memory index with one word of padding every 32 words: in the tree
 * walks below, addresses 2, 4, 8 ... words apart would otherwise fall into the
 * same bank (there are 32 banks of 4 bytes) and be served one after another. */
#define PAD(i) ((i) + ((i) >> 5))

/* Blelloch, in place on s[PAD(0 .. count)), count a power of two up to
 * 2 * blockDim.x (each thread handles two values).  Exclusive; returns the total. */
__device__ uint32_t scan_blelloch(uint32_t *s, unsigned count)
{
    /* WRITE BEGIN block_scans: the in-block scans, Hillis-Steele and Blelloch: exclusive, in place, the total returned */
    /* WRITE STUB return 0; */
    const unsigned t = threadIdx.x;
    unsigned offset = 1;
    /* up-sweep: after it, s[PAD(count - 1)] holds the total */
    for (unsigned active = count / 2; active > 0; active /= 2) {
        __syncthreads();
        if (t < active) {
            /* LAB BEGIN up_sweep: node t of this level: its right child's slot gains its left child's sum */
            unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            s[PAD(right)] += s[PAD(left)];
            /* LAB END up_sweep */
        }
        offset *= 2;
    }
    __syncthreads();
    uint32_t total = s[PAD(count - 1)];
    __syncthreads(); /* everyone has read the total before it is cleared */
    if (t == 0)
        s[PAD(count - 1)] = 0;
    /* down-sweep: each node passes its prefix to its left child, and the
     * prefix plus the left child's sum to its right child */
    for (unsigned active = 1; active < count; active *= 2) {
        offset /= 2;
        __syncthreads();
        if (t < active) {
            /* LAB BEGIN down_sweep: node t: the left child gets the node's prefix, the right child the prefix plus the left child's sum */
            unsigned left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
            uint32_t left_sum = s[PAD(left)];
            s[PAD(left)] = s[PAD(right)];
            s[PAD(right)] += left_sum;
            /* LAB END down_sweep */
        }
    }
    __syncthreads();
    return total;
    /* WRITE END block_scans */
}

/* ---- scan: the multi-block scan ------------------------------------------- */

/* Values one block scans: one per thread (Hillis-Steele) or two (Blelloch). */
static size_t scan_tile(int variant, int block)
{
    return variant == SCAN_BLELLOCH ? 2 * (size_t)block : (size_t)block;
}

/* The value the scan sees at index i: the value itself (bit < 0), or, fused
 * into the load, bit `bit` of the key. */
__device__ uint32_t scan_input(const uint32_t *in, size_t i, int bit)
{
    return bit < 0 ? in[i] : (in[i] >> bit) & 1u;
}

/* Scans each tile of `in` into `out` (exclusive, in place allowed) and writes
 * each tile's total to tile_sums (if there is more than one tile). */
__global__ void scan_tiles_hillis_steele(const uint32_t *in, uint32_t *out, size_t n, int bit,
                                         uint32_t *tile_sums)
{
    extern __shared__ uint32_t s[];
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? scan_input(in, i, bit) : 0;
    uint32_t total = scan_hillis_steele(s);
    if (i < n)
        out[i] = s[threadIdx.x];
    if (tile_sums && threadIdx.x == 0)
        tile_sums[blockIdx.x] = total;
}

__global__ void scan_tiles_blelloch(const uint32_t *in, uint32_t *out, size_t n, int bit,
                                    uint32_t *tile_sums)
{
    extern __shared__ uint32_t s[];
    const unsigned count = 2 * blockDim.x;
    size_t base = (size_t)blockIdx.x * count;
    /* thread t loads values t and t + blockDim.x: neighbouring threads, neighbouring words */
    for (unsigned j = threadIdx.x; j < count; j += blockDim.x)
        s[PAD(j)] = base + j < n ? scan_input(in, base + j, bit) : 0;
    uint32_t total = scan_blelloch(s, count);
    for (unsigned j = threadIdx.x; j < count; j += blockDim.x)
        if (base + j < n)
            out[base + j] = s[PAD(j)];
    if (tile_sums && threadIdx.x == 0)
        tile_sums[blockIdx.x] = total;
}

/* Adds to every value of tile b the scanned total of the tiles before it. */
__global__ void add_tile_offsets(uint32_t *data, size_t n, size_t tile, const uint32_t *offsets)
{
    size_t base = (size_t)blockIdx.x * tile;
    uint32_t add = offsets[blockIdx.x];
    for (size_t j = threadIdx.x; j < tile && base + j < n; j += blockDim.x)
        data[base + j] += add;
}

/* The tile totals of every level of the recursion, allocated once per sort. */
typedef struct {
    uint32_t *sums[MAX_SCAN_LEVELS];
    int variant, block;
} scan_plan;

static void scan_plan_create(scan_plan *plan, size_t n, int variant, int block, int poison)
{
    memset(plan, 0, sizeof *plan);
    plan->variant = variant;
    plan->block = block;
    size_t tile = scan_tile(variant, block);
    for (int level = 0; n > 1 && level < MAX_SCAN_LEVELS; level++) {
        size_t tiles = (n + tile - 1) / tile;
        if (tiles > 1)
            plan->sums[level] = (uint32_t *)gpu_alloc(tiles * sizeof(uint32_t), poison);
        n = tiles;
    }
}

static void scan_plan_destroy(scan_plan *plan)
{
    for (int level = 0; level < MAX_SCAN_LEVELS; level++)
        if (plan->sums[level])
            gpu_free(plan->sums[level]);
}

/* Scans the tiles of n values (or of the bits `bit` of n keys), `block`
 * threads per tile; writes each tile's total to sums when it is not NULL. */
static void launch_scan_tiles(const uint32_t *d_in, uint32_t *d_out, size_t n, int bit,
                              int variant, int block, uint32_t *sums)
{
    size_t tile = scan_tile(variant, block);
    size_t tiles = (n + tile - 1) / tile;
    if (variant == SCAN_BLELLOCH)
        scan_tiles_blelloch<<<tiles, block, PAD(tile) * sizeof(uint32_t)>>>(d_in, d_out, n, bit,
                                                                            sums);
    else
        scan_tiles_hillis_steele<<<tiles, block, tile * sizeof(uint32_t)>>>(d_in, d_out, n, bit,
                                                                            sums);
    CUDA_CHECK_LAUNCH();
}

/* Exclusive scan of n values on the device, any n (in == out allowed). */
static void gpu_exclusive_scan(const uint32_t *d_in, uint32_t *d_out, size_t n,
                               const scan_plan *plan, int level)
{
    if (n == 0)
        return;
    size_t tile = scan_tile(plan->variant, plan->block);
    size_t tiles = (n + tile - 1) / tile;
    uint32_t *sums = tiles > 1 ? plan->sums[level] : NULL;
    launch_scan_tiles(d_in, d_out, n, -1, plan->variant, plan->block, sums);
    if (tiles > 1) {
        gpu_exclusive_scan(sums, sums, tiles, plan, level + 1);
        add_tile_offsets<<<tiles, plan->block>>>(d_out, n, tile, sums);
        CUDA_CHECK_LAUNCH();
    }
}

#endif
