/*
 * 08_multi_gpu/composition.cu - the second baseline of stage 08: the sort across GPUs
 * that the libraries make with no kernel of the course's own.  On each GPU CUB sorts
 * the keys by their top 8 bits (the partition); the counts of those digits, found by
 * binary search in the partitioned keys, go to every GPU (ncclAllGather); each digit
 * goes whole to the GPU whose even share holds its middle (08.1's rule); grouped
 * ncclSend/ncclRecv move the runs; CUB sorts what each GPU received.
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

/* Where each top digit's run starts in p's partitioned keys, and the end: 257 counts of
 * keys below d << 24, into this rank's row of p->d_scratch. */
static void digit_bounds(mg_part *p, uint64_t *queries)
{
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
    int g;
    size_t send[MG_MAX_GPUS][MG_MAX_GPUS]; /* keys rank r sends rank h */
    size_t at[MG_MAX_GPUS][MG_MAX_GPUS];   /* where rank r's run for rank h starts */
} plan;

/* From every rank's 257 bounds: the owner of each digit (08.1's rule) and the runs. */
static void make_plan(plan *x, const uint64_t *bounds, size_t n_total)
{
    int owner[MG_DIGITS];
    size_t before = 0;
    for (int d = 0; d < MG_DIGITS; d++) {
        size_t count = 0;
        for (int r = 0; r < x->g; r++)
            count += bounds[r * (MG_DIGITS + 1) + d + 1] - bounds[r * (MG_DIGITS + 1) + d];
        double middle = (double)before + (double)count / 2.0;
        int o = n_total ? (int)(middle * x->g / (double)n_total) : 0;
        owner[d] = o < x->g ? o : x->g - 1;
        before += count;
    }
    memset(x->send, 0, sizeof x->send);
    for (int r = 0; r < x->g; r++)
        for (int d = 0; d < MG_DIGITS; d++)
            x->send[r][owner[d]] += bounds[r * (MG_DIGITS + 1) + d + 1] - bounds[r * (MG_DIGITS + 1) + d];
    for (int r = 0; r < x->g; r++) {
        size_t at = 0;
        for (int h = 0; h < x->g; h++) {
            x->at[r][h] = at;
            at += x->send[r][h];
        }
    }
}

static void send_and_receive(mg_part *p, void *arg)
{
    const plan *x = (const plan *)arg;
    uint32_t *in = p->sorted, *out = mg_other(p);
    size_t recv_at = 0;
    for (int h = 0; h < x->g; h++) {
        size_t send = x->send[p->rank][h], recv = x->send[h][p->rank];
        const uint32_t *run = in + x->at[p->rank][h];
        if (h == p->rank)
            CUDA_CHECK(cudaMemcpyAsync(out + recv_at, run, send * sizeof(uint32_t),
                                       cudaMemcpyDeviceToDevice, p->stream));
        else {
            if (send)
                NCCL_CHECK(ncclSend(run, send, ncclUint32, h, p->comm, p->stream));
            if (recv)
                NCCL_CHECK(ncclRecv(out + recv_at, recv, ncclUint32, h, p->comm, p->stream));
        }
        recv_at += recv;
    }
    p->sorted = out;
    p->n_out = recv_at;
}

static double phase_end(mg_world *w, double start)
{
    mg_world_sync(w);
    return host_time_ms() - start;
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
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        CUDA_CHECK(cudaSetDevice(p->device));
        p->sorted = p->d_keys;
        cub_sort(p, l, p->n_in, 24, 32);
    }
    t->partition = phase_end(w, t0);

    /* count: the digits' bounds in the partitioned keys, all-gathered */
    t0 = host_time_ms();
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        CUDA_CHECK(cudaSetDevice(p->device));
        /* the queries sit past every rank's row of bounds in the scratch */
        uint64_t *queries = p->d_scratch + (size_t)MG_MAX_GPUS * (MG_DIGITS + 1);
        CUDA_CHECK(cudaMemcpy(queries, h_queries, sizeof h_queries, cudaMemcpyHostToDevice));
        digit_bounds(p, queries);
    }
    mg_group(w, all_gather_bounds, NULL);
    CUDA_CHECK(cudaSetDevice(w->part[0].device));
    CUDA_CHECK(cudaMemcpyAsync(h_bounds, w->part[0].d_scratch,
                               (size_t)w->nranks * (MG_DIGITS + 1) * sizeof(uint64_t),
                               cudaMemcpyDeviceToHost, w->part[0].stream));
    CUDA_CHECK(cudaStreamSynchronize(w->part[0].stream));
    plan x;
    x.g = w->nranks;
    size_t n_total = 0;
    for (int r = 0; r < x.g; r++)
        n_total += h_bounds[r * (MG_DIGITS + 1) + MG_DIGITS];
    make_plan(&x, h_bounds, n_total);
    double too_many = 0; /* every process stops alike, or none does */
    for (int l = 0; l < w->nlocal; l++) {
        size_t arriving = 0;
        for (int r = 0; r < x.g; r++)
            arriving += x.send[r][w->part[l].rank];
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
    t->count = phase_end(w, t0);

    /* exchange */
    t0 = host_time_ms();
    mg_group(w, send_and_receive, &x);
    t->exchange = phase_end(w, t0);
    for (int r = 0; r < x.g; r++)
        for (int h = 0; h < x.g; h++)
            if (h != r)
                t->moved_gb += (double)x.send[r][h] * sizeof(uint32_t) / 1e9;

    /* local sort: CUB, every bit */
    t0 = host_time_ms();
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        CUDA_CHECK(cudaSetDevice(p->device));
        cub_sort(p, l, p->n_out, 0, 32);
    }
    t->local_sort = phase_end(w, t0);
    t->total = host_time_ms() - start;

    t->total = mg_world_max(w, t->total);
    t->count = mg_world_max(w, t->count);
    t->partition = mg_world_max(w, t->partition);
    t->exchange = mg_world_max(w, t->exchange);
    t->local_sort = mg_world_max(w, t->local_sort);
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
