/*
 * 08_multi_gpu/onesweep_lib.cu - stage 07's last step as a library on device arrays, for
 * stage 08 (onesweep_lib.h).  It includes the step's file, as 07's test hooks do, and runs
 * its kernels - the histogram at the memory's rate, the pass at three blocks a
 * multiprocessor with its one look-back table flipped pass by pass - on the caller's
 * buffers; sorts of more keys than one launch sorts take the large path below, with the
 * same kernels.
 */
#include "../07_onesweep/step16_wide_pairs.cu"
#include "onesweep_lib.h"

/* The library's digits are 07's default 8 bits. */
#define LIB_BINS 256
/* A plan's words: a pass's each, then the buffer of the result (digit_starts). */
#define PLAN_WORDS (MAX_PASSES + 1)
/* The plans of a sort: its own, then the four a chunked pass's launches read (chunk_plans). */
#define LIB_PLANS 5

struct os_sorter {
    sort_options opt;   /* stage 07's defaults: 8-bit digits, 512 threads, 16 keys a thread */
    size_t cap;
    int *h_result_in_b; /* pinned: the last sort's plan says where its result is */
    uint32_t *d_starts; /* MAX_PASSES x LIB_BINS counts, then where each run starts */
    uint32_t *d_tickets; /* a pass's tile counter each, just after the counts */
    uint32_t *d_lookback; /* the one look-back table: tiles_cap x LIB_BINS words */
    int *d_plans;       /* LIB_PLANS x PLAN_WORDS */
    int histogram_blocks; /* the general histogram's grid: 4 a multiprocessor */
    int copy_blocks;      /* the least grid of the lane copies' histogram */
    /* the large path (below) */
    size_t chunk_keys;  /* the most keys of one launch: whole tiles, within 07's 2^30 - 1 */
    size_t wide_keys;   /* the most keys of a chunked sort: every place within 32 bits */
    size_t max_chunks;
    size_t tiles_cap;   /* the tiles of the longest launch: the look-back table's rows */
    uint32_t *d_chunk_counts;  /* max_chunks x LIB_BINS: a cut's counts, a chunk's starts */
    uint32_t *d_chunk_tickets; /* MAX_PASSES x max_chunks */
    unsigned long long *d_cut; /* 2 x cut_blocks: each block's keys below and at the pivot */
    int cut_blocks;
    uint32_t *h_counts; /* pinned: max_chunks x LIB_BINS, a cut's counts */
};

/* ---- more keys than one 07 sort: the large path ------------------------------------------
 *
 * 07's look-back words count at most 2^30 - 1 keys, and its counts, starts and places are
 * 32-bit.  A sort of more keys runs in one of two ways, with 07's kernels unchanged:
 *
 *  - Chunked (up to 2^32 - 1 keys, so that every place fits 32 bits): each pass runs as
 *    one launch a chunk of at most 2^30 - 1 keys, the chunks in order.  Chunk c's keys of
 *    digit d start where chunk c - 1's end: its start plus its count, which the look-back
 *    of chunk c - 1's last tile holds.  The launches together write what one pass over all
 *    the keys would: the same stable pass, from the same histogram.  Every launch uses the
 *    one look-back table, so each must read the prefixes the launch before it left as not
 *    ready: the launches that run take turns at flipping their words, as 07's passes do,
 *    each by its own plan (chunk_plans).  Which buffer a pass reads (its plan: a pass where
 *    every key has one digit is skipped) is known only on the GPU; the host needs it to
 *    point a launch at its chunk of the buffer it reads, so each chunk is launched twice,
 *    once for either buffer, and the launch whose buffer the plan does not name returns at
 *    once, touching nothing.
 *
 *  - Cut (2^32 keys and more): the keys are cut into three groups by the digit of the
 *    range's top byte that holds the middle key - below it, equal to it, above it - with
 *    64-bit places; the groups below and above hold at most half the keys each, the one
 *    equal to it has one less byte to sort.  Each group is sorted the same way (chunked
 *    once it is small enough).  The host reads the top byte's counts to cut: a wait for
 *    the GPU, which only sorts of 2^32 keys and more pay.
 *
 * The library sorts u32 keys, ascending (07's defaults); the cut reads the key's bits as
 * they are.
 */

