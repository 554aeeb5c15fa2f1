/*
 * 08_multi_gpu/composition.cu - the second baseline of stage 08: the sort across GPUs
 * that the libraries make with no kernel of the course's own.  On each GPU CUB sorts
 * the keys by their top 8 bits (the partition); the counts of those digits, found by
 * binary search in the partitioned keys, go to every GPU (ncclAllGather); each digit
 * goes whole to the GPU whose even share holds the middle of its run (08.1's rule);
 * the runs cross; CUB sorts what each GPU received.
 *
 * The runs cross in one of three forms, each a baseline of its own (mg.h):
 *   nccl      grouped ncclSend/ncclRecv from where each run starts (MG_COMPOSITION);
 *   aligned   the same, each run sent from the 16-byte boundary below it with the few
 *             keys before it and landing on a 16-byte boundary, as 08.3 sends its own;
 *             the extra keys are overwritten with zeros (cudaMemsetAsync), which CUB's
 *             sort puts first, and the part starts after them (MG_COMPOSITION_ALIGNED);
 *   peer      cudaMemcpyPeerAsync from each GPU into each other's buffer, on the copy
 *             engines: one process that drives every GPU (MG_COMPOSITION_PEER).
 * The zeros stand for the extra keys because the stage sorts u32 keys ascending, keys
 * alone: the zeros of the input are as many after the part's first keys are dropped.
 *
 * Both CUB sorts are CUB's fastest call on Hopper: the DoubleBuffer form (no copy of
 * the keys in its scratch) with an int64_t count.  C++ because CUB is a C++ template
 * library, behind the C functions of mg.h.
 */
#include <cub/device/device_radix_sort.cuh>

#include <cstdio>
#include <cstring>

#include "cuda_check.h"
#include "mg.h"
#include "timer.h"

/* How the runs cross between the GPUs. */
typedef enum { FORM_NCCL, FORM_ALIGNED, FORM_PEER } exchange_form;

/* The scratch of CUB's sort on each local GPU, grown as needed (mg_composition_free). */
static void *cub_scratch[MG_MAX_GPUS];
static size_t cub_scratch_bytes[MG_MAX_GPUS];

/* The aligned form: the zeros in front of each rank's landed keys, dropped after its sort. */
static size_t fillers[MG_MAX_GPUS];

/* Sorts p's n keys by bits [begin, end), from p->sorted, with CUB on the legacy
 * default stream (where 07's kernels run too): p->sorted then names the buffer that
 * holds them. */
static void cub_sort(mg_part *p, int local, size_t n, int begin, int end)
{
    cub::DoubleBuffer<uint32_t> keys(p->sorted, mg_other(p));
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, (int64_t)n, begin, end, 0));
    if (bytes > cub_scratch_bytes[local]) {
        CUDA_CHECK(cudaFree(cub_scratch[local]));
        CUDA_CHECK(cudaMalloc(&cub_scratch[local], bytes));
        cub_scratch_bytes[local] = bytes;
    }
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(cub_scratch[local], bytes, keys, (int64_t)n, begin,
                                              end, 0));
    CUDA_CHECK_LAUNCH();
    p->sorted = keys.Current(); /* host-side: the double buffer's selector is known at once */
}

/* Each GPU's share of a phase, for mg_each (arg: the world, whose part p is). */
static void cub_partition(mg_part *p, void *arg)
{
    p->sorted = p->d_keys;
    cub_sort(p, (int)(p - ((mg_world *)arg)->part), p->n_in, 24, 32);
}

static void cub_sort_part(mg_part *p, void *arg)
{
    cub_sort(p, (int)(p - ((mg_world *)arg)->part), p->n_out, 0, 32);
    p->sorted += fillers[p->rank]; /* the zeros sorted first: the part starts after them */
    p->n_out -= fillers[p->rank];
    fillers[p->rank] = 0;
}

/* Where each top digit's run starts in p's partitioned keys, and the end: 257 counts of
 * keys below d << 24 (the host's queries, arg), into this rank's row of p->d_scratch. */
