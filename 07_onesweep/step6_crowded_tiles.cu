/*
 * 07_onesweep/step6_crowded_tiles.cu - step 07.6: crowded tiles rank by match.
 *
 * What changed since step 07.5 (the whole story: README.md)
 *   Ranking by atomicOr is fast while a warp's 32 keys fall into different
 *   digits; where many share one (few distinct keys, skewed bits), its lanes
 *   take turns at one word.  __match_any_sync finds the lanes that share a
 *   digit whatever their number, but is slow when the 32 keys hold many
 *   different digits.  The tile's counts, known first since 07.5, say which
 *   case a tile is: the sum of their squares measures how often two keys
 *   share a digit, and a crowded tile ranks by match.
 *
 * Steps: histogram (every pass's digit counts, once), then per pass scatter
 * (ticket, rank, look back, reorder the tile, write runs).
 *
 * Run:  build/bin/07_onesweep --step 6 --dist few --verbose
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
    .title = "crowded tiles rank by match",
    .needs_gpu = 1,
    .nsteps = 2,
    .step_name = {"histogram", "scatter"},
    .uses = USES_BITS | USES_BLOCK | USES_KPT | USES_SKIP,
    .defaults = {.bits = 8, .block = 512, .kpt = 16},
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
    unsigned tile;   /* the tile's keys, each in its sorted place once ranked; while the tile
                        is ranked, each warp's lane mask of each digit */
    unsigned counts; /* each warp's count of each digit */
    unsigned start;  /* each digit's start in the tile */
    unsigned place;  /* each digit's place in the output, less its start in the tile */
    unsigned scan;   /* SCAN_WORDS */
    unsigned bytes;  /* all of it */
} pass_layout;

__host__ __device__ __forceinline__ pass_layout layout_of(unsigned block, unsigned kpt,
                                                          unsigned width)
{
    const unsigned tile = block * kpt, bins = 1u << width, rows = block / 32 * bins;
    pass_layout l;
    l.tile = 0;
    l.counts = tile > rows ? tile : rows;
    l.start = l.counts + rows;
    l.place = l.start + bins;
    l.scan = l.place + bins;
    l.bytes = (l.scan + SCAN_WORDS) * (unsigned)sizeof(uint32_t);
    return l;
}

static size_t tiles_for(size_t n, int block, int kpt)
{
    size_t tile = (size_t)block * kpt;
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
    size_t shared = layout_of(opt->block, opt->kpt, opt->bits).bytes;
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
    size_t lookback = ((size_t)1 << opt->bits) * tiles_for(n, opt->block, opt->kpt);
    return (2 * n + 2 * lookback) * sizeof(uint32_t) + (1u << 20);
}

/* Device memory each step moves (L: a pass's look-back words, 2^k a tile):
 * histogram: the keys once, for every pass; scatter, every pass: the keys
 * in and out, L written twice (aggregate, prefix) and cleared for the next
 * pass.  4 + 8 bytes of keys a key and pass: 36 for 4 passes,
 * against 05.4's 48.  A skipped pass moves nothing; the model counts every
 * pass. */
double stage_step_bytes(const sort_options *opt, size_t n, int step)
{
    double passes = passes_for_bits(opt->bits), keys = 4.0 * (double)n;
    double lookback = 4.0 * (double)((size_t)1 << opt->bits) * (double)tiles_for(n, opt->block, opt->kpt);
    return step == STEP_HISTOGRAM ? keys : passes * (2 * keys + 3 * lookback);
}

/* ---- keys and their digits -------------------------------------------------- */

__device__ uint32_t digit_of(uint32_t key, int shift, uint32_t mask) { return (key >> shift) & mask; }

/* ---- 1. histogram: every pass's digit counts, one read of the keys -------- */

/* What the histogram step reads and writes: its kernels' one argument. */
typedef struct {
    const uint32_t *keys;
    size_t n;
    int bits, passes;   /* the digits' width, and the passes */
    uint32_t *counts;   /* counts[p * 2^bits + d]: the keys whose digit of pass p is d */
} histogram_args;

/* One key's digits, one count each, in the block's counters. */
__device__ __forceinline__ void count_digits(uint32_t *s_count, uint32_t key, int bits, int passes)
{
    const uint32_t bins = 1u << bits;
    for (int p = 0; p < passes; p++)
        atomicAdd(&s_count[p * bins + digit_of(key, p * bits, bins - 1)], 1u);
}

