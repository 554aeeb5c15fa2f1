/*
 * 07_onesweep/step23_pass_halves.cu - step 07.23: the histogram's counters a
 * half a pass.
 *
 * What changed since step 07.22 (the whole story: README.md)
 *   The default sort's histogram kernel was bound by its integer pipe, not
 *   by memory: each of a key's four digits became counter p * 256 + digit,
 *   and the counter's word and half (which 16 bits to add to) came from
 *   shifts and masks of that sum, about eight instructions a digit.  Now
 *   passes 0 and 1 share a row of words, pass 0 in the low halves and pass 1
 *   in the high ones, and passes 2 and 3 the next row: a digit's word is its
 *   pass's row plus the digit, and what its atomic adds is a constant of the
 *   pass.  Half the instructions a key, and the kernel reads its keys near
 *   the memory's rate.
 *
 * Steps: histogram (every pass's digit counts, once), then per pass scatter
 * (ticket, rank, look back, reorder the tile, write runs).
 *
 * Run:  build/bin/07_onesweep -n 268435456 --verbose
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda/atomic>

#include "cuda_check.h"
#include "gpu.h"
#include "sort_stage.h"
#include "timer.h"

#include "../05_warp_shuffle/warp_scan.cuh"
#include "../05_warp_shuffle/warp_multisplit.cuh"

enum { STEP_HISTOGRAM, STEP_SCATTER };

#define MAX_KPT 16
/* Keys a thread of a pass of pairs where the GPU holds two such blocks a
 * multiprocessor (pass_kpt): more than --kpt accepts, set by the step. */
#define PAIRS_KPT 24
/* pass_tile's pairs where each key's slot waits for its value in shared memory */
#define SLOTS_IN_SHARED 2

/* The shared memory a block may ask for on every GPU the course builds for
 * (compute capability 7.5 allows 64 KB; later ones more); beyond 48 KB a
 * kernel must ask for it (cudaFuncSetAttribute, in context_create). */
#define SHARED_MEMORY_OPTIN (64 * 1024)

/* A look-back word: a tile's state for one digit in the top 2 bits, a count
 * below them.  Not ready yet (0), the tile's own count (AGGREGATE), or the
 * count of the tile and every tile before it (PREFIX). */
#define LOOKBACK_AGGREGATE (1u << 30)
#define LOOKBACK_PREFIX (2u << 30)
#define LOOKBACK_COUNT ((1u << 30) - 1)

/* One table serves every pass.  When a pass ends, each of its words is a
 * prefix: flag 2, bit 31.  A pass that runs after an odd number of passes
 * stores and loads every word XOR LOOKBACK_FLIP, so that a prefix the pass
 * before it left reads as flag 0, not ready, as a cleared word would. */
#define LOOKBACK_FLIP (1u << 31)

/* Many blocks read and write a look-back word at once, so every access to one
 * is a device-scope atomic: a plain or volatile access there would be a data
 * race, whose result the CUDA memory model does not define.  Relaxed order is
 * enough: the word holds all a reader uses (flag and count together), so no
 * other write has to become visible with it - no acquire, no release. */
typedef cuda::atomic_ref<uint32_t, cuda::thread_scope_device> lookback_word;

/* Tests only (07_onesweep/test_hooks.cu sets them): tile test_slow_tile waits
 * test_slow_ns nanoseconds before it publishes its counts - a tile that runs
 * late, to show that the look-back still ends, and ends right. */
__device__ long long test_slow_tile = -1;
__device__ unsigned test_slow_ns;

const stage_info STAGE = {
    .name = "07_onesweep",
    .title = "pairs in tiles of 24 keys a thread, each key's slot in shared memory",
    .needs_gpu = 1,
    .nsteps = 2,
    .step_name = {"histogram", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_KPT | USES_SKIP | USES_TYPE | USES_PAIRS |
            USES_DESCENDING | USES_BIT_RANGE,
    .defaults = {.bits = 8, .block = 512, .kpt = 16},
    .range = {.bits = {1, 8}, .block = {32, 512, 1}, .kpt = {1, MAX_KPT}},
    .max_keys = LOOKBACK_COUNT,
};

/* Shared memory of a pass: the tile; each warp's lane mask of each digit while
 * a spread pass ranks the tile - a crowded pass keeps each key's rank in those
 * words instead (16 bits a key) - whose words then hold, with values, each
 * slot's digit (a byte a key); each warp's 16-bit count of each digit; each
 * digit's start in the tile and place in the output; the warps' totals.  512 x
 * 16 keys of 8 bits: 32 + 16 + 8 + 2 KB, 58 KB. */
static size_t mask_words(int block, int kpt, int bits)
{
    size_t masks = (size_t)(block / 32) << bits, ranks = (size_t)block * kpt / 2;
    return masks > ranks ? masks : ranks;
}

static size_t downsweep_shared_bytes(int block, int kpt, int bits)
{
    size_t bins = (size_t)1 << bits;
    return ((size_t)block * kpt + mask_words(block, kpt, bits) + 2 * bins + 33) * sizeof(uint32_t) +
           (block / 32) * bins * sizeof(uint16_t);
}

/* A pass of pairs in tiles of 512 x PAIRS_KPT also keeps each key's slot in
 * shared memory: 16 bits a key, just after the masks' words, so that masks
 * and slots together hold a tile of values once the tile is ranked.  8-bit
 * digits: 106 KB. */
static size_t wide_pairs_shared_bytes(int bits)
{
    return downsweep_shared_bytes(512, PAIRS_KPT, bits) + (size_t)512 * PAIRS_KPT * sizeof(uint16_t);
}

/* Pairs at the default shape take tiles of 512 x PAIRS_KPT where two such
 * blocks fit a multiprocessor's shared memory (a block also costs the driver
 * 1 KB): Hopper's 228 KB hold two; an A100's 164 KB would hold one, which
 * hides less than 07.19's two smaller blocks, and a T4's 64 KB none.  A query
 * that fails (no GPU here) answers no. */
static int wide_pairs(const sort_options *opt)
{
    if (!opt->pairs || opt->block != STAGE.defaults.block || opt->kpt != STAGE.defaults.kpt)
        return 0;
    int device = 0, per_block = 0, per_multiprocessor = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&per_multiprocessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                               device) != cudaSuccess) {
        (void)cudaGetLastError(); /* the error is the answer: not wide */
        return 0;
    }
    size_t bytes = wide_pairs_shared_bytes(opt->bits);
    return (size_t)per_block >= bytes && (size_t)per_multiprocessor >= 2 * (bytes + 1024);
}

/* Keys a thread in every pass of this sort, and so its tiles. */
static int pass_kpt(const sort_options *opt) { return wide_pairs(opt) ? PAIRS_KPT : opt->kpt; }

static size_t tiles_for(size_t n, const sort_options *opt)
{
    size_t tile = (size_t)opt->block * pass_kpt(opt);
    return (n + tile - 1) / tile;
}

/* Beyond the declared ranges: the tile must fit in a block's shared memory,
 * a pass gives each digit a thread of its own, and a look-back word holds a
 * count of at most 2^30 - 1 keys. */
