/*
 * 07_onesweep/step17_spread_bins.cu - step 07.17: digits spread over the banks.
 *
 * What changed since step 07.16 (the whole story: README.md)
 *   A warp's lane masks are a row of 32-bit words and its counters a row of
 *   16-bit halves, each indexed by the digit, so digits 32 apart share a bank
 *   of shared memory (64 apart, for the counters).  On keys with few 1 bits
 *   (and2: x & y, each bit 1 with a chance of 1/4) about a quarter of the
 *   keys have a digit whose low five bits are 0 - eight digits, all in bank
 *   0 - and their atomics take turns there.  Now each digit's words sit at
 *   bin_of(digit), a permutation of the digits that folds the top three bits
 *   onto the bank's bits: digits that differ in those bits alone land in
 *   eight different banks.  Nothing else moves.
 *
 * Steps: histogram (every pass's digit counts, once), then per pass scatter
 * (ticket, rank, look back, reorder the tile, write runs).
 *
 * Run:  build/bin/07_onesweep --dist and2 -n 268435456 --verbose
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

enum { STEP_HISTOGRAM, STEP_SCATTER };

#define MAX_KPT 16
/* The default shape: a kernel of the pass is compiled for it. */
#define DEFAULT_BLOCK 512
#define DEFAULT_KPT 16
#define DEFAULT_WIDTH 8
/* Keys a thread in a pass of pairs in wide tiles: more than --kpt accepts. */
#define PAIRS_KPT 24

/* What follows a pass's keys: nothing, or values whose keys' slots wait for
 * them in registers, or in shared memory (wide tiles). */
enum { KEYS_ALONE, SLOTS_IN_REGISTERS, SLOTS_IN_SHARED };

/* The shared memory a block may ask for on every GPU the course builds for
 * (compute capability 7.5 allows 64 KB; later ones more); beyond 48 KB a
 * kernel must ask for it (cudaFuncSetAttribute, in allow_shared_memory). */
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

/* The tiles whose words a look-back loads at once. */
#define LOOKBACK_WINDOW 4

/* Many blocks read and write a look-back word at once, so every access to one
 * is a device-scope atomic: a plain or volatile access there would be a data
 * race, whose result the CUDA memory model does not define.  Relaxed order is
 * enough: the word holds all a reader uses (flag and count together), so no
 * other write has to become visible with it - no acquire, no release. */
typedef cuda::atomic_ref<uint32_t, cuda::thread_scope_device> lookback_word;

/* A test may hold a tile back before it publishes its counts, to show that
 * the tiles after it wait and the sort still ends right: test_hooks.cu
 * defines this before it includes the step.  The sort's own build compiles
 * nothing here. */
#ifndef TEST_HOLD_TILE
#define TEST_HOLD_TILE(tile)
#endif

const stage_info STAGE = {
    .name = "07_onesweep",
    .title = "digits spread over the banks: each digit's mask and counter words at bin_of(digit)",
    .needs_gpu = 1,
    .nsteps = 2,
    .step_name = {"histogram", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_KPT | USES_SKIP | USES_TYPE | USES_PAIRS |
            USES_DESCENDING | USES_BIT_RANGE,
    .defaults = {.bits = 8, .block = DEFAULT_BLOCK, .kpt = DEFAULT_KPT},
    .range = {.bits = {1, 8}, .block = {32, 512, 1}, .kpt = {1, MAX_KPT}},
    .max_keys = LOOKBACK_COUNT,
};

/* ---- a pass's shape and shared memory ------------------------------------- */

/* The block scan's words: a total a warp, and the block's. */
#define SCAN_WORDS 33

/* Where each part of a pass's shared memory starts, in 32-bit words, for a
 * tile of block x kpt keys and 2^width digits: the host sizes a launch by it
 * and the kernel carves its buffer by it, so the two cannot disagree. */
typedef struct {
    unsigned tile;   /* the tile's keys, each in its sorted place once ranked */
    unsigned masks;  /* each warp's lane mask of each digit while a spread tile is ranked, a
                        crowded pass's 16-bit ranks; then each slot's digit (a byte) for its value */
    unsigned slots;  /* wide pairs: each key's slot, 16 bits; with the masks, then, the values */
    unsigned start;  /* each digit's start in the tile */
    unsigned place;  /* each digit's place in the output, less its start in the tile */
    unsigned scan;   /* SCAN_WORDS */
    unsigned counts; /* each warp's 16-bit count of each digit */
    unsigned bytes;  /* all of it */
} pass_layout;

__host__ __device__ __forceinline__ pass_layout layout_of(unsigned block, unsigned kpt,
                                                          unsigned width, int pairs)
{
    const unsigned tile = block * kpt, bins = 1u << width, rows = block / 32 * bins;
    pass_layout l;
    l.tile = 0;
    l.masks = tile;
    l.slots = l.masks + (rows > tile / 2 ? rows : tile / 2);
    l.start = l.slots + (pairs == SLOTS_IN_SHARED ? tile / 2 : 0);
    l.place = l.start + bins;
    l.scan = l.place + bins;
    l.counts = l.scan + SCAN_WORDS;
    l.bytes = l.counts * (unsigned)sizeof(uint32_t) + rows * (unsigned)sizeof(uint16_t);
    return l;
}

static size_t tiles_for(size_t n, int block, int kpt)
{
    size_t tile = (size_t)block * kpt;
    return (n + tile - 1) / tile;
}

/* Pairs at the default shape take wide tiles, DEFAULT_BLOCK x PAIRS_KPT,
 * where two such blocks fit a multiprocessor's shared memory (a block also
 * costs the driver 1 KB): Hopper's 228 KB hold two, an A100's 164 KB one, a
 * T4's 64 KB none.  A query that fails answers no. */
static int wide_pairs_fit(int device, const sort_options *opt)
{
    if (!opt->pairs || opt->block != DEFAULT_BLOCK || opt->kpt != DEFAULT_KPT)
        return 0;
    int per_block = 0, per_multiprocessor = 0;
    if (cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) ||
        cudaDeviceGetAttribute(&per_multiprocessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                               device)) {
        (void)cudaGetLastError(); /* the error is the answer: not wide */
        return 0;
    }
    size_t bytes = layout_of(DEFAULT_BLOCK, PAIRS_KPT, opt->bits, SLOTS_IN_SHARED).bytes;
    return (size_t)per_block >= bytes && (size_t)per_multiprocessor >= 2 * (bytes + 1024);
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
    size_t shared = layout_of(opt->block, opt->kpt, opt->bits, KEYS_ALONE).bytes;
    if (shared > SHARED_MEMORY_OPTIN) {
        snprintf(err, errlen,
                 "--block %d --kpt %d: a tile of %d keys needs %zu bytes of shared memory, more "
                 "than the %d a block may use; use fewer keys per thread or a smaller block",
                 opt->block, opt->kpt, opt->block * opt->kpt, shared, SHARED_MEMORY_OPTIN);
        return -1;
    }
    return 0;
}

