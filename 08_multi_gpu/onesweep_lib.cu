/*
 * 08_multi_gpu/onesweep_lib.cu - the onesweep sort of onesweep_kernels.cu, used as a
 * library by stage 08 (onesweep_lib.h): it includes the kernels' file, as stage 07's test
 * hooks include a step, so that stage 08 runs them on device arrays; sorts of more keys
 * than one launch sorts take the large path below, still with those kernels.
 */
#include "onesweep_kernels.cu"
#include "onesweep_lib.h"

/* The library's digits are 07's default 8 bits. */
#define LIB_BINS 256

struct os_sorter {
    sort_context c;
    sort_options opt; /* stage 07's defaults: 8-bit digits, 512 threads, 16 keys a thread */
    sort_report rep;
    size_t cap;
    int *h_result_in_b; /* pinned: the last sort's plan says where its result is */
    /* the large path (below) */
    size_t chunk_keys;  /* the most keys of one launch: whole tiles, within 07's 2^30 - 1 */
    size_t wide_keys;   /* the most keys of a chunked sort: every place within 32 bits */
    size_t max_chunks;
    size_t tiles_cap;   /* the tiles each of the context's two look-back tables holds */
    size_t dirty[2];    /* a look-back table's words are zero from this tile on ... */
    size_t zero_to[2];  /* ... and before this one */
    uint32_t *d_chunk_counts;  /* max_chunks x LIB_BINS: a cut's counts, a chunk's starts */
    uint32_t *d_chunk_tickets; /* MAX_PASSES x max_chunks */
    int *d_plans;       /* the plan, then as a launch reading buffer 0 and buffer 1 sees it */
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
 *    the keys would: the same stable pass, from the same histogram.  Which buffer a pass
 *    reads (its plan: a pass where every key has one digit is skipped) is known only on the
 *    GPU; the host needs it to point a launch at its chunk of the buffer it reads, so each
 *    chunk is launched twice, once for either buffer, and the launch whose buffer the plan
 *    does not name returns at once.
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
 * of the tiles before it, in the pass's look-back table; read before the next launch,
 * which clears that table. */
__global__ void next_chunk_starts(const uint32_t *table, size_t last_tile, const uint32_t *starts,
                                  uint32_t *next)
{
    const uint32_t d = threadIdx.x;
    next[d] = starts[d] + (table[last_tile * LIB_BINS + d] & LOOKBACK_COUNT);
}

/* plan_reading_b (b = 0, 1): the plan as a launch pointed at buffer b's chunk sees it - the
 * pass itself where the pass reads buffer b, a skipped pass where it reads the other. */
__global__ void plans_by_buffer(const int *plan, int passes, int *plan_reading_0, int *plan_reading_1)
{
    for (int p = threadIdx.x; p < passes; p += blockDim.x) {
        int skip = plan[p] == PLAN_SKIP;
        plan_reading_0[p] = skip || (plan[p] & 1) ? PLAN_SKIP : plan[p];
        plan_reading_1[p] = skip || !(plan[p] & 1) ? PLAN_SKIP : plan[p];
    }
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

/* Counts of the digits [begin, end) of n keys, one row of 2^bits a pass (counts zeroed by
 * the caller).  07's histogram reads four keys at once from a 16-byte boundary: the keys
 * before the first boundary are counted on their own. */
static void count_any_start(os_sorter *s, const uint32_t *keys, size_t n, int passes, int bits,
                            int begin, int end, uint32_t *counts)
{
    size_t lead = (16 - (uintptr_t)keys % 16) % 16 / sizeof(uint32_t);
    lead = lead < n ? lead : n;
    size_t shared = (size_t)passes * ((size_t)1 << bits) * sizeof(uint32_t);
    if (lead) {
        all_pass_histogram<<<1, 256, shared>>>(keys, lead, bits, passes, begin, end, order_of(&s->opt), counts,
                                                NULL, 0);
        CUDA_CHECK_LAUNCH();
    }
    if (n > lead) {
        all_pass_histogram<<<s->c.histogram_blocks, 256, shared>>>(keys + lead, n - lead, bits, passes, begin,
                                                                     end, order_of(&s->opt), counts, NULL, 0);
        CUDA_CHECK_LAUNCH();
    }
}

/* Before launch k of a chunked sort on look-back table t: the tiles it uses zeroed (the
 * launch before cleared as many tiles as it had; a longer one needs the rest). */
static uint32_t *table_ready(os_sorter *s, int t, size_t tiles)
{
    uint32_t *table = s->c.d_lookback + (size_t)t * LIB_BINS * s->tiles_cap;
    size_t to = tiles < s->dirty[t] ? tiles : s->dirty[t];
    if (to > s->zero_to[t])
        CUDA_CHECK(cudaMemsetAsync(table + s->zero_to[t] * LIB_BINS, 0,
                                   (to - s->zero_to[t]) * LIB_BINS * sizeof(uint32_t)));
    return table;
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
    int *plan = s->d_plans, *reading[2] = {s->d_plans + MAX_PASSES + 1, s->d_plans + 2 * (MAX_PASSES + 1)};
    /* the digits' counts do not depend on the keys' order: one histogram for every pass */
    CUDA_CHECK(cudaMemsetAsync(s->c.d_starts, 0, MAX_PASSES * LIB_BINS * sizeof(uint32_t)));
    CUDA_CHECK(cudaMemsetAsync(s->d_chunk_tickets, 0, chunks * MAX_PASSES * sizeof(uint32_t)));
    count_any_start(s, d_a, n, passes, bits, begin, end, s->c.d_starts);
    digit_starts<<<1, LIB_BINS>>>(s->c.d_starts, bits, passes, n, 0, plan);
    CUDA_CHECK_LAUNCH();
    plans_by_buffer<<<1, 32>>>(plan, passes, reading[0], reading[1]);
    CUDA_CHECK_LAUNCH();
    for (int pass = 0; pass < passes; pass++) {
        int shift = begin + pass * bits;
        int width = end - shift < bits ? end - shift : bits;
        onesweep_kernel kernel = pass_kernel(&opt, width, 0);
        size_t shared = downsweep_shared_bytes(opt.block, opt.kpt, width);
        const uint32_t *starts = s->c.d_starts + pass * LIB_BINS; /* chunk 0's: the digits' */
        for (size_t c = 0; c < chunks; c++) {
            size_t first = c * chunk, keys = n - first < chunk ? n - first : chunk;
            size_t tiles = (keys + tile - 1) / tile;
            int t = (int)((pass * chunks + c) % 2);
            uint32_t *table = table_ready(s, t, tiles), *next = s->c.d_lookback + (size_t)(1 - t) * LIB_BINS * s->tiles_cap;
            for (int from = 0; from < 2; from++) { /* the launch whose buffer the pass does not read returns */
                uint32_t *buffer0 = from ? d_a : d_a + first, *buffer1 = from ? d_b + first : d_b;
                kernel<<<tiles, opt.block, shared>>>(buffer0, buffer1, NULL, NULL, keys, pass, shift, width,
                                                     order_of(&opt), opt.kpt, reading[from], starts, table, next,
                                                     s->d_chunk_tickets + pass * chunks + c);
                CUDA_CHECK_LAUNCH();
            }
            if (c + 1 < chunks) {
                uint32_t *after = s->d_chunk_counts + (c + 1) * LIB_BINS;
                next_chunk_starts<<<1, LIB_BINS>>>(table, tiles - 1, starts, after);
                CUDA_CHECK_LAUNCH();
                starts = after;
            }
            /* this table: its tiles' words written; the next: zero over this launch's tiles */
            s->dirty[t] = tiles > s->dirty[t] ? tiles : s->dirty[t];
            s->zero_to[t] = 0;
            s->zero_to[1 - t] = tiles > s->zero_to[1 - t] ? tiles : s->zero_to[1 - t];
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
        count_any_start(s, d_a + first, keys, 1, width, shift, end, s->d_chunk_counts + c * LIB_BINS);
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
    /* one 07 context, for a chunk: the small path's sorts and the chunks' launches share it */
    size_t context_keys = s->cap < s->chunk_keys ? s->cap : s->chunk_keys;
    report_clear(&s->rep, passes_for_bits(s->opt.bits));
    context_create(&s->c, context_keys, &s->opt, &s->rep);
    s->tiles_cap = tiles_for(context_keys, &s->opt);
    s->dirty[0] = s->dirty[1] = s->tiles_cap; /* unknown: made from garbage */
    s->d_chunk_counts = (uint32_t *)gpu_alloc(s->max_chunks * LIB_BINS * sizeof(uint32_t), 1);
    s->d_chunk_tickets = (uint32_t *)gpu_alloc(s->max_chunks * MAX_PASSES * sizeof(uint32_t), 1);
    s->d_plans = (int *)gpu_alloc(3 * (MAX_PASSES + 1) * sizeof(int), 1);
    int sms = 0, device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    s->cut_blocks = 2 * sms; /* blocks of 1,024 threads: two a multiprocessor, one wave */
    s->d_cut = (unsigned long long *)gpu_alloc(2 * (size_t)s->cut_blocks * sizeof(unsigned long long), 1);
    CUDA_CHECK(cudaMallocHost((void **)&s->h_result_in_b, sizeof(int)));
    CUDA_CHECK(cudaMallocHost((void **)&s->h_counts, s->max_chunks * LIB_BINS * sizeof(uint32_t)));
    return s;
}

extern "C" void os_destroy(os_sorter *s)
{
    if (!s)
        return;
    context_destroy(&s->c);
    gpu_free(s->d_cut);
    gpu_free(s->d_plans);
    gpu_free(s->d_chunk_tickets);
    gpu_free(s->d_chunk_counts);
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
            count_any_start(s, d_keys + first, keys, 1, bits, 32 - bits, 32, s->d_chunk_counts + c * LIB_BINS);
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
    count_any_start(s, d_keys, n, 1, bits, 32 - bits, 32, d_counts);
}

/* Issues the passes of one sort; returns the number of passes (the plan's length). */
static int issue_sort(os_sorter *s, uint32_t *d_a, uint32_t *d_b, size_t n, int begin_bit,
                      int end_bit)
{
    sort_context *c = &s->c;
    s->dirty[0] = s->dirty[1] = s->tiles_cap; /* its tables lie where the chunks' do */
    s->zero_to[0] = s->zero_to[1] = 0;
    s->opt.begin_bit = begin_bit;
    s->opt.end_bit = end_bit;
    c->n = n;
    c->tiles = tiles_for(n, &s->opt);
    int passes = passes_in_range(&s->opt);
    step_timer_start(&c->timer);
    context_clear(c);
    /* 07 makes a context for each sort, its tickets right after look-back tables of its
     * own size; this one, made for cap keys, sorts fewer too, and context_clear zeroes
     * only the tables of n keys: the tickets further on are zeroed here */
    CUDA_CHECK(cudaMemsetAsync(c->d_tickets, 0, MAX_PASSES * sizeof(uint32_t)));
    histogram(c, d_a, passes);
    for (int pass = 0; pass < passes; pass++) {
        int shift = begin_bit + pass * s->opt.bits;
        int width = end_bit - shift < s->opt.bits ? end_bit - shift : s->opt.bits;
        sort_pass(c, d_a, d_b, NULL, NULL, pass, shift, width);
    }
    return passes;
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
    const int *plan = n <= s->chunk_keys ? s->c.d_plan : s->d_plans;
    /* the plan's last word, read by the host once the GPU is done: no wait here, so
     * the caller can start the next GPU's sort at once */
    CUDA_CHECK(cudaMemcpyAsync(s->h_result_in_b, plan + passes, sizeof(int),
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
    copy_if_flag<<<blocks < 4096 ? (unsigned)blocks : 4096u, 256>>>(s->c.d_plan + passes, 0, d_a, d_b, n);
    CUDA_CHECK_LAUNCH();
}
