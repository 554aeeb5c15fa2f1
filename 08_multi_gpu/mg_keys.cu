/*
 * 08_multi_gpu/mg_keys.cu - each GPU makes its share of the input, and the checks of
 * the sorted parts (mg.h).
 *
 * The generator of stages 01-07 (common/keys.c) is splitmix64: its k-th number is a
 * function of seed + k * 0x9E3779B97F4A7C15 alone, so key i of any distribution that
 * draws a fixed count of numbers a key can be made from i: every GPU makes its keys
 * where they are, and the input is the same for any number of GPUs.
 */
#include "cuda_check.h"
#include "keys.h"
#include "mg.h"

#define GOLDEN 0x9E3779B97F4A7C15ull
#define DRAWS_BEFORE_KEYS 17 /* make_keys draws the constant, then 16 values of `few` */

__host__ __device__ static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* The k-th number (k from 1) of the generator that starts at seed. */
__host__ __device__ static uint64_t draw(uint64_t seed, uint64_t k) { return mix(seed + k * GOLDEN); }
__host__ __device__ static uint32_t draw32(uint64_t seed, uint64_t k) { return (uint32_t)(draw(seed, k) >> 32); }

struct few_values {
    uint32_t v[16];
};

static __global__ void make_keys_kernel(uint32_t *keys, size_t first, size_t count, int dist,
                                        uint64_t seed, uint32_t constant, few_values few)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < count;
         j += (size_t)gridDim.x * blockDim.x) {
        uint64_t i = first + j, k = DRAWS_BEFORE_KEYS + 1 + i; /* key i's first draw */
        uint32_t key = 0;
        switch (dist) {
        case DIST_UNIFORM: key = draw32(seed, k); break;
        case DIST_EQUAL: key = constant; break;
        case DIST_FEW: key = few.v[draw(seed, k) % 16]; break;
        case DIST_AND2:
            k = DRAWS_BEFORE_KEYS + 1 + 2 * i;
            key = draw32(seed, k) & draw32(seed, k + 1);
            break;
        case DIST_AND4:
            k = DRAWS_BEFORE_KEYS + 1 + 4 * i;
            key = draw32(seed, k) & draw32(seed, k + 1) & draw32(seed, k + 2) & draw32(seed, k + 3);
            break;
        case DIST_HIGH: key = (draw32(seed, k) & 0xFF000000u) | (constant & 0x00FFFFFFu); break;
        case DIST_LOW: key = (constant & 0xFFFFFF00u) | (draw32(seed, k) & 0xFFu); break;
        default: break;
        }
        keys[j] = key;
    }
}

extern "C" int mg_dist_on_device(int dist)
{
    return dist != DIST_SORTED && dist != DIST_REVERSED; /* those are prefix sums of gaps */
}

static int grid_for(size_t n)
{
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t blocks = (n + 255) / 256;
    return (int)(blocks < (size_t)sms * 8 ? (blocks ? blocks : 1) : (size_t)sms * 8);
}

extern "C" void mg_make_keys(uint32_t *d_keys, size_t first, size_t count, int dist, uint64_t seed)
{
    if (count == 0)
        return;
    few_values few;
    for (int i = 0; i < 16; i++)
        few.v[i] = draw32(seed, 2 + (uint64_t)i);
    make_keys_kernel<<<grid_for(count), 256>>>(d_keys, first, count, dist, seed, draw32(seed, 1), few);
    CUDA_CHECK_LAUNCH();
}

static __global__ void hash_kernel(const uint32_t *keys, size_t n, unsigned long long *sum)
{
    unsigned long long s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        s += mix(keys[i] + 0x632BE59BD9B4E019ull); /* a sum of a mix: the order does not count */
    atomicAdd(sum, s);
}

extern "C" void mg_hash_keys(const uint32_t *d_keys, size_t n, uint64_t *d_sum)
{
    if (n == 0)
        return;
    hash_kernel<<<grid_for(n), 256>>>(d_keys, n, (unsigned long long *)d_sum);
    CUDA_CHECK_LAUNCH();
}

static __global__ void descents_kernel(const uint32_t *keys, size_t n, unsigned long long *count)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + 1 < n; i += (size_t)gridDim.x * blockDim.x)
        c += keys[i] > keys[i + 1];
    if (c)
        atomicAdd(count, c);
}

extern "C" void mg_count_descents(const uint32_t *d_keys, size_t n, uint64_t *d_sum)
{
    if (n < 2)
        return;
    descents_kernel<<<grid_for(n), 256>>>(d_keys, n, (unsigned long long *)d_sum);
    CUDA_CHECK_LAUNCH();
}

static __global__ void lower_bounds_kernel(const uint32_t *keys, size_t n, const uint64_t *q, int m,
                                           unsigned long long *counts)
{
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < m; j += gridDim.x * blockDim.x) {
        size_t lo = 0, hi = n; /* the first key not less than q[j] */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if ((uint64_t)keys[mid] < q[j])
                lo = mid + 1;
            else
                hi = mid;
        }
        counts[j] = lo;
    }
}

extern "C" void mg_lower_bounds(const uint32_t *d_sorted, size_t n, const uint64_t *d_queries, int m,
                                uint64_t *d_counts)
{
    if (m <= 0)
        return;
    lower_bounds_kernel<<<(m + 255) / 256, 256>>>(d_sorted, n, d_queries, m, (unsigned long long *)d_counts);
    CUDA_CHECK_LAUNCH();
}