/* two key buffers (ping-pong), and two of values with pairs; one look-back
 * table of 2^k words a tile (tiles of --kpt keys a thread: wide tiles need
 * fewer), the counts and the tickets */
size_t stage_device_bytes(const sort_options *opt, size_t n)
{
    size_t lookback = ((size_t)1 << opt->bits) * tiles_for(n, opt->block, opt->kpt);
    return ((opt->pairs ? 4 : 2) * n + lookback) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves (L: a pass's look-back words, 2^k a tile):
 * histogram: the keys once, for every pass, and the first pass's L cleared;
 * scatter, every pass: the keys (and values) in and out, L written twice
 * (aggregate, prefix).  4 + 8 bytes of keys a key and pass: 36 for 4 passes,
 * against 05.4's 48.  A skipped pass moves nothing; the model counts every
 * pass. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
        (void)cudaGetLastError(); /* no GPU here: not wide */
    int kpt = wide_pairs_fit(device, opt) ? PAIRS_KPT : opt->kpt;
    double passes = passes_in_range(opt), keys = 4.0 * (double)n;
    double values = opt->pairs ? keys : 0.0;
    double lookback = 4.0 * (double)((size_t)1 << opt->bits) * (double)tiles_for(n, opt->block, kpt);
    return step == STEP_HISTOGRAM ? keys + lookback
                                  : passes * (2 * (keys + values) + 2 * lookback);
}

/* ---- keys and their digits -------------------------------------------------- */

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

/* ---- 1. histogram: every pass's digit counts, one read of the keys -------- */

/* What the histogram step reads and writes: its kernels' one argument. */
typedef struct {
    const uint32_t *keys;
    size_t n;
    int bits, passes;   /* the digits' width, and the passes */
    int begin, end;     /* the bits sorted by: [begin, end) of the radix form */
    int order;          /* order_of */
    uint32_t *counts;   /* counts[p * 2^bits + d]: the keys whose digit of pass p is d */
    uint32_t *lookback; /* the look-back table, cleared on the way */
    size_t lookback_words;
} histogram_args;

/* The look-back table cleared by the histogram's threads, striding over the
 * whole grid: no pass has started yet, and the sort needs no memset for it. */
__device__ __forceinline__ void clear_lookback(const histogram_args &h)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < h.lookback_words;
         i += (size_t)gridDim.x * blockDim.x)
        h.lookback[i] = 0;
}

/* One key's digits, one count each, in the block's counters. */
__device__ __forceinline__ void count_digits(uint32_t *s_count, uint32_t key, int bits, int passes,
                                             int begin, uint32_t below_end, int order)
{
    /* bits [begin, end) of the key's radix form, cut out once (below_end: the bits under end) */
    const uint32_t bins = 1u << bits;
    const uint32_t form = (radix_form(key, order) & below_end) >> begin;
    for (int p = 0; p < passes; p++)
        atomicAdd(&s_count[p * bins + digit_of(form, p * bits, bins - 1)], 1u);
}

/* This block's share of the keys, counted in s_count, four keys to a 16-byte
 * load. */
__device__ __forceinline__ void count_keys(uint32_t *s_count, const histogram_args &h, int begin,
                                           uint32_t below_end, int order)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint4 *keys4 = (const uint4 *)h.keys; /* cudaMalloc aligns to 256 bytes */
    for (size_t i = first; i < h.n / 4; i += stride) {
        uint4 k = keys4[i];
        count_digits(s_count, k.x, h.bits, h.passes, begin, below_end, order);
        count_digits(s_count, k.y, h.bits, h.passes, begin, below_end, order);
        count_digits(s_count, k.z, h.bits, h.passes, begin, below_end, order);
        count_digits(s_count, k.w, h.bits, h.passes, begin, below_end, order);
    }
    for (size_t i = h.n / 4 * 4 + first; i < h.n; i += stride)
        count_digits(s_count, h.keys[i], h.bits, h.passes, begin, below_end, order);
}

/* Any digit width and bit range: each block counts its share of the keys in
 * shared memory (one counter a pass and digit), then adds its counts to the
 * global ones. */
__global__ void all_pass_histogram(const histogram_args h)
{
    extern __shared__ uint32_t s_count[]; /* passes x 2^bits */
    const uint32_t bins = 1u << h.bits;
    const uint32_t below_end = h.end == 32 ? 0xFFFFFFFFu : (1u << h.end) - 1;
    clear_lookback(h);
    for (uint32_t i = threadIdx.x; i < h.passes * bins; i += blockDim.x)
        s_count[i] = 0;
    __syncthreads();
    /* plain u32 keys of all 32 bits get a copy of the loop without the transform */
    if (h.order == KEY_U32 && h.begin == 0 && h.end == 32)
        count_keys(s_count, h, 0, 0xFFFFFFFFu, KEY_U32);
    else
        count_keys(s_count, h, h.begin, below_end, h.order);
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < h.passes * bins; i += blockDim.x)
        if (s_count[i] != 0)
            atomicAdd(&h.counts[i], s_count[i]);
}

/* The default sort's histogram - 8-bit digits, four passes, all 32 bits - at
 * the memory's rate.  Its counters are 16-bit halves of 32 copies of two rows
 * of 256 words, a copy a lane: pass p's digit d is the low (p even) or high
 * (p odd) half of word p / 2 * 256 + d, so that with p unrolled the atomic
 * adds a constant at the digit's word plus a constant.  Word w of copy l is
 * words[w][l]: every word of copy l sits in bank l, and the 32 atomics of a
 * warp fall in 32 banks at once.  A half counts at most COPY_KEYS_A_THREAD
 * keys of each of the block's 16 warps, fewer than 2^16: the launch gives
 * every thread at most that many keys (histogram). */