/* This block's share of the keys, counted in s_count, four keys to a 16-byte
 * load. */
__device__ __forceinline__ void count_keys(uint32_t *s_count, const histogram_args &h)
{
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const uint4 *keys4 = (const uint4 *)h.keys; /* cudaMalloc aligns to 256 bytes */
    for (size_t i = first; i < h.n / 4; i += stride) {
        uint4 k = keys4[i];
        count_digits(s_count, k.x, h.bits, h.passes);
        count_digits(s_count, k.y, h.bits, h.passes);
        count_digits(s_count, k.z, h.bits, h.passes);
        count_digits(s_count, k.w, h.bits, h.passes);
    }
    for (size_t i = h.n / 4 * 4 + first; i < h.n; i += stride)
        count_digits(s_count, h.keys[i], h.bits, h.passes);
}

/* Each block counts its share of the keys in shared memory (one counter a
 * pass and digit), then adds its counts to the global ones. */
__global__ void all_pass_histogram(const histogram_args h)
{
    extern __shared__ uint32_t s_count[]; /* passes x 2^bits */
    const uint32_t bins = 1u << h.bits;
    for (uint32_t i = threadIdx.x; i < h.passes * bins; i += blockDim.x)
        s_count[i] = 0;
    __syncthreads();
    count_keys(s_count, h);
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < h.passes * bins; i += blockDim.x)
        if (s_count[i] != 0)
            atomicAdd(&h.counts[i], s_count[i]);
}

/* A pass's plan: skip it, or read buffer `from` (0 or 1) and write the other. */
enum { PLAN_SKIP = 2 };

/* One block, a thread a digit: each pass's counts become where each digit's
 * run starts in the output (an exclusive scan), and the passes' plan: a pass
 * where one digit holds all n keys would move nothing, and is skipped (unless
 * no_skip); the others read the buffer the pass before them wrote.
 * plan[passes] is the buffer that holds the sorted keys at the end. */
__global__ void digit_starts(uint32_t *counts, int bits, int passes, size_t n, int no_skip,
                             int *plan)
{
    __shared__ uint32_t s_warp[SCAN_WORDS];
    const uint32_t bins = 1u << bits, d = threadIdx.x;
    int from = 0;
    for (int p = 0; p < passes; p++) {
        uint32_t *pass = counts + (size_t)p * bins;
        uint32_t count = d < bins ? pass[d] : 0, all;
        uint32_t start = block_exclusive_scan(count, s_warp, &all);
        int one_digit = __syncthreads_or(d < bins && count == n);
        if (d < bins)
            pass[d] = start;
        if (d == 0)
            plan[p] = one_digit && !no_skip ? PLAN_SKIP : from;
        if (!one_digit || no_skip)
            from ^= 1;
    }
    if (d == 0)
        plan[passes] = from;
}

/* ---- 2. a pass: ticket, rank, look back, reorder, write runs ------------ */

/* What one pass reads and writes: its kernel's one argument. */
typedef struct {
    uint32_t *keys[2];      /* the key buffers: the pass reads the one its plan names */
    size_t n;               /* keys */
    int pass;               /* its plan is plan[pass] */
    int shift, width;       /* its digit: bits [shift, shift + width) of a key's radix form */
    int kpt;                /* keys a thread */
    const int *plan;        /* every pass's plan (digit_starts) */
    const uint32_t *starts; /* where the run of each digit starts in the pass's output */
    uint32_t *lookback;     /* the pass's look-back table: a word a tile and digit */
    uint32_t *next_lookback; /* the next pass's, its tiles' words cleared as this one runs */
    uint32_t *ticket;       /* the pass's tile counter */
} pass_args;

/* A tile as each of its threads sees it. */
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
    uint32_t *tile, *masks, *counts, *start, *place, *scan;
    uint32_t *crowding; /* the tile's sum of squared digit counts */
} pass_shared;

