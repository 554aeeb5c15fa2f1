/*
 * test_08_multi_gpu.c - stage 08's steps on two GPUs and on every GPU of the host, each
 * against the CPU reference sort.  GPU: needs two for the steps (exit 77 with "needs 2
 * GPUs, found N" where there are fewer: the lesson is the keys that cross between GPUs),
 * one for the library alone, which runs first wherever there is a GPU.
 *   - the shares: n keys over G GPUs, the remainder spread over the first (on the CPU);
 *   - every step the program has (a handout: its step and those before), on 2 GPUs and on
 *     every GPU, every distribution, at 1, 3, 1000, 8193 and 2^20 + 3 keys (--small: the
 *     first four; --full: 2^24 + 1 too): the parts, gathered in rank order, equal the
 *     reference sort; each part is within the largest top digit's run of its share (08.1
 *     gives whole top digits to their owners), and exactly its share where the step makes
 *     them exact (08.2);
 *   - the large path of a GPU's sort (more keys than 07 sorts at once: chunked passes, and
 *     past 2^32 - 1 keys a cut by the top byte), forced onto small inputs
 *     (os_force_limits): every step at 100003 and 2^20 + 3 keys (--small: the first), and
 *     the library alone on one GPU, from one chunk to two levels of cuts (--small: one of
 *     each path) - full sorts and bit ranges, each result against a stable sort on the CPU.
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

/* Limits that send small inputs down the large path: chunks of 2 tiles of 07's 8,192
 * keys, and a cut above 300,000 keys (2^20 + 3 keys: two levels of cuts). */
#define FORCED_CHUNK_KEYS 16384
#define FORCED_WIDE_KEYS 300000

/* A group: step s on the world's GPUs (where s <= 0, the composition's form -s), one
 * distribution, every size. */
static void sort_battery(mg_world *w, int step, key_dist dist)
{
    char name[192];
    const mg_step *s = step > 0 ? &MG_STEPS[step - 1] : MG_COMPOSITION_FORM[-step];
    if (step > 0)
        snprintf(name, sizeof name, "step 08.%d, %d GPUs, %s", step, w->nranks, dist_name(dist));
    else
        snprintf(name, sizeof name, "%s, %d GPUs, %s", *s->name, w->nranks, dist_name(dist));
    if (!test_group(name))
        return;
    if (s == &MG_COMPOSITION_PEER && w->mpi)
        return; /* the copy engines' form needs one process that drives every GPU */
    const size_t small[] = {1, 3, 1000, 8193}, normal[] = {1, 3, 1000, 8193, 1048579},
                 full[] = {1, 3, 1000, 8193, 1048579, 16777217};
    const size_t *ns = test_small ? small : test_full ? full : normal;
    int count = test_small ? 4 : test_full ? 6 : 5;
    for (int i = 0; i < count; i++)
        check_one_sort(w, s, ns[i], dist);
    if (step <= 0)
        mg_composition_free(w);
}

/* A group: step s on the world's GPUs, one distribution, with the large path forced. */
static void large_path_battery(mg_world *w, int step, key_dist dist)
{
    char name[128];
    snprintf(name, sizeof name, "step 08.%d, the large path forced, %d GPUs, %s", step, w->nranks,
             dist_name(dist));
    if (!test_group(name))
        return;
    const size_t ns[] = {100003, 1048579};
    os_force_limits(FORCED_CHUNK_KEYS, FORCED_WIDE_KEYS);
    for (int i = 0; i < (test_small ? 1 : 2); i++)
        check_one_sort(w, &MG_STEPS[step - 1], ns[i], dist);
    os_force_limits(0, 0);
}

