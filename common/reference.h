/*
 * reference.h - the CPU reference sort that every result is checked against,
 * and the exact check itself.
 *
 * The reference is a merge sort on purpose: a comparison sort shares no code
 * and no idea with the radix sorts it checks, so a mistake in the radix logic
 * cannot hide in the reference too.
 */
#ifndef COMMON_REFERENCE_H
#define COMMON_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts n keys from in into out (in is left untouched).  0, or -1 if host
 * memory for the scratch buffer could not be had. */
int reference_sort(const uint32_t *in, uint32_t *out, size_t n);

/* The exact check: out must equal ref (the reference sort of the same input),
 * element for element, which holds exactly when out is sorted AND is a
 * permutation of the input.  Returns 0 if it does; otherwise -1 and one line in
 * msg naming the first mismatch: its index and both values, and whether out is
 * unsorted or sorted but not a permutation (an element dropped or duplicated). */
int verify_sorted(const uint32_t *out, const uint32_t *ref, size_t n, char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