__device__ __forceinline__ pass_shared carve(uint32_t *base, const pass_layout &l,
                                             uint32_t *crowding)
{
    pass_shared s;
    s.tile = base + l.tile;
    s.masks = base + l.tile; /* the masks share the tile's words */
    s.counts = base + l.counts;
    s.start = base + l.start;
    s.place = base + l.place;
    s.scan = base + l.scan;
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
__device__ __forceinline__ void load_warp_striped(const uint32_t *src, const tile_view &t,
                                                  uint32_t *key)
{
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < t.kpt)
            key[j] = t.first + 32 * j < t.n ? src[t.first + 32 * j] : 0xFFFFFFFFu;
}

/* The place of this lane's key among its warp's keys of its digit so far,
 * from the warp's counts of its digits (a row: count[d]).  Crowded keys:
 * __match_any_sync names the lanes that share the digit (its cost grows with
 * the number of different digits among the 32 keys).  Spread keys: each lane
 * sets its bit in its digit's word of the warp's masks, and the word then
 * names the lanes that share the digit - one atomic where 05.3 spends a
 * ballot per bit - though lanes that share a word take turns at it.  Then
 * the lowest such lane moves the count on and clears the word for the next
 * keys. */
__device__ __forceinline__ uint32_t rank_in_warp_by_atomics_or_match(uint32_t digit,
                                                                     uint32_t *masks,
                                                                     uint32_t *count, int crowded)
{
    const unsigned lane = threadIdx.x % 32;
    /* WRITE BEGIN crowded: the tile's crowding from its counts; a crowded tile ranks by match */
    /* WRITE STUB (void)crowded; */
    /* WRITE STUB unsigned same = 0; */
    unsigned same;
    /* LAB BEGIN lanes_of_digit: the lanes whose key has this digit: by match where crowded, else by atomicOr */
    /* LAB STUB same = 0; (void)crowded; (void)masks; */
    if (crowded)
        same = __match_any_sync(0xFFFFFFFFu, digit);
    else {
        atomicOr(&masks[digit], 1u << lane);
        __syncwarp();
        same = masks[digit];
    }
    /* LAB END lanes_of_digit */
    /* WRITE END crowded */
    uint32_t before = count[digit];
    __syncwarp(); /* every lane has read the word and the count before they change */
    if (lane == __ffs(same) - 1) {
        count[digit] = before + __popc(same);
        masks[digit] = 0;
    }
    __syncwarp();
    return before + __popc(same & ((1u << lane) - 1));
}

/* Counts first: each warp counts its keys' digits in its own row of counters
 * - no counter is shared by two warps, so keys of one digit from many warps
 * do not queue for one word.  Thread d (< 2^width) then walks digit d's
 * rows: each warp's count of d becomes where its keys of d start among the
 * tile's keys of d, and it returns the tile's count of d.  *sh.crowding gets
 * the sum of the counts' squares: (tile size)^2 times the chance that two
 * keys of the tile share a digit. */
__device__ __forceinline__ uint32_t count_tile(const uint32_t *key, const tile_view &t,
                                               const pass_shared &sh)
{
    const uint32_t bins = 1u << t.width, mask = bins - 1;
    const unsigned warps = t.block / 32;
    uint32_t *my_count = sh.counts + threadIdx.x / 32 * bins;
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < t.kpt)
            atomicAdd(&my_count[digit_of(key[j], t.shift, mask)], 1u);
    __syncthreads();
    uint32_t count = 0;
    if (threadIdx.x < bins)
        for (unsigned w = 0; w < warps; w++) {
            uint32_t c = sh.counts[w * bins + threadIdx.x];
            sh.counts[w * bins + threadIdx.x] = count;
            count += c;
        }
    /* WRITE BEGIN crowded: the tile's crowding from its counts; a crowded tile ranks by match */
    /* LAB BEGIN crowding: add the squares of the tile's counts into *sh.crowding: one atomic a warp */
    uint32_t squares = count * count; /* at most 8192^2 in all: no overflow */
    for (int offset = 16; offset > 0; offset /= 2)
        squares += __shfl_xor_sync(0xFFFFFFFFu, squares, offset);
    if (threadIdx.x % 32 == 0 && threadIdx.x < bins)
        atomicAdd(sh.crowding, squares);
    /* LAB END crowding */
    /* WRITE END crowded */
    return count;
}

/* Thread d brings the tile's count of digit d (count_tile's): sh.start[d]
 * gets where its run starts in the tile, and every warp's entry of d moves up
 * by as much, so that the ranking's running counts are places in the tile. */
