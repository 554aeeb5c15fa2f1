/*
 * 08_multi_gpu/mg.h - the plumbing of stage 08 (mg_world.c, mg_keys.cu, main.c): the
 * GPUs and their NCCL communicators, each GPU's share of the keys, the checks.  The
 * algorithm is in the step files (step1_partition_exchange.c ...), which see only this.
 */
#ifndef STAGE08_MG_H
#define STAGE08_MG_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "onesweep_lib.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MG_MAX_GPUS 8
#define MG_DIGITS 256 /* the top 8 bits of a key: what a GPU's range of keys is made of */
#define MG_SCRATCH_WORDS ((1 + MG_MAX_GPUS) * MG_MAX_GPUS * 257)
#define MG_MAX_SLICES 16 /* 08.4: the most slices a part's exchange is cut into */

#define NCCL_CHECK(call) mg_nccl_check((call), #call, __FILE__, __LINE__)
void mg_nccl_check(ncclResult_t status, const char *call, const char *file, int line);

/* One GPU's part of the sort: its keys before and after, and its scratch. */
typedef struct {
    int device;           /* CUDA device */
    int rank;             /* its place among all the GPUs: its keys come after lower ranks' */
    ncclComm_t comm;
    cudaStream_t stream;  /* NCCL's stream; ordered with the default stream 07's kernels use */
    cudaStream_t wire;    /* a stream that is not: 08.4's slices cross on it while 07 sorts */
    cudaEvent_t landed[MG_MAX_SLICES]; /* 08.4: slice k has landed on this GPU */
    size_t n_in;          /* keys it starts with: its share of the input */
    size_t cap;           /* keys each of its two buffers holds */
    uint32_t *d_keys;     /* its share, then its sorted part */
    uint32_t *d_alt;      /* the second buffer of every sort and of the exchange */
    uint32_t *sorted;     /* after a sort: where the part starts, in d_keys or in d_alt */
    size_t n_out;         /* keys of its sorted part */
    uint32_t *d_counts;   /* MG_DIGITS counters, then every GPU's: G x MG_DIGITS */
    uint64_t *d_sum;      /* a few words for the checks */
    uint64_t *d_scratch;  /* MG_SCRATCH_WORDS for a step's rounds of counts */
    os_sorter *sorter;
} mg_part;

/* The buffer of a part that does not hold its keys now: the next sort's or move's target.
 * (A part may start a few keys into its buffer: 08.3's does.) */
static inline uint32_t *mg_other(const mg_part *p)
{
    return p->sorted >= p->d_keys && p->sorted < p->d_keys + p->cap ? p->d_alt : p->d_keys;
}

/* The GPUs this process drives (all of them, or one under MPI) among G in all. */
typedef struct {
    int nranks;           /* G: GPUs in the sort */
    int nlocal;           /* GPUs of this process */
    int mpi_rank;         /* this process's rank under MPI (0 otherwise) */
    int mpi;              /* 1 under mpirun */
    mg_part part[MG_MAX_GPUS];
    struct mg_pool *pool; /* one process, several GPUs: a host thread for each GPU but the first */
} mg_world;

/* Opens the world: under mpirun (a build with MPI) one GPU a rank, else `gpus` GPUs of
 * this host (0: every visible one).  Returns 0, or -1 with one line in err. */
int mg_world_open(mg_world *w, int gpus, int *argc, char ***argv, char *err, size_t errlen);
void mg_world_close(mg_world *w);
/* Whether this process prints (rank 0, or the only process). */
int mg_world_leader(const mg_world *w);
/* Every GPU of the world done with what was issued so far (a barrier across processes). */
void mg_world_sync(mg_world *w);
/* The largest of each process's x, on every process (an all-reduce through NCCL). */
double mg_world_max(mg_world *w, double x);
/* The sum over the processes of x. */
uint64_t mg_world_sum_u64(mg_world *w, uint64_t x);

/* Rank r's share of n keys over g GPUs: keys [first, first + count) of the input, the
 * remainder spread over the first ranks; the same for the sorted output's parts where a
 * step makes them exact. */
static inline void mg_share_of(size_t n, int g, int r, size_t *first, size_t *count)
{
    size_t base = n / g, extra = n % g;
    *first = (size_t)r * base + ((size_t)r < extra ? (size_t)r : extra);
    *count = base + ((size_t)r < extra ? 1 : 0);
}

/* After every local GPU finished an os_sort of its part (p->sorted into mg_other(p)):
 * points each part's `sorted` at the buffer that holds the result. */
void mg_sorts_done(mg_world *w);

/* Runs NCCL calls of every local GPU as one group: body(part, arg) for each. */
void mg_group(mg_world *w, void (*body)(mg_part *p, void *arg), void *arg);
/* body(part, arg) for each local GPU, its device current, and waits for all: in one process
 * of several GPUs each runs on a host thread of its own, so that one GPU's calls (a sort is
 * a dozen) do not wait for another's; body touches its part alone. */
void mg_each(mg_world *w, void (*body)(mg_part *p, void *arg), void *arg);