/* Where chunk c + 1's keys of each digit start in a pass's output: where chunk c's start,
 * plus chunk c's keys of the digit.  Its last tile published that count, with the counts
 * of the tiles before it, in the look-back table - 2^width words a tile, the pass's digits
 * (a flip touches only a word's top bit); read before the next launch writes the table. */
__global__ void next_chunk_starts(const uint32_t *table, size_t last_tile, int width,
                                  const uint32_t *starts, uint32_t *next)
{
    const uint32_t d = threadIdx.x, bins = 1u << width;
    if (d < bins)
        next[d] = starts[d] + (table[last_tile * bins + d] & LOOKBACK_COUNT);
}

/* The plan as launch (from, parity) of a chunked pass sees it: the pass itself where it
 * reads buffer `from`, a skipped pass where it reads the other, and its look-back words
 * flipped by the launch's parity.  Launch c of pass p is the (r x chunks + c)-th launch
 * that runs, r the passes that ran before p: its parity is c's where the chunks are even,
 * else c's flipped where r is odd - PLAN_FLIPPED, digit_starts's parity of the pass. */
__global__ void chunk_plans(const int *plan, int passes, int chunks_odd, int *launch_plans)
{
    for (int p = threadIdx.x; p < passes; p += blockDim.x)
        for (int from = 0; from < 2; from++)
            for (int parity = 0; parity < 2; parity++) {
                const int own = plan[p];
                const int flip = chunks_odd ? parity ^ ((own & PLAN_FLIPPED) != 0) : parity;
                launch_plans[(2 * from + parity) * PLAN_WORDS + p] =
                    own == PLAN_SKIP || (own & 1) != from ? PLAN_SKIP
                                                          : (own & ~PLAN_FLIPPED) | (flip ? PLAN_FLIPPED : 0);
            }
}

/* After a pass that ran, where its last chunk had fewer tiles than the others: the words of
 * the tiles it did not reach - the chunk before it wrote them, with the other parity - are
 * flipped as if the last chunk had written them, so that the next pass's first launch reads
 * them as not ready too.  (Only a sort's last pass may have narrower digits, and so fewer
 * words a tile: no pass reads the table after it.) */
__global__ void flip_tail(const int *plan, int pass, uint32_t *words, size_t count)
{
    if (plan[pass] == PLAN_SKIP)
        return;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        words[i] ^= LOOKBACK_FLIP;
}

/* counts[d] += the sum of rows[c][d] over the chunks c (a row of LIB_BINS a chunk). */
__global__ void add_chunk_rows(const uint32_t *rows, int chunks, uint32_t *counts)
{
    uint32_t sum = 0;
    for (int c = 0; c < chunks; c++)
        sum += rows[(size_t)c * LIB_BINS + threadIdx.x];
    counts[threadIdx.x] += sum;
}

/* Copies from to to where *flag == when; otherwise every thread returns at once. */
__global__ void copy_if_flag(const int *flag, int when, const uint32_t *from, uint32_t *to, size_t n)
{
    if (*flag != when)
        return;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        to[i] = from[i];
}

/* The digit a cut reads: bits shift .. shift + width of the key (mask: width ones). */
__device__ __forceinline__ uint32_t top_digit(uint32_t key, int shift, uint32_t mask)
{
    return (key >> shift) & mask;
}

/* A block reads its slice a round at a time, CUT_KPT keys a thread, warp-striped as 07's
 * tiles are (warp w holds a run of 32 x CUT_KPT keys, lane l its keys l, l + 32, ...), so
 * that each thread has CUT_KPT loads in flight and each load of a warp is 32 neighbours. */
#define CUT_KPT 8

__device__ __forceinline__ size_t cut_first_key(size_t round)
{
    return round + (size_t)(threadIdx.x / 32) * 32 * CUT_KPT + threadIdx.x % 32;
}