__device__ __forceinline__ void counts_to_places(const tile_view &t, const pass_shared &sh,
                                                 uint32_t count)
{
    const uint32_t bins = 1u << t.width;
    uint32_t all;
    uint32_t start = block_exclusive_scan(count, sh.scan, &all); /* ends with a barrier */
    if (threadIdx.x < bins) {
        sh.start[threadIdx.x] = start;
        for (unsigned w = 0; w < t.block / 32; w++)
            sh.counts[w * bins + threadIdx.x] += start;
    }
    __syncthreads();
}

/* Ranks the tile held warp-striped in key[] by digit: pos[j] becomes the
 * place of key j in the tile stably sorted by digit; a key's rank in its warp
 * is its place.  A tile is crowded where two of its keys share a digit with a
 * chance above 1/32 (spread keys: 1/256): its warps rank by match. */
__device__ __forceinline__ void rank_tile(const uint32_t *key, uint32_t *pos, const tile_view &t,
                                          const pass_shared &sh)
{
    const uint32_t bins = 1u << t.width, mask = bins - 1;
    const unsigned warp = threadIdx.x / 32, tile = t.block * t.kpt;
    uint32_t *my_count = sh.counts + warp * bins; /* this warp's next place of each digit */
    uint32_t *my_masks = sh.masks + warp * bins;
    /* WRITE BEGIN crowded: the tile's crowding from its counts; a crowded tile ranks by match */
    /* WRITE STUB const int crowded = 0; (void)tile; */
    const int crowded = *sh.crowding > tile * tile / 32;
    /* WRITE END crowded */
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++) /* the warp's keys in input order: stable */
        if (j < t.kpt)
            pos[j] = rank_in_warp_by_atomics_or_match(digit_of(key[j], t.shift, mask), my_masks,
                                                      my_count, crowded);
    __syncthreads(); /* the masks share their words with the tile */
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
 * after it. */
__device__ uint32_t look_back(uint32_t *lookback, size_t b, uint32_t bins, uint32_t d,
                              uint32_t count)
{
    if (b == 0)
        return 0;
    uint32_t keys_before = 0;
    for (size_t j = b - 1;; j--) {
        uint32_t word;
        do /* a tile before has its ticket, so it runs: it will publish */
            word = lookback_word(lookback[j * bins + d]).load(cuda::memory_order_relaxed);
        while ((word & ~LOOKBACK_COUNT) == 0);
        keys_before += word & LOOKBACK_COUNT;
        if (word & LOOKBACK_PREFIX)
            break;
    }
    lookback_word(lookback[b * bins + d])
        .store(LOOKBACK_PREFIX | (keys_before + count), cuda::memory_order_relaxed);
    return keys_before;
}

/* Each key of the tile, in its sorted place i, goes to its digit's run of
 * this tile in the output (sh.place[d] + i). */
__device__ __forceinline__ void write_keys(const tile_view &t, const pass_shared &sh, uint32_t *dst)
{
    const uint32_t mask = (1u << t.width) - 1;
    for (unsigned i = threadIdx.x; i < t.valid; i += t.block) {
        uint32_t k = sh.tile[i];
        dst[sh.place[digit_of(k, t.shift, mask)] + i] = k;
    }
}

/* One tile of a pass, from the buffer its plan names into the other (or
 * none: a skipped pass returns at once, once its block has cleared a tile's
 * words of the next pass's table).  A block takes the next tile by
 * ticket (so that the tiles it waits on belong to blocks that started before
 * it), counts its digits and publishes the counts, ranks the tile, finds each
 * digit's place in the output - where the digit's run starts plus the tile's
 * prefix from the look-back - and writes each run of equal digits to
 * consecutive addresses.  It also clears its tile's words of the next pass's
 * look-back table. */
