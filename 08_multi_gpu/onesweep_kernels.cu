/*
 * 08_multi_gpu/onesweep_kernels.cu - the onesweep sort that stage 08 sorts each
 * GPU's part with (onesweep_lib.cu includes it, as 07's test hooks include a
 * step): 07's passes at three blocks a multiprocessor, the default shape
 * compiled in, the leader's returning atomic and crowded passes ranked as
 * they are counted, with two look-back tables a sort, each pass clearing the
 * next one's - the tables 08's chunked path clears launch by launch.  07's
 * one flipped table, its histogram at the memory's rate and its wide pairs
 * are not in it: 08's README says what that leaves.
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
    .title = "a crowded pass ranks its keys as it counts them",
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

static size_t tiles_for(size_t n, const sort_options *opt)
{
    size_t tile = (size_t)opt->block * opt->kpt;
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

/* two key buffers (ping-pong), two look-back tables of 2^k words a tile (one
 * pass's, and the next pass's being cleared), the counts and the tickets */
size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    size_t lookback = ((size_t)1 << opt->bits) * tiles_for(n, opt);
    return (2 * n + 2 * lookback) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves (L: a pass's look-back words, 2^k a tile):
 * histogram: the keys once, for every pass, and the first pass's L cleared;
 * scatter, every pass: the keys in and out, L written twice (aggregate,
 * prefix) and cleared for the next pass.  4 + 8 bytes of keys a key and
 * pass: 36 for 4 passes, against 05.4's 48.  A skipped pass moves nothing;
 * the model counts every pass. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_in_range(opt), keys = 4.0 * (double)n;
    double values = opt->pairs ? keys : 0.0;
    double lookback = 4.0 * (double)((size_t)1 << opt->bits) * (double)tiles_for(n, opt);
    return step == STEP_HISTOGRAM ? keys + lookback
                                  : passes * (2 * (keys + values) + 3 * lookback);
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

/* A pass's plan: skip it, or read buffer `from` (0 or 1) and write the other;
 * the first pass that runs also turns keys into radix forms as it reads them
 * (PLAN_FIRST), the last one turns them back as it writes (PLAN_LAST), and a
 * crowded pass counts its tiles' digits by match (PLAN_CROWDED). */
enum { PLAN_SKIP = 2, PLAN_FIRST = 4, PLAN_LAST = 8, PLAN_CROWDED = 16 };

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
 * squares over n^2; spread keys: 1/256) is crowded.
 * plan[passes] is the buffer that holds the sorted keys at the end. */
__global__ void digit_starts(uint32_t *counts, int bits, int passes, size_t n, int no_skip,
                             int *plan)
{
    __shared__ uint32_t s_warp[33];
    __shared__ unsigned long long s_sum[32];
    const uint32_t bins = 1u << bits, d = threadIdx.x;
    int from = 0, first_run = -1, last_run = -1;
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
            plan[p] = one_digit && !no_skip ? PLAN_SKIP : from | (crowded ? PLAN_CROWDED : 0);
        if (!one_digit || no_skip) {
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
                                                  int kpt, uint32_t *key, unsigned block)
{
    size_t first = warp_striped_first(b, kpt, block);
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt)
            key[j] = first + 32 * j < n ? src[first + 32 * j] : 0xFFFFFFFFu;
}


/* `amount` more in counter d of a row of 16-bit counters in shared memory;
 * returns the counter as it was before.  Shared atomics add 32-bit words, so
 * this adds to the counter's half of word d / 2 of the row (a row starts on a
 * word: 2^width counters, and width >= 1): a warp's count of a digit is at
 * most 32 x 16, and a place in the tile below 8192, so the half never carries
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
 * Thread d (< 2^width) then sums its digit over the rows and returns
 * the tile's count of d; each row's entry becomes where that warp's keys of d
 * start among the tile's keys of d.  *s_crowding gets the sum
 * of the counts' squares: (tile size)^2 times the chance that two keys of the
 * tile share a digit. */