int stage_check_options(const sort_options *opt, size_t n, char *err, size_t errlen)
{
    if (n > LOOKBACK_COUNT) {
        snprintf(err, errlen,
                 "-n %zu: 07_onesweep sorts at most %u keys (a look-back word holds a 30-bit "
                 "count)", n, LOOKBACK_COUNT);
        return -1;
    }
    if (opt->block < (1 << opt->bits)) {
        snprintf(err, errlen,
                 "--bits %d --block %d: a pass needs a thread per digit, "
                 "a block of at least %d threads",
                 opt->bits, opt->block, 1 << opt->bits);
        return -1;
    }
    size_t shared = downsweep_shared_bytes(opt->block, opt->kpt, opt->bits);
    if (shared > SHARED_MEMORY_OPTIN) {
        snprintf(err, errlen,
                 "--block %d --kpt %d: a tile of %d keys needs %zu bytes of shared memory, more "
                 "than the %d a block may use; use fewer keys per thread or a smaller block",
                 opt->block, opt->kpt, opt->block * opt->kpt, shared, SHARED_MEMORY_OPTIN);
        return -1;
    }
    return 0;
}

/* two key buffers (ping-pong), one look-back table of 2^k words a tile (every
 * pass's), the counts and the tickets */
size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    size_t lookback = ((size_t)1 << opt->bits) * tiles_for(n, opt);
    return (2 * n + lookback) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves (L: a pass's look-back words, 2^k a tile):
 * histogram: the keys once, for every pass, and the first pass's L cleared;
 * scatter, every pass: the keys in and out, L written twice (aggregate,
 * prefix), and nothing cleared.  4 + 8 bytes of keys a key and
 * pass: 36 for 4 passes, against 05.4's 48.  A skipped pass moves nothing;
 * the model counts every pass. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_in_range(opt), keys = 4.0 * (double)n;
    double values = opt->pairs ? keys : 0.0;
    double lookback = 4.0 * (double)((size_t)1 << opt->bits) * (double)tiles_for(n, opt);
    return step == STEP_HISTOGRAM ? keys + lookback
                                  : passes * (2 * (keys + values) + 2 * lookback);
}

/* ---- 1. histogram: every pass's digit counts, one read of the keys -------- */

__device__ uint32_t digit_of(uint32_t key, int shift, uint32_t mask) { return (key >> shift) & mask; }

/* The order a sort asks for: the key type (enum key_type), and bit 2 for
 * descending. */
#define ORDER_DESCENDING 4
static int order_of(const sort_options *opt) { return opt->key_type | (opt->descending ? ORDER_DESCENDING : 0); }

/* A key as the unsigned number that sorts in the wanted order (stage 01's
 * radix_form, on the GPU: bits flipped, the same for every key of a sign), and back. */
__device__ __forceinline__ uint32_t radix_form(uint32_t key, int order)
{
    uint32_t sign = (order & 3) == KEY_U32 ? 0 : 0x80000000u;        /* i32 and f32 */
    uint32_t if_negative = (order & 3) == KEY_F32 ? 0x7FFFFFFFu : 0; /* a negative float */
    uint32_t always = order & ORDER_DESCENDING ? ~sign : sign;
    return key ^ always ^ ((uint32_t)((int32_t)key >> 31) & if_negative);
}

__device__ __forceinline__ uint32_t key_of(uint32_t form, int order)
{
    int type = order & 3;
    if (order & ORDER_DESCENDING)
        form = ~form;
    return type == KEY_I32   ? form ^ 0x80000000u
           : type == KEY_F32 ? (form >> 31 ? form & 0x7FFFFFFFu : ~form)
                             : form;
}

/* One key's digits, one count each, in the block's counters. */
__device__ __forceinline__ void count_digits(uint32_t *s_count, uint32_t key, int bits, int passes,
                                             int begin, uint32_t below_end, int order)
{
    /* bits [begin, end) of the key's radix form, cut out once (below_end: the bits under end) */
    const uint32_t bins = 1u << bits, form = (radix_form(key, order) & below_end) >> begin;
    for (int p = 0; p < passes; p++)
        atomicAdd(&s_count[p * bins + digit_of(form, p * bits, bins - 1)], 1u);
}

/* This block's share of the keys, counted in s_count, four keys to a 16-byte
 * load. */
__device__ __forceinline__ void count_keys(uint32_t *s_count, const uint32_t *keys, size_t n,
                                           int bits, int passes, int begin, uint32_t below_end,
                                           int order)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint4 *keys4 = (const uint4 *)keys; /* cudaMalloc aligns to 256 bytes */
    for (size_t i = first; i < n / 4; i += stride) {
        uint4 k = keys4[i];
        count_digits(s_count, k.x, bits, passes, begin, below_end, order);
        count_digits(s_count, k.y, bits, passes, begin, below_end, order);
        count_digits(s_count, k.z, bits, passes, begin, below_end, order);
        count_digits(s_count, k.w, bits, passes, begin, below_end, order);
    }
    for (size_t i = n / 4 * 4 + first; i < n; i += stride)
        count_digits(s_count, keys[i], bits, passes, begin, below_end, order);
}

/* counts[p * 2^bits + d]: the keys whose digit of pass p is d.  Each block
 * counts its share of the keys in shared memory (one counter a pass and
 * digit), then adds its counts to the global ones.  On the way the blocks
 * clear the first pass's look-back table (table_words words): no pass has
 * started yet, and the sort needs no memset of its own for it. */
__global__ void all_pass_histogram(const uint32_t *keys, size_t n, int bits, int passes,
                                   int begin, int end, int order, uint32_t *counts,
                                   uint32_t *first_table, size_t table_words)
{
    extern __shared__ uint32_t s_count[]; /* passes x 2^bits */
    const uint32_t bins = 1u << bits, below_end = end == 32 ? 0xFFFFFFFFu : (1u << end) - 1;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < table_words;
         i += (size_t)gridDim.x * blockDim.x)
        first_table[i] = 0;
    for (uint32_t i = threadIdx.x; i < passes * bins; i += blockDim.x)
        s_count[i] = 0;
    __syncthreads();
    /* the loop is bound by its instructions: plain u32 keys get a copy without the transform */
    if (order == KEY_U32 && begin == 0 && end == 32)
        count_keys(s_count, keys, n, bits, passes, 0, 0xFFFFFFFFu, KEY_U32);
    else
        count_keys(s_count, keys, n, bits, passes, begin, below_end, order);
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < passes * bins; i += blockDim.x)
        if (s_count[i] != 0)
            atomicAdd(&counts[i], s_count[i]);
}

/* The default sort's histogram (8-bit digits, four passes, all 32 bits), its
 * counters a copy per lane.  Lane l of every warp counts in copy l: pass p's
 * digit d is the low (p even) or high (p odd) half of the copy's word
 * p / 2 * 256 + d - a row of 256 words for passes 0 and 1, one for passes 2
 * and 3 - so that with p unrolled the atomic adds a constant (1 or 1 << 16)
 * at an address that is the digit times a stride plus a constant.  Word w of
 * copy l sits at s_copies[w * 32 + l] - every word of copy l in bank l, so
 * the 32 atomics of a warp fall in 32 banks at once.  A half counts at most
 * COPY_KEYS_A_THREAD keys of each of the block's 16 warps, fewer than 2^16:
 * the launch gives every thread at most that many keys (histogram). */
