/* reference.c - bottom-up merge sort and the exact check (see reference.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "parallel.h"
#include "reference.h"

enum { RUN = 32 };           /* runs this short are sorted by insertion first */
enum { MAX_THREADS = 16 };   /* large inputs are sorted by up to this many threads */
#define PARALLEL_FROM ((size_t)1 << 20)

/* The merge sort, written once for the element type T: NAME_insertion_sort,
 * NAME_merge, NAME_merge_sort and NAME_parallel_sort.  u32 sorts the keys;
 * u64 sorts the other orders, each key's order above its input index. */
#define DEFINE_MERGE_SORT(NAME, T)                                                          \
    static void NAME##_insertion_sort(T *a, size_t n)                                       \
    {                                                                                       \
        for (size_t i = 1; i < n; i++) {                                                    \
            T x = a[i];                                                                     \
            size_t j = i;                                                                   \
            while (j > 0 && a[j - 1] > x) {                                                 \
                a[j] = a[j - 1];                                                            \
                j--;                                                                        \
            }                                                                               \
            a[j] = x;                                                                       \
        }                                                                                   \
    }                                                                                       \
    /* Merges the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi). */            \
    static void NAME##_merge(const T *src, T *dst, size_t lo, size_t mid, size_t hi)        \
    {                                                                                       \
        size_t i = lo, j = mid, k = lo;                                                     \
        while (i < mid && j < hi)                                                           \
            dst[k++] = (src[j] < src[i]) ? src[j++] : src[i++];                             \
        while (i < mid)                                                                     \
            dst[k++] = src[i++];                                                            \
        while (j < hi)                                                                      \
            dst[k++] = src[j++];                                                            \
    }                                                                                       \
    /* Sorts a[0..n) with tmp[0..n) as scratch; the result ends in a. */                    \
    static void NAME##_merge_sort(T *a, T *tmp, size_t n)                                   \
    {                                                                                       \
        for (size_t lo = 0; lo < n; lo += RUN)                                              \
            NAME##_insertion_sort(a + lo, (n - lo < RUN) ? n - lo : RUN);                   \
        T *src = a, *dst = tmp;                                                             \
        for (size_t width = RUN; width < n; width *= 2) {                                   \
            for (size_t lo = 0; lo < n; lo += 2 * width) {                                  \
                size_t mid = (lo + width < n) ? lo + width : n;                             \
                size_t hi = (lo + 2 * width < n) ? lo + 2 * width : n;                      \
                NAME##_merge(src, dst, lo, mid, hi);                                        \
            }                                                                               \
            T *t = src;                                                                     \
            src = dst;                                                                      \
            dst = t;                                                                        \
        }                                                                                   \
        if (src != a)                                                                       \
            memcpy(a, src, n * sizeof *a);                                                  \
    }                                                                                       \
    typedef struct {                                                                        \
        T *a, *tmp;                                                                         \
        size_t lo, mid, hi;                                                                 \
    } NAME##_job;                                                                           \
    static void *NAME##_sort_chunk(void *arg)                                               \
    {                                                                                       \
        NAME##_job *j = arg;                                                                \
        NAME##_merge_sort(j->a + j->lo, j->tmp + j->lo, j->hi - j->lo);                     \
        return NULL;                                                                        \
    }                                                                                       \
    static void *NAME##_merge_chunks(void *arg)                                             \
    {                                                                                       \
        NAME##_job *j = arg; /* merges a[lo, mid) and a[mid, hi) into tmp[lo, hi) */        \
        NAME##_merge(j->a, j->tmp, j->lo, j->mid, j->hi);                                   \
        return NULL;                                                                        \
    }                                                                                       \
    /* Sorts a[0..n) with tmp[0..n) as scratch, the result in a: each thread sorts one      \
     * chunk, then pairs of sorted chunks are merged by as many threads as there are      \
     * pairs, until one run is left - sorted, as the serial sort's. */                     \
    static void NAME##_parallel_sort(T *a, T *tmp, size_t n)                                \
    {                                                                                       \
        int chunks = thread_count(n);                                                       \
        NAME##_job jobs[MAX_THREADS];                                                       \
        size_t bounds[MAX_THREADS + 1];                                                     \
        for (int c = 0; c <= chunks; c++)                                                   \
            bounds[c] = n / chunks * c + (c == chunks ? n % chunks : 0);                    \
        for (int c = 0; c < chunks; c++)                                                    \
            jobs[c] = (NAME##_job){a, tmp, bounds[c], 0, bounds[c + 1]};                    \
        run_parallel(NAME##_sort_chunk, jobs, sizeof jobs[0], chunks);                      \
        T *src = a, *dst = tmp;                                                             \
        for (int step = 1; step < chunks; step *= 2) {                                      \
            int pairs = 0;                                                                  \
            for (int c = 0; c < chunks; c += 2 * step)                                      \
                jobs[pairs++] = (NAME##_job){src, dst, bounds[c], bounds[c + step],         \
                                             bounds[c + 2 * step]};                         \
            run_parallel(NAME##_merge_chunks, jobs, sizeof jobs[0], pairs);                 \
            T *t = src;                                                                     \
            src = dst;                                                                      \
            dst = t;                                                                        \
        }                                                                                   \
        if (src != a)                                                                       \
            memcpy(a, src, n * sizeof *a);                                                  \
    }

static int thread_count(size_t n)
{
    int cpus = cpu_count(), threads = 1;
    while (threads * 2 <= MAX_THREADS && threads * 2 <= cpus && n >= PARALLEL_FROM)
        threads *= 2;
    return threads;
}

DEFINE_MERGE_SORT(u32, uint32_t)
DEFINE_MERGE_SORT(u64, uint64_t)

int reference_sort(const uint32_t *in, uint32_t *out, size_t n)
{
    if (n == 0)
        return 0;
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    memcpy(out, in, n * sizeof *out);
    u32_parallel_sort(out, tmp, n);
    free(tmp);
    return 0;
}

int verify_sorted(const uint32_t *out, const uint32_t *ref, size_t n, char *msg, size_t msglen)
{
    for (size_t i = 1; i < n; i++) {
        if (out[i - 1] > out[i]) {
            snprintf(msg, msglen,
                     "output is not sorted: out[%zu] = %u > out[%zu] = %u", i - 1, out[i - 1],
                     i, out[i]);
            return -1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (out[i] != ref[i]) {
            snprintf(msg, msglen,
                     "output is sorted but not a permutation of the input (a key was dropped, "
                     "duplicated or changed): first difference at index %zu: got %u, expected %u",
                     i, out[i], ref[i]);
            return -1;
        }
    }
    snprintf(msg, msglen, "output equals the reference sort (%zu %s)", n, keys_word(n));
    return 0;
}

/* ---- other orders: types, descending, bit ranges -------------------------- */

int options_change_order(const sort_options *opt)
{
    return opt->key_type != KEY_U32 || opt->descending || first_bit(opt) != 0 ||
           last_bit(opt) != 32;
}

uint32_t reference_order(uint32_t key, const sort_options *opt)
{
    uint32_t rank = key; /* u32: the key itself */
    if (opt->key_type == KEY_I32) {
        int32_t v = (int32_t)key; /* the most negative first */
        rank = (uint32_t)((int64_t)v - INT32_MIN);
    } else if (opt->key_type == KEY_F32) {
        uint32_t magnitude = key & 0x7FFFFFFFu; /* a larger magnitude is larger if positive */
        rank = key >> 31 ? 0x7FFFFFFFu - magnitude : 0x80000000u + magnitude;
    }
    int b = first_bit(opt), e = last_bit(opt);
    uint32_t field_mask = e - b == 32 ? 0xFFFFFFFFu : (1u << (e - b)) - 1;
    uint32_t field = (rank >> b) & field_mask;
    return opt->descending ? field_mask - field : field;
}

int reference_sort_ordered(const uint32_t *keys, size_t n, const sort_options *opt,
                           uint32_t *keys_out, uint32_t *values_out)
{
    uint64_t *order = malloc((n ? n : 1) * sizeof *order);
    uint64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!order || !tmp) {
        free(order);
        free(tmp);
        return -1;
    }
    for (size_t i = 0; i < n; i++) /* the input index breaks ties: stable */
        order[i] = (uint64_t)reference_order(keys[i], opt) << 32 | i;
    if (n > 0)
        u64_parallel_sort(order, tmp, n);
    free(tmp);
    for (size_t i = 0; i < n; i++) {
        uint32_t index = (uint32_t)order[i];
        keys_out[i] = keys[index];
        if (values_out)
            values_out[i] = index;
    }
    free(order);
    return 0;
}