__device__ __forceinline__ void pass_tile(const pass_args &a, tile_view t)
{
    extern __shared__ uint32_t shared[];
    __shared__ uint32_t s_ticket, s_crowding;
    const pass_shared sh = carve(shared, layout_of(t.block, t.kpt, t.width), &s_crowding);
    const uint32_t bins = 1u << t.width;
    const unsigned tile = t.block * t.kpt, rows = t.block / 32 * bins;

    const int plan = a.plan[a.pass];
    if (plan == PLAN_SKIP) { /* nothing to move; the next pass's table still needs clearing */
        for (uint32_t d = threadIdx.x; d < bins; d += t.block)
            a.next_lookback[(size_t)blockIdx.x * bins + d] = 0;
        return;
    }
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
    uint32_t key[MAX_KPT], pos[MAX_KPT];
    load_warp_striped(from ? a.keys[1] : a.keys[0], t, key);
    uint32_t count = count_tile(key, t, sh);
    t.valid = t.n - t.b * tile < tile ? t.n - t.b * tile : tile;
    /* the padding, all of the last digit, is ranked but not published */
    uint32_t real = count - (threadIdx.x == bins - 1 ? (uint32_t)(tile - t.valid) : 0);
    TEST_HOLD_TILE(t.b);
    if (threadIdx.x < bins)
        publish_count(a.lookback, t.b, bins, threadIdx.x, real);
    counts_to_places(t, sh, count);
    rank_tile(key, pos, t, sh);
    if (threadIdx.x < bins) {
        uint32_t before = look_back(a.lookback, t.b, bins, threadIdx.x, real);
        sh.place[threadIdx.x] = a.starts[threadIdx.x] + before - sh.start[threadIdx.x];
        a.next_lookback[t.b * bins + threadIdx.x] = 0;
    }
#pragma unroll
    for (int j = 0; j < MAX_KPT; j++)
        if (j < t.kpt)
            sh.tile[pos[j]] = key[j];
    __syncthreads(); /* the tile is whole */
    write_keys(t, sh, from ? a.keys[0] : a.keys[1]);
}

/* One pass over all tiles: at most 64 registers a thread (2 blocks of 512,
 * or 4 of 256, on a multiprocessor): with more, fewer tiles are in flight to
 * hide the look-back's waits. */
__global__ void __launch_bounds__(512, 2) onesweep_pass(const pass_args a)
{
    const tile_view t = {blockDim.x, a.kpt, a.shift, a.width, a.n, 0, 0, 0};
    pass_tile(a, t);
}

/* ---- the sort -------------------------------------------------------------- */

typedef struct {
    const sort_options *opt;
    size_t n;
    int device;             /* the GPU the sort runs on */
    size_t tiles;           /* a pass's tiles */
    uint32_t *keys[2];      /* the ping-pong buffers of keys */
    uint32_t *d_starts;     /* [pass][digit] counts, then where each run starts */
    uint32_t *d_lookback;   /* two tables of tiles x 2^bits words, then the tickets */
    uint32_t *d_tickets;    /* one counter a pass */
    int *d_plan;            /* each pass's plan, then the buffer of the sorted keys */
    int histogram_blocks;   /* the histogram's grid: 4 a multiprocessor */
    step_timer timer;
} sort_context;

/* Pass `pass` between the two buffers, as its plan says.  Pass p uses
 * look-back table p % 2 and clears the other for pass p + 1 (pass p - 1, its
 * last user, has finished; a skipped pass clears it too). */
static void sort_pass(sort_context *c, int pass)
{
    const sort_options *opt = c->opt;
    const size_t table = c->tiles << opt->bits;
    const int shift = pass * opt->bits, width = bits_in_pass(opt->bits, pass);
    const pass_args a = {
        .keys = {c->keys[0], c->keys[1]},
        .n = c->n,
        .pass = pass,
        .shift = shift,
        .width = width,
        .kpt = opt->kpt,
        .plan = c->d_plan,
        .starts = c->d_starts + ((size_t)pass << opt->bits),
        .lookback = c->d_lookback + (size_t)(pass % 2) * table,
        .next_lookback = c->d_lookback + (size_t)((pass + 1) % 2) * table,
        .ticket = c->d_tickets + pass,
    };
    size_t shared = layout_of(opt->block, opt->kpt, width).bytes;
    onesweep_pass<<<c->tiles, opt->block, shared>>>(a);
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
        .counts = c->d_starts,
    };
    all_pass_histogram<<<c->histogram_blocks, 256, passes * bins * sizeof(uint32_t)>>>(h);
    CUDA_CHECK_LAUNCH();
    digit_starts<<<1, bins < 32 ? 32 : bins>>>(c->d_starts, opt->bits, passes, c->n, opt->no_skip,
                                               c->d_plan);
    CUDA_CHECK_LAUNCH();
    step_timer_mark(&c->timer, 0, STEP_HISTOGRAM);
}