static void digit_bounds(mg_part *p, void *arg)
{
    /* the queries sit past every rank's row of bounds in the scratch */
    uint64_t *queries = p->d_scratch + (size_t)MG_MAX_GPUS * (MG_DIGITS + 1);
    CUDA_CHECK(cudaMemcpy(queries, arg, (MG_DIGITS + 1) * sizeof(uint64_t), cudaMemcpyHostToDevice));
    uint64_t *row = p->d_scratch + (size_t)p->rank * (MG_DIGITS + 1);
    mg_lower_bounds(p->sorted, p->n_in, queries, MG_DIGITS + 1, row);
}

static void all_gather_bounds(mg_part *p, void *arg)
{
    (void)arg;
    uint64_t *row = p->d_scratch + (size_t)p->rank * (MG_DIGITS + 1); /* in place */
    NCCL_CHECK(ncclAllGather(row, p->d_scratch, MG_DIGITS + 1, ncclUint64, p->comm, p->stream));
}

typedef struct {
    int gpus;
    size_t keys[MG_MAX_GPUS][MG_MAX_GPUS]; /* keys rank src sends rank dst */
    size_t at[MG_MAX_GPUS][MG_MAX_GPUS];   /* where that run starts in src's keys */
} plan;

/* Rank src's keys of top digit `digit`, from the bounds. */
static size_t digit_keys(const uint64_t *bounds, int src, int digit)
{
    const uint64_t *row = bounds + (size_t)src * (MG_DIGITS + 1);
    return row[digit + 1] - row[digit];
}

/* From every rank's 257 bounds: the GPU each digit goes to, whole - the one whose even
 * share of the keys holds the middle of the digit's run, 08.1's rule, in whole numbers -
 * and the runs each rank sends. */
static void make_plan(plan *x, const uint64_t *bounds, size_t n_total)
{
    int gpu_of[MG_DIGITS];
    uint64_t keys_before = 0;
    for (int digit = 0; digit < MG_DIGITS; digit++) {
        uint64_t in_digit = 0;
        for (int src = 0; src < x->gpus; src++)
            in_digit += digit_keys(bounds, src, digit);
        /* the middle is keys_before + in_digit / 2: twice it, over twice the keys */
        uint64_t twice_middle = 2 * keys_before + in_digit;
        uint64_t gpu = n_total ? twice_middle * (uint64_t)x->gpus / (2 * (uint64_t)n_total) : 0;
        gpu_of[digit] = gpu < (uint64_t)x->gpus - 1 ? (int)gpu : x->gpus - 1;
        keys_before += in_digit;
    }
    memset(x->keys, 0, sizeof x->keys);
    for (int src = 0; src < x->gpus; src++) {
        for (int digit = 0; digit < MG_DIGITS; digit++)
            x->keys[src][gpu_of[digit]] += digit_keys(bounds, src, digit);
        size_t run_at = 0;
        for (int dst = 0; dst < x->gpus; dst++) {
            x->at[src][dst] = run_at;
            run_at += x->keys[src][dst];
        }
    }
}

static void send_and_receive(mg_part *p, void *arg)
{
    const plan *x = (const plan *)arg;
    const uint32_t *partitioned = p->sorted;
    uint32_t *landing = mg_other(p);
    cudaStream_t stream = p->stream;
    size_t landed = 0;
    for (int peer = 0; peer < x->gpus; peer++) {
        size_t outgoing = x->keys[p->rank][peer], incoming = x->keys[peer][p->rank];
        const uint32_t *run = partitioned + x->at[p->rank][peer];
        if (peer == p->rank)
            CUDA_CHECK(cudaMemcpyAsync(landing + landed, run, outgoing * sizeof(uint32_t),
                                       cudaMemcpyDeviceToDevice, stream)); /* its own run */
        else {
            if (outgoing)
                NCCL_CHECK(ncclSend(run, outgoing, ncclUint32, peer, p->comm, stream));
            if (incoming)
                NCCL_CHECK(ncclRecv(landing + landed, incoming, ncclUint32, peer, p->comm, stream));
        }
        landed += incoming;
    }
    p->sorted = landing;
    p->n_out = landed;
}