__device__ __forceinline__ uint32_t count_tile(const uint32_t *key, int kpt, int shift, int width,
                                               uint16_t *s_count, uint32_t *s_crowding,
                                               unsigned block, int crowded_pass, int keep_ranks,
                                               uint16_t *s_rank)
{
    const uint32_t bins = 1u << width, mask = bins - 1;
    const unsigned warps = block / 32, lane = threadIdx.x % 32;
    uint16_t *my_count = s_count + threadIdx.x / 32 * bins;
    uint16_t *my_rank = s_rank + threadIdx.x / 32 * 32 * kpt + lane; /* key j: my_rank[32 * j] */
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
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
        for (unsigned w = 0; w < warps; w++) {
            uint32_t c = s_count[w * bins + threadIdx.x];
            s_count[w * bins + threadIdx.x] = (uint16_t)count;
            count += c;
        }
    uint32_t squares = count * count; /* at most 8192^2 in all: no overflow */
    for (int offset = 16; offset > 0; offset /= 2)
        squares += __shfl_xor_sync(0xFFFFFFFFu, squares, offset);
    if (threadIdx.x % 32 == 0 && threadIdx.x < bins)
        atomicAdd(s_crowding, squares);
    return count;
}

/* Ranks the tile held warp-striped in key[] by digit: key j goes to its place
 * in the tile stably sorted by digit, in s_tile, as soon as it is ranked, and
 * only with values (pairs) does pos[j] keep that place.  Thread d brings the tile's
 * count of digit d (count_tile's); s_start[d] gets where its run starts, and
 * every row's entry of d moves up by as much, so that the ranking's running
 * counts are places in the tile: a key's rank in its warp is its place.
 * s_masks: each warp's lane mask of each digit, in words of their own.  A
 * tile is crowded where two of its keys share a digit with a chance above
 * 1/32 (spread keys: 1/256): then its warps rank by match, not by atomics.
 * A crowded pass of keys alone ranked its keys as it counted them (s_rank,
 * in the masks' words): a key's place is its warp's entry of its digit plus
 * its rank.  Pairs rank as before: this second loop in their kernel, which
 * holds each key's slot in a register, made the sort of uniform pairs 27%
 * slower, though no pass of theirs ran it. */
__device__ __forceinline__ void rank_tile(const uint32_t *key, uint32_t *pos, int kpt, int shift,
                                          int width, uint32_t count, uint16_t *s_count,
                                          uint32_t *s_masks, uint32_t *s_start, uint32_t *s_scan,
                                          const uint32_t *s_crowding, uint32_t *s_tile,
                                          const int pairs, unsigned block, int crowded_pass)
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
        for (unsigned w = 0; w < warps; w++)
            s_count[w * bins + threadIdx.x] += start;
    }
    __syncthreads();
    /* a loop of its own: as a branch in the loop below it made uniform keys slower */
    if (crowded_pass && !pairs) {
        const uint16_t *my_rank = (const uint16_t *)s_masks + warp * 32 * kpt + threadIdx.x % 32;
#pragma unroll
        for (int j = 0; j < MAX_KPT; j++)
            if (j < kpt) {
                uint32_t slot = my_count[digit_of(key[j], shift, mask)] + my_rank[32 * j];
                s_tile[slot] = key[j];
            }
        return;
    }
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++) /* the warp's keys in input order: stable */
        if (j < kpt) {
            uint32_t slot = rank_in_warp_by_atomics_or_match(digit_of(key[j], shift, mask),
                                                             my_masks, my_count, crowded);
            s_tile[slot] = key[j];
            if (pairs)
                pos[j] = slot;
        }
}

/* Thread d of tile b publishes the tile's count of digit d as soon as it is
 * known, before the tile is ranked: the tiles after it need not wait for the
 * ranking.  Tile 0's count is its whole prefix. */