/* Beyond 48 KB a kernel must ask for its shared memory: the pass kernel, for
 * the tile it runs. */
static void allow_shared_memory(const sort_context *c)
{
    const sort_options *opt = c->opt;
    const int shared = (int)layout_of(opt->block, opt->kpt, opt->bits).bytes;
    CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
}

/* The histogram's grid: 4 blocks a multiprocessor. */
static void histogram_grids(sort_context *c)
{
    int multiprocessors = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, c->device));
    c->histogram_blocks = 4 * multiprocessors;
}

/* The sort's buffers on the GPU it runs on (filled with garbage where opt
 * asks: the tests), and its tiles' shape. */
static void context_create(sort_context *c, size_t n, const sort_options *opt)
{
    memset(c, 0, sizeof *c);
    c->opt = opt;
    c->n = n;
    CUDA_CHECK(cudaGetDevice(&c->device));
    c->tiles = tiles_for(n, opt->block, opt->kpt);
    size_t table = c->tiles << opt->bits;
    c->d_starts = (uint32_t *)gpu_alloc((MAX_PASSES << opt->bits) * sizeof(uint32_t), opt->poison);
    c->d_lookback = (uint32_t *)gpu_alloc((2 * table + MAX_PASSES) * sizeof(uint32_t), opt->poison);
    c->d_tickets = c->d_lookback + 2 * table;
    c->d_plan = (int *)gpu_alloc((MAX_PASSES + 1) * sizeof(int), opt->poison);
    for (int i = 0; i < 2; i++)
        c->keys[i] = (uint32_t *)gpu_alloc(n * sizeof(uint32_t), opt->poison);
    allow_shared_memory(c);
    histogram_grids(c);
    step_timer_create(&c->timer);
}

/* Before every sort: zero counts, both look-back tables and the tickets. */
static void context_clear(sort_context *c)
{
    size_t table = c->tiles << c->opt->bits;
    CUDA_CHECK(cudaMemsetAsync(c->d_starts, 0, (MAX_PASSES << c->opt->bits) * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemsetAsync(c->d_lookback, 0, (2 * table + MAX_PASSES) * sizeof(uint32_t)));
}

static void context_destroy(sort_context *c)
{
    step_timer_destroy(&c->timer);
    for (int i = 0; i < 2; i++)
        gpu_free(c->keys[i]);
    gpu_free(c->d_plan);
    gpu_free(c->d_lookback);
    gpu_free(c->d_starts);
}

/* The sorted keys from the buffer the plan names, and which passes were
 * skipped. */
static void download(sort_context *c, int passes, uint32_t *keys_out, sort_report *rep)
{
    int plan[MAX_PASSES + 1]; /* each pass's plan, then the buffer of the sorted keys */
    CUDA_CHECK(cudaMemcpy(plan, c->d_plan, (passes + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    for (int pass = 0; pass < passes; pass++)
        if (plan[pass] == PLAN_SKIP)
            rep->skipped |= 1u << pass;
    const int sorted = plan[passes];
    CUDA_CHECK(cudaMemcpy(keys_out, c->keys[sorted], c->n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
}

int stage_sort(const uint32_t *keys_in, uint32_t *keys_out, size_t n, const sort_options *opt,
               sort_report *rep, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    int passes = passes_for_bits(opt->bits);
    report_clear(rep, passes);
    if (n == 0)
        return 0;

    /* setup: device buffers and the one upload */
    double t0 = host_time_ms();
    sort_context c;
    context_create(&c, n, opt);
    CUDA_CHECK(cudaMemcpy(c.keys[0], keys_in, n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    rep->setup_ms = host_time_ms() - t0;

    step_timer_start(&c.timer);
    context_clear(&c);
    histogram(&c, passes);
    for (int pass = 0; pass < passes; pass++)
        sort_pass(&c, pass);
    step_timer_collect(&c.timer, rep);

    t0 = host_time_ms();
    download(&c, passes, keys_out, rep);
    context_destroy(&c);
    rep->setup_ms += host_time_ms() - t0;
    return 0;
}