/* ---- the aligned form -------------------------------------------------------------------- */

/* Keys before a run that starts `at` keys into a 16-byte aligned buffer, back to the
 * 16-byte boundary below it. */
static size_t lead_keys(size_t at)
{
    return at % 4;
}

static size_t round_up_to_4(size_t keys)
{
    return (keys + 3) / 4 * 4;
}

/* Where the run from src lands on dst in the aligned form, its lead keys first: each run
 * with keys, in rank order, on the next 16-byte boundary. */
static size_t aligned_slot(const plan *x, int src, int dst)
{
    size_t end = 0;
    for (int s = 0; s < src; s++)
        if (x->keys[s][dst])
            end = round_up_to_4(end + lead_keys(x->at[s][dst]) + x->keys[s][dst]);
    return end;
}

/* The keys dst receives in the aligned form, the zeros in its gaps and leads included:
 * the end of its last run (no gap after it). */
static size_t aligned_landed(const plan *x, int dst)
{
    size_t end = 0;
    for (int src = 0; src < x->gpus; src++)
        if (x->keys[src][dst])
            end = aligned_slot(x, src, dst) + lead_keys(x->at[src][dst]) + x->keys[src][dst];
    return end;
}

static void send_and_receive_aligned(mg_part *p, void *arg)
{
    const plan *x = (const plan *)arg;
    const uint32_t *partitioned = p->sorted;
    uint32_t *landing = mg_other(p);
    cudaStream_t stream = p->stream;
    for (int peer = 0; peer < x->gpus; peer++) {
        size_t outgoing = x->keys[p->rank][peer], incoming = x->keys[peer][p->rank];
        size_t out_lead = lead_keys(x->at[p->rank][peer]), in_lead = lead_keys(x->at[peer][p->rank]);
        const uint32_t *from = partitioned + x->at[p->rank][peer] - out_lead;
        uint32_t *to = landing + aligned_slot(x, peer, p->rank);
        if (peer == p->rank) {
            if (outgoing)
                CUDA_CHECK(cudaMemcpyAsync(to, from, (outgoing + out_lead) * sizeof(uint32_t),
                                           cudaMemcpyDeviceToDevice, stream));
        } else {
            if (outgoing)
                NCCL_CHECK(ncclSend(from, outgoing + out_lead, ncclUint32, peer, p->comm, stream));
            if (incoming)
                NCCL_CHECK(ncclRecv(to, incoming + in_lead, ncclUint32, peer, p->comm, stream));
        }
    }
    p->sorted = landing;
    p->n_out = aligned_landed(x, p->rank);
}

/* The extra keys of the aligned form made zeros, on the stream the runs landed on: the
 * gap before each run and its lead keys. */
static void zero_the_extra_keys(mg_part *p, void *arg)
{
    const plan *x = (const plan *)arg;
    size_t end = 0, zeros = 0;
    for (int src = 0; src < x->gpus; src++) {
        if (!x->keys[src][p->rank])
            continue;
        size_t slot = aligned_slot(x, src, p->rank);
        size_t first_key = slot + lead_keys(x->at[src][p->rank]);
        if (first_key > end)
            CUDA_CHECK(cudaMemsetAsync(p->sorted + end, 0, (first_key - end) * sizeof(uint32_t),
                                       p->stream));
        zeros += first_key - end;
        end = first_key + x->keys[src][p->rank];
    }
    fillers[p->rank] = zeros;
}

/* ---- the copy engines' form --------------------------------------------------------------- */

typedef struct {
    const plan *x;
    uint32_t *landing[MG_MAX_GPUS]; /* each rank's buffer the runs land in */
    int device[MG_MAX_GPUS];        /* each rank's CUDA device */
} peer_plan;

/* Each GPU's runs into the other GPUs' buffers (its own too), on its stream: the runs of
 * lower ranks first, as the NCCL form lands them. */