/* The keys sorted by bits [begin, end) on the CPU, stably: each key's digit and place. */
static int by_digit_then_place(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void stable_sort_by_bits(const uint32_t *keys, uint32_t *out, size_t n, int begin, int end)
{
    uint64_t *tagged = malloc((n ? n : 1) * sizeof *tagged);
    if (!tagged) {
        fprintf(stderr, "test_08_multi_gpu: out of host memory\n");
        exit(3);
    }
    uint32_t mask = end - begin == 32 ? 0xFFFFFFFFu : (1u << (end - begin)) - 1;
    for (size_t i = 0; i < n; i++)
        tagged[i] = (uint64_t)((keys[i] >> begin) & mask) << 32 | i; /* n < 2^32 here */
    qsort(tagged, n, sizeof *tagged, by_digit_then_place);
    for (size_t i = 0; i < n; i++)
        out[i] = keys[(uint32_t)tagged[i]];
    free(tagged);
}

/* The library alone on GPU 0, its large path forced: os_sort and os_sort_into_b (into a
 * buffer that starts off a 16-byte boundary, as 08's split sorts write) of n keys by
 * [begin, end), against the CPU's stable sort by those bits. */
static void check_library_sort(os_sorter *s, uint32_t *d_a, uint32_t *d_b, const uint32_t *keys,
                               size_t n, int begin, int end, key_dist dist)
{
    uint32_t *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    if (!want || !got) {
        fprintf(stderr, "test_08_multi_gpu: out of host memory\n");
        exit(3);
    }
    stable_sort_by_bits(keys, want, n, begin, end);
    for (int into_b = 0; into_b < 2; into_b++) {
        uint32_t *b = into_b ? d_b + 1 : d_b;
        CUDA_CHECK(cudaMemcpy(d_a, keys, n * sizeof *keys, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_b, 0xA5, (n + 1) * sizeof *keys)); /* garbage, not zeros */
        if (into_b)
            os_sort_into_b(s, d_a, b, n, begin, end);
        else
            os_sort(s, d_a, b, n, begin, end);
        CUDA_CHECK(cudaDeviceSynchronize());
        const uint32_t *result = into_b ? b : os_sorted(s, d_a, b);
        CUDA_CHECK(cudaMemcpy(got, result, n * sizeof *got, cudaMemcpyDeviceToHost));
        size_t bad = 0;
        while (bad < n && got[bad] == want[bad])
            bad++;
        CHECK_MSG(bad == n, "the library, %s, n=%zu %s, bits %d..%d: key %zu is %u, not %u",
                  into_b ? "os_sort_into_b" : "os_sort", n, dist_name(dist), begin, end, bad,
                  bad < n ? got[bad] : 0, bad < n ? want[bad] : 0);
    }
    free(want);
    free(got);
}

static void library_large_path(void)
{
    const size_t ns[] = {8192, 16385, 100003, 300001, 1048579};
    const int ranges[][2] = {{0, 32}, {24, 32}, {0, 24}, {5, 29}};
    const size_t most = ns[sizeof ns / sizeof ns[0] - 1];
    CUDA_CHECK(cudaSetDevice(0));
    os_force_limits(FORCED_CHUNK_KEYS, FORCED_WIDE_KEYS);
    os_sorter *s = os_create(most);
    os_force_limits(0, 0);
    uint32_t *d_a = gpu_alloc(most * sizeof(uint32_t), 1), *d_b = gpu_alloc((most + 1) * sizeof(uint32_t), 1);
    uint32_t *keys = malloc(most * sizeof *keys);
    if (!keys) {
        fprintf(stderr, "test_08_multi_gpu: out of host memory\n");
        exit(3);
    }
    for (int d = 0; d < DIST_COUNT; d++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            if (test_small && (ns[i] == 100003 || ns[i] == 1048579))
                continue; /* --small: one chunked size, one cut */
            make_keys(keys, ns[i], (key_dist)d, 2026);
            for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
                check_library_sort(s, d_a, d_b, keys, ns[i], ranges[r][0], ranges[r][1], (key_dist)d);
        }
    free(keys);
    gpu_free(d_b);
    gpu_free(d_a);
    os_destroy(s);
}

int main(int argc, char **argv)
{
    parse_test_args(argc, argv);
    TEST_GROUP(test_shares);
    REQUIRE_GPU();
    TEST_GROUP(library_large_path); /* one GPU's sorts: on any machine with a GPU */
    int gpus = 0;
    CUDA_CHECK(cudaGetDeviceCount(&gpus));
    if (gpus < 2) {
        if (check_failures) /* a failure of the library is not a skip */
            return check_summary("test_08_multi_gpu");
        printf("SKIP: needs 2 GPUs, found %d (the library alone on GPU 0 ran first: %d checks "
               "passed)\n", gpus, check_count);
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
        for (int step = 1 - MG_COMPOSITION_FORMS; step <= MG_STEP_COUNT; step++) /* <= 0: the composition */
            for (int d = 0; d < DIST_COUNT; d++)
                sort_battery(&w, step, (key_dist)d);
        for (int step = 1; step <= MG_STEP_COUNT; step++)
            for (int d = 0; d < DIST_COUNT; d++)
                large_path_battery(&w, step, (key_dist)d);
        mg_world_close(&w);
    }
    return check_summary("test_08_multi_gpu");
}