/* ---- the parts (mg_parts.c) ---------------------------------------------------------- */

/* Gives every local part its share of n keys (n_in), two buffers that hold the whole
 * input where it fits (08.1's uneven parts always land) and a sorter.  Returns 0, or -1
 * with one line in err where a share does not fit its GPU. */
int mg_parts_create(mg_world *w, size_t n, char *err, size_t errlen);
void mg_parts_destroy(mg_world *w);
/* Each local part's share of the n keys into its d_keys: from all (the whole input, on
 * the host) where given, else made on its GPU from the global index (mg_make_keys). */
void mg_parts_load(mg_world *w, size_t n, const uint32_t *all, int dist, uint64_t seed);
/* This process's sorted parts (n_out keys each) on the host, in rank order, in an array
 * of n keys; NULL where the host cannot hold it or the parts hold more than n keys. */
uint32_t *mg_parts_gather(mg_world *w, size_t n);

/* ---- keys (mg_keys.cu) ---------------------------------------------------------- */

/* Whether --dist D can be made on each GPU from the global index (stage 01-07's
 * generator, key i of n is the same for any G); the others are made on the host. */
int mg_dist_on_device(int dist);
/* Keys first..first+count-1 of the input make_keys(n, dist, seed) makes, on the
 * current device. */
void mg_make_keys(uint32_t *d_keys, size_t first, size_t count, int dist, uint64_t seed);
/* For each of m query values q[j] (up to 2^32, so 64 bits), how many of the n sorted
 * keys are less than it, into counts[j] (on the device). */
void mg_lower_bounds(const uint32_t *d_sorted, size_t n, const uint64_t *d_queries, int m,
                     uint64_t *d_counts);
/* A hash of the multiset of the keys (order does not matter), added into *d_sum. */
void mg_hash_keys(const uint32_t *d_keys, size_t n, uint64_t *d_sum);
/* The number of i with keys[i] > keys[i + 1], added into *d_sum. */
void mg_count_descents(const uint32_t *d_keys, size_t n, uint64_t *d_sum);

/* ---- the step's sort (one step file each) ------------------------------------------ */

/* Times of the phases of one sort, in ms, the largest over the GPUs. */
typedef struct {
    double total, count, partition, split, exchange, local_sort;
    double moved_gb; /* bytes that crossed between GPUs, in GB */
} mg_times;

/* The ms since start once every GPU of the world has finished what was issued: a phase's
 * time on this process. */
double mg_phase_end(mg_world *w, double start);
/* Each phase's time in t, the largest over the world's processes. */
void mg_times_world_max(mg_world *w, mg_times *t);

/* Sorts the world's keys (each part's d_keys, n_in of them): afterwards each part's
 * `sorted` holds n_out keys, and the parts in rank order are the sorted input.
 * Returns 0, or -1 with one line in err (nothing can be sorted that way).  Each step
 * file defines it, renamed mg_sort_K with its name MG_STEP_NAME (mg_step_name_K) by the
 * build; steps.c lists them. */
int mg_sort(mg_world *w, mg_times *t, char *err, size_t errlen);
extern const char *const MG_STEP_NAME;

typedef struct {
    const char *const *name; /* "08.K: its lesson" */
    int (*sort)(mg_world *w, mg_times *t, char *err, size_t errlen);
    int exact_shares;        /* its parts are the shares, key for key */
} mg_step;
extern const mg_step MG_STEPS[];
extern const int MG_STEP_COUNT;

/* ---- the library composition (composition.cu): the baseline across GPUs ------------- */

/* The same sort made of library calls only: CUB partitions each GPU's keys by the top 8
 * bits, NCCL all-gathers the digits' counts and each digit moves whole to one GPU (08.1's
 * owners), CUB sorts what arrived.  CUB's fastest call both times (int64_t count).  The
 * runs move in three forms: by NCCL from where they start (mg_composition_sort); by NCCL
 * from the 16-byte boundary below each run, landing on one, the extra keys made zeros
 * that sort first and are dropped (_aligned_); by cudaMemcpyPeerAsync on the copy engines,
 * where one process drives every GPU (_peer_; else -1, with why in err). */
int mg_composition_sort(mg_world *w, mg_times *t, char *err, size_t errlen);
int mg_composition_aligned_sort(mg_world *w, mg_times *t, char *err, size_t errlen);
int mg_composition_peer_sort(mg_world *w, mg_times *t, char *err, size_t errlen);
/* Frees the composition's CUB scratch on the world's GPUs. */
void mg_composition_free(mg_world *w);
extern const mg_step MG_COMPOSITION, MG_COMPOSITION_ALIGNED, MG_COMPOSITION_PEER;
/* The three forms in that order, and their short names (nccl, aligned, peer). */
#define MG_COMPOSITION_FORMS 3
extern const mg_step *const MG_COMPOSITION_FORM[MG_COMPOSITION_FORMS];
extern const char *const MG_COMPOSITION_FORM_NAME[MG_COMPOSITION_FORMS];

#ifdef __cplusplus
}
#endif
#endif