static void copy_runs_to_peers(mg_part *p, void *arg)
{
    const peer_plan *a = (const peer_plan *)arg;
    const plan *x = a->x;
    for (int dst = 0; dst < x->gpus; dst++) {
        size_t keys = x->keys[p->rank][dst], landed_before = 0;
        if (!keys)
            continue;
        for (int src = 0; src < p->rank; src++)
            landed_before += x->keys[src][dst];
        CUDA_CHECK(cudaMemcpyPeerAsync(a->landing[dst] + landed_before, a->device[dst],
                                       p->sorted + x->at[p->rank][dst], p->device,
                                       keys * sizeof(uint32_t), p->stream));
    }
}

/* Peer access between every two GPUs that have it, so that the copies go straight over
 * NVLink or PCIe rather than through the host; once a pair for the process. */
static void enable_peer_access(const mg_world *w)
{
    enum { MOST_DEVICES = 64 };
    static unsigned char asked[MOST_DEVICES][MOST_DEVICES];
    for (int i = 0; i < w->nlocal; i++)
        for (int j = 0; j < w->nlocal; j++) {
            int can = 0, from = w->part[i].device, to = w->part[j].device;
            if (i == j || from >= MOST_DEVICES || to >= MOST_DEVICES || asked[from][to])
                continue;
            asked[from][to] = 1;
            CUDA_CHECK(cudaDeviceCanAccessPeer(&can, w->part[i].device, w->part[j].device));
            if (!can)
                continue;
            CUDA_CHECK(cudaSetDevice(w->part[i].device));
            cudaError_t status = cudaDeviceEnablePeerAccess(w->part[j].device, 0);
            if (status == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError(); /* enabled before, by NCCL or by us: as good */
            else
                CUDA_CHECK(status);
        }
}

/* The runs across by the copy engines: every part's `sorted` the buffer its runs landed
 * in, once every copy is done (the phase's end waits for them). */
static void exchange_by_peers(mg_world *w, const plan *x)
{
    peer_plan a;
    a.x = x;
    for (int l = 0; l < w->nlocal; l++) {
        a.landing[w->part[l].rank] = mg_other(&w->part[l]);
        a.device[w->part[l].rank] = w->part[l].device;
    }
    mg_each(w, copy_runs_to_peers, &a);
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        p->sorted = a.landing[p->rank];
        p->n_out = 0;
        for (int src = 0; src < x->gpus; src++)
            p->n_out += x->keys[src][p->rank];
    }
}

/* ---- the composition -------------------------------------------------------------------- */

