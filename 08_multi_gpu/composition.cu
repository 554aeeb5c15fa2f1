/*
 * 08_multi_gpu/composition.cu - the second baseline of stage 08: the sort across GPUs
 * that the libraries make with no kernel of the course's own.  On each GPU CUB sorts
 * the keys by their top 8 bits (the partition); the counts of those digits, found by
 * binary search in the partitioned keys, go to every GPU (ncclAllGather); each digit
 * goes whole to the GPU whose even share holds the middle of its run (08.1's rule);
 * grouped ncclSend/ncclRecv move the runs; CUB sorts what each GPU received.
 *
 * Both CUB sorts are CUB's fastest call on Hopper: the DoubleBuffer form (no copy of
 * the keys in its scratch) with an int64_t count.  C++ because CUB is a C++ template
 * library, behind the C function of mg.h (mg_composition_sort, MG_COMPOSITION).
 */
#include <cub/device/device_radix_sort.cuh>

#include <cstdio>
#include <cstring>

#include "cuda_check.h"
#include "mg.h"
#include "timer.h"

/* The scratch of CUB's sort on each local GPU, grown as needed (mg_composition_free). */
static void *cub_scratch[MG_MAX_GPUS];
static size_t cub_scratch_bytes[MG_MAX_GPUS];

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

extern "C" int mg_composition_sort(mg_world *w, mg_times *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
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
    mg_group(w, send_and_receive, &x);
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
extern "C" const mg_step MG_COMPOSITION = {&composition_name, mg_composition_sort, 0};