__device__ void publish_count(uint32_t *lookback, size_t b, uint32_t bins, uint32_t d,
                              uint32_t count)
{
    lookback_word(lookback[b * bins + d])
        .store((b == 0 ? LOOKBACK_PREFIX : LOOKBACK_AGGREGATE) | count, cuda::memory_order_relaxed);
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
                              uint32_t count)
{
    if (b == 0)
        return 0;
    uint32_t before = 0;
    for (size_t j = b;; j -= LOOKBACK_WINDOW) { /* tiles j - 1 .. j - LOOKBACK_WINDOW */
        uint32_t word[LOOKBACK_WINDOW];
#pragma unroll
        for (int k = 0; k < LOOKBACK_WINDOW; k++)
            word[k] = j > (size_t)k ? lookback_word(lookback[(j - 1 - k) * bins + d])
                                          .load(cuda::memory_order_relaxed)
                                    : LOOKBACK_PREFIX;
#pragma unroll
        for (int k = 0; k < LOOKBACK_WINDOW; k++) {
            while ((word[k] & ~LOOKBACK_COUNT) == 0) /* it has its ticket, so it runs: it will publish */
                word[k] = lookback_word(lookback[(j - 1 - k) * bins + d])
                              .load(cuda::memory_order_relaxed);
            before += word[k] & LOOKBACK_COUNT;
            if (word[k] & LOOKBACK_PREFIX)
                goto found;
        }
    }
found:
    lookback_word(lookback[b * bins + d])
        .store(LOOKBACK_PREFIX | (before + count), cuda::memory_order_relaxed);
    return before;
}

/* One pass over all tiles, from buffer plan[pass] into the other (or none:
 * a skipped pass returns at once).  A block takes the next tile by ticket (so
 * that the tiles it waits on belong to blocks that started before it), counts
 * its digits and publishes the counts, ranks the tile, finds each digit's
 * place in the output - where the digit's run starts (starts[d]) plus the
 * tile's prefix from the look-back - reorders the tile in shared memory and
 * writes each run of equal digits to consecutive addresses.  It also clears
 * its tile's words of the next pass's look-back table.  pairs, a constant in
 * each kernel below: the values follow their keys; block: blockDim.x, or a
 * constant where a kernel is compiled for one shape. */