#define COPY_BLOCK 512
#define COPY_KEYS_A_THREAD 4000
#define COPY_ROWS 2
typedef struct {
    uint32_t words[COPY_ROWS * 256][32];
} lane_copies; /* 64 KB */

/* s_lane: this lane's copy, its word w at s_lane[32 * w] */
__device__ __forceinline__ void count_digits_in_copy(uint32_t *s_lane, uint32_t key, int order)
{
    const uint32_t form = radix_form(key, order);
#pragma unroll
    for (int p = 0; p < 4; p++) {
        uint32_t digit = digit_of(form, p * 8, 255);
        atomicAdd(&s_lane[32 * (p / 2 * 256 + digit)], 1u << (p % 2 * 16));
    }
}

/* This block's share of the keys, counted in this lane's copy, four keys to a
 * 16-byte load. */
__device__ __forceinline__ void count_keys_in_copy(uint32_t *s_lane, const histogram_args &h,
                                                   int order)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint4 *keys4 = (const uint4 *)h.keys; /* cudaMalloc aligns to 256 bytes */
    for (size_t i = first; i < h.n / 4; i += stride) {
        uint4 k = keys4[i];
        count_digits_in_copy(s_lane, k.x, order);
        count_digits_in_copy(s_lane, k.y, order);
        count_digits_in_copy(s_lane, k.z, order);
        count_digits_in_copy(s_lane, k.w, order);
    }
    for (size_t i = h.n / 4 * 4 + first; i < h.n; i += stride)
        count_digits_in_copy(s_lane, h.keys[i], order);
}

/* Counter c = p * 256 + d of the block: the sum of its half over the 32
 * copies, added to the global one. */
__device__ __forceinline__ void add_copies(const lane_copies *copies, uint32_t *counts)
{
    for (uint32_t c = threadIdx.x; c < 4 * 256; c += blockDim.x) {
        const uint32_t pass = c / 256, digit = c % 256;
        const uint32_t w = pass / 2 * 256 + digit, shift = pass % 2 * 16;
        uint32_t sum = 0;
        for (uint32_t k = 0; k < 32; k++) /* copy (k + w) % 32: a warp's 32 words in 32 banks */
            sum += copies->words[w][(k + w) % 32] >> shift & 0xFFFFu;
        if (sum != 0)
            atomicAdd(&counts[c], sum);
    }
}

__global__ void __launch_bounds__(COPY_BLOCK) all_pass_histogram_8x4(const histogram_args h)
{
    extern __shared__ uint32_t s_words[];
    lane_copies *copies = (lane_copies *)s_words;
    clear_lookback(h);
    for (uint32_t i = threadIdx.x; i < sizeof(lane_copies) / sizeof(uint32_t); i += blockDim.x)
        s_words[i] = 0;
    __syncthreads();
    uint32_t *s_lane = &copies->words[0][threadIdx.x % 32];
    /* plain u32 keys get a copy of the loop without the transform */
    if (h.order == KEY_U32)
        count_keys_in_copy(s_lane, h, KEY_U32);
    else
        count_keys_in_copy(s_lane, h, h.order);
    __syncthreads();
    add_copies(copies, h.counts);
}

/* A pass's plan: skip it, or read buffer `from` (0 or 1) and write the other;
 * the first pass that runs also turns keys into radix forms as it reads them
 * (PLAN_FIRST), the last one turns them back as it writes (PLAN_LAST), a pass
 * that runs after an odd number of passes flips its look-back words
 * (PLAN_FLIPPED), and a crowded pass counts and ranks its tiles by match
 * (PLAN_CROWDED). */
enum { PLAN_SKIP = 2, PLAN_FIRST = 4, PLAN_LAST = 8, PLAN_FLIPPED = 16, PLAN_CROWDED = 32 };

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
 * no_skip); the others read the buffer the pass before them wrote, and take
 * turns at flipping their look-back words, the first not.  A pass whose digit
 * two keys share with a chance above 1/32 (the sum of the counts' squares
 * over n^2; spread keys: 1/256) is crowded.  plan[passes] is the buffer that
 * holds the sorted keys at the end. */
