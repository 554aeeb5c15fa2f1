/*
 * 08_multi_gpu/mg_world.c - the GPUs of a sort and their NCCL communicators (mg.h).
 *
 * One process that drives every GPU of the host opens them all at once
 * (ncclCommInitAll).  Under mpirun each rank drives one GPU: rank 0 makes NCCL's
 * unique id, MPI_Bcast hands it to every rank, and each joins with ncclCommInitRank -
 * the same code whether the ranks share a host or not.  MPI is used for that and for
 * the host-side barrier and reductions; the keys only ever move through NCCL.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MG_MPI
#include <mpi.h>
#endif

#include "cuda_check.h"
#include "mg.h"
#include "timer.h"

void mg_nccl_check(ncclResult_t status, const char *call, const char *file, int line)
{
    if (status != ncclSuccess) {
        fprintf(stderr, "%s:%d: NCCL error %s in `%s`\n", file, line, ncclGetErrorString(status), call);
        exit(EXIT_CUDA_ERROR);
    }
}

/* Whether this process was started by mpirun (the launchers' environment). */
static int under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

static int open_local(mg_world *w, int gpus, char *err, size_t errlen)
{
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (gpus == 0)
        gpus = count < MG_MAX_GPUS ? count : MG_MAX_GPUS;
    if (gpus > count) {
        snprintf(err, errlen, "--gpus %d: this host has %d GPU%s", gpus, count, count == 1 ? "" : "s");
        return -1;
    }
    int devs[MG_MAX_GPUS];
    ncclComm_t comms[MG_MAX_GPUS];
    for (int g = 0; g < gpus; g++)
        devs[g] = g;
    NCCL_CHECK(ncclCommInitAll(comms, gpus, devs));
    w->nranks = w->nlocal = gpus;
    for (int g = 0; g < gpus; g++) {
        w->part[g].device = g;
        w->part[g].rank = g;
        w->part[g].comm = comms[g];
    }
    return 0;
}

#ifdef MG_MPI
static int open_mpi(mg_world *w, int *argc, char ***argv, char *err, size_t errlen)
{
    int size = 0, rank = 0, count = 0;
    MPI_Init(argc, argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size > MG_MAX_GPUS) {
        snprintf(err, errlen, "mpirun -np %d: at most %d ranks (a GPU each)", size, MG_MAX_GPUS);
        return -1;
    }
    CUDA_CHECK(cudaGetDeviceCount(&count));
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int device = (local ? atoi(local) : rank) % (count ? count : 1);
    ncclUniqueId id;
    if (rank == 0)
        NCCL_CHECK(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    CUDA_CHECK(cudaSetDevice(device));
    NCCL_CHECK(ncclCommInitRank(&w->part[0].comm, size, id, rank));
    w->mpi = 1;
    w->mpi_rank = rank;
    w->nranks = size;
    w->nlocal = 1;
    w->part[0].device = device;
    w->part[0].rank = rank;
    return 0;
}
#endif

static void pool_open(mg_world *w);
static void pool_close(mg_world *w);

int mg_world_open(mg_world *w, int gpus, int *argc, char ***argv, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    /* NVLink multicast (NVLS) off unless the environment sets it: the exchange is point to
     * point and never uses it, and on a shared host it can leave the GPUs unusable */
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    int status;
    if (under_mpirun()) {
#ifdef MG_MPI
        if (gpus) {
            snprintf(err, errlen, "--gpus: under mpirun each rank drives one GPU (mpirun -np G)");
            return -1;
        }
        status = open_mpi(w, argc, argv, err, errlen);
#else
        (void)argc;
        (void)argv;
        snprintf(err, errlen, "started by mpirun, but this build has no MPI (no mpicc when it was built)");
        return -1;
#endif
    } else {
        (void)argc;
        (void)argv;
        status = open_local(w, gpus, err, errlen);
    }
    if (status != 0)
        return status;
    for (int l = 0; l < w->nlocal; l++) {
        CUDA_CHECK(cudaSetDevice(w->part[l].device));
        CUDA_CHECK(cudaStreamCreate(&w->part[l].stream)); /* blocking: ordered with stream 0 */
        /* the highest priority: the block scheduler starts the wire's kernels (NCCL's) before
         * the blocks of a sort that wait for a place, so that a slice does not wait for a
         * whole pass of 07 to be scheduled first */
        int least, greatest;
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CUDA_CHECK(cudaStreamCreateWithPriority(&w->part[l].wire, cudaStreamNonBlocking, greatest));
        for (int k = 0; k < MG_MAX_SLICES; k++)
            CUDA_CHECK(cudaEventCreateWithFlags(&w->part[l].landed[k], cudaEventDisableTiming));
    }
    pool_open(w);
    return 0;
}

void mg_world_close(mg_world *w)
{
    pool_close(w);
    for (int l = 0; l < w->nlocal; l++) {
        CUDA_CHECK(cudaSetDevice(w->part[l].device));
        for (int k = 0; k < MG_MAX_SLICES; k++)
            CUDA_CHECK(cudaEventDestroy(w->part[l].landed[k]));
        CUDA_CHECK(cudaStreamDestroy(w->part[l].wire));
        CUDA_CHECK(cudaStreamDestroy(w->part[l].stream));
        NCCL_CHECK(ncclCommDestroy(w->part[l].comm));
    }
#ifdef MG_MPI
    if (w->mpi)
        MPI_Finalize();
#endif
}

/* ---- one host thread a GPU, in one process ----------------------------------------------- */

/* The threads of mg_each: GPU l > 0 of the process has thread l, waiting for a job (a body
 * and its argument, numbered); the caller's thread runs GPU 0's share itself. */
typedef struct {
    struct mg_pool *pool;
    int local;
} pool_seat;

struct mg_pool {
    mg_world *w;
    pthread_mutex_t lock;
    pthread_cond_t job_posted, job_done;
    unsigned long job;   /* the number of the latest job */
    int running;         /* threads still on it */
    int quit;
    void (*body)(mg_part *p, void *arg);
    void *arg;
    int threads;
    pthread_t thread[MG_MAX_GPUS];
    pool_seat seat[MG_MAX_GPUS];
};

static void *pool_thread(void *v)
{
    pool_seat *seat = (pool_seat *)v;
    struct mg_pool *pool = seat->pool;
    mg_part *p = &pool->w->part[seat->local];
    unsigned long seen = 0;
    CUDA_CHECK(cudaSetDevice(p->device));
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        while (pool->job == seen && !pool->quit)
            pthread_cond_wait(&pool->job_posted, &pool->lock);
        if (pool->quit) {
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        seen = pool->job;
        void (*body)(mg_part *, void *) = pool->body;
        void *arg = pool->arg;
        pthread_mutex_unlock(&pool->lock);
        body(p, arg);
        pthread_mutex_lock(&pool->lock);
        if (--pool->running == 0)
            pthread_cond_signal(&pool->job_done);
        pthread_mutex_unlock(&pool->lock);
    }
}

/* The threads for GPUs 1..nlocal-1 of a process that drives several; none where it fails
 * (mg_each then runs every GPU's share on the caller's thread). */
static void pool_open(mg_world *w)
{
    w->pool = NULL;
    if (w->nlocal < 2)
        return;
    struct mg_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return;
    pool->w = w;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->job_posted, NULL);
    pthread_cond_init(&pool->job_done, NULL);
    for (int l = 1; l < w->nlocal; l++) {
        pool->seat[l] = (pool_seat){pool, l};
        if (pthread_create(&pool->thread[pool->threads], NULL, pool_thread, &pool->seat[l]) != 0)
            break;
        pool->threads++;
    }
    w->pool = pool;
}

