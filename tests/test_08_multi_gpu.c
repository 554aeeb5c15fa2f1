/*
 * test_08_multi_gpu.c - stage 08's steps on two GPUs and on every GPU of the host, each
 * against the CPU reference sort.  GPU: needs two (exit 77 with "needs 2 GPUs, found N"
 * where there are fewer: the lesson is the keys that cross between GPUs).
 *   - the shares: n keys over G GPUs, the remainder spread over the first (on the CPU);
 *   - every step the program has (a handout: its step and those before), on 2 GPUs and on
 *     every GPU, every distribution, at 1, 3, 1000, 8193 and 2^20 + 3 keys (--small: the
 *     first four; --full: 2^24 + 1 too): the parts, gathered in rank order, equal the
 *     reference sort; each part is within the largest top digit's run of its share (08.1
 *     gives whole top digits to their owners), and exactly its share where the step makes
 *     them exact (08.2).
 * A group for each step, number of GPUs and distribution, for the grader.
 */
#define _POSIX_C_SOURCE 200809L /* check.h: alarm, sigaction */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../08_multi_gpu/mg.h"
#include "check.h"
#include "cuda_check.h"
#include "keys.h"
#include "reference.h"

static void test_shares(void)
{
    const size_t ns[] = {0, 1, 3, 7, 1000, 1048579};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int g = 1; g <= MG_MAX_GPUS; g++) {
            size_t next = 0, smallest = (size_t)-1, largest = 0;
            for (int r = 0; r < g; r++) {
                size_t first, count;
                mg_share_of(ns[i], g, r, &first, &count);
                CHECK_MSG(first == next, "n=%zu g=%d rank %d starts at %zu, not %zu", ns[i], g, r, first, next);
                next = first + count;
                smallest = count < smallest ? count : smallest;
                largest = count > largest ? count : largest;
            }
            CHECK_MSG(next == ns[i], "n=%zu g=%d: the shares hold %zu keys", ns[i], g, next);
            CHECK_MSG(largest - smallest <= 1, "n=%zu g=%d: shares of %zu to %zu keys", ns[i], g, smallest, largest);
        }
}

/* The most keys of one top digit: how far 08.1's parts may be from the shares. */
static size_t largest_digit_run(const uint32_t *keys, size_t n)
{
    size_t count[MG_DIGITS] = {0}, largest = 0;
    for (size_t i = 0; i < n; i++)
        count[keys[i] >> 24]++;
    for (int d = 0; d < MG_DIGITS; d++)
        largest = count[d] > largest ? count[d] : largest;
    return largest;
}

/* One sort of n keys of distribution dist by step s on the world's GPUs, checked. */
static void check_one_sort(mg_world *w, const mg_step *s, size_t n, key_dist dist)
{
    uint32_t *keys = malloc(n * sizeof *keys), *ref = malloc(n * sizeof *ref);
    char err[512] = "";
    if (!keys || !ref) {
        fprintf(stderr, "test_08_multi_gpu: out of host memory\n");
        exit(3);
    }
    make_keys(keys, n, dist, 2026);
    if (reference_sort(keys, ref, n)) {
        fprintf(stderr, "test_08_multi_gpu: the reference sort failed\n");
        exit(3);
    }
    int created = mg_parts_create(w, n, err, sizeof err) == 0;
    CHECK_MSG(created, "n=%zu: %s", n, err);
    if (created) {
        mg_parts_load(w, n, keys, dist, 2026);
        mg_times t;
        int sorted = s->sort(w, &t, err, sizeof err) == 0;
        CHECK_MSG(sorted, "%s, n=%zu %s on %d GPUs: %s", *s->name, n, dist_name(dist), w->nranks, err);
        size_t run = largest_digit_run(keys, n);
        for (int l = 0; sorted && l < w->nlocal; l++) {
            const mg_part *p = &w->part[l];
            size_t first, share;
            mg_share_of(n, w->nranks, p->rank, &first, &share);
            size_t off = p->n_out > share ? p->n_out - share : share - p->n_out;
            CHECK_MSG(off <= run, "%s, n=%zu %s: GPU %d holds %zu keys, its share is %zu and a top digit %zu",
                      *s->name, n, dist_name(dist), p->rank, p->n_out, share, run);
            if (s->exact_shares)
                CHECK_MSG(p->n_out == share, "%s, n=%zu %s: GPU %d holds %zu keys, not its share of %zu",
                          *s->name, n, dist_name(dist), p->rank, p->n_out, share);
        }
        uint32_t *out = sorted ? mg_parts_gather(w, n) : NULL;
        size_t total = 0;
        for (int l = 0; l < w->nlocal; l++)
            total += w->part[l].n_out;
        CHECK_MSG(sorted && total == n, "%s, n=%zu %s: the parts hold %zu keys", *s->name, n, dist_name(dist), total);
        if (out && total == n) {
            char msg[256];
            int same = verify_sorted(out, ref, n, msg, sizeof msg) == 0;
            CHECK_MSG(same, "%s, n=%zu %s on %d GPUs: %s", *s->name, n, dist_name(dist), w->nranks, msg);
        }
        free(out);
        mg_parts_destroy(w);
    }
    free(keys);
    free(ref);
}

/* A group: step s (the composition where s is 0) on the world's GPUs, one distribution,
 * every size. */
static void sort_battery(mg_world *w, int step, key_dist dist)
{
    char name[128];
    if (step)
        snprintf(name, sizeof name, "step 08.%d, %d GPUs, %s", step, w->nranks, dist_name(dist));
    else
        snprintf(name, sizeof name, "the library composition, %d GPUs, %s", w->nranks, dist_name(dist));
    if (!test_group(name))
        return;
    const mg_step *s = step ? &MG_STEPS[step - 1] : &MG_COMPOSITION;
    const size_t small[] = {1, 3, 1000, 8193}, normal[] = {1, 3, 1000, 8193, 1048579},
                 full[] = {1, 3, 1000, 8193, 1048579, 16777217};
    const size_t *ns = test_small ? small : test_full ? full : normal;
    int count = test_small ? 4 : test_full ? 6 : 5;
    for (int i = 0; i < count; i++)
        check_one_sort(w, s, ns[i], dist);
    if (!step)
        mg_composition_free(w);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    TEST_GROUP(test_shares);
    REQUIRE_GPU();
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    if (gpus < 2) {
        printf("SKIP: needs 2 GPUs, found %d\n", gpus);
        return 77;
    }
    int sizes[2] = {2, gpus < MG_MAX_GPUS ? gpus : MG_MAX_GPUS};
    for (int i = 0; i < (sizes[1] > 2 ? 2 : 1); i++) {
        mg_world w;
        char err[256];
        if (mg_world_open(&w, sizes[i], &argc, &argv, err, sizeof err)) {
            fprintf(stderr, "test_08_multi_gpu: %s\n", err);
            return 3;
        }
        for (int step = 0; step <= MG_STEP_COUNT; step++) /* 0: the composition */
            for (int d = 0; d < DIST_COUNT; d++)
                sort_battery(&w, step, (key_dist)d);
        mg_world_close(&w);
    }
    return check_summary("test_08_multi_gpu");
}