__global__ void digit_starts(uint32_t *counts, int bits, int passes, size_t n, int no_skip,
                             int *plan)
{
    __shared__ uint32_t s_warp[SCAN_WORDS];
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
                                            : from | (runs % 2 ? PLAN_FLIPPED : 0) |
                                                  (crowded ? PLAN_CROWDED : 0);
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

/* What one pass reads and writes: its kernel's one argument. */
typedef struct {
    uint32_t *keys[2];      /* the key buffers: the pass reads the one its plan names */
    uint32_t *values[2];    /* the values' buffers, the same way; NULL with keys alone */
    size_t n;               /* keys */
    int pass;               /* its plan is plan[pass] */
    int shift, width;       /* its digit: bits [shift, shift + width) of a key's radix form */
    int kpt;                /* keys a thread */
    int order;              /* order_of */
    const int *plan;        /* every pass's plan (digit_starts) */
    const uint32_t *starts; /* where the run of each digit starts in the pass's output */
    uint32_t *lookback;     /* the look-back table: a word a tile and digit */
    uint32_t *ticket;       /* the pass's tile counter */
} pass_args;

/* A tile as each of its threads sees it.  block, kpt and width are constants
 * where the kernel is compiled for one shape. */
typedef struct {
    unsigned block; /* threads */
    int kpt;        /* keys a thread */
    int shift;      /* the digit: bits [shift, shift + width) */
    int width;
    size_t n;       /* the keys of the sort */
    size_t b;       /* the tile: its ticket */
    size_t first;   /* the index of this thread's first key; key j is at first + 32 j */
    size_t valid;   /* the tile's keys below n */
} tile_view;

/* The arrays of a pass's shared memory, where layout_of puts them. */
typedef struct {
    uint32_t *tile, *masks, *start, *place, *scan;
    uint16_t *slots, *counts;
    uint32_t *crowding; /* the tile's sum of squared digit counts */
} pass_shared;

__device__ __forceinline__ pass_shared carve(uint32_t *base, const pass_layout &l,
                                             uint32_t *crowding)
{
    pass_shared s;
    s.tile = base + l.tile;
    s.masks = base + l.masks;
    s.slots = (uint16_t *)(base + l.slots);
    s.start = base + l.start;
    s.place = base + l.place;
    s.scan = base + l.scan;
    s.counts = (uint16_t *)(base + l.counts);
    s.crowding = crowding;
    return s;
}

/* Warp-striped: warp w holds the contiguous run [w * 32 * kpt, (w + 1) * 32 *
 * kpt) of tile b, and lane l its keys l, l + 32, l + 64 ..., so each load of
 * the warp is 32 neighbouring words.  The index of this thread's first key: */
__device__ __forceinline__ size_t warp_striped_first(size_t b, int kpt, unsigned block)
{
    return b * block * kpt + (threadIdx.x / 32) * 32 * kpt + threadIdx.x % 32;
}

/* key[j] = src[t.first + 32 j].  Past the end: keys whose bits are all 1,
 * which rank after every real key and are never written. */
template <int KEYS>
__device__ __forceinline__ void load_warp_striped(const uint32_t *src, const tile_view &t,
                                                  uint32_t *key)
{
#pragma unroll
    for (int j = 0; j < KEYS; j++)
        if (j < t.kpt)
            key[j] = t.first + 32 * j < t.n ? src[t.first + 32 * j] : 0xFFFFFFFFu;
}

/* The same for a tile that ends at or before n: no key past the end, so no
 * bound to check - a plain load a key, 32 neighbouring words a warp. */
template <int KEYS>
__device__ __forceinline__ void load_whole_tile(const uint32_t *src, const tile_view &t,
                                                uint32_t *key)
{
    const uint32_t *mine = src + t.first;
#pragma unroll
    for (int j = 0; j < KEYS; j++)
        if (j < t.kpt)
            key[j] = mine[32 * j];
}

/* Where digit d's words sit in a warp's row of lane masks and of counters.
 * Word w of a row is in bank w % 32 (a mask) or (w / 2) % 32 (a counter's
 * half), so digits that differ only in their top three bits - 0, 32, 64 ...
 * the common digits of keys with few 1 bits - would all queue on one bank.
 * XORing those bits onto bits 2-4 keeps the low bits' spread and sends such
 * digits to eight banks.  It is a permutation of the digits of any width
 * (the top bits stay, each lower bit is flipped by one three above it), so
 * every digit still has words of its own.  The tests call it on the host. */
__host__ __device__ __forceinline__ uint32_t bin_of(uint32_t d)
{
    /* WRITE BEGIN spread_bins: a permutation of the digits; digits differing in top bits alone, other banks */
    /* WRITE STUB return d; */
    /* LAB BEGIN fold_top_bits: the digit with its bits from bit 3 up folded onto its low bits (XOR) */
    /* LAB STUB return d; */
    return d ^ (d >> 3);
    /* LAB END fold_top_bits */
    /* WRITE END spread_bins */
}

/* `amount` more in counter d of a row of 16-bit counters in shared memory;
 * returns the counter as it was before.  Shared atomics add 32-bit words, so
 * this adds to the counter's half of word d / 2 of the row (a row starts on a
 * word: 2^width counters, and width >= 1): a warp's count of a digit is at
 * most 32 x 24, and a place in the tile below 12,288, so the half never
 * carries into its neighbour.  The word's address is the row's plus an index,
 * so the compiler knows it is shared memory and emits a shared atomic. */
__device__ __forceinline__ uint32_t add_16(uint16_t *row, uint32_t d, uint32_t amount)
{
    uint32_t word = atomicAdd((uint32_t *)row + d / 2, d % 2 ? amount << 16 : amount);
    return d % 2 ? word >> 16 : word & 0xFFFFu;
}

/* The place of this lane's key among its warp's keys of its digit so far,
 * from the warp's counts of its digits (a row: count[d]).  Crowded keys:
 * __match_any_sync names the lanes that share the digit (its cost grows with
 * the number of different digits among the 32 keys), and the lowest of them
 * moves the count on.  Spread keys: each lane sets its bit in its digit's
 * word of the warp's masks (at bin_of(digit), as its counter), and the word
 * then names the lanes that share the digit - one atomic where 05.3 spends a
 * ballot per bit - though lanes that share a word take turns at it.  The
 * lowest such lane adds their number to the count with an atomic that
 * returns the count before, clears the word for the next keys, and hands the
 * count to the others with a shuffle. */
__device__ __forceinline__ uint32_t rank_in_warp_by_atomics_or_match(uint32_t digit,
                                                                     uint32_t *masks,
                                                                     uint16_t *count, int crowded)
{
    const unsigned lane = threadIdx.x % 32;
    unsigned same;
    uint32_t before;
    const uint32_t bin = bin_of(digit);
    if (crowded) {
        same = __match_any_sync(0xFFFFFFFFu, digit);
        before = count[bin];
        __syncwarp(); /* every lane has read the count before it changes */
        if (lane == __ffs(same) - 1)
            count[bin] = (uint16_t)(before + __popc(same));
    } else {
        atomicOr(&masks[bin], 1u << lane);
        __syncwarp();
        same = masks[bin];
        __syncwarp(); /* every lane has read the word before its leader clears it */
        const unsigned leader = __ffs(same) - 1;
        before = 0;
        if (lane == leader) {
            before = add_16(count, bin, __popc(same));
            masks[bin] = 0;
        }
        before = __shfl_sync(0xFFFFFFFFu, before, leader);
    }
    __syncwarp(); /* the count and the word are updated before the next key's lanes use them */
    return before + __popc(same & ((1u << lane) - 1));
}

/* Counts first: each warp counts its keys' digits in its own row of counters
 * - no counter is shared by two warps, so keys of one digit from many warps
 * do not queue for one word.  In a crowded pass the lanes of a warp that
 * share a digit are counted at once, by the lowest of them, and with keys
 * alone the count before them, which its atomic returns, is handed to them:
 * each key's rank among its warp's keys of its digit goes to the masks' words
 * (16 bits a key, at the key's place in the warp-striped tile).  Thread d (<
 * 2^width) then sums digit d over the rows and returns the tile's count of d:
 * the sooner it returns, the sooner the tile publishes its counts.
 * *sh.crowding gets the sum of the counts' squares: (tile size)^2 times the
 * chance that two keys of the tile share a digit. */
template <int KEYS, int PAIRS>
__device__ __forceinline__ uint32_t count_tile(const uint32_t *key, const tile_view &t,
                                               const pass_shared &sh, int crowded_pass)
{
    const uint32_t bins = 1u << t.width, mask = bins - 1;
    const unsigned warps = t.block / 32, lane = threadIdx.x % 32;
    uint16_t *my_count = sh.counts + threadIdx.x / 32 * bins;
    uint16_t *my_rank = (uint16_t *)sh.masks + threadIdx.x / 32 * 32 * t.kpt + lane;
#pragma unroll
    for (int j = 0; j < KEYS; j++)
        if (j < t.kpt) {
            uint32_t digit = digit_of(key[j], t.shift, mask);
            if (crowded_pass) {
                unsigned group = __match_any_sync(0xFFFFFFFFu, digit);
                const unsigned leader = __ffs(group) - 1;
                uint32_t group_before = 0;
                if (lane == leader)
                    group_before = add_16(my_count, bin_of(digit), __popc(group));
                if (PAIRS == KEYS_ALONE) {
                    group_before = __shfl_sync(0xFFFFFFFFu, group_before, leader);
                    my_rank[32 * j] = (uint16_t)(group_before + __popc(group & ((1u << lane) - 1)));
                }
            } else
                add_16(my_count, bin_of(digit), 1);
        }
    __syncthreads();
    uint32_t count = 0;
    if (threadIdx.x < bins)
        for (unsigned w = 0; w < warps; w++)
            count += sh.counts[w * bins + bin_of(threadIdx.x)];
    uint32_t squares = count * count; /* at most 12,288^2 in all: no overflow */
    for (int offset = 16; offset > 0; offset /= 2)
        squares += __shfl_xor_sync(0xFFFFFFFFu, squares, offset);
    if (threadIdx.x % 32 == 0 && threadIdx.x < bins)
        atomicAdd(sh.crowding, squares);
    return count;
}

/* Thread d brings the tile's count of digit d (count_tile's): sh.start[d]
 * gets where its run starts in the tile, and each warp's count of d becomes
 * where its keys of d start - the run's start plus the warps' counts above
 * it - so that the ranking's running counts are places in the tile. */
__device__ __forceinline__ void counts_to_places(const tile_view &t, const pass_shared &sh,
                                                 uint32_t count)
{
    const uint32_t bins = 1u << t.width;
    uint32_t all;
    uint32_t start = block_exclusive_scan(count, sh.scan, &all); /* ends with a barrier */
    if (threadIdx.x < bins) {
        sh.start[threadIdx.x] = start;
        uint32_t place = start;
        for (unsigned w = 0; w < t.block / 32; w++) {
            uint32_t c = sh.counts[w * bins + bin_of(threadIdx.x)];
            sh.counts[w * bins + bin_of(threadIdx.x)] = (uint16_t)place;
            place += c;
        }
    }
    __syncthreads();
}

/* Ranks the tile held warp-striped in key[] by digit: key j goes to its place
 * in the tile stably sorted by digit, in sh.tile, as soon as it is ranked; a
 * key's rank in its warp is its place.  Its place is kept only for its value:
 * in pos[j] (SLOTS_IN_REGISTERS), or in the slots' words (SLOTS_IN_SHARED),
 * where value[j] is then loaded from `values` - a load in flight while the
 * thread ranks its next keys.  A tile is crowded where two of its keys share
 * a digit with a chance above 1/32 (spread keys: 1/256): its warps rank by
 * match.  A crowded pass of keys alone ranked its keys as it counted them: a
 * key's place is its warp's place of its digit plus its rank. */
template <int KEYS, int PAIRS>
__device__ __forceinline__ void rank_tile(const uint32_t *key, uint32_t *pos, uint32_t *value,
                                          const tile_view &t, const pass_shared &sh,
                                          int crowded_pass, const uint32_t *values)
{
    const uint32_t bins = 1u << t.width, mask = bins - 1;
    const unsigned warp = threadIdx.x / 32, tile = t.block * t.kpt;
    uint16_t *my_count = sh.counts + warp * bins; /* this warp's next place of each digit */
    uint32_t *my_masks = sh.masks + warp * bins;
    uint16_t *my_slot = sh.slots + warp * 32 * t.kpt + threadIdx.x % 32; /* key j: [32 j] */
    const int crowded = *sh.crowding > tile * tile / 32;
    /* a loop of its own: as a branch of the loop below, it slows every spread pass */
    if (PAIRS == KEYS_ALONE && crowded_pass) {
        const uint16_t *my_rank = (const uint16_t *)sh.masks + warp * 32 * t.kpt + threadIdx.x % 32;
#pragma unroll
        for (int j = 0; j < KEYS; j++)
            if (j < t.kpt)
                sh.tile[my_count[bin_of(digit_of(key[j], t.shift, mask))] + my_rank[32 * j]] = key[j];
        return;
    }
#pragma unroll
    for (int j = 0; j < KEYS; j++) /* the warp's keys in input order: stable */
        if (j < t.kpt) {
            uint32_t slot = rank_in_warp_by_atomics_or_match(digit_of(key[j], t.shift, mask),
                                                             my_masks, my_count, crowded);
            sh.tile[slot] = key[j];
            if (PAIRS == SLOTS_IN_REGISTERS)
                pos[j] = slot;
            if (PAIRS == SLOTS_IN_SHARED) {
                my_slot[32 * j] = (uint16_t)slot;
                value[j] = t.first + 32 * j < t.n ? values[t.first + 32 * j] : 0u;
            }
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
 * yet published is loaded again until it is.  Tile 0 always knows its
 * prefix, so no window reaches before it. */
__device__ uint32_t look_back(uint32_t *lookback, size_t b, uint32_t bins, uint32_t d,
                              uint32_t count, uint32_t flip)
{
    if (b == 0)
        return 0;
    uint32_t keys_before = 0;
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
            keys_before += word[k] & LOOKBACK_COUNT;
            if (word[k] & LOOKBACK_PREFIX)
                goto found;
        }
    }
found:
    lookback_word(lookback[b * bins + d])
        .store((LOOKBACK_PREFIX | (keys_before + count)) ^ flip, cuda::memory_order_relaxed);
    return keys_before;
}

/* Where a pass writes: the buffers its plan does not read; the last pass
 * that runs turns the radix forms back into keys (key_of). */
typedef struct {
    uint32_t *keys, *values;
    int last, order;
} pass_out;

/* Each key of the tile, in its sorted place i, goes to its digit's run of
 * this tile in the output (sh.place[d] + i).  With values in registers each
 * slot keeps its digit (a byte, in the masks' words) for its value. */
template <int PAIRS>
__device__ __forceinline__ void write_keys(const tile_view &t, const pass_shared &sh,
                                           const pass_out &out)
{
    const uint32_t mask = (1u << t.width) - 1;
    uint8_t *s_digit = (uint8_t *)sh.masks;
    for (unsigned i = threadIdx.x; i < t.valid; i += t.block) {
        uint32_t k = sh.tile[i], d = digit_of(k, t.shift, mask);
        out.keys[sh.place[d] + i] = out.last ? key_of(k, out.order) : k;
        if (PAIRS == SLOTS_IN_REGISTERS)
            s_digit[i] = (uint8_t)d;
    }
}

/* Values whose slots wait in registers: each takes its key's place in the
 * tile, then goes where the key of that place went. */
template <int KEYS>
__device__ __forceinline__ void write_values(const uint32_t *value, const uint32_t *pos,
                                             const tile_view &t, const pass_shared &sh,
                                             const pass_out &out)
{
    const uint8_t *s_digit = (const uint8_t *)sh.masks;
    __syncthreads(); /* every key has left the reorder buffer */
#pragma unroll
    for (int j = 0; j < KEYS; j++)
        if (j < t.kpt)
            sh.tile[pos[j]] = value[j];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < t.valid; i += t.block)
        out.values[sh.place[s_digit[i]] + i] = sh.tile[i];
}

