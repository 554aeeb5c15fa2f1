/*
 * 08_multi_gpu/step1_partition_exchange.c - step 08.1: partition, exchange, sort.
 *
 * What changed since step 07.16 (the whole story: README.md)
 *   The keys are spread over G GPUs, and each GPU ends with a range of them, sorted:
 *   GPU 0 the smallest.  Each GPU counts its keys' top 8 bits (07's histogram), the
 *   counts go to every GPU (ncclAllGather), and every GPU works out the same owners:
 *   consecutive runs of top digits, a GPU each, cut where the keys before a digit's
 *   middle pass a multiple of N / G.  One pass of 07's sort by the top 8 bits puts each
 *   owner's keys next to each other; grouped ncclSend/ncclRecv move them; 07 sorts
 *   what each GPU received.  A digit is never split, so the parts are as even as the
 *   digits allow - step 08.2 makes them exact.
 *
 * Phases: count (histogram, all-gather), partition (a pass by the top digit), exchange
 * (send and receive), local sort (onesweep on what arrived); each waits for the one before.
 *
 * Run:  build/bin/08_multi_gpu -n 268435456 --verbose
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "mg.h"
#include "timer.h"

const char *const MG_STEP_NAME = "08.1: partition by the top digit, exchange, sort";

/* What every GPU sends every other: send[r][h] keys from rank r to rank h. */
typedef struct {
    int g;                                /* GPUs */
    uint32_t counts[MG_MAX_GPUS][MG_DIGITS]; /* each rank's top-digit counts */
    size_t send[MG_MAX_GPUS][MG_MAX_GPUS];
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

/* ---- owners: the same arithmetic on every GPU, from the same counts -------------------- */

/* Digit d goes to the GPU whose even share of the N keys holds the middle of d's run. */
static void plan_owners(exchange_plan *x, size_t n_total)
{
    /* WRITE BEGIN exchange: plan_owners and send_and_receive, whole (HOLES.md: exchange) */
    /* WRITE STUB *x = (exchange_plan){.g = x->g}; (void)n_total; */
    int owner[MG_DIGITS];
    size_t before = 0;
    for (int d = 0; d < MG_DIGITS; d++) {
        size_t count = 0;
        for (int r = 0; r < x->g; r++)
            count += x->counts[r][d];
        /* LAB BEGIN owner_of_digit: owner[d], the GPU whose even share holds the middle of digit d's run */
        /* LAB STUB owner[d] = 0; */
        double middle = (double)before + (double)count / 2.0;
        int o = n_total ? (int)(middle * x->g / (double)n_total) : 0;
        owner[d] = o < x->g ? o : x->g - 1;
        /* LAB END owner_of_digit */
        before += count;
    }
    memset(x->send, 0, sizeof x->send);
    for (int r = 0; r < x->g; r++)
        for (int d = 0; d < MG_DIGITS; d++)
            x->send[r][owner[d]] += x->counts[r][d];
    /* WRITE END exchange */
}

static size_t received_by(const exchange_plan *x, int h)
{
    size_t n = 0;
    for (int r = 0; r < x->g; r++)
        n += x->send[r][h];
    return n;
}

/* ---- exchange: each owner's run of the partitioned keys to its owner ------------------- */

static void send_and_receive(mg_part *p, void *arg)
{
    /* WRITE BEGIN exchange: continued */
    /* WRITE STUB (void)arg; */
    /* WRITE STUB p->n_out = 0; */
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
            /* LAB BEGIN send_recv: send rank h its run, receive h's run for this GPU; a count of 0 moves nothing */
            if (send)
                NCCL_CHECK(ncclSend(in + send_at, send, ncclUint32, h, p->comm, p->stream));
            if (recv)
                NCCL_CHECK(ncclRecv(out + recv_at, recv, ncclUint32, h, p->comm, p->stream));
            /* LAB END send_recv */
        }
        send_at += send;
        recv_at += recv;
    }
    p->sorted = out;
    p->n_out = recv_at;
    /* WRITE END exchange */
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
    size_t n_total = 0;
    for (int r = 0; r < x.g; r++)
        for (int d = 0; d < MG_DIGITS; d++)
            n_total += x.counts[r][d];
    plan_owners(&x, n_total);
    double too_many = 0; /* every process stops alike, or none does */
    for (int l = 0; l < w->nlocal; l++) {
        size_t arriving = received_by(&x, w->part[l].rank);
        if (arriving > w->part[l].cap) {
            snprintf(err, errlen,
                     "GPU %d would own %zu keys, more than the %zu its buffers hold: whole top "
                     "digits cannot be split between GPUs in this step (08.2 splits them)",
                     w->part[l].rank, arriving, w->part[l].cap);
            too_many = 1;
        }
    }
    if (mg_world_max(w, too_many) > 0) {
        if (!too_many)
            snprintf(err, errlen, "a GPU of another process would own more keys than its buffers hold");
        return -1;
    }
    t->count = mg_phase_end(w, t0);

    /* partition: each GPU's keys by their top digit, so each owner's are one run */
    t0 = host_time_ms();
    mg_each(w, partition_keys, NULL);
    t->partition = mg_phase_end(w, t0);
    mg_sorts_done(w);

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