static void pool_close(mg_world *w)
{
    struct mg_pool *pool = w->pool;
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = 1;
    pthread_cond_broadcast(&pool->job_posted);
    pthread_mutex_unlock(&pool->lock);
    for (int t = 0; t < pool->threads; t++)
        pthread_join(pool->thread[t], NULL);
    pthread_cond_destroy(&pool->job_done);
    pthread_cond_destroy(&pool->job_posted);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
    w->pool = NULL;
}

void mg_each(mg_world *w, void (*body)(mg_part *p, void *arg), void *arg)
{
    struct mg_pool *pool = w->pool;
    int first_alone = pool ? 1 + pool->threads : 0; /* GPUs from here on: this thread's */
    if (pool) {
        pthread_mutex_lock(&pool->lock);
        pool->body = body;
        pool->arg = arg;
        pool->running = pool->threads;
        pool->job++;
        pthread_cond_broadcast(&pool->job_posted);
        pthread_mutex_unlock(&pool->lock);
    }
    for (int l = 0; l < w->nlocal; l++) {
        if (pool && l > 0 && l < first_alone)
            continue; /* a thread's */
        CUDA_CHECK(cudaSetDevice(w->part[l].device));
        body(&w->part[l], arg);
    }
    if (pool) {
        pthread_mutex_lock(&pool->lock);
        while (pool->running > 0)
            pthread_cond_wait(&pool->job_done, &pool->lock);
        pthread_mutex_unlock(&pool->lock);
    }
    CUDA_CHECK(cudaSetDevice(w->part[0].device));
}

int mg_world_leader(const mg_world *w) { return w->mpi_rank == 0; }

void mg_world_sync(mg_world *w)
{
    for (int l = 0; l < w->nlocal; l++) {
        CUDA_CHECK(cudaSetDevice(w->part[l].device));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
#ifdef MG_MPI
    if (w->mpi)
        MPI_Barrier(MPI_COMM_WORLD);
#endif
}

double mg_world_max(mg_world *w, double x)
{
#ifdef MG_MPI
    if (w->mpi) {
        double y = x;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return y;
    }
#endif
    (void)w;
    return x;
}

uint64_t mg_world_sum_u64(mg_world *w, uint64_t x)
{
#ifdef MG_MPI
    if (w->mpi) {
        uint64_t y = x;
        MPI_Allreduce(&x, &y, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        return y;
    }
#endif
    (void)w;
    return x;
}

void mg_sorts_done(mg_world *w)
{
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        p->sorted = os_sorted(p->sorter, p->sorted, mg_other(p));
    }
}

void mg_group(mg_world *w, void (*body)(mg_part *p, void *arg), void *arg)
{
    NCCL_CHECK(ncclGroupStart());
    for (int l = 0; l < w->nlocal; l++) {
        CUDA_CHECK(cudaSetDevice(w->part[l].device));
        body(&w->part[l], arg);
    }
    NCCL_CHECK(ncclGroupEnd());
}

double mg_phase_end(mg_world *w, double start)
{
    mg_world_sync(w);
    return host_time_ms() - start;
}

void mg_times_world_max(mg_world *w, mg_times *t)
{
    t->total = mg_world_max(w, t->total);
    t->count = mg_world_max(w, t->count);
    t->partition = mg_world_max(w, t->partition);
    t->split = mg_world_max(w, t->split);
    t->exchange = mg_world_max(w, t->exchange);
    t->local_sort = mg_world_max(w, t->local_sort);
}
