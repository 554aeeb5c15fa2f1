/* reference.c - bottom-up merge sort and the exact check (see reference.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

enum { RUN = 32 }; /* runs this short are sorted by insertion first */

static void insertion_sort(uint32_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* Merges the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi). */
static void merge(const uint32_t *src, uint32_t *dst, size_t lo, size_t mid, size_t hi)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = (src[j] < src[i]) ? src[j++] : src[i++];
    while (i < mid)
        dst[k++] = src[i++];
    while (j < hi)
        dst[k++] = src[j++];
}

int reference_sort(const uint32_t *in, uint32_t *out, size_t n)
{
    if (n == 0)
        return 0;
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    memcpy(out, in, n * sizeof *out);
    for (size_t lo = 0; lo < n; lo += RUN)
        insertion_sort(out + lo, (n - lo < RUN) ? n - lo : RUN);

    uint32_t *src = out, *dst = tmp;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = (lo + width < n) ? lo + width : n;
            size_t hi = (lo + 2 * width < n) ? lo + 2 * width : n;
            merge(src, dst, lo, mid, hi);
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != out)
        memcpy(out, src, n * sizeof *out);
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
    snprintf(msg, msglen, "output equals the reference sort (%zu keys)", n);
    return 0;
}