#define COPY_BLOCK 512
#define COPY_KEYS_A_THREAD 4000
__device__ __forceinline__ void count_digits_in_copy(uint32_t *s_lane, uint32_t key, int order)
{
    /* WRITE BEGIN pass_halves: the counters a half a pass: in count_digits_in_copy, pass p's digit counted in the low (p even) or high (p odd) half of word p / 2 * 256 + digit of this lane's copy (word w at s_lane[w * 32]); at the end, each counter c = p * 256 + d the sum of its half over the 32 copies, added to counts[c] */
    /* WRITE STUB (void)s_lane; (void)key; (void)order; */
    const uint32_t form = radix_form(key, order);
#pragma unroll
    for (int p = 0; p < 4; p++) {
        uint32_t digit = digit_of(form, p * 8, 255);
        /* LAB BEGIN half_of_pass: add 1 to pass p's half of the digit's word in its pass's row of this lane's copy (one shared atomicAdd; with p unrolled, the address is the digit times a stride plus a constant, and what it adds is a constant) */
        /* LAB STUB (void)digit; */
        atomicAdd(&s_lane[(p / 2 * 256 + digit) * 32], 1u << (p % 2 * 16));
        /* LAB END half_of_pass */
    }
    /* WRITE END pass_halves */
}

/* This block's share of the keys, counted in this lane's copy, four keys to a
 * 16-byte load. */
__device__ __forceinline__ void count_keys_in_copy(uint32_t *s_lane, const uint32_t *keys, size_t n,
                                                   int order)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint4 *keys4 = (const uint4 *)keys; /* cudaMalloc aligns to 256 bytes */
    for (size_t i = first; i < n / 4; i += stride) {
        uint4 k = keys4[i];
        count_digits_in_copy(s_lane, k.x, order);
        count_digits_in_copy(s_lane, k.y, order);
        count_digits_in_copy(s_lane, k.z, order);
        count_digits_in_copy(s_lane, k.w, order);
    }
    for (size_t i = n / 4 * 4 + first; i < n; i += stride)
        count_digits_in_copy(s_lane, keys[i], order);
}

__global__ void __launch_bounds__(COPY_BLOCK)
    all_pass_histogram_8x4(const uint32_t *keys, size_t n, int order, uint32_t *counts,
                           uint32_t *first_table, size_t table_words)
{
    extern __shared__ uint32_t s_copies[]; /* 32 copies of 4 x 256 16-bit counters: 64 KB */
    const uint32_t words = 4 * 256 / 2 * 32;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < table_words;
         i += (size_t)gridDim.x * blockDim.x)
        first_table[i] = 0;
    for (uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        s_copies[i] = 0;
    __syncthreads();
    uint32_t *s_lane = s_copies + threadIdx.x % 32;
    /* plain u32 keys get a copy of the loop without the transform */
    if (order == KEY_U32)
        count_keys_in_copy(s_lane, keys, n, KEY_U32);
    else
        count_keys_in_copy(s_lane, keys, n, order);
    __syncthreads();
    /* WRITE BEGIN pass_halves: the counters a half a pass: in count_digits_in_copy, pass p's digit counted in the low (p even) or high (p odd) half of word p / 2 * 256 + digit of this lane's copy (word w at s_lane[w * 32]); at the end, each counter c = p * 256 + d the sum of its half over the 32 copies, added to counts[c] */
    /* WRITE STUB (void)counts; */
    for (uint32_t c = threadIdx.x; c < 4 * 256; c += blockDim.x) {
        const uint32_t w = c / 512 * 256 + c % 256, half = c / 256 % 2; /* pass c / 256, digit c % 256 */
        const uint32_t *word = s_copies + w * 32; /* the counter's word in copy 0 */
        uint32_t sum = 0;
        for (uint32_t k = 0; k < 32; k++) /* copy (k + w) % 32: a warp's 32 words in 32 banks */
            sum += word[(k + w) % 32] >> (half * 16) & 0xFFFFu;
        if (sum != 0)
            atomicAdd(&counts[c], sum);
    }
    /* WRITE END pass_halves */
}

/* A pass's plan: skip it, or read buffer `from` (0 or 1) and write the other;
 * the first pass that runs also turns keys into radix forms as it reads them
 * (PLAN_FIRST), the last one turns them back as it writes (PLAN_LAST), a
 * crowded pass counts its tiles' digits by match (PLAN_CROWDED), and a pass
 * that runs after an odd number of passes flips its look-back words
 * (PLAN_FLIPPED). */
enum { PLAN_SKIP = 2, PLAN_FIRST = 4, PLAN_LAST = 8, PLAN_CROWDED = 16, PLAN_FLIPPED = 32 };

/* The sum over the block's threads of x (every thread gets it).  s_sum: a
 * word a warp; ends with a barrier, so s_sum may be used again after it. */
__device__ unsigned long long block_sum_u64(unsigned long long x, unsigned long long *s_sum)
{
    for (int offset = 16; offset > 0; offset /= 2)
        x += __shfl_xor_sync(0xFFFFFFFFu, x, offset);
    if (threadIdx.x % 32 == 0)
        s_sum[threadIdx.x / 32] = x;
    __syncthreads();
    unsigned long long all = 0;
    for (unsigned w = 0; w < blockDim.x / 32; w++)
        all += s_sum[w];
    __syncthreads();
    return all;
}

/* One block, a thread a digit: each pass's counts become where each digit's
 * run starts in the output (an exclusive scan), and the passes' plan: a pass
 * where one digit holds all n keys would move nothing, and is skipped (unless
 * no_skip); the others read the buffer the pass before them wrote.  A pass
 * whose digit two keys share with a chance above 1/32 (the sum of the counts'
 * squares over n^2; spread keys: 1/256) is crowded.  The passes that run
 * take turns at flipping their look-back words: the first does not.
 * plan[passes] is the buffer that holds the sorted keys at the end. */
__global__ void digit_starts(uint32_t *counts, int bits, int passes, size_t n, int no_skip,
                             int *plan)
{
    __shared__ uint32_t s_warp[33];
    __shared__ unsigned long long s_sum[32];
    const uint32_t bins = 1u << bits, d = threadIdx.x;
    int from = 0, first_run = -1, last_run = -1, runs = 0;
    for (int p = 0; p < passes; p++) {
        uint32_t *pass = counts + (size_t)p * bins;
        uint32_t count = d < bins ? pass[d] : 0, all;
        uint32_t start = block_exclusive_scan(count, s_warp, &all);
        int one_digit = __syncthreads_or(d < bins && count == n);
        if (d < bins)
            pass[d] = start;
        unsigned long long squares = block_sum_u64((unsigned long long)count * count, s_sum);
        int crowded = squares > (unsigned long long)n * n / 32;
        if (d == 0)
            plan[p] = one_digit && !no_skip ? PLAN_SKIP
                                            : from | (crowded ? PLAN_CROWDED : 0) |
                                                  (runs % 2 ? PLAN_FLIPPED : 0);
        if (!one_digit || no_skip) {
            runs++;
            from ^= 1;
            first_run = first_run < 0 ? p : first_run;
            last_run = p;
        }
    }
    if (d == 0) {
        plan[passes] = from;
        if (first_run >= 0) {
            plan[first_run] |= PLAN_FIRST;
            plan[last_run] |= PLAN_LAST;
        }
    }
}