/* Wide pairs: the values, loaded as their keys were ranked, go to their keys'
 * places in the masks' and the slots' words, free once every slot is back in
 * a register, and one loop writes each place's key and value to the same
 * place in the output.  The slots come back two to a register, before the
 * barrier that frees their words. */
template <int KEYS>
__device__ __forceinline__ void write_pairs(const uint32_t *value, const tile_view &t,
                                            const pass_shared &sh, const pass_out &out)
{
    const uint32_t mask = (1u << t.width) - 1;
    const uint16_t *my_slot = sh.slots + threadIdx.x / 32 * 32 * t.kpt + threadIdx.x % 32;
    uint32_t *s_values = sh.masks;
    uint32_t slots[(KEYS + 1) / 2]; /* key j's: half j % 2 of slots[j / 2] */
#pragma unroll
    for (int j = 0; j < KEYS; j += 2)
        if (j < t.kpt)
            slots[j / 2] = my_slot[32 * j] |
                           (j + 1 < t.kpt ? (uint32_t)my_slot[32 * (j + 1)] << 16 : 0u);
    __syncthreads(); /* the tile is whole; the masks' and the slots' words are free */
#pragma unroll
    for (int j = 0; j < KEYS; j++)
        if (j < t.kpt)
            s_values[j % 2 ? slots[j / 2] >> 16 : slots[j / 2] & 0xFFFFu] = value[j];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < t.valid; i += t.block) {
        uint32_t k = sh.tile[i], at = sh.place[digit_of(k, t.shift, mask)] + i;
        out.keys[at] = out.last ? key_of(k, out.order) : k;
        out.values[at] = s_values[i];
    }
}

