/*
 * 08_multi_gpu/step4_overlap.c - step 08.4: the exchange in slices, each slice sorted
 * while the next one crosses.
 *
 * What changed since step 08.3 (the whole story: README.md)
 *   08.3 sorts a GPU's part only once all of it has arrived: the GPUs' memory idles
 *   while NVLink carries the keys, and NVLink idles while they sort.  But the part is
 *   made of top digits, and so is every run sent to it: cut the part at top-digit
 *   starts into SLICES slices, and slice k is, in every sender's run, a run of its own,
 *   whose keys are all above slice k - 1's.  So each slice crosses on its own (a group
 *   of sends a slice, on a stream that is not ordered with 07's), and each is sorted
 *   on its own as soon as it has landed, while the next slice crosses; the slices'
 *   sorted keys, side by side, are the part.  The slices go highest first: a sorted
 *   slice starts with its few extra keys (08.3's alignment), which land on the end of
 *   the slice below, and that slice is sorted, and written, after it.  Overlap is not
 *   free: the sorts and NCCL's copies share the GPU's memory.  Where a GPU's part is
 *   larger than OVERLAP_MAX_KEYS they slowed each other more than the overlap gained,
 *   so such a part crosses whole and is sorted once, as in 08.3.
 *
 * Phases: count (histogram, all-gather), partition (a pass by the top digit), split
 * (the boundary digits' runs sorted, the ranks found), then the exchange and the local
 * sort together: "exchange" is until the last slice landed, "local sort" what is left.
 *
 * Run:  build/bin/08_multi_gpu -n 1073741824 --gpus 4 --step 4
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "mg.h"
#include "timer.h"

const char *const MG_STEP_NAME =
    "08.4: overlap: the exchange in slices of top digits, each slice sorted while the next crosses";

#define ROUND_QUERIES 257 /* a byte's 256 values and the end of the range */
#define ALIGN_KEYS 4      /* 16 bytes: the boundary NCCL's copies want a buffer to start on */
#ifndef SLICES
#define SLICES 4          /* slices of a part: the first crosses alone, the last is sorted alone */
#endif
#if SLICES < 1 || SLICES > MG_MAX_SLICES
#error "SLICES: 1 to MG_MAX_SLICES (mg.h)"
#endif
/* The largest part that is cut into slices; a larger one crosses whole and is sorted once,
 * as in 08.3: past it the exchange, sharing the memory with the slices' sorts, slows by
 * more than the overlap hides (README.md, "Step 08.4", has the runs that set it). */
#define OVERLAP_MAX_KEYS ((size_t)1 << 28)

/* What every GPU sends every other: send[r][h] keys from rank r to rank h. */
typedef struct {
    int g;                                /* GPUs */
    uint32_t counts[MG_MAX_GPUS][MG_DIGITS]; /* each rank's top-digit counts */
    size_t send[MG_MAX_GPUS][MG_MAX_GPUS];
    size_t n;                             /* keys in all */
    size_t start[MG_DIGITS + 1];          /* where each top digit's run starts, in all */
    size_t run_at[MG_MAX_GPUS][MG_DIGITS + 1]; /* ... in each rank's partitioned keys */
    int digit[MG_MAX_GPUS];               /* boundary h (1..g-1): its digit, -1: none split */
    uint64_t key[MG_MAX_GPUS];            /* ... the key at rank P_h: its lower bound so far */
    uint64_t lb[MG_MAX_GPUS][MG_MAX_GPUS][ROUND_QUERIES]; /* [rank][boundary][query] */
    int slices;                           /* this sort's: SLICES, or 1 for large parts */
    size_t slice_at[MG_MAX_GPUS][MG_MAX_GPUS][SLICES + 1]; /* [r][h][k]: slice k of h's part in r's keys */
} exchange_plan;

/* ---- count: each GPU's top digits, then everyone's on every GPU ----------------------- */

static void count_top_digits(mg_part *p, void *arg)
{
    (void)arg;
    uint32_t *mine = p->d_counts + (size_t)p->rank * MG_DIGITS;
    CUDA_CHECK(cudaMemsetAsync(mine, 0, MG_DIGITS * sizeof(uint32_t), 0)); /* stream 0, as 07 */
    os_top_digit_counts(p->sorter, p->d_keys, p->n_in, mine);
}