/* ---- 2. a pass: ticket, rank, look back, reorder, write runs ------------ */

/* Warp-striped: warp w holds the contiguous run [w * 32 * kpt, (w + 1) * 32 *
 * kpt) of tile b, and lane l its keys l, l + 32, l + 64 ..., so each load of
 * the warp is 32 neighbouring words.  The index of this thread's first key: */
__device__ __forceinline__ size_t warp_striped_first(size_t b, int kpt, unsigned block)
{
    return b * block * kpt + (threadIdx.x / 32) * 32 * kpt + threadIdx.x % 32;
}

/* key[j] = the key at warp_striped_first(b, kpt, block) + 32 * j.  Past the end: keys
 * whose bits are all 1, which rank after every real key and are never written. */
__device__ __forceinline__ void load_warp_striped(const uint32_t *src, size_t n, size_t b,
                                                  int kpt, uint32_t *key, unsigned block,
                                                  const int max_kpt)
{
    size_t first = warp_striped_first(b, kpt, block);
#pragma unroll
    for (int j = 0; j < max_kpt; j++)
        if (j < kpt)
            key[j] = first + 32 * j < n ? src[first + 32 * j] : 0xFFFFFFFFu;
}

/* The same for a tile that ends at or before n: no key past the end, so no
 * bound to check - a plain load a key, 32 neighbouring words a warp. */
__device__ __forceinline__ void load_whole_tile(const uint32_t *src, size_t b, int kpt,
                                                uint32_t *key, unsigned block, const int max_kpt)
{
    const uint32_t *mine = src + warp_striped_first(b, kpt, block);
#pragma unroll
    for (int j = 0; j < max_kpt; j++)
        if (j < kpt)
            key[j] = mine[32 * j];
}


/* `amount` more in counter d of a row of 16-bit counters in shared memory;
 * returns the counter as it was before.  Shared atomics add 32-bit words, so
 * this adds to the counter's half of word d / 2 of the row (a row starts on a
 * word: 2^width counters, and width >= 1): a warp's count of a digit is at
 * most 32 x 24, and a place in the tile below 12,288, so the half never carries
 * into its neighbour.  The word's address is the row's plus an index, so the
 * compiler knows it is shared memory and emits a shared atomic; an address
 * made from an integer would be a generic one. */
__device__ __forceinline__ uint32_t add_16(uint16_t *row, uint32_t d, uint32_t amount)
{
    uint32_t word = atomicAdd((uint32_t *)row + d / 2, d % 2 ? amount << 16 : amount);
    return d % 2 ? word >> 16 : word & 0xFFFFu;
}

/* The place of this lane's key among its warp's keys of its digit so far.
 * Crowded keys: __match_any_sync names the lanes that share the digit; its
 * cost grows with the number of different digits among the 32 keys.  Then,
 * as in rank_in_warp, the lowest such lane updates the warp's count.  Spread
 * keys: each lane sets its bit in its digit's word of the warp's masks, and
 * the word then names the lanes that share the digit - one atomic where 05.3
 * spends a ballot per bit of the digit; but lanes that share a word take turns
 * at it.  The lowest such lane adds their number to the warp's count with an
 * atomic that returns the count before (add_16), clears the word for the next
 * keys, and hands the count to the others with a shuffle: no lane reads the
 * count and no lane writes it back, the leader's one atomic does both. */
__device__ __forceinline__ uint32_t rank_in_warp_by_atomics_or_match(uint32_t digit,
                                                                     uint32_t *masks,
                                                                     uint16_t *count, int crowded)
{
    const unsigned lane = threadIdx.x % 32;
    unsigned same;
    uint32_t before;
    if (crowded) {
        same = __match_any_sync(0xFFFFFFFFu, digit);
        before = count[digit];
        __syncwarp(); /* every lane has read the count before it changes */
        if (lane == __ffs(same) - 1)
            count[digit] = (uint16_t)(before + __popc(same));
    } else {
        atomicOr(&masks[digit], 1u << lane);
        __syncwarp();
        same = masks[digit];
        __syncwarp(); /* every lane has read the word before its leader clears it */
        const unsigned leader = __ffs(same) - 1;
        before = 0;
        if (lane == leader) {
            before = add_16(count, digit, __popc(same));
            masks[digit] = 0;
        }
        before = __shfl_sync(0xFFFFFFFFu, before, leader);
    }
    __syncwarp(); /* the count and the word are updated before the next key's lanes use them */
    return before + __popc(same & ((1u << lane) - 1));
}

/* Counts first: each warp counts its keys' digits in its own row of s_count -
 * no counter is shared by two warps, so keys of one digit from many warps do
 * not queue for one word; in a crowded pass the lanes of a warp that share a
 * digit are counted at once, by the lowest of them, so that they do not queue
 * either; with keys alone (keep_ranks), the count before they were added,
 * which its atomic returns, is handed to them: each key's rank among its
 * warp's keys of its digit goes to s_rank (16 bits a key, at the key's place
 * in the warp-striped tile).
 * Thread d (< 2^width) then sums its digit over the rows, which it leaves
 * as they are (rank_tile turns them into places), and returns the tile's
 * count of d: the sooner it returns, the sooner the tile publishes its
 * counts for the tiles after it.  *s_crowding gets the sum
 * of the counts' squares: (tile size)^2 times the chance that two keys of the
 * tile share a digit. */
__device__ __forceinline__ uint32_t count_tile(const uint32_t *key, int kpt, int shift, int width,
                                               uint16_t *s_count, uint32_t *s_crowding,
                                               unsigned block, int crowded_pass, int keep_ranks,
                                               uint16_t *s_rank, const int max_kpt)
{
    const uint32_t bins = 1u << width, mask = bins - 1;
    const unsigned warps = block / 32, lane = threadIdx.x % 32;
    uint16_t *my_count = s_count + threadIdx.x / 32 * bins;
    uint16_t *my_rank = s_rank + threadIdx.x / 32 * 32 * kpt + lane; /* key j: my_rank[32 * j] */
#pragma unroll
    for (int j = 0; j < max_kpt; j++)
        if (j < kpt) {
            uint32_t digit = digit_of(key[j], shift, mask);
            if (crowded_pass) {
                unsigned group = __match_any_sync(0xFFFFFFFFu, digit);
                const unsigned leader = __ffs(group) - 1;
                uint32_t before = 0;
                if (lane == leader)
                    before = add_16(my_count, digit, __popc(group));
                if (keep_ranks) {
                    before = __shfl_sync(0xFFFFFFFFu, before, leader);
                    my_rank[32 * j] = (uint16_t)(before + __popc(group & ((1u << lane) - 1)));
                }
            } else
                add_16(my_count, digit, 1);
        }
    __syncthreads();
    uint32_t count = 0;
    if (threadIdx.x < bins)
        for (unsigned w = 0; w < warps; w++)
            count += s_count[w * bins + threadIdx.x];
    uint32_t squares = count * count; /* at most 12,288^2 in all: no overflow */
    for (int offset = 16; offset > 0; offset /= 2)
        squares += __shfl_xor_sync(0xFFFFFFFFu, squares, offset);
    if (threadIdx.x % 32 == 0 && threadIdx.x < bins)
        atomicAdd(s_crowding, squares);
    return count;
}