__device__ __forceinline__ void pass_tile(uint32_t *buffer0, uint32_t *buffer1, uint32_t *values0, uint32_t *values1,
                              size_t n, int pass, int shift, int width, int order, int kpt,
                              const int *plan,
                              const uint32_t *starts, uint32_t *lookback,
                              uint32_t *next_lookback, uint32_t *tickets, const int pairs,
                              const unsigned block)
{
    extern __shared__ uint32_t shared[];
    __shared__ uint32_t s_ticket, s_crowding; /* the tile's number, its sum of squared counts */
    const uint32_t bins = 1u << width, mask = bins - 1;
    const unsigned tile = block * kpt;
    const unsigned masks = block / 32 * bins, mask_area = masks > tile / 2 ? masks : tile / 2;
    uint32_t *s_tile = shared;                           /* tile words */
    uint32_t *s_masks = s_tile + tile; /* masks words (or ranks), then with values ... */
    uint8_t *s_digit = (uint8_t *)s_masks;               /* ... a byte a key */
    uint32_t *s_start = s_masks + mask_area;              /* bins words */
    uint32_t *s_place = s_start + bins;                   /* bins words */
    uint32_t *s_scan = s_place + bins;                    /* 33 words */
    uint16_t *s_count = (uint16_t *)(s_scan + 33);        /* (block / 32) x bins */

    const int step_plan = plan[pass];
    if (step_plan == PLAN_SKIP) { /* nothing to move; the next pass's table still needs clearing */
        for (uint32_t d = threadIdx.x; d < bins; d += block)
            next_lookback[(size_t)blockIdx.x * bins + d] = 0;
        return;
    }
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
    uint32_t key[MAX_KPT], pos[MAX_KPT];
    load_warp_striped(src, n, b, kpt, key, block);
    size_t first = warp_striped_first(b, kpt, block);
    if (step_plan & PLAN_FIRST) /* the keys' radix forms, from their first read on */
#pragma unroll
        for (int j = 0; j < MAX_KPT; j++)
            if (j < kpt && first + 32 * j < n) /* the padding stays the largest form */
                key[j] = radix_form(key[j], order);
    uint32_t count = count_tile(key, kpt, shift, width, s_count, &s_crowding, block,
                                step_plan & PLAN_CROWDED, !pairs, (uint16_t *)s_masks);
    size_t base = b * tile;
    size_t valid = n - base < tile ? n - base : tile;
    /* the padding, all of the last digit, is ranked but not published */
    uint32_t real = count - (threadIdx.x == mask ? (uint32_t)(tile - valid) : 0);
    for (unsigned waited = 0; (long long)b == test_slow_tile && waited < test_slow_ns;
         waited += 1000)
        __nanosleep(1000);
    if (threadIdx.x < bins)
        publish_count(lookback, b, bins, threadIdx.x, real);
    rank_tile(key, pos, kpt, shift, width, count, s_count, s_masks, s_start, s_scan, &s_crowding,
              s_tile, pairs, block, step_plan & PLAN_CROWDED);
    if (threadIdx.x < bins) {
        uint32_t before = look_back(lookback, b, bins, threadIdx.x, real);
        s_place[threadIdx.x] = starts[threadIdx.x] + before - s_start[threadIdx.x];
        next_lookback[b * bins + threadIdx.x] = 0;
    }
    const uint32_t *vsrc = from ? values1 : values0;
    uint32_t *vdst = from ? values0 : values1;
    if (pairs) /* the values' loads are in flight while the keys go out */
        load_warp_striped(vsrc, n, b, kpt, key, block);
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
    for (int j = 0; j < MAX_KPT; j++)
        if (j < kpt)
            s_tile[pos[j]] = key[j];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < valid; i += block)
        vdst[s_place[s_digit[i]] + i] = s_tile[i];
}

/* Keys alone: at most 40 registers a thread, so that three blocks of 512 (48
 * warps) share a multiprocessor - with 64, two did.  More tiles in
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
                  const uint32_t *starts, uint32_t *lookback, uint32_t *next_lookback,
                  uint32_t *tickets)
{
    pass_tile(buffer0, buffer1, values0, values1, n, pass, shift, width, order, kpt, plan, starts,
              lookback, next_lookback, tickets, 0, blockDim.x);
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
                         uint32_t *next_lookback, uint32_t *tickets)
{
    (void)width; /* DEFAULT_WIDTH and DEFAULT_KPT instead: the launch passes the same */
    (void)kpt;
    pass_tile(buffer0, buffer1, values0, values1, n, pass, shift, DEFAULT_WIDTH, order,
              DEFAULT_KPT, plan, starts, lookback, next_lookback, tickets, 0, DEFAULT_BLOCK);
}

/* Pairs: each key's slot stays in a register for its value (16 more), and at
 * three blocks the compiler would spill them: two blocks of 512, at most 64
 * registers a thread. */
__global__ void __launch_bounds__(512, 2)
    onesweep_pass_pairs(uint32_t *buffer0, uint32_t *buffer1, uint32_t *values0, uint32_t *values1,
                        size_t n, int pass, int shift, int width, int order, int kpt, const int *plan,
                        const uint32_t *starts, uint32_t *lookback, uint32_t *next_lookback,
                        uint32_t *tickets)
{
    pass_tile(buffer0, buffer1, values0, values1, n, pass, shift, width, order, kpt, plan, starts,
              lookback, next_lookback, tickets, 1, blockDim.x);
}

typedef void (*onesweep_kernel)(uint32_t *, uint32_t *, uint32_t *, uint32_t *, size_t, int, int,
                                int, int, int, const int *, const uint32_t *, uint32_t *,
                                uint32_t *, uint32_t *);