/* The cut, first: in block b's slice, the keys below the pivot digit and equal to it. */
__global__ void cut_count(const uint32_t *keys, size_t n, size_t slice, int shift, uint32_t mask,
                          uint32_t pivot, unsigned long long *below, unsigned long long *equal)
{
    __shared__ unsigned long long s_below, s_equal;
    if (threadIdx.x == 0)
        s_below = s_equal = 0;
    __syncthreads();
    size_t first = blockIdx.x * slice, last = first + slice < n ? first + slice : n;
    unsigned long long lo = 0, eq = 0;
    for (size_t round = first; round < last; round += (size_t)blockDim.x * CUT_KPT) {
        size_t i = cut_first_key(round);
        uint32_t key[CUT_KPT];
#pragma unroll
        for (int j = 0; j < CUT_KPT; j++)
            key[j] = i + 32 * j < last ? keys[i + 32 * j] : 0;
#pragma unroll
        for (int j = 0; j < CUT_KPT; j++) {
            uint32_t d = top_digit(key[j], shift, mask);
            lo += i + 32 * j < last && d < pivot;
            eq += i + 32 * j < last && d == pivot;
        }
    }
    atomicAdd(&s_below, lo);
    atomicAdd(&s_equal, eq);
    __syncthreads();
    if (threadIdx.x == 0) {
        below[blockIdx.x] = s_below;
        equal[blockIdx.x] = s_equal;
    }
}

/* One thread: each block's counts become the counts of the blocks before it. */
__global__ void cut_scan(unsigned long long *below, unsigned long long *equal, int blocks)
{
    unsigned long long b = 0, e = 0;
    for (int i = 0; i < blocks; i++) {
        unsigned long long nb = below[i], ne = equal[i];
        below[i] = b;
        equal[i] = e;
        b += nb;
        e += ne;
    }
}

/* Each block writes its slice in order, a round at a time: a key below the pivot goes
 * after the keys below it that come before it, one equal to it after all those below and
 * the equal ones before it, one above it after all those and the ones above before it.
 * Its place among its round comes from ballots (a warp's keys in order: j, then lane) and
 * each warp's counts. */