/* Ranks the tile held warp-striped in key[] by digit: key j goes to its place
 * in the tile stably sorted by digit, in s_tile, as soon as it is ranked, and
 * only with values (pairs) is that place kept for its value: in pos[j], or
 * in my_slot[32 * j] where pairs is SLOTS_IN_SHARED - and there key[j] then
 * loads its value (values[first + 32 * j]: first is the index of this
 * thread's first key), a load in flight while the thread ranks its next keys.
 * (Slots in registers load their values after the look-back: loaded here,
 * their pass measured slower.)  Thread d brings the tile's
 * count of digit d (count_tile's); s_start[d] gets where its run starts, and
 * each warp's row entry of d, its count of d, becomes where its keys of d
 * start in the tile - the run's start plus the rows above it - so that the
 * ranking's running counts are places in the tile: a key's rank in its warp
 * is its place.
 * s_masks: each warp's lane mask of each digit, in words of their own.  A
 * tile is crowded where two of its keys share a digit with a chance above
 * 1/32 (spread keys: 1/256): then its warps rank by match, not by atomics.
 * A crowded pass of keys alone ranked its keys as it counted them (s_rank,
 * in the masks' words): a key's place is its warp's entry of its digit plus
 * its rank.  Pairs rank as before: this second loop in their kernel, which
 * holds each key's slot in a register, made the sort of uniform pairs 27%
 * slower, though no pass of theirs ran it. */
__device__ __forceinline__ void rank_tile(uint32_t *key, uint32_t *pos, uint16_t *my_slot,
                                          const uint32_t *values, size_t first, size_t n,
                                          int kpt, int shift,
                                          int width, uint32_t count, uint16_t *s_count,
                                          uint32_t *s_masks, uint32_t *s_start, uint32_t *s_scan,
                                          const uint32_t *s_crowding, uint32_t *s_tile,
                                          const int pairs, unsigned block, int crowded_pass,
                                          const int max_kpt)
{
    const uint32_t bins = 1u << width, mask = bins - 1;
    const unsigned warp = threadIdx.x / 32, warps = block / 32;
    uint16_t *my_count = s_count + warp * bins; /* this warp's next place of each digit */
    uint32_t *my_masks = s_masks + warp * bins;
    uint32_t all;
    uint32_t start = block_exclusive_scan(count, s_scan, &all); /* ends with a barrier */
    const uint32_t tile = block * kpt;
    const int crowded = *s_crowding > tile * tile / 32; /* read after the scan's barriers */
    if (threadIdx.x < bins) {
        s_start[threadIdx.x] = start;
        uint32_t place = start;
        for (unsigned w = 0; w < warps; w++) {
            uint32_t c = s_count[w * bins + threadIdx.x];
            s_count[w * bins + threadIdx.x] = (uint16_t)place;
            place += c;
        }
    }
    __syncthreads();
    /* a loop of its own: as a branch in the loop below it made uniform keys slower */
    if (crowded_pass && !pairs) {
        const uint16_t *my_rank = (const uint16_t *)s_masks + warp * 32 * kpt + threadIdx.x % 32;
#pragma unroll
        for (int j = 0; j < max_kpt; j++)
            if (j < kpt) {
                uint32_t slot = my_count[digit_of(key[j], shift, mask)] + my_rank[32 * j];
                s_tile[slot] = key[j];
            }
        return;
    }
#pragma unroll
    for (int j = 0; j < max_kpt; j++) /* the warp's keys in input order: stable */
        if (j < kpt) {
            uint32_t slot = rank_in_warp_by_atomics_or_match(digit_of(key[j], shift, mask),
                                                             my_masks, my_count, crowded);
            s_tile[slot] = key[j];
            if (pairs == SLOTS_IN_SHARED)
                my_slot[32 * j] = (uint16_t)slot;
            else if (pairs)
                pos[j] = slot;
            if (pairs == SLOTS_IN_SHARED)
                key[j] = first + 32 * j < n ? values[first + 32 * j] : 0u;
        }
}

/* Thread d of tile b publishes the tile's count of digit d as soon as it is
 * known, before the tile is ranked: the tiles after it need not wait for the
 * ranking.  Tile 0's count is its whole prefix.  flip: 0, or LOOKBACK_FLIP in
 * a pass that flips its words. */
__device__ void publish_count(uint32_t *lookback, size_t b, uint32_t bins, uint32_t d,
                              uint32_t count, uint32_t flip)
{
    lookback_word(lookback[b * bins + d])
        .store(((b == 0 ? LOOKBACK_PREFIX : LOOKBACK_AGGREGATE) | count) ^ flip,
               cuda::memory_order_relaxed);
}

/* Thread d of tile b: the keys of digit d in the tiles before b.  It walks
 * back over the tiles before, adding their counts, until one that knows its
 * whole prefix (PREFIX); then it publishes the tile's prefix for the tiles
 * after it.  The words of LOOKBACK_WINDOW tiles are loaded at once, so the
 * walk waits for one round trip to L2 a window, not one a tile; a word not
 * yet published is loaded again until it is.  Tile 0 always knows its prefix,
 * so no window reaches before it. */
#define LOOKBACK_WINDOW 4
__device__ uint32_t look_back(uint32_t *lookback, size_t b, uint32_t bins, uint32_t d,
                              uint32_t count, uint32_t flip)
{
    if (b == 0)
        return 0;
    uint32_t before = 0;
    for (size_t j = b;; j -= LOOKBACK_WINDOW) { /* tiles j - 1 .. j - LOOKBACK_WINDOW */
        uint32_t word[LOOKBACK_WINDOW];
#pragma unroll
        for (int k = 0; k < LOOKBACK_WINDOW; k++)
            word[k] = j > (size_t)k ? lookback_word(lookback[(j - 1 - k) * bins + d])
                                              .load(cuda::memory_order_relaxed) ^ flip
                                    : LOOKBACK_PREFIX;
#pragma unroll
        for (int k = 0; k < LOOKBACK_WINDOW; k++) {
            while ((word[k] & ~LOOKBACK_COUNT) == 0) /* it has its ticket, so it runs: it will publish */
                word[k] = lookback_word(lookback[(j - 1 - k) * bins + d])
                              .load(cuda::memory_order_relaxed) ^ flip;
            before += word[k] & LOOKBACK_COUNT;
            if (word[k] & LOOKBACK_PREFIX)
                goto found;
        }
    }
found:
    lookback_word(lookback[b * bins + d])
        .store((LOOKBACK_PREFIX | (before + count)) ^ flip, cuda::memory_order_relaxed);
    return before;
}

/* Tiles of pairs whose slots wait in shared memory: the values (in key[],
 * loaded as their keys were ranked) go to their keys' places in s_values -
 * the masks' and the slots' words, free once every slot is back in a
 * register - and one loop then writes each place's key and value to the
 * same place in the output.  The slots come back two to a register, before
 * the barrier that frees their words. */
