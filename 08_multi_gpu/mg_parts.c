/*
 * 08_multi_gpu/mg_parts.c - each GPU's part of a sort (mg.h): its share of the input, its
 * two buffers and its sorter, for the program (main.c), its test and the grader's race.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "gpu.h"
#include "mg.h"

/* The keys each GPU's buffers hold: the whole input where it fits, so that 08.1's uneven
 * parts always land, and the few keys 08.3 moves to start its runs on 16-byte boundaries
 * (at most 6 for each GPU they come from); else as much as the memory allows. */
static size_t buffer_keys(size_t n)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    size_t fit = (size_t)((double)free_b * 0.85) / (2 * sizeof(uint32_t) + 1); /* 2 buffers + 07's scratch */
    size_t want = n + 6 * MG_MAX_GPUS;
    return want < fit ? want : fit;
}

int mg_parts_create(mg_world *w, size_t n, char *err, size_t errlen)
{
    size_t biggest_share = (n + w->nranks - 1) / w->nranks;
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        size_t first;
        mg_share_of(n, w->nranks, p->rank, &first, &p->n_in);
        CUDA_CHECK(cudaSetDevice(p->device));
        p->cap = buffer_keys(n);
        if (p->cap < biggest_share) {
            snprintf(err, errlen, "-n %zu: GPU %d holds %zu keys of its share of %zu", n, p->rank, p->cap,
                     biggest_share);
            return -1;
        }
        p->d_keys = gpu_alloc(p->cap * sizeof(uint32_t), 1);
        p->d_alt = gpu_alloc(p->cap * sizeof(uint32_t), 1);
        p->d_counts = gpu_alloc((size_t)w->nranks * MG_DIGITS * sizeof(uint32_t), 1);
        p->d_sum = gpu_alloc(4 * sizeof(uint64_t), 1);
        p->d_scratch = gpu_alloc(MG_SCRATCH_WORDS * sizeof(uint64_t), 1);
        p->sorter = os_create(p->cap);
        p->sorted = p->d_keys;
        p->n_out = 0;
    }
    return 0;
}

void mg_parts_destroy(mg_world *w)
{
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        CUDA_CHECK(cudaSetDevice(p->device));
        os_destroy(p->sorter);
        gpu_free(p->d_scratch);
        gpu_free(p->d_sum);
        gpu_free(p->d_counts);
        gpu_free(p->d_alt);
        gpu_free(p->d_keys);
    }
}

void mg_parts_load(mg_world *w, size_t n, const uint32_t *all, int dist, uint64_t seed)
{
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        size_t first, count;
        mg_share_of(n, w->nranks, p->rank, &first, &count);
        CUDA_CHECK(cudaSetDevice(p->device));
        if (all)
            CUDA_CHECK(cudaMemcpy(p->d_keys, all + first, count * sizeof(uint32_t), cudaMemcpyHostToDevice));
        else
            mg_make_keys(p->d_keys, first, count, dist, seed);
    }
}

uint32_t *mg_parts_gather(mg_world *w, size_t n)
{
    uint32_t *out = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!out)
        return NULL;
    size_t at = 0;
    for (int l = 0; l < w->nlocal; l++) {
        mg_part *p = &w->part[l];
        if (at + p->n_out > n) { /* more keys than the input had: a broken sort */
            free(out);
            return NULL;
        }
        CUDA_CHECK(cudaSetDevice(p->device));
        CUDA_CHECK(cudaMemcpy(out + at, p->sorted, p->n_out * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        at += p->n_out;
    }
    return out;
}