static void all_gather_counts(mg_part *p, void *arg)
{
    (void)arg;
    uint32_t *mine = p->d_counts + (size_t)p->rank * MG_DIGITS; /* in place: NCCL's rule */
    NCCL_CHECK(ncclAllGather(mine, p->d_counts, MG_DIGITS, ncclUint32, p->comm, p->stream));
}

/* ---- boundaries: the same arithmetic on every GPU, from the same counts ------------------- */

/* Each digit's run start, in all and in each rank's partitioned keys; and for each
 * boundary P_h (the start of GPU h's share) the digit whose run it splits, if any. */
static void plan_boundaries(exchange_plan *x)
{
    x->start[0] = 0;
    for (int d = 0; d < MG_DIGITS; d++) {
        size_t count = 0;
        for (int r = 0; r < x->g; r++)
            count += x->counts[r][d];
        x->start[d + 1] = x->start[d] + count;
    }
    x->n = x->start[MG_DIGITS];
    for (int r = 0; r < x->g; r++) {
        x->run_at[r][0] = 0;
        for (int d = 0; d < MG_DIGITS; d++)
            x->run_at[r][d + 1] = x->run_at[r][d] + x->counts[r][d];
    }
    for (int h = 1; h < x->g; h++) {
        size_t first, count;
        mg_share_of(x->n, x->g, h, &first, &count);
        x->digit[h] = -1;
        for (int d = 0; d < MG_DIGITS; d++)
            if (x->start[d] < first && first < x->start[d + 1])
                x->digit[h] = d;
        x->key[h] = (uint64_t)(x->digit[h] < 0 ? 0 : x->digit[h]) << 24;
    }
}

/* Keys of rank r that go to GPUs before h: its runs of the digits before P_h, and of a
 * split digit its keys below the key at rank P_h and its share of the keys equal to it. */
static size_t cut(const exchange_plan *x, int r, int h)
{
    size_t first, count; /* P_h = first: where GPU h's share of the sorted order starts */
    mg_share_of(x->n, x->g, h, &first, &count);
    if (h == 0)
        return 0;
    if (h == x->g || first >= x->n)
        return x->run_at[r][MG_DIGITS];
    int d = x->digit[h];
    if (d < 0) { /* P_h starts a digit's run: every run before it */
        int e = 0;
        while (e < MG_DIGITS && x->start[e + 1] <= first)
            e++;
        return x->run_at[r][e];
    }
    /* the last round's queries: lb[.][h][0] counts keys below the key, [1] below it + 1 */
    size_t below = 0, equal_before = 0;
    for (int q = 0; q < x->g; q++)
        below += x->lb[q][h][0];
    size_t need = first - x->start[d] - below; /* keys equal to it that go before h */
    for (int q = 0; q < r; q++)
        equal_before += x->lb[q][h][1] - x->lb[q][h][0];
    size_t equal = x->lb[r][h][1] - x->lb[r][h][0];
    size_t take = need > equal_before ? need - equal_before : 0;
    return x->run_at[r][d] + x->lb[r][h][0] + (take < equal ? take : equal);
}

static void plan_sends(exchange_plan *x)
{
    for (int r = 0; r < x->g; r++)
        for (int h = 0; h < x->g; h++)
            x->send[r][h] = cut(x, r, h + 1) - cut(x, r, h);
}

/* ---- split: the boundary digits' runs sorted, then the key at each P_h, a byte a round ---- */

/* Each GPU sorts its run of every split digit by the bits below the top digit (07), in
 * place in its partitioned keys.  A run starts anywhere, but 07 reads its input four keys
 * at a time from a 16-byte boundary: the run is copied to such a place in the free buffer,
 * and sorted from there back into its own place. */
static void sort_split_runs(mg_part *p, void *arg)
{
    const exchange_plan *x = (const exchange_plan *)arg;
    for (int h = 1; h < x->g; h++) {
        int d = x->digit[h], seen = 0;
        for (int k = 1; k < h; k++)
            seen |= x->digit[k] == d;
        if (d < 0 || seen)
            continue;
        size_t at = x->run_at[p->rank][d], len = x->counts[p->rank][d];
        uint32_t *aligned = mg_other(p) + (at & ~(size_t)3);
        CUDA_CHECK(cudaMemcpyAsync(aligned, p->sorted + at, len * sizeof(uint32_t),
                                   cudaMemcpyDeviceToDevice, 0));
        os_sort_into_b(p->sorter, aligned, p->sorted + at, len, 0, 24);
    }
}