/* One tile of a pass, from the buffer its plan names into the other (or
 * none: a skipped pass returns at once).  A block takes the next tile by
 * ticket (so that the tiles it waits on belong to blocks that started before
 * it), counts its digits and publishes the counts, ranks the tile, finds each
 * digit's place in the output - where the digit's run starts plus the tile's
 * prefix from the look-back - and writes each run of equal digits to
 * consecutive addresses.  KEYS: the most keys a thread holds. */
template <int KEYS, int PAIRS>
__device__ __forceinline__ void pass_tile(const pass_args &a, tile_view t)
{
    extern __shared__ uint32_t shared[];
    __shared__ uint32_t s_ticket, s_crowding;
    const pass_shared sh = carve(shared, layout_of(t.block, t.kpt, t.width, PAIRS), &s_crowding);
    const uint32_t bins = 1u << t.width;
    const unsigned tile = t.block * t.kpt, rows = t.block / 32 * bins;

    const int plan = a.plan[a.pass];
    if (plan == PLAN_SKIP) /* nothing to move */
        return;
    const uint32_t flip = plan & PLAN_FLIPPED ? LOOKBACK_FLIP : 0;
    const int from = plan & 1;
    if (threadIdx.x == 0) {
        s_ticket = atomicAdd(a.ticket, 1u);
        s_crowding = 0;
    }
    for (uint32_t i = threadIdx.x; i < rows; i += t.block)
        sh.counts[i] = sh.masks[i] = 0;
    __syncthreads();
    t.b = s_ticket;
    t.first = warp_striped_first(t.b, t.kpt, t.block);
    uint32_t key[KEYS], pos[KEYS], value[KEYS];
    if (PAIRS == KEYS_ALONE && (t.b + 1) * tile <= t.n)
        load_whole_tile<KEYS>(from ? a.keys[1] : a.keys[0], t, key);
    else
        load_warp_striped<KEYS>(from ? a.keys[1] : a.keys[0], t, key);
    if (plan & PLAN_FIRST) /* the keys' radix forms, from their first read on */
#pragma unroll
        for (int j = 0; j < KEYS; j++)
            if (j < t.kpt && t.first + 32 * j < t.n) /* the padding stays the largest form */
                key[j] = radix_form(key[j], a.order);
    uint32_t count = count_tile<KEYS, PAIRS>(key, t, sh, plan & PLAN_CROWDED);
    t.valid = t.n - t.b * tile < tile ? t.n - t.b * tile : tile;
    /* the padding, all of the last digit, is ranked but not published */
    uint32_t real = count - (threadIdx.x == bins - 1 ? (uint32_t)(tile - t.valid) : 0);
    TEST_HOLD_TILE(t.b);
    /* a loop over the digits this thread owns (one: a pass gives each digit a
     * thread), not an if: with the shape constant, ptxas 13.0 would spill
     * registers around the scan and the ranking that follow (sm_90) */
    for (uint32_t d = threadIdx.x; d < bins; d += t.block)
        publish_count(a.lookback, t.b, bins, d, real, flip);
    counts_to_places(t, sh, count);
    const uint32_t *values = from ? a.values[1] : a.values[0];
    rank_tile<KEYS, PAIRS>(key, pos, value, t, sh, plan & PLAN_CROWDED, values);
    if (threadIdx.x < bins) {
        uint32_t before = look_back(a.lookback, t.b, bins, threadIdx.x, real, flip);
        sh.place[threadIdx.x] = a.starts[threadIdx.x] + before - sh.start[threadIdx.x];
    }
    const pass_out out = {from ? a.keys[0] : a.keys[1], from ? a.values[0] : a.values[1],
                          plan & PLAN_LAST, a.order};
    if (PAIRS == SLOTS_IN_SHARED) {
        write_pairs<KEYS>(value, t, sh, out);
        return;
    }
    if (PAIRS == SLOTS_IN_REGISTERS) /* the values' loads are in flight while the keys go out */
        load_warp_striped<KEYS>(values, t, value);
    __syncthreads(); /* the tile is whole, the masks free for the slots' digits */
    write_keys<PAIRS>(t, sh, out);
    if (PAIRS == SLOTS_IN_REGISTERS)
        write_values<KEYS>(value, pos, t, sh, out);
}