__device__ __forceinline__ void write_pairs(const uint32_t *key, const uint16_t *my_slot,
                                            const uint32_t *s_tile, uint32_t *s_values,
                                            const uint32_t *s_place, uint32_t *dst, uint32_t *vdst,
                                            size_t valid, int shift, uint32_t mask, int last,
                                            int order, int kpt, unsigned block, const int max_kpt)
{
    uint32_t slots[(PAIRS_KPT + 1) / 2]; /* key j's: half j % 2 of slots[j / 2] */
#pragma unroll
    for (int j = 0; j < max_kpt; j += 2)
        if (j < kpt)
            slots[j / 2] = my_slot[32 * j] |
                           (j + 1 < kpt ? (uint32_t)my_slot[32 * (j + 1)] << 16 : 0u);
    __syncthreads(); /* the tile is whole; the masks' and the slots' words are free */
#pragma unroll
    for (int j = 0; j < max_kpt; j++)
        if (j < kpt)
            s_values[j % 2 ? slots[j / 2] >> 16 : slots[j / 2] & 0xFFFFu] = key[j];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < valid; i += block) {
        uint32_t k = s_tile[i], at = s_place[digit_of(k, shift, mask)] + i;
        dst[at] = last ? key_of(k, order) : k;
        vdst[at] = s_values[i];
    }
}

/* One pass over all tiles, from buffer plan[pass] into the other (or none:
 * a skipped pass returns at once).  A block takes the next tile by ticket (so
 * that the tiles it waits on belong to blocks that started before it), counts
 * its digits and publishes the counts, ranks the tile, finds each digit's
 * place in the output - where the digit's run starts (starts[d]) plus the
 * tile's prefix from the look-back - reorders the tile in shared memory and
 * writes each run of equal digits to consecutive addresses.  pairs, a constant in
 * each kernel below: the values follow their keys (SLOTS_IN_SHARED: each key's
 * slot waits for its value in shared memory, not in a register, and the
 * values wait in the masks' and the slots' words to leave with their keys); block:
 * blockDim.x, or a constant where a kernel is compiled for one shape; max_kpt:
 * the most keys a thread of the kernel holds, a constant. */
__device__ __forceinline__ void pass_tile(uint32_t *buffer0, uint32_t *buffer1, uint32_t *values0, uint32_t *values1,
                              size_t n, int pass, int shift, int width, int order, int kpt,
                              const int *plan,
                              const uint32_t *starts, uint32_t *lookback,
                              uint32_t *tickets, const int pairs, const unsigned block,
                              const int max_kpt)
{
    extern __shared__ uint32_t shared[];
    __shared__ uint32_t s_ticket, s_crowding; /* the tile's number, its sum of squared counts */
    const uint32_t bins = 1u << width, mask = bins - 1;
    const unsigned tile = block * kpt;
    const unsigned masks = block / 32 * bins, mask_area = masks > tile / 2 ? masks : tile / 2;
    uint32_t *s_tile = shared;                           /* tile words */
    uint32_t *s_masks = s_tile + tile; /* masks words (or ranks), then with slots in registers ... */
    uint8_t *s_digit = (uint8_t *)s_masks;               /* ... a byte a key */
    uint16_t *s_slots = (uint16_t *)(s_masks + mask_area); /* SLOTS_IN_SHARED: tile halves */
    uint32_t *s_values = s_masks; /* SLOTS_IN_SHARED: masks and slots, then a tile of values */
    uint32_t *s_start = (uint32_t *)s_slots + (pairs == SLOTS_IN_SHARED ? tile / 2 : 0); /* bins */
    uint32_t *s_place = s_start + bins;                   /* bins words */
    uint32_t *s_scan = s_place + bins;                    /* 33 words */
    uint16_t *s_count = (uint16_t *)(s_scan + 33);        /* (block / 32) x bins */

    const int step_plan = plan[pass];
    if (step_plan == PLAN_SKIP) /* nothing to move */
        return;
    const uint32_t flip = step_plan & PLAN_FLIPPED ? LOOKBACK_FLIP : 0;
    const int from = step_plan & 1;
    const uint32_t *src = from ? buffer1 : buffer0;
    uint32_t *dst = from ? buffer0 : buffer1;
    if (threadIdx.x == 0) {
        s_ticket = atomicAdd(tickets, 1u);
        s_crowding = 0;
    }
    for (uint32_t i = threadIdx.x; i < masks; i += block)
        s_count[i] = s_masks[i] = 0;
    __syncthreads();
    const size_t b = s_ticket;
    uint32_t key[PAIRS_KPT], pos[MAX_KPT];
    const int whole = !pairs && (b + 1) * tile <= n;
    if (whole)
        load_whole_tile(src, b, kpt, key, block, max_kpt);
    else
        load_warp_striped(src, n, b, kpt, key, block, max_kpt);
    size_t first = warp_striped_first(b, kpt, block);
    uint16_t *my_slot = s_slots + (first - b * tile); /* key j's: my_slot[32 * j] */
    if (step_plan & PLAN_FIRST) /* the keys' radix forms, from their first read on */
#pragma unroll
        for (int j = 0; j < max_kpt; j++)
            if (j < kpt && first + 32 * j < n) /* the padding stays the largest form */
                key[j] = radix_form(key[j], order);
    uint32_t count = count_tile(key, kpt, shift, width, s_count, &s_crowding, block,
                                step_plan & PLAN_CROWDED, !pairs, (uint16_t *)s_masks, max_kpt);
    size_t base = b * tile;
    size_t valid = n - base < tile ? n - base : tile;
    /* the padding, all of the last digit, is ranked but not published */
    uint32_t real = count - (threadIdx.x == mask ? (uint32_t)(tile - valid) : 0);
    for (unsigned waited = 0; (long long)b == test_slow_tile && waited < test_slow_ns;
         waited += 1000)
        __nanosleep(1000);
    if (threadIdx.x < bins)
        publish_count(lookback, b, bins, threadIdx.x, real, flip);
    const uint32_t *vsrc = from ? values1 : values0;
    rank_tile(key, pos, my_slot, vsrc, first, n, kpt, shift, width, count, s_count, s_masks,
              s_start, s_scan, &s_crowding, s_tile, pairs, block, step_plan & PLAN_CROWDED,
              max_kpt);
    if (threadIdx.x < bins) {
        uint32_t before = look_back(lookback, b, bins, threadIdx.x, real, flip);
        s_place[threadIdx.x] = starts[threadIdx.x] + before - s_start[threadIdx.x];
    }
    uint32_t *vdst = from ? values0 : values1;
    if (pairs == 1) /* the values' loads are in flight while the keys go out */
        load_warp_striped(vsrc, n, b, kpt, key, block, max_kpt);
    if (pairs == SLOTS_IN_SHARED) {
        write_pairs(key, my_slot, s_tile, s_values, s_place, dst, vdst, valid, shift, mask,
                    step_plan & PLAN_LAST, order, kpt, block, max_kpt);
        return;
    }
    __syncthreads(); /* the tile is whole, the masks free for the slots' digits */

    for (unsigned i = threadIdx.x; i < valid; i += block) {
        uint32_t k = s_tile[i], d = digit_of(k, shift, mask);
        dst[s_place[d] + i] = step_plan & PLAN_LAST ? key_of(k, order) : k;
        if (pairs)
            s_digit[i] = (uint8_t)d;
    }
    if (!pairs)
        return;
    /* the values: each takes its key's place in the tile, then goes where the
     * key in that place went */
    __syncthreads(); /* every key has left the reorder buffer */
#pragma unroll
    for (int j = 0; j < max_kpt; j++)
        if (j < kpt)
            s_tile[pos[j]] = key[j];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < valid; i += block)
        vdst[s_place[s_digit[i]] + i] = s_tile[i];
}