/* The kernel of a pass of the given digit width: the one compiled for the
 * default shape where the pass has that shape, else the general one.  Pairs
 * always run the general one: at the default shape their pass was slower
 * (64 registers against 59). */
static onesweep_kernel pass_kernel(const sort_options *opt, int width, int pairs)
{
    if (pairs)
        return onesweep_pass_pairs;
    int default_shape = opt->block == DEFAULT_BLOCK && opt->kpt == DEFAULT_KPT && width == DEFAULT_WIDTH;
    return default_shape ? onesweep_pass_512x16 : onesweep_pass;
}

/* ---- the sort -------------------------------------------------------------- */

typedef struct {
    size_t n;
    const sort_options *opt;
    size_t tile, tiles;     /* keys per tile (block x kpt), number of tiles */
    uint32_t *d_starts;     /* [pass][digit] counts, then where each run starts; then the tickets */
    uint32_t *d_lookback;   /* two tables of tiles x 2^bits words */
    uint32_t *d_tickets;    /* one counter a pass, just after the counts: one memset clears both */
    int *d_plan;            /* each pass's plan, then the buffer of the sorted keys */
    int histogram_blocks;   /* 4 a multiprocessor: the histogram's grid */
    step_timer timer;
    sort_report *rep;
} sort_context;

/* One pass between the two key buffers, as its plan says.  Pass p uses
 * look-back table p % 2 and clears the other for pass p + 1 (pass p - 1, its
 * last user, has finished; a skipped pass clears it too). */
static void sort_pass(sort_context *c, uint32_t *d_a, uint32_t *d_b, uint32_t *d_va,
                      uint32_t *d_vb, int pass, int shift, int width)
{
    const sort_options *opt = c->opt;
    size_t bins = (size_t)1 << opt->bits, table = bins * c->tiles;
    uint32_t *lookback = c->d_lookback + (size_t)(pass % 2) * table;
    uint32_t *next = c->d_lookback + (size_t)((pass + 1) % 2) * table;
    onesweep_kernel kernel = pass_kernel(opt, width, d_va != NULL);
    kernel<<<c->tiles, opt->block, downsweep_shared_bytes(opt->block, opt->kpt, width)>>>(
        d_a, d_b, d_va, d_vb, c->n, pass, shift, width, order_of(opt), opt->kpt, c->d_plan,
        c->d_starts + pass * bins,
        lookback, next, c->d_tickets + pass);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_SCATTER);
}

/* Every pass's digit counts, where each digit's run starts, and the passes'
 * plan - on the GPU: the host launches every pass and waits for nothing. */
static void histogram(sort_context *c, const uint32_t *d_keys, int passes)
{
    const sort_options *opt = c->opt;
    size_t bins = (size_t)1 << opt->bits;
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
    c->tile = (size_t)opt->block * opt->kpt;
    c->tiles = tiles_for(n, opt);
    size_t bins = (size_t)1 << opt->bits, table = bins * c->tiles;
    c->d_starts = (uint32_t *)gpu_alloc((MAX_PASSES * bins + MAX_PASSES) * sizeof(uint32_t),
                                        opt->poison);
    c->d_tickets = c->d_starts + MAX_PASSES * bins;
    c->d_lookback = (uint32_t *)gpu_alloc(2 * table * sizeof(uint32_t), opt->poison);
    c->d_plan = (int *)gpu_alloc((MAX_PASSES + 1) * sizeof(int), opt->poison);
    CUDA_CHECK(cudaDeviceGetAttribute(&c->histogram_blocks, cudaDevAttrMultiProcessorCount, 0));
    int shared = (int)downsweep_shared_bytes(opt->block, opt->kpt, opt->bits);
    CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass_512x16, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    shared));
    CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass_pairs, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    shared));
    c->histogram_blocks *= 4;
    step_timer_create(&c->timer);
}

/* Before every sort: zero counts and tickets, side by side.  The first pass's
 * look-back table is the histogram kernel's to clear, and each pass clears the
 * next one's. */
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