__global__ void cut_scatter(const uint32_t *keys, uint32_t *out, size_t n, size_t slice, int shift,
                            uint32_t mask, uint32_t pivot, const unsigned long long *below_before,
                            const unsigned long long *equal_before, unsigned long long below_all,
                            unsigned long long equal_all)
{
    __shared__ unsigned s_below[32], s_equal[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, lanes_below = (1u << lane) - 1;
    size_t first = blockIdx.x * slice, last = first + slice < n ? first + slice : n;
    unsigned long long lo = below_before[blockIdx.x], eq = equal_before[blockIdx.x];
    for (size_t round = first; round < last; round += (size_t)blockDim.x * CUT_KPT) {
        size_t i = cut_first_key(round);
        uint32_t key[CUT_KPT];
        unsigned b_votes[CUT_KPT], e_votes[CUT_KPT], b_warp = 0, e_warp = 0;
#pragma unroll
        for (int j = 0; j < CUT_KPT; j++)
            key[j] = i + 32 * j < last ? keys[i + 32 * j] : 0;
#pragma unroll
        for (int j = 0; j < CUT_KPT; j++) {
            uint32_t d = top_digit(key[j], shift, mask);
            int here = i + 32 * j < last;
            b_votes[j] = __ballot_sync(0xFFFFFFFFu, here && d < pivot);
            e_votes[j] = __ballot_sync(0xFFFFFFFFu, here && d == pivot);
            b_warp += __popc(b_votes[j]);
            e_warp += __popc(e_votes[j]);
        }
        if (lane == 0) {
            s_below[warp] = b_warp;
            s_equal[warp] = e_warp;
        }
        __syncthreads();
        unsigned long long b_at = lo, e_at = eq; /* before this warp's keys */
        unsigned b_round = 0, e_round = 0;
        for (unsigned w = 0; w < blockDim.x / 32; w++) {
            b_at += w < warp ? s_below[w] : 0;
            e_at += w < warp ? s_equal[w] : 0;
            b_round += s_below[w];
            e_round += s_equal[w];
        }
#pragma unroll
        for (int j = 0; j < CUT_KPT; j++) {
            size_t at = i + 32 * j;
            unsigned long long b_mine = b_at + __popc(b_votes[j] & lanes_below);
            unsigned long long e_mine = e_at + __popc(e_votes[j] & lanes_below);
            if (b_votes[j] >> lane & 1)
                out[b_mine] = key[j];
            else if (e_votes[j] >> lane & 1)
                out[below_all + e_mine] = key[j];
            else if (at < last) /* keys above before it: those before it, less the others */
                out[below_all + equal_all + (at - b_mine - e_mine)] = key[j];
            b_at += __popc(b_votes[j]);
            e_at += __popc(e_votes[j]);
        }
        lo += b_round;
        eq += e_round;
        __syncthreads(); /* the counts are read before the next round writes them */
    }
}

static int os_forced_set;
static size_t os_forced_chunk, os_forced_wide;

extern "C" void os_force_limits(size_t chunk_keys, size_t wide_keys)
{
    os_forced_set = chunk_keys || wide_keys;
    os_forced_chunk = chunk_keys;
    os_forced_wide = wide_keys;
}

static size_t tile_keys(const os_sorter *s) { return (size_t)s->opt.block * s->opt.kpt; }

/* ---- 07's steps on the caller's buffers ----------------------------------------------- */

/* The digit counts of n keys by [begin, end), one row of 2^bits a pass, added into counts
 * (zeroed by the caller), and the first table_words of the look-back table cleared on the
 * way, as 07's histogram clears it.  07's histogram kernels read four keys at once from a
 * 16-byte boundary: the keys before the first boundary are counted on their own.  Eight-bit
 * digits of all 32 bits go to the kernel of lane copies, the others to the general one. */
static void count_digits(os_sorter *s, const uint32_t *keys, size_t n, int passes, int bits,
                         int begin, int end, uint32_t *counts, size_t table_words)
{
    size_t lead = (16 - (uintptr_t)keys % 16) % 16 / sizeof(uint32_t);
    lead = lead < n ? lead : n;
    histogram_args h = {
        .keys = keys,
        .n = lead,
        .bits = bits,
        .passes = passes,
        .begin = begin,
        .end = end,
        .order = order_of(&s->opt),
        .counts = counts,
        .lookback = s->d_lookback,
        .lookback_words = n > lead ? 0 : table_words,
    };
    const size_t shared = (size_t)passes * ((size_t)1 << bits) * sizeof(uint32_t);
    if (lead) {
        all_pass_histogram<<<1, 256, shared>>>(h);
        CUDA_CHECK_LAUNCH();
    }
    if (n == lead)
        return;
    h.keys = keys + lead;
    h.n = n - lead;
    h.lookback_words = table_words;
    if (bits == 8 && passes == 4 && begin == 0 && end == 32) {
        /* at most COPY_KEYS_A_THREAD keys a thread: more blocks where n asks for them */
        size_t keys_a_block = (size_t)COPY_BLOCK * COPY_KEYS_A_THREAD;
        size_t blocks = (h.n + keys_a_block - 1) / keys_a_block, least = (size_t)s->copy_blocks;
        all_pass_histogram_8x4<<<blocks > least ? blocks : least, COPY_BLOCK, sizeof(lane_copies)>>>(h);
    } else
        all_pass_histogram<<<s->histogram_blocks, 256, shared>>>(h);
    CUDA_CHECK_LAUNCH();
}

/* One launch of pass `pass` over n keys, reading keys[from] and writing keys[1 - from],
 * `from` as plan[pass] says (a skipped plan: the launch returns at once). */
static void launch_pass(os_sorter *s, uint32_t *keys0, uint32_t *keys1, size_t n, int pass,
                        int shift, int width, const int *plan, const uint32_t *starts,
                        uint32_t *ticket)
{
    const pass_args a = {
        .keys = {keys0, keys1},
        .values = {NULL, NULL},
        .n = n,
        .pass = pass,
        .shift = shift,
        .width = width,
        .kpt = s->opt.kpt,
        .order = order_of(&s->opt),
        .plan = plan,
        .starts = starts,
        .lookback = s->d_lookback,
        .ticket = ticket,
    };
    const size_t shared = layout_of(s->opt.block, s->opt.kpt, width, KEYS_ALONE).bytes;
    kernel_for(&s->opt, width, KEYS_ALONE)<<<tiles_for(n, s->opt.block, s->opt.kpt), s->opt.block, shared>>>(a);
    CUDA_CHECK_LAUNCH();
}

/* The counts and the tickets of a sort, zeroed: they sit side by side. */
static void clear_counts(os_sorter *s)
{
    CUDA_CHECK(cudaMemsetAsync(s->d_starts, 0, (MAX_PASSES * LIB_BINS + MAX_PASSES) * sizeof(uint32_t)));
}

/* Issues the passes of one sort of n <= chunk_keys keys, as 07's step sorts: the histogram
 * (which clears the table), the plan, a launch a pass.  Returns the number of passes. */
static int issue_sort(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin_bit,
                      int end_bit)
{
    sort_options opt = s->opt;
    opt.begin_bit = begin_bit;
    opt.end_bit = end_bit;
    const int passes = passes_in_range(&opt), bits = opt.bits;
    clear_counts(s);
    count_digits(s, d_a, n, passes, bits, begin_bit, end_bit, s->d_starts,
                 tiles_for(n, opt.block, opt.kpt) * LIB_BINS);
    digit_starts<<<1, LIB_BINS>>>(s->d_starts, bits, passes, n, 0, s->d_plans);
    CUDA_CHECK_LAUNCH();
    for (int pass = 0; pass < passes; pass++) {
        int shift = begin_bit + pass * bits;
        int width = end_bit - shift < bits ? end_bit - shift : bits;
        launch_pass(s, d_a, d_b, n, pass, shift, width, s->d_plans, s->d_starts + pass * LIB_BINS,
                    s->d_tickets + pass);
    }
    return passes;
}

/* Sorts n <= wide_keys keys by bits [begin, end), chunk by chunk, between a and b (either
 * may start anywhere); the plan, on the GPU, then says which holds the result: plan[passes]
 * is 1 where it is b.  Returns the number of passes. */
static int sort_chunked(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin, int end)
{
    sort_options opt = s->opt;
    opt.begin_bit = begin;
    opt.end_bit = end;
    const int passes = passes_in_range(&opt), bits = opt.bits;
    const size_t chunk = s->chunk_keys, chunks = (n + chunk - 1) / chunk, tile = tile_keys(s);
    /* the tiles of a whole chunk (the table's rows hold them) and of the last chunk */
    const size_t chunk_tiles = chunk / tile < s->tiles_cap ? chunk / tile : s->tiles_cap;
    const size_t last_tiles = (n - (chunks - 1) * chunk + tile - 1) / tile;
    int *plan = s->d_plans, *launch_plans = s->d_plans + PLAN_WORDS;
    /* the digits' counts do not depend on the keys' order: one histogram for every pass;
     * the table zero where the first launch that runs reads it */
    clear_counts(s);
    CUDA_CHECK(cudaMemsetAsync(s->d_chunk_tickets, 0, chunks * MAX_PASSES * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemsetAsync(s->d_lookback, 0, chunk_tiles * LIB_BINS * sizeof(uint32_t)));
    count_digits(s, d_a, n, passes, bits, begin, end, s->d_starts, 0);
    digit_starts<<<1, LIB_BINS>>>(s->d_starts, bits, passes, n, 0, plan);
    CUDA_CHECK_LAUNCH();
    chunk_plans<<<1, 32>>>(plan, passes, (int)(chunks % 2), launch_plans);
    CUDA_CHECK_LAUNCH();
    for (int pass = 0; pass < passes; pass++) {
        const int shift = begin + pass * bits, width = end - shift < bits ? end - shift : bits;
        const uint32_t *starts = s->d_starts + pass * LIB_BINS; /* chunk 0's: the digits' */
        for (size_t c = 0; c < chunks; c++) {
            const size_t first = c * chunk, keys = n - first < chunk ? n - first : chunk;
            uint32_t *ticket = s->d_chunk_tickets + pass * chunks + c;
            for (int from = 0; from < 2; from++) { /* the launch whose buffer the pass does not read returns */
                const int *sees = launch_plans + (2 * from + (int)(c % 2)) * PLAN_WORDS;
                if (from)
                    launch_pass(s, d_a, d_b + first, keys, pass, shift, width, sees, starts, ticket);
                else
                    launch_pass(s, d_a + first, d_b, keys, pass, shift, width, sees, starts, ticket);
            }
            if (c + 1 < chunks) {
                uint32_t *after = s->d_chunk_counts + (c + 1) * LIB_BINS;
                next_chunk_starts<<<1, LIB_BINS>>>(s->d_lookback, (keys + tile - 1) / tile - 1, width, starts,
                                                   after);
                CUDA_CHECK_LAUNCH();
                starts = after;
            }
        }
        if (last_tiles < chunk_tiles) {
            const size_t words = (chunk_tiles - last_tiles) * LIB_BINS, blocks = (words + 255) / 256;
            uint32_t *tail = s->d_lookback + last_tiles * LIB_BINS;
            flip_tail<<<blocks < 4096 ? (unsigned)blocks : 4096u, 256>>>(plan, pass, tail, words);
            CUDA_CHECK_LAUNCH();
        }
    }
    return passes;
}

/* The chunked sort's result, moved where it is wanted: into a (want_a) or b. */
static void chunked_into(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin, int end, int want_a)
{
    int passes = sort_chunked(s, d_a, d_b, n, begin, end);
    size_t blocks = (n + 255) / 256;
    copy_if_flag<<<blocks < 4096 ? (unsigned)blocks : 4096u, 256>>>(s->d_plans + passes, want_a ? 1 : 0,
                                                                    want_a ? d_b : d_a, want_a ? d_a : d_b, n);
    CUDA_CHECK_LAUNCH();
}

/* Sorts n keys of a by bits [begin, end), the result into a (want_a) or b: chunked where
 * n fits, else cut in three by the top byte's middle digit and each group sorted alike. */
static void sort_cut(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin, int end, int want_a)
{
    if (n == 0)
        return;
    if (end <= begin) { /* no bits left: the keys are equal in the range, sorted as they are */
        if (!want_a)
            CUDA_CHECK(cudaMemcpyAsync(d_b, d_a, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, 0));
        return;
    }
    if (n <= s->wide_keys) {
        chunked_into(s, d_a, d_b, n, begin, end, want_a);
        return;
    }
    /* the top byte's counts, 64-bit on the host: a chunk's fit 32 bits */
    int shift = end - 8 > begin ? end - 8 : begin, width = end - shift;
    const size_t chunk = s->chunk_keys, chunks = (n + chunk - 1) / chunk;
    CUDA_CHECK(cudaMemsetAsync(s->d_chunk_counts, 0, chunks * LIB_BINS * sizeof(uint32_t)));
    for (size_t c = 0; c < chunks; c++) {
        size_t first = c * chunk, keys = n - first < chunk ? n - first : chunk;
        count_digits(s, d_a + first, keys, 1, width, shift, end, s->d_chunk_counts + c * LIB_BINS, 0);
    }
    CUDA_CHECK(cudaMemcpy(s->h_counts, s->d_chunk_counts, chunks * LIB_BINS * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
    unsigned long long count[LIB_BINS] = {0}, below = 0;
    for (size_t c = 0; c < chunks; c++)
        for (int d = 0; d < LIB_BINS; d++)
            count[d] += s->h_counts[c * LIB_BINS + d];
    uint32_t pivot = 0; /* the digit of the middle key */
    while (pivot + 1 < (1u << width) && below + count[pivot] <= n / 2)
        below += count[pivot++];
    unsigned long long equal = count[pivot], above = n - below - equal;

    /* the cut, a into b: below, equal, above */
    const size_t round = 1024 * CUT_KPT;
    size_t slice = (n + s->cut_blocks - 1) / s->cut_blocks;
    slice = (slice + round - 1) / round * round;
    int blocks = (int)((n + slice - 1) / slice);
    unsigned long long *b_before = s->d_cut, *e_before = s->d_cut + s->cut_blocks;
    uint32_t mask = (uint32_t)(((uint64_t)1 << width) - 1);
    cut_count<<<blocks, 1024>>>(d_a, n, slice, shift, mask, pivot, b_before, e_before);
    CUDA_CHECK_LAUNCH();
    cut_scan<<<1, 1>>>(b_before, e_before, blocks);
    CUDA_CHECK_LAUNCH();
    cut_scatter<<<blocks, 1024>>>(d_a, d_b, n, slice, shift, mask, pivot, b_before, e_before, below, equal);
    CUDA_CHECK_LAUNCH();

    /* each group from b, its result where this sort's is wanted: its b is this a */
    sort_cut(s, d_b, d_a, below, begin, end, !want_a);
    sort_cut(s, d_b + below, d_a + below, equal, begin, shift, !want_a);
    sort_cut(s, d_b + below + equal, d_a + below + equal, above, begin, end, !want_a);
}

/* ---- the library's calls ---------------------------------------------------------------- */

/* Beyond 48 KB a kernel must ask for its shared memory: the pass kernels the library
 * launches (the default shape's, and the general one for a narrower last pass) and the
 * lane copies' histogram; and the histograms' grids, as 07's sort sets them. */
static void prepare_kernels(os_sorter *s)
{
    const int shared = (int)layout_of(s->opt.block, s->opt.kpt, s->opt.bits, KEYS_ALONE).bytes;
    CUDA_CHECK(cudaFuncSetAttribute(kernel_for(&s->opt, s->opt.bits, KEYS_ALONE),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    CUDA_CHECK(cudaFuncSetAttribute(onesweep_pass<0, 0, 0, KEYS_ALONE>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    CUDA_CHECK(cudaFuncSetAttribute(all_pass_histogram_8x4, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)sizeof(lane_copies)));
    int device = 0, multiprocessors = 0, copies_a_multiprocessor = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    s->histogram_blocks = 4 * multiprocessors;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &copies_a_multiprocessor, all_pass_histogram_8x4, COPY_BLOCK, sizeof(lane_copies)));
    s->copy_blocks = multiprocessors * (copies_a_multiprocessor > 0 ? copies_a_multiprocessor : 1);
    s->cut_blocks = 2 * multiprocessors; /* blocks of 1,024 threads: two a multiprocessor, one wave */
}

extern "C" os_sorter *os_create(size_t cap)
{
    os_sorter *s = (os_sorter *)calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "onesweep_lib: out of host memory\n");
        exit(EXIT_FAILURE);
    }
    s->opt = STAGE.defaults;
    s->cap = cap ? cap : 1;
    size_t tile = tile_keys(s);
    s->chunk_keys = STAGE.max_keys / tile * tile;
    s->wide_keys = UINT32_MAX;
    if (os_forced_set) { /* tests: the large path on small inputs */
        size_t whole_tiles = os_forced_chunk / tile * tile;
        s->chunk_keys = whole_tiles > 0 ? whole_tiles : tile;
        s->wide_keys = os_forced_wide ? os_forced_wide : s->wide_keys;
    }
    size_t most = s->cap > s->wide_keys ? s->cap : s->wide_keys;
    s->max_chunks = (most + s->chunk_keys - 1) / s->chunk_keys;
    size_t launch_keys = s->cap < s->chunk_keys ? s->cap : s->chunk_keys;
    s->tiles_cap = tiles_for(launch_keys, s->opt.block, s->opt.kpt);
    s->d_starts = (uint32_t *)gpu_alloc((MAX_PASSES * LIB_BINS + MAX_PASSES) * sizeof(uint32_t), 1);
    s->d_tickets = s->d_starts + MAX_PASSES * LIB_BINS;
    s->d_lookback = (uint32_t *)gpu_alloc(s->tiles_cap * LIB_BINS * sizeof(uint32_t), 1);
    s->d_plans = (int *)gpu_alloc(LIB_PLANS * PLAN_WORDS * sizeof(int), 1);
    s->d_chunk_counts = (uint32_t *)gpu_alloc(s->max_chunks * LIB_BINS * sizeof(uint32_t), 1);
    s->d_chunk_tickets = (uint32_t *)gpu_alloc(s->max_chunks * MAX_PASSES * sizeof(uint32_t), 1);
    prepare_kernels(s);
    s->d_cut = (unsigned long long *)gpu_alloc(2 * (size_t)s->cut_blocks * sizeof(unsigned long long), 1);
    CUDA_CHECK(cudaMallocHost((void **)&s->h_result_in_b, sizeof(int)));
    CUDA_CHECK(cudaMallocHost((void **)&s->h_counts, s->max_chunks * LIB_BINS * sizeof(uint32_t)));
    return s;
}

extern "C" void os_destroy(os_sorter *s)
{
    if (!s)
        return;
    gpu_free(s->d_cut);
    gpu_free(s->d_chunk_tickets);
    gpu_free(s->d_chunk_counts);
    gpu_free(s->d_plans);
    gpu_free(s->d_lookback);
    gpu_free(s->d_starts);
    CUDA_CHECK(cudaFreeHost(s->h_counts));
    CUDA_CHECK(cudaFreeHost(s->h_result_in_b));
    free(s);
}

extern "C" void os_top_digit_counts(os_sorter *s, const uint32_t *d_keys, size_t n,
                                    uint32_t *d_counts)
{
    if (n == 0)
        return;
    const int bits = 8;
    if (n > UINT32_MAX) {
        /* a 32-bit counter holds any digit's count unless one digit has 2^32 keys or more:
         * counted by chunks, checked on the host, then added */
        const size_t chunk = s->chunk_keys, chunks = (n + chunk - 1) / chunk;
        CUDA_CHECK(cudaMemsetAsync(s->d_chunk_counts, 0, chunks * LIB_BINS * sizeof(uint32_t)));
        for (size_t c = 0; c < chunks; c++) {
            size_t first = c * chunk, keys = n - first < chunk ? n - first : chunk;
            count_digits(s, d_keys + first, keys, 1, bits, 32 - bits, 32, s->d_chunk_counts + c * LIB_BINS, 0);
        }
        CUDA_CHECK(cudaMemcpy(s->h_counts, s->d_chunk_counts, chunks * LIB_BINS * sizeof(uint32_t),
                              cudaMemcpyDeviceToHost));
        for (int d = 0; d < LIB_BINS; d++) {
            unsigned long long count = 0;
            for (size_t c = 0; c < chunks; c++)
                count += s->h_counts[c * LIB_BINS + d];
            if (count > UINT32_MAX) {
                fprintf(stderr, "onesweep_lib: %llu keys of one GPU have top digit %d, more than a "
                        "32-bit count holds\n", count, d);
                exit(EXIT_FAILURE);
            }
        }
        add_chunk_rows<<<1, LIB_BINS>>>(s->d_chunk_counts, (int)chunks, d_counts);
        CUDA_CHECK_LAUNCH();
        return;
    }
    count_digits(s, d_keys, n, 1, bits, 32 - bits, 32, d_counts, 0);
}

static void check_cap(const os_sorter *s, size_t n)
{
    if (n > s->cap) {
        fprintf(stderr, "onesweep_lib: %zu keys, more than the %zu this sorter was made for\n",
                n, s->cap);
        exit(EXIT_FAILURE);
    }
}

extern "C" void os_sort(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin_bit,
                        int end_bit)
{
    *s->h_result_in_b = 0;
    if (n == 0)
        return;
    check_cap(s, n);
    if (n > s->wide_keys) { /* the cut waits for the GPU: the host knows where the result is */
        sort_cut(s, d_a, d_b, n, begin_bit, end_bit, 0);
        *s->h_result_in_b = 1;
        return;
    }
    int passes = n <= s->chunk_keys ? issue_sort(s, d_a, d_b, n, begin_bit, end_bit)
                                    : sort_chunked(s, d_a, d_b, n, begin_bit, end_bit);
    /* the plan's last word, read by the host once the GPU is done: no wait here, so
     * the caller can start the next GPU's sort at once */
    CUDA_CHECK(cudaMemcpyAsync(s->h_result_in_b, s->d_plans + passes, sizeof(int),
                               cudaMemcpyDeviceToHost, 0));
}

extern "C" uint32_t *os_sorted(const os_sorter *s, uint32_t *d_a, uint32_t *d_b)
{
    return *s->h_result_in_b ? d_b : d_a;
}

extern "C" void os_sort_into_b(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n,
                               int begin_bit, int end_bit)
{
    if (n == 0)
        return;
    check_cap(s, n);
    if (n > s->chunk_keys) {
        sort_cut(s, d_a, d_b, n, begin_bit, end_bit, 0); /* chunked where n fits */
        return;
    }
    int passes = issue_sort(s, d_a, d_b, n, begin_bit, end_bit);
    size_t blocks = (n + 255) / 256;
    copy_if_flag<<<blocks < 4096 ? (unsigned)blocks : 4096u, 256>>>(s->d_plans + passes, 0, d_a, d_b, n);
    CUDA_CHECK_LAUNCH();
}