/* Keys alone: at most 40 registers a thread, so that three blocks of 512 (48
 * warps) share a multiprocessor - with 64, as in 07.9, two did.  More tiles in
 * flight hide more of the waits on the look-back and on the tile's barriers.
 * 40 is enough because no key's slot stays in a register.  Turing (sm_75) holds
 * 1,024 threads a multiprocessor, two blocks of 512, and ptxas refuses to plan
 * for three there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define PASS_BLOCKS 2
#else
#define PASS_BLOCKS 3
#endif
__global__ void __launch_bounds__(512, PASS_BLOCKS)
    onesweep_pass(uint32_t *buffer0, uint32_t *buffer1, uint32_t *values0, uint32_t *values1,
                  size_t n, int pass, int shift, int width, int order, int kpt, const int *plan,
                  const uint32_t *starts, uint32_t *lookback, uint32_t *tickets)
{
    pass_tile(buffer0, buffer1, values0, values1, n, pass, shift, width, order, kpt, plan, starts,
              lookback, tickets, 0, blockDim.x, MAX_KPT);
}

/* The same pass compiled for the default shape - 512 threads, 16 keys each,
 * 8-bit digits - given as constants: the compiler folds the tile's layout in
 * shared memory, the addresses and the loop bounds into the instructions. */
#define DEFAULT_BLOCK 512
#define DEFAULT_KPT 16
#define DEFAULT_WIDTH 8
__global__ void __launch_bounds__(DEFAULT_BLOCK, PASS_BLOCKS)
    onesweep_pass_512x16(uint32_t *buffer0, uint32_t *buffer1, uint32_t *values0,
                         uint32_t *values1, size_t n, int pass, int shift, int width, int order,
                         int kpt, const int *plan, const uint32_t *starts, uint32_t *lookback,
                         uint32_t *tickets)
{
    (void)width; /* DEFAULT_WIDTH and DEFAULT_KPT instead: the launch passes the same */
    (void)kpt;
    pass_tile(buffer0, buffer1, values0, values1, n, pass, shift, DEFAULT_WIDTH, order,
              DEFAULT_KPT, plan, starts, lookback, tickets, 0, DEFAULT_BLOCK, MAX_KPT);
}

/* Pairs: each key's slot stays in a register for its value (16 more), and at
 * three blocks the compiler would spill them: two blocks of 512, at most 64
 * registers a thread. */
__global__ void __launch_bounds__(512, 2)
    onesweep_pass_pairs(uint32_t *buffer0, uint32_t *buffer1, uint32_t *values0, uint32_t *values1,
                        size_t n, int pass, int shift, int width, int order, int kpt, const int *plan,
                        const uint32_t *starts, uint32_t *lookback, uint32_t *tickets)
{
    pass_tile(buffer0, buffer1, values0, values1, n, pass, shift, width, order, kpt, plan, starts,
              lookback, tickets, 1, blockDim.x, MAX_KPT);
}

/* Pairs in tiles of 512 x PAIRS_KPT, where two such blocks fit a
 * multiprocessor (wide_pairs): each key's slot waits for its value in shared
 * memory, so the 64 registers of two blocks hold 24 keys a thread.  The
 * block and the keys a thread are constants; the digit width comes from the
 * launch. */
__global__ void __launch_bounds__(DEFAULT_BLOCK, 2)
    onesweep_pass_pairs_512x24(uint32_t *buffer0, uint32_t *buffer1, uint32_t *values0,
                               uint32_t *values1, size_t n, int pass, int shift, int width,
                               int order, int kpt, const int *plan, const uint32_t *starts,
                               uint32_t *lookback, uint32_t *tickets)
{
    (void)kpt; /* PAIRS_KPT instead: the launch passes the same */
    pass_tile(buffer0, buffer1, values0, values1, n, pass, shift, width, order, PAIRS_KPT, plan,
              starts, lookback, tickets, SLOTS_IN_SHARED, DEFAULT_BLOCK, PAIRS_KPT);
}

typedef void (*onesweep_kernel)(uint32_t *, uint32_t *, uint32_t *, uint32_t *, size_t, int, int,
                                int, int, int, const int *, const uint32_t *, uint32_t *,
                                uint32_t *);

/* The kernel of a pass of the given digit width: the one compiled for the
 * default shape where the pass has that shape, else the general one.  Pairs
 * run in tiles of 512 x PAIRS_KPT where the GPU holds two of them a
 * multiprocessor (wide_pairs), else the general kernel: at the default shape
 * with slots in registers their pass was slower (64 registers against 59). */
static onesweep_kernel pass_kernel(const sort_options *opt, int width, int pairs)
{
    if (pairs)
        return wide_pairs(opt) ? onesweep_pass_pairs_512x24 : onesweep_pass_pairs;
    int default_shape = opt->block == DEFAULT_BLOCK && opt->kpt == DEFAULT_KPT && width == DEFAULT_WIDTH;
    return default_shape ? onesweep_pass_512x16 : onesweep_pass;
}

/* ---- the sort -------------------------------------------------------------- */

typedef struct {
    size_t n;
    const sort_options *opt;
    size_t tile, tiles;     /* keys per tile (block x kpt), number of tiles */
    uint32_t *d_starts;     /* [pass][digit] counts, then where each run starts; then the tickets */
    uint32_t *d_lookback;   /* one table of tiles x 2^bits words, every pass's */
    uint32_t *d_tickets;    /* one counter a pass, just after the counts: one memset clears both */
    int *d_plan;            /* each pass's plan, then the buffer of the sorted keys */
    int histogram_blocks;   /* 4 a multiprocessor: the histogram's grid */
    int copy_blocks;        /* as many as fit: the least grid of all_pass_histogram_8x4 */
    step_timer timer;
    sort_report *rep;
} sort_context;

/* One pass between the two key buffers, as its plan says, with the look-back
 * table every pass uses (pass p - 1, its last user, has finished). */
static void sort_pass(sort_context *c, uint32_t *d_a, uint32_t *d_b, uint32_t *d_va,
                      uint32_t *d_vb, int pass, int shift, int width)
{
    const sort_options *opt = c->opt;
    size_t bins = (size_t)1 << opt->bits;
    onesweep_kernel kernel = pass_kernel(opt, width, d_va != NULL);
    size_t shared = kernel == onesweep_pass_pairs_512x24
                        ? wide_pairs_shared_bytes(width)
                        : downsweep_shared_bytes(opt->block, opt->kpt, width);
    kernel<<<c->tiles, opt->block, shared>>>(
        d_a, d_b, d_va, d_vb, c->n, pass, shift, width, order_of(opt), (int)(c->tile / opt->block), c->d_plan,
        c->d_starts + pass * bins,
        c->d_lookback, c->d_tickets + pass);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_SCATTER);
}