/* Keys alone: at most 40 registers a thread, so that three blocks of 512 (48
 * warps) share a multiprocessor, to hide the waits on the look-back and on
 * the tile's barriers; 40 are enough because no key's slot stays in a
 * register.  Turing (sm_75) holds 1,024 threads a multiprocessor, two blocks
 * of 512, and ptxas refuses to plan for three there.  Pairs keep two. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define PASS_BLOCKS 2
#else
#define PASS_BLOCKS 3
#endif

/* The pass, compiled for a shape: BLOCK, KPT and WIDTH are the tile's where
 * they are not 0 - constants the compiler folds into the shared-memory
 * layout, the addresses and the loop bounds - and the launch's where they
 * are; PAIRS says what follows the keys. */
template <int BLOCK, int KPT, int WIDTH, int PAIRS>
__global__ void __launch_bounds__(512, PAIRS == KEYS_ALONE ? PASS_BLOCKS : 2)
    onesweep_pass(const pass_args a)
{
    const tile_view t = {BLOCK ? BLOCK : blockDim.x, KPT ? KPT : a.kpt, a.shift,
                         WIDTH ? WIDTH : a.width, a.n, 0, 0, 0};
    pass_tile<KPT ? KPT : MAX_KPT, PAIRS>(a, t);
}

typedef void (*pass_kernel)(const pass_args);

/* The kernel of a pass of digit width `width`: keys alone in the kernel
 * compiled for the default shape where the pass has that shape, else in the
 * general one; pairs in wide tiles, or with their slots in registers. */
static pass_kernel kernel_for(const sort_options *opt, int width, int pairs)
{
    if (pairs == SLOTS_IN_SHARED)
        return onesweep_pass<DEFAULT_BLOCK, PAIRS_KPT, 0, SLOTS_IN_SHARED>;
    if (pairs == SLOTS_IN_REGISTERS)
        return onesweep_pass<0, 0, 0, SLOTS_IN_REGISTERS>;
    if (opt->block == DEFAULT_BLOCK && opt->kpt == DEFAULT_KPT && width == DEFAULT_WIDTH)
        return onesweep_pass<DEFAULT_BLOCK, DEFAULT_KPT, DEFAULT_WIDTH, KEYS_ALONE>;
    return onesweep_pass<0, 0, 0, KEYS_ALONE>;
}

/* ---- the sort -------------------------------------------------------------- */

typedef struct {
    const sort_options *opt;
    size_t n;
    int device;             /* the GPU the sort runs on */
    int pairs;              /* KEYS_ALONE, SLOTS_IN_REGISTERS or SLOTS_IN_SHARED */
    int kpt;                /* keys a thread in every pass */
    size_t tiles;           /* a pass's tiles */
    uint32_t *keys[2];      /* the ping-pong buffers of keys */
    uint32_t *values[2];    /* ... and of values (NULL with keys alone) */
    uint32_t *d_starts;     /* [pass][digit] counts, then where each run starts; then the tickets */
    uint32_t *d_tickets;    /* one a pass, just after the counts: one memset clears both */
    uint32_t *d_lookback;   /* the one look-back table: tiles x 2^bits words */
    int *d_plan;            /* each pass's plan, then the buffer of the sorted keys */
    int histogram_blocks;   /* the general histogram's grid: 4 a multiprocessor */
    int copy_blocks;        /* the least grid of all_pass_histogram_8x4: as many as fit at once */
    step_timer timer;
} sort_context;

/* Pass `pass` between the two buffers, as its plan says. */
static void sort_pass(sort_context *c, int pass)
{
    const sort_options *opt = c->opt;
    const int shift = first_bit(opt) + pass * opt->bits;
    const int width = last_bit(opt) - shift < opt->bits ? last_bit(opt) - shift : opt->bits;
    const pass_args a = {
        .keys = {c->keys[0], c->keys[1]},
        .values = {c->values[0], c->values[1]},
        .n = c->n,
        .pass = pass,
        .shift = shift,
        .width = width,
        .kpt = c->kpt,
        .order = order_of(opt),
        .plan = c->d_plan,
        .starts = c->d_starts + ((size_t)pass << opt->bits),
        .lookback = c->d_lookback,
        .ticket = c->d_tickets + pass,
    };
    size_t shared = layout_of(opt->block, c->kpt, width, c->pairs).bytes;
    kernel_for(opt, width, c->pairs)<<<c->tiles, opt->block, shared>>>(a);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, pass, STEP_SCATTER);
}

/* Every pass's digit counts, where each digit's run starts, and the passes'
 * plan - on the GPU: the host launches every pass and waits for nothing. */
