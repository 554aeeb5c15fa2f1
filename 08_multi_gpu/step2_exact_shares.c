/*
 * 08_multi_gpu/step2_exact_shares.c - step 08.2: exact shares, whatever the keys.
 *
 * What changed since step 08.1 (the whole story: README.md)
 *   08.1 gave whole top digits to owners, so keys with few distinct top digits (equal,
 *   few, a skew) made one GPU's part large and another's empty.  Here the parts are the
 *   shares: GPU h ends with keys [P_h, P_h+1) of the sorted order, P_h its share's start.
 *   A top digit whose run holds a boundary P_h is split there: each GPU sorts its own run
 *   of that digit (07, bits 0..23), and three rounds of counts find the key at rank P_h
 *   (each round a byte: 257 binary searches a GPU, all-gathered, summed on the host).
 *   Keys equal to it go to the earlier GPU in input order - lower ranks first - so the
 *   order of the whole sort is stable.
 *
 * Phases: count (histogram, all-gather), partition (a pass by the top digit), split
 * (the boundary digits' runs sorted, the ranks found), exchange, local sort.
 *
 * Run:  build/bin/08_multi_gpu --dist few -n 268435456 --verbose
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "mg.h"
#include "timer.h"

const char *const MG_STEP_NAME = "08.2: exact shares: boundary digits split by rank";

#define ROUND_QUERIES 257 /* a byte's 256 values and the end of the range */

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
    /* WRITE BEGIN split: find_boundary_keys' rounds, and cut, whole (HOLES.md: split) */
    /* WRITE STUB (void)r; */
    /* WRITE STUB return 0; */
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
    /* LAB BEGIN equal_keys: rank r's share of the keys equal to P_h's that go before h: equal and take */
    /* LAB STUB size_t equal = 0, take = 0; */
    size_t need = first - x->start[d] - below; /* keys equal to it that go before h */
    for (int q = 0; q < r; q++)
        equal_before += x->lb[q][h][1] - x->lb[q][h][0];
    size_t equal = x->lb[r][h][1] - x->lb[r][h][0];
    size_t take = need > equal_before ? need - equal_before : 0;
    /* LAB END equal_keys */
    return x->run_at[r][d] + x->lb[r][h][0] + (take < equal ? take : equal);
    /* WRITE END split */
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
            /* WRITE BEGIN split: continued */
            /* LAB BEGIN byte_choice: e, the largest of 1..255 whose keys below are at most rank_in_digit */
            /* LAB STUB int e = 0; */
            int e = 0;
            for (int f = 1; f < 256; f++) {
                size_t below = 0;
                for (int r = 0; r < x->g; r++)
                    below += x->lb[r][h][f];
                if (below <= rank_in_digit)
                    e = f;
            }
            /* LAB END byte_choice */
            x->key[h] += (uint64_t)e << shift;
            if (shift == 0) /* the last round: keep the counts below key and key + 1 */
                for (int r = 0; r < x->g; r++) {
                    x->lb[r][h][0] = x->lb[r][h][e];
                    x->lb[r][h][1] = x->lb[r][h][e + 1];
                }
            /* WRITE END split */
        }
    }
}

/* ---- exchange: each owner's run of the partitioned keys to its owner ------------------- */

static void send_and_receive(mg_part *p, void *arg)
{
    const exchange_plan *x = (const exchange_plan *)arg;
    uint32_t *in = p->sorted, *out = mg_other(p);
    size_t send_at = 0, recv_at = 0;
    for (int h = 0; h < x->g; h++) {
        size_t send = x->send[p->rank][h], recv = x->send[h][p->rank];
        if (h == p->rank) {
            /* its own keys stay: they land where rank h's would */
            CUDA_CHECK(cudaMemcpyAsync(out + recv_at, in + send_at, send * sizeof(uint32_t),
                                       cudaMemcpyDeviceToDevice, p->stream));
        } else {
            if (send)
                NCCL_CHECK(ncclSend(in + send_at, send, ncclUint32, h, p->comm, p->stream));
            if (recv)
                NCCL_CHECK(ncclRecv(out + recv_at, recv, ncclUint32, h, p->comm, p->stream));
        }
        send_at += send;
        recv_at += recv;
    }
    p->sorted = out;
    p->n_out = recv_at;
}

/* ---- the sort ------------------------------------------------------------------------------ */

/* Each GPU's share of a phase, for mg_each. */
static void partition_keys(mg_part *p, void *arg)
{
    (void)arg;
    p->sorted = p->d_keys;
    os_sort(p->sorter, p->sorted, mg_other(p), p->n_in, 24, 32);
}

static void sort_part(mg_part *p, void *arg)
{
    (void)arg;
    os_sort(p->sorter, p->sorted, mg_other(p), p->n_out, 0, 32);
}

int mg_sort(mg_world *w, mg_times *t, char *err, size_t errlen)
{
    (void)err; /* nothing fails here: every part is a share, and the buffers hold the largest */
    (void)errlen;
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
    t->split = mg_phase_end(w, t0);

    /* exchange */
    t0 = host_time_ms();
    mg_group(w, send_and_receive, &x);
    t->exchange = mg_phase_end(w, t0);
    for (int r = 0; r < x.g; r++)
        for (int h = 0; h < x.g; h++)
            if (h != r)
                t->moved_gb += (double)x.send[r][h] * sizeof(uint32_t) / 1e9;

    /* local sort of what arrived */
    t0 = host_time_ms();
    mg_each(w, sort_part, NULL);
    t->local_sort = mg_phase_end(w, t0);
    mg_sorts_done(w);
    t->total = host_time_ms() - start;

    mg_times_world_max(w, t);
    return 0;
}