/* all_pass_histogram_8x4's shared memory: 32 copies of 1,024 16-bit counters. */
#define COPY_SHARED_BYTES (32 * 4 * 256 / 2 * sizeof(uint32_t))

/* Tests only (07_onesweep/test_hooks.cu sets it): the least grid of
 * all_pass_histogram_8x4 in place of the GPU's (0: the GPU's), so that a test can
 * check that the grid still grows with n. */
static int test_copy_blocks;

/* Every pass's digit counts, where each digit's run starts, and the passes'
 * plan - on the GPU: the host launches every pass and waits for nothing. */
static void histogram(sort_context *c, const uint32_t *d_keys, int passes)
{
    const sort_options *opt = c->opt;
    size_t bins = (size_t)1 << opt->bits;
    if (opt->bits == 8 && first_bit(opt) == 0 && last_bit(opt) == 32) {
        /* at most COPY_KEYS_A_THREAD keys a thread: more blocks where n asks for them */
        size_t keys_a_block = (size_t)COPY_BLOCK * COPY_KEYS_A_THREAD;
        size_t blocks = (c->n + keys_a_block - 1) / keys_a_block;
        size_t least = test_copy_blocks > 0 ? (size_t)test_copy_blocks : (size_t)c->copy_blocks;
        all_pass_histogram_8x4<<<blocks > least ? blocks : least, COPY_BLOCK,
                                 COPY_SHARED_BYTES>>>(d_keys, c->n, order_of(opt), c->d_starts,
                                                      c->d_lookback, bins * c->tiles);
    } else
        all_pass_histogram<<<c->histogram_blocks, 256, passes * bins * sizeof(uint32_t)>>>(
            d_keys, c->n, opt->bits, passes, first_bit(opt), last_bit(opt), order_of(opt),
            c->d_starts, c->d_lookback, bins * c->tiles);
    CUDA_CHECK_LAUNCH();
    digit_starts<<<1, bins < 32 ? 32 : bins>>>(c->d_starts, opt->bits, passes, c->n, opt->no_skip,
                                               c->d_plan);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, 0, STEP_HISTOGRAM);
}

static void context_create(sort_context *c, size_t n, const sort_options *opt, sort_report *rep)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->opt = opt;
    c->rep = rep;
    c->tile = (size_t)opt->block * pass_kpt(opt);
    c->tiles = tiles_for(n, opt);
    size_t bins = (size_t)1 << opt->bits, table = bins * c->tiles;
    c->d_starts = (uint32_t *)gpu_alloc((MAX_PASSES * bins + MAX_PASSES) * sizeof(uint32_t),
                                        opt->poison);
    c->d_tickets = c->d_starts + MAX_PASSES * bins;
    c->d_lookback = (uint32_t *)gpu_alloc(table * sizeof(uint32_t), opt->poison);
    c->d_plan = (int *)gpu_alloc((MAX_PASSES + 1) * sizeof(int), opt->poison);
    CUDA_CHECK(cudaDeviceGetAttribute(&c->histogram_blocks, cudaDevAttrMultiProcessorCount, 0));
    int shared = (int)downsweep_shared_bytes(opt->block, opt->kpt, opt->bits);
    CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass_512x16, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    shared));
    CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass_pairs, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    shared));
    if (wide_pairs(opt)) /* beyond what a block may ask for on every GPU of the course */
        CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass_pairs_512x24,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)wide_pairs_shared_bytes(opt->bits)));
    c->histogram_blocks *= 4;
    int copies_a_multiprocessor = 0, multiprocessors = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0));
    CUDA_CHECK(cudaFuncSetAttribute(all_pass_histogram_8x4,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)COPY_SHARED_BYTES));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &copies_a_multiprocessor, all_pass_histogram_8x4, COPY_BLOCK, COPY_SHARED_BYTES));
    c->copy_blocks = multiprocessors * (copies_a_multiprocessor > 0 ? copies_a_multiprocessor : 1);
    step_timer_create(&c->timer);
}

/* Before every sort: zero counts and tickets, side by side.  The look-back
 * table is the histogram kernel's to clear, once: the passes after the first
 * flip their words instead. */
static void context_clear(sort_context *c)
{
    size_t bins = (size_t)1 << c->opt->bits;
    CUDA_CHECK(cudaMemsetAsync(c->d_starts, 0, (MAX_PASSES * bins + MAX_PASSES) * sizeof(uint32_t)));
}

static void context_destroy(sort_context *c)
{
    step_timer_destroy(&c->timer);
    gpu_free(c->d_plan);
    gpu_free(c->d_lookback);
    gpu_free(c->d_starts);
}

/* Keys (and values, where values_in is not NULL) sorted by bits [begin, end)
 * of their radix forms, ascending or descending (sort_options). */
int stage_sort_pairs(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                     uint32_t *values_out, size_t n, const sort_options *opt, sort_report *rep,
                     char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    sort_options own = *opt; /* pairs where values come: the tiles' shape follows them */
    own.pairs = values_in != NULL;
    opt = &own;
    int passes = passes_in_range(opt);
    report_clear(rep, passes);
    if (n == 0)
        return 0;

    /* setup: device buffers and the one upload */
    double t0 = host_time_ms();
    sort_context c;
    context_create(&c, n, opt, rep);
    uint32_t *d_a = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
    uint32_t *d_b = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
    uint32_t *d_va = NULL, *d_vb = NULL;
    CUDA_CHECK(cudaMemcpy(d_a, keys_in, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    if (values_in) {
        d_va = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
        d_vb = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
        CUDA_CHECK(cudaMemcpy(d_va, values_in, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    }
    rep->setup_ms = host_time_ms() - t0;

    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, d_a, passes);
    for (int pass = 0; pass < passes; pass++) {
        int shift = first_bit(opt) + pass * opt->bits;
        int width = last_bit(opt) - shift < opt->bits ? last_bit(opt) - shift : opt->bits;
        sort_pass(&c, d_a, d_b, d_va, d_vb, pass, shift, width);
    }
    step_timer_collect(&c.timer, rep);

    t0 = host_time_ms();
    int plan[MAX_PASSES + 1]; /* each pass's plan, then the buffer of the sorted keys */
    CUDA_CHECK(cudaMemcpy(plan, c.d_plan, (passes + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int pass = 0; pass < passes; pass++)
        if (plan[pass] == PLAN_SKIP)
            rep->skipped |= 1u << pass;
    const uint32_t *src = plan[passes] ? d_b : d_a;
    CUDA_CHECK(cudaMemcpy(keys_out, src, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (values_in)
        CUDA_CHECK(cudaMemcpy(values_out, plan[passes] ? d_vb : d_va, n * sizeof(uint32_t),
                              cudaMemcpyDeviceToHost));
    gpu_free(d_vb);
    gpu_free(d_va);
    gpu_free(d_b);
    gpu_free(d_a);
    context_destroy(&c);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}

int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
               sort_report *rep, char *err, size_t errlen)
{
    return stage_sort_pairs(keys_in, NULL, keys_out, NULL, n, opt, rep, err, errlen);
}