static void histogram(sort_context *c, int passes)
{
    const sort_options *opt = c->opt;
    const size_t bins = (size_t)1 << opt->bits;
    const histogram_args h = {
        .keys = c->keys[0],
        .n = c->n,
        .bits = opt->bits,
        .passes = passes,
        .begin = first_bit(opt),
        .end = last_bit(opt),
        .order = order_of(opt),
        .counts = c->d_starts,
        .lookback = c->d_lookback,
        .lookback_words = bins * c->tiles,
    };
    if (opt->bits == 8 && first_bit(opt) == 0 && last_bit(opt) == 32) {
        /* at most COPY_KEYS_A_THREAD keys a thread: more blocks where n asks for them */
        size_t keys_a_block = (size_t)COPY_BLOCK * COPY_KEYS_A_THREAD;
        size_t blocks = (c->n + keys_a_block - 1) / keys_a_block;
        size_t least = (size_t)c->copy_blocks;
        all_pass_histogram_8x4<<<blocks > least ? blocks : least, COPY_BLOCK, sizeof(lane_copies)>>>(h);
    } else
        all_pass_histogram<<<c->histogram_blocks, 256, passes * bins * sizeof(uint32_t)>>>(h);
    CUDA_CHECK_LAUNCH();
    digit_starts<<<1, bins < 32 ? 32 : bins>>>(c->d_starts, opt->bits, passes, c->n, opt->no_skip,
                                               c->d_plan);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, 0, STEP_HISTOGRAM);
}

/* Beyond 48 KB a kernel must ask for its shared memory: each pass kernel
 * this sort may launch, for the tile it runs, and the lane copies'
 * histogram, for its 64 KB. */
static void allow_shared_memory(const sort_context *c)
{
    const sort_options *opt = c->opt;
    const int shared = (int)layout_of(opt->block, c->kpt, opt->bits, c->pairs).bytes;
    CUDA_CHECK(cudaFuncSetAttribute(kernel_for(opt, opt->bits, c->pairs),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    if (c->pairs == KEYS_ALONE) /* a narrower last pass runs the general kernel */
        CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass<0, 0, 0, KEYS_ALONE>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    CUDA_CHECK(cudaFuncSetAttribute(all_pass_histogram_8x4, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)sizeof(lane_copies)));
}

/* The histogram's grids: the general one's, 4 blocks a multiprocessor, and
 * the lane copies' least one, as many blocks as the GPU holds at once. */
static void histogram_grids(sort_context *c)
{
    int multiprocessors = 0, copies_a_multiprocessor = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, c->device));
    c->histogram_blocks = 4 * multiprocessors;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &copies_a_multiprocessor, all_pass_histogram_8x4, COPY_BLOCK, sizeof(lane_copies)));
    c->copy_blocks = multiprocessors * (copies_a_multiprocessor > 0 ? copies_a_multiprocessor : 1);
}

/* The sort's buffers on the GPU it runs on (filled with garbage where opt
 * asks: the tests), and its tiles' shape. */
static void context_create(sort_context *c, size_t n, const sort_options *opt)
{
    memset(c, 0, sizeof *c);
    c->opt = opt;
    c->n = n;
    CUDA_CHECK(cudaGetDevice(&c->device));
    c->pairs = !opt->pairs                        ? KEYS_ALONE
               : wide_pairs_fit(c->device, opt) ? SLOTS_IN_SHARED
                                                 : SLOTS_IN_REGISTERS;
    c->kpt = c->pairs == SLOTS_IN_SHARED ? PAIRS_KPT : opt->kpt;
    c->tiles = tiles_for(n, opt->block, c->kpt);
    size_t counts = MAX_PASSES * ((size_t)1 << opt->bits);
    c->d_starts = (uint32_t *)gpu_alloc((counts + MAX_PASSES) * sizeof(uint32_t), opt->poison);
    c->d_tickets = c->d_starts + counts;
    c->d_lookback = (uint32_t *)gpu_alloc((c->tiles << opt->bits) * sizeof(uint32_t), opt->poison);
    c->d_plan = (int *)gpu_alloc((MAX_PASSES + 1) * sizeof(int), opt->poison);
    for (int i = 0; i < 2; i++) {
        c->keys[i] = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
        c->values[i] = opt->pairs ? (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison) : NULL;
    }
    allow_shared_memory(c);
    histogram_grids(c);
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
    for (int i = 0; i < 2; i++) {
        gpu_free(c->values[i]);
        gpu_free(c->keys[i]);
    }
    gpu_free(c->d_plan);
    gpu_free(c->d_lookback);
    gpu_free(c->d_starts);
}

/* The sorted keys (and values) from the buffer the plan names, and which
 * passes were skipped. */
static void download(sort_context *c, int passes, uint32_t *keys_out, uint32_t *values_out,
                     sort_report *rep)
{
    int plan[MAX_PASSES + 1]; /* each pass's plan, then the buffer of the sorted keys */
    CUDA_CHECK(cudaMemcpy(plan, c->d_plan, (passes + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int pass = 0; pass < passes; pass++)
        if (plan[pass] == PLAN_SKIP)
            rep->skipped |= 1u << pass;
    const int sorted = plan[passes];
    CUDA_CHECK(cudaMemcpy(keys_out, c->keys[sorted], c->n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (values_out)
        CUDA_CHECK(cudaMemcpy(values_out, c->values[sorted], c->n * sizeof(uint32_t),
                              cudaMemcpyDeviceToHost));
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
    context_create(&c, n, opt);
    CUDA_CHECK(cudaMemcpy(c.keys[0], keys_in, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    if (values_in)
        CUDA_CHECK(cudaMemcpy(c.values[0], values_in, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    rep->setup_ms = host_time_ms() - t0;

    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, passes);
    for (int pass = 0; pass < passes; pass++)
        sort_pass(&c, pass);
    step_timer_collect(&c.timer, rep);

    t0 = host_time_ms();
    download(&c, passes, keys_out, values_out, rep);
    context_destroy(&c);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}

int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
               sort_report *rep, char *err, size_t errlen)
{
    return stage_sort_pairs(keys_in, NULL, keys_out, NULL, n, opt, rep, err, errlen);
}