static int composition_sort(mg_world *w, mg_times *t, exchange_form form, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (form == FORM_PEER && (w->mpi || w->nlocal != w->nranks)) {
        snprintf(err, errlen, "the copy engines' form needs one process that drives every GPU (not mpirun)");
        return -1;
    }
    if (form == FORM_PEER)
        enable_peer_access(w);
    static uint64_t h_queries[MG_DIGITS + 1];
    static uint64_t h_bounds[MG_MAX_GPUS * (MG_DIGITS + 1)];
    for (int d = 0; d <= MG_DIGITS; d++)
        h_queries[d] = (uint64_t)d << 24; /* d = 256: 2^32, above every key: the end */
    mg_world_sync(w);
    double start = host_time_ms(), t0 = start;

    /* partition: CUB by the top 8 bits, on every GPU */
    mg_each(w, cub_partition, w);
    t->partition = mg_phase_end(w, t0);

    /* count: the digits' bounds in the partitioned keys, all-gathered */
    t0 = host_time_ms();
    mg_each(w, digit_bounds, h_queries);
    mg_group(w, all_gather_bounds, NULL);
    CUDA_CHECK(cudaSetDevice(w->part[0].device));
    CUDA_CHECK(cudaMemcpyAsync(h_bounds, w->part[0].d_scratch,
                               (size_t)w->nranks * (MG_DIGITS + 1) * sizeof(uint64_t),
                               cudaMemcpyDeviceToHost, w->part[0].stream));
    CUDA_CHECK(cudaStreamSynchronize(w->part[0].stream));
    plan x;
    x.gpus = w->nranks;
    size_t n_total = 0;
    for (int src = 0; src < x.gpus; src++)
        n_total += h_bounds[src * (MG_DIGITS + 1) + MG_DIGITS];
    make_plan(&x, h_bounds, n_total);
    double too_many = 0; /* every process stops alike, or none does */
    for (int l = 0; l < w->nlocal; l++) {
        size_t arriving = 0;
        for (int src = 0; src < x.gpus; src++)
            arriving += x.keys[src][w->part[l].rank];
        if (form == FORM_ALIGNED) /* its extra keys and gaps land too */
            arriving = aligned_landed(&x, w->part[l].rank);
        if (arriving > w->part[l].cap) {
            snprintf(err, errlen, "composition: GPU %d would own %zu keys, more than the %zu its buffers hold",
                     w->part[l].rank, arriving, w->part[l].cap);
            too_many = 1;
        }
    }
    if (mg_world_max(w, too_many) > 0) {
        if (!too_many)
            snprintf(err, errlen, "composition: a GPU of another process would own more keys than its buffers hold");
        return -1;
    }
    t->count = mg_phase_end(w, t0);

    /* exchange */
    t0 = host_time_ms();
    if (form == FORM_NCCL)
        mg_group(w, send_and_receive, &x);
    else if (form == FORM_ALIGNED) {
        mg_group(w, send_and_receive_aligned, &x);
        mg_each(w, zero_the_extra_keys, &x);
    } else
        exchange_by_peers(w, &x);
    t->exchange = mg_phase_end(w, t0);
    for (int src = 0; src < x.gpus; src++)
        for (int dst = 0; dst < x.gpus; dst++)
            if (dst != src)
                t->moved_gb += (double)x.keys[src][dst] * sizeof(uint32_t) / 1e9;

    /* local sort: CUB, every bit */
    t0 = host_time_ms();
    mg_each(w, cub_sort_part, w);
    t->local_sort = mg_phase_end(w, t0);
    t->total = host_time_ms() - start;

    mg_times_world_max(w, t);
    return 0;
}

extern "C" int mg_composition_sort(mg_world *w, mg_times *t, char *err, size_t errlen)
{
    return composition_sort(w, t, FORM_NCCL, err, errlen);
}

extern "C" int mg_composition_aligned_sort(mg_world *w, mg_times *t, char *err, size_t errlen)
{
    return composition_sort(w, t, FORM_ALIGNED, err, errlen);
}

extern "C" int mg_composition_peer_sort(mg_world *w, mg_times *t, char *err, size_t errlen)
{
    return composition_sort(w, t, FORM_PEER, err, errlen);
}

extern "C" void mg_composition_free(mg_world *w)
{
    for (int l = 0; l < w->nlocal; l++) {
        if (!cub_scratch[l])
            continue;
        CUDA_CHECK(cudaSetDevice(w->part[l].device));
        CUDA_CHECK(cudaFree(cub_scratch[l]));
        cub_scratch[l] = NULL;
        cub_scratch_bytes[l] = 0;
    }
}

static const char *const composition_name = "the library composition: CUB partition, NCCL, CUB sort";
static const char *const composition_aligned_name =
    "the library composition, its runs aligned: CUB partition, NCCL from 16-byte boundaries, CUB sort";
static const char *const composition_peer_name =
    "the library composition on the copy engines: CUB partition, cudaMemcpyPeerAsync, CUB sort";
extern "C" const mg_step MG_COMPOSITION = {&composition_name, mg_composition_sort, 0};
extern "C" const mg_step MG_COMPOSITION_ALIGNED = {&composition_aligned_name, mg_composition_aligned_sort, 0};
extern "C" const mg_step MG_COMPOSITION_PEER = {&composition_peer_name, mg_composition_peer_sort, 0};
extern "C" const mg_step *const MG_COMPOSITION_FORM[MG_COMPOSITION_FORMS] = {
    &MG_COMPOSITION, &MG_COMPOSITION_ALIGNED, &MG_COMPOSITION_PEER};
extern "C" const char *const MG_COMPOSITION_FORM_NAME[MG_COMPOSITION_FORMS] = {"nccl", "aligned", "peer"};