/* A round's plan and the byte it finds: count_below's argument. */
typedef struct {
    const exchange_plan *x;
    int shift;
} round_of;

/* One round: for each split boundary, how many keys of this GPU's sorted run are below
 * each of the 257 values key[h] + e << shift (e = 0..256). */
static void count_below(mg_part *p, void *arg)
{
    const exchange_plan *x = ((const round_of *)arg)->x;
    int shift = ((const round_of *)arg)->shift;
    uint64_t q[MG_MAX_GPUS * ROUND_QUERIES];
    for (int h = 1; h < x->g; h++)
        for (int e = 0; e < ROUND_QUERIES; e++)
            q[h * ROUND_QUERIES + e] = x->key[h] + ((uint64_t)e << shift);
    uint64_t *d_q = p->d_scratch, *mine = p->d_scratch + (size_t)MG_MAX_GPUS * ROUND_QUERIES * (1 + p->rank);
    CUDA_CHECK(cudaMemcpy(d_q, q, sizeof q, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(mine, 0, (size_t)MG_MAX_GPUS * ROUND_QUERIES * sizeof(uint64_t)));
    for (int h = 1; h < x->g; h++)
        if (x->digit[h] >= 0)
            mg_lower_bounds(p->sorted + x->run_at[p->rank][x->digit[h]], x->counts[p->rank][x->digit[h]],
                            d_q + h * ROUND_QUERIES, ROUND_QUERIES, mine + h * ROUND_QUERIES);
}

static void all_gather_below(mg_part *p, void *arg)
{
    (void)arg;
    size_t each = (size_t)MG_MAX_GPUS * ROUND_QUERIES;
    uint64_t *all = p->d_scratch + each; /* in place: NCCL's rule */
    NCCL_CHECK(ncclAllGather(all + each * p->rank, all, each, ncclUint64, p->comm, p->stream));
}

/* Three rounds, a byte each (bits 16..23, 8..15, 0..7): in each, the largest value whose
 * keys below, summed over the GPUs, are at most P_h's rank in the digit.  The last round
 * leaves, in lb[.][h][0] and [1], the keys below the key at rank P_h and below it + 1. */
static void find_boundary_keys(mg_world *w, exchange_plan *x)
{
    for (int shift = 16; shift >= 0; shift -= 8) {
        round_of round = {x, shift};
        mg_each(w, count_below, &round);
        mg_group(w, all_gather_below, NULL);
        CUDA_CHECK(cudaSetDevice(w->part[0].device));
        CUDA_CHECK(cudaStreamSynchronize(w->part[0].stream));
        CUDA_CHECK(cudaMemcpy(x->lb, w->part[0].d_scratch + (size_t)MG_MAX_GPUS * ROUND_QUERIES,
                              sizeof(uint64_t) * MG_MAX_GPUS * ROUND_QUERIES * x->g, cudaMemcpyDeviceToHost));
        for (int h = 1; h < x->g; h++) {
            if (x->digit[h] < 0)
                continue;
            size_t first, count, rank_in_digit;
            mg_share_of(x->n, x->g, h, &first, &count);
            rank_in_digit = first - x->start[x->digit[h]];
            int e = 0;
            for (int f = 1; f < 256; f++) {
                size_t below = 0;
                for (int r = 0; r < x->g; r++)
                    below += x->lb[r][h][f];
                if (below <= rank_in_digit)
                    e = f;
            }
            x->key[h] += (uint64_t)e << shift;
            if (shift == 0) /* the last round: keep the counts below key and key + 1 */
                for (int r = 0; r < x->g; r++) {
                    x->lb[r][h][0] = x->lb[r][h][e];
                    x->lb[r][h][1] = x->lb[r][h][e + 1];
                }
        }
    }
}

/* ---- exchange: each slice of each owner's run, from a 16-byte boundary, to its owner ---- */

/* Where rank r's run for rank h starts in r's partitioned keys. */
static size_t run_start(const exchange_plan *x, int r, int h)
{
    size_t at = 0;
    for (int k = 0; k < h; k++)
        at += x->send[r][k];
    return at;
}

/* Cuts every run into its slices.  Slice k of GPU h's part starts at the first top digit
 * whose run starts (in all) at or after k / S of the part: a digit's start, so that
 * in each sender's run, sorted by top digit, the slice is a run of its own, and every key
 * of slice k is above every key of slice k - 1.  A part inside one digit is one slice. */
static void plan_slices(exchange_plan *x)
{
    size_t first0, largest; /* rank 0's share: the largest */
    mg_share_of(x->n, x->g, 0, &first0, &largest);
    x->slices = largest <= OVERLAP_MAX_KEYS ? SLICES : 1;
    const int S = x->slices;
    for (int h = 0; h < x->g; h++) {
        size_t first, count;
        mg_share_of(x->n, x->g, h, &first, &count);
        for (int r = 0; r < x->g; r++) {
            size_t lo = run_start(x, r, h), hi = lo + x->send[r][h];
            int e = 0;
            /* WRITE BEGIN overlap: plan_slices' loop and sort_slices' sorts (HOLES.md: overlap) */
            /* WRITE STUB (void)first; (void)count; (void)e; */
            /* WRITE STUB for (int k = 0; k <= S; k++) */
            /* WRITE STUB     x->slice_at[r][h][k] = lo + 0 * hi; */
            for (int k = 0; k <= S; k++) {
                size_t target = first + count / S * k + count % S * k / S;
                while (e < MG_DIGITS && x->start[e] < target)
                    e++;
                size_t at = x->run_at[r][e]; /* rank r's keys of the digits before e */
                x->slice_at[r][h][k] = k == 0 ? lo : k == S ? hi : at < lo ? lo : at > hi ? hi : at;
            }
            /* WRITE END overlap */
        }
    }
}

/* The keys rank r sends rank h in slice k: the slice's run, and the keys before it back
 * to the 16-byte boundary below it (keys of lower digits or owners, below every key of
 * the slice); from: where they start in r's partitioned keys.  None for an empty run. */
static size_t keys_moved(const exchange_plan *x, int r, int h, int k, size_t *from)
{
    size_t at = x->slice_at[r][h][k], run = x->slice_at[r][h][k + 1] - at;
    size_t lead = at % ALIGN_KEYS;
    *from = at - lead;
    return run ? run + lead : 0;
}

/* Where each rank's run of slice k lands in h's buffer (at[r]), slice after slice and
 * rank after rank, each on a 16-byte boundary, a slice's first run on the slice's start
 * (*slice_from); returns where the slice's keys end, and in *extra those of them that
 * are not h's part: the keys moved before each run and the gaps of zeros between runs. */
static size_t land_slice(const exchange_plan *x, int h, int k, size_t at[MG_MAX_GPUS],
                         size_t *slice_from, size_t *extra)
{
    size_t end = 0;
    for (int j = 0; j <= k; j++) {
        end = (end + ALIGN_KEYS - 1) / ALIGN_KEYS * ALIGN_KEYS;
        *slice_from = end;
        *extra = 0;
        for (int r = 0; r < x->g; r++) {
            size_t from, moved = keys_moved(x, r, h, j, &from);
            size_t run = moved ? x->slice_at[r][h][j + 1] - x->slice_at[r][h][j] : 0;
            size_t start = moved ? (end + ALIGN_KEYS - 1) / ALIGN_KEYS * ALIGN_KEYS : end;
            *extra += (start - end) + (moved - run);
            at[r] = start;
            end = start + moved;
        }
    }
    return end;
}

/* Where the sorted slices go, in the buffer the runs land in, after the slices that
 * landed: room for every slice's extra keys, then the part.  0 where it does not fit:
 * then they go to the partitioned keys' buffer, once every slice has left it. */
static size_t sorted_at(const exchange_plan *x, const mg_part *p)
{
    size_t at[MG_MAX_GPUS], from, extra, all_extra = 0, keys = 0;
    size_t landed = land_slice(x, p->rank, x->slices - 1, at, &from, &extra);
    for (int k = 0; k < x->slices; k++) {
        size_t slice_end = land_slice(x, p->rank, k, at, &from, &extra);
        all_extra += extra;
        keys += slice_end - from - extra;
    }
    size_t base = (landed + ALIGN_KEYS - 1) / ALIGN_KEYS * ALIGN_KEYS + all_extra;
    return base + keys <= p->cap ? base : 0;
}

/* A slice: the plan and which one, for mg_group and mg_each. */
typedef struct {
    exchange_plan *x;
    int k;
} slice_of;

/* Slice k's runs: sent and received on the GPU's wire stream, which 07's sorts on stream 0
 * do not wait for, save for the slice's landed event. */
static void send_and_receive_slice(mg_part *p, void *arg)
{
    const exchange_plan *x = ((const slice_of *)arg)->x;
    int k = ((const slice_of *)arg)->k;
    uint32_t *in = p->sorted, *out = mg_other(p);
    size_t at[MG_MAX_GPUS], slice_from, extra;
    land_slice(x, p->rank, k, at, &slice_from, &extra);
    size_t end = slice_from;
    for (int h = 0; h < x->g; h++) {
        size_t from, send = keys_moved(x, p->rank, h, k, &from);
        size_t ignored, recv = keys_moved(x, h, p->rank, k, &ignored);
        if (recv && at[h] > end) /* the gap before the run: zeros, below every key */
            CUDA_CHECK(cudaMemsetAsync(out + end, 0, (at[h] - end) * sizeof(uint32_t), p->wire));
        if (h == p->rank) {
            /* its own keys stay: they land where rank h's would */
            CUDA_CHECK(cudaMemcpyAsync(out + at[h], in + from, send * sizeof(uint32_t),
                                       cudaMemcpyDeviceToDevice, p->wire));
        } else {
            if (send)
                NCCL_CHECK(ncclSend(in + from, send, ncclUint32, h, p->comm, p->wire));
            if (recv)
                NCCL_CHECK(ncclRecv(out + at[h], recv, ncclUint32, h, p->comm, p->wire));
        }
        end = recv ? at[h] + recv : end;
    }
}

/* Each GPU's sort of every slice, highest first, on stream 0, each after its slice landed
 * (its event on the wire stream); into the part's place: a slice's extra keys sort first
 * and land on the end of the slice below, which is sorted and written later.  One slice:
 * 08.3's sort, in the landing buffer and the partitioned keys' (mg_sort then skips the
 * extra keys). */
static void sort_slices(mg_part *p, void *arg)
{
    const exchange_plan *x = (const exchange_plan *)arg;
    uint32_t *landing = mg_other(p);
    if (x->slices == 1) {
        size_t at[MG_MAX_GPUS], from, extra;
        size_t end = land_slice(x, p->rank, 0, at, &from, &extra);
        CUDA_CHECK(cudaStreamWaitEvent(0, p->landed[0], 0));
        p->sorted = landing;
        os_sort(p->sorter, p->sorted, mg_other(p), end, 0, 32);
        p->n_out = end;
        return;
    }
    size_t base = sorted_at(x, p); /* the part's place in the landing buffer, or 0 */
    /* WRITE BEGIN overlap: continued */
    /* WRITE STUB (void)base; */
    /* WRITE STUB p->n_out = 0; */
    size_t at[MG_MAX_GPUS], from, extra, keys_below[SLICES + 1] = {0}, total_extra = 0;
    for (int k = 0; k < x->slices; k++) {
        size_t end = land_slice(x, p->rank, k, at, &from, &extra);
        keys_below[k + 1] = keys_below[k] + (end - from - extra);
        total_extra += extra;
    }
    /* the part's place: after the landed slices, or (no room there) the partitioned
     * keys' buffer, once the last slice has left it */
    uint32_t *part = base ? landing + base : p->sorted + total_extra;
    for (int k = x->slices - 1; k >= 0; k--) {
        size_t end = land_slice(x, p->rank, k, at, &from, &extra);
        /* after its slice landed; without room, after the last to land, slice 0 */
        CUDA_CHECK(cudaStreamWaitEvent(0, p->landed[base ? k : 0], 0));
        /* LAB BEGIN slice_place: slice k's keys sorted into the part, its extra keys first */
        /* LAB STUB (void)end; (void)part; */
        os_sort_into_b(p->sorter, landing + from, part + keys_below[k] - extra, end - from, 0, 32);
        /* LAB END slice_place */
    }
    p->sorted = part;
    p->n_out = keys_below[x->slices];
    /* WRITE END overlap */
}

/* ---- the sort ------------------------------------------------------------------------------ */

/* Each GPU's share of a phase, for mg_each. */
static void partition_keys(mg_part *p, void *arg)
{
    (void)arg;
    p->sorted = p->d_keys;
    os_sort(p->sorter, p->sorted, mg_other(p), p->n_in, 24, 32);
}

int mg_sort(mg_world *w, mg_times *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    mg_world_sync(w);
    double start = host_time_ms(), t0 = start;

    if (w->nranks == 1) { /* one GPU: onesweep alone, nothing to exchange */
        mg_part *p = &w->part[0];
        CUDA_CHECK(cudaSetDevice(p->device));
        p->sorted = p->d_keys;
        os_sort(p->sorter, p->sorted, mg_other(p), p->n_in, 0, 32);
        p->n_out = p->n_in;
        t->local_sort = mg_phase_end(w, t0);
        mg_sorts_done(w);
        t->total = host_time_ms() - start;
        mg_times_world_max(w, t);
        return 0;
    }

    /* count */
    exchange_plan x;
    x.g = w->nranks;
    mg_each(w, count_top_digits, NULL);
    mg_group(w, all_gather_counts, NULL);
    CUDA_CHECK(cudaSetDevice(w->part[0].device));
    CUDA_CHECK(cudaMemcpyAsync(x.counts, w->part[0].d_counts, sizeof x.counts[0] * x.g,
                               cudaMemcpyDeviceToHost, w->part[0].stream));
    CUDA_CHECK(cudaStreamSynchronize(w->part[0].stream));
    plan_boundaries(&x);
    t->count = mg_phase_end(w, t0);

    /* partition: each GPU's keys by their top digit, so each owner's are one run */
    t0 = host_time_ms();
    mg_each(w, partition_keys, NULL);
    t->partition = mg_phase_end(w, t0);
    mg_sorts_done(w);

    /* split: the digits that hold a boundary, sorted in their runs; the key at each */
    t0 = host_time_ms();
    mg_each(w, sort_split_runs, &x);
    find_boundary_keys(w, &x);
    plan_sends(&x);
    plan_slices(&x);
    double too_many = 0; /* every process stops alike, or none does */
    for (int l = 0; l < w->nlocal; l++) {
        size_t at[MG_MAX_GPUS], from, extra;
        size_t landing = land_slice(&x, w->part[l].rank, x.slices - 1, at, &from, &extra);
        if (landing > w->part[l].cap) {
            snprintf(err, errlen, "GPU %d would receive %zu keys with the keys that align its runs, "
                     "more than the %zu its buffers hold", w->part[l].rank, landing, w->part[l].cap);
            too_many = 1;
        }
    }
    if (mg_world_max(w, too_many) > 0) {
        if (!too_many)
            snprintf(err, errlen, "a GPU of another process would receive more keys than its buffers hold");
        return -1;
    }
    t->split = mg_phase_end(w, t0);

    /* exchange and local sort, overlapped: every slice's sends, highest slice first, each
     * group followed by its landed event; then each GPU's sorts, each of a slice after its
     * event, while the next slice crosses */
    t0 = host_time_ms();
    for (int k = x.slices - 1; k >= 0; k--) {
        slice_of slice = {&x, k};
        mg_group(w, send_and_receive_slice, &slice);
        for (int l = 0; l < w->nlocal; l++) {
            CUDA_CHECK(cudaSetDevice(w->part[l].device));
            CUDA_CHECK(cudaEventRecord(w->part[l].landed[k], w->part[l].wire));
        }
    }
    mg_each(w, sort_slices, &x);
    for (int l = 0; l < w->nlocal; l++) { /* the exchange ends when the last slice has landed */
        CUDA_CHECK(cudaSetDevice(w->part[l].device));
        CUDA_CHECK(cudaEventSynchronize(w->part[l].landed[0]));
    }
    t->exchange = host_time_ms() - t0;
    t->local_sort = mg_phase_end(w, t0) - t->exchange; /* what the sorts took after it */
    if (x.slices == 1) { /* 08.3's sort: the part follows the keys that aligned its runs */
        mg_sorts_done(w);
        for (int l = 0; l < w->nlocal; l++) {
            mg_part *p = &w->part[l];
            size_t at[MG_MAX_GPUS], from, extra;
            land_slice(&x, p->rank, 0, at, &from, &extra);
            p->sorted += extra;
            p->n_out -= extra;
        }
    }
    for (int r = 0; r < x.g; r++)
        for (int h = 0; h < x.g; h++)
            if (h != r)
                t->moved_gb += (double)x.send[r][h] * sizeof(uint32_t) / 1e9;
    t->total = host_time_ms() - start;

    mg_times_world_max(w, t);
    return 0;
}
