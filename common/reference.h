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

#include "sort_stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts n keys from in into out (in is left untouched).  0, or -1 if host
 * memory for the scratch buffer could not be had. */
int reference_sort(const uint32_t *in, uint32_t *out, size_t n);

/* The order a sort with opt's --type, --descending and bit range gives, as an
 * unsigned number: key a goes before key b when its number is smaller, and keys
 * of equal numbers keep their input order.  Written apart from any stage's
 * transform: floats by their sign and magnitude, signed keys by their value. */
uint32_t reference_order(uint32_t key, const sort_options *opt);

/* The reference for any options: keys_out sorted in that order, stably, and
 * values_out[i] (if not NULL) the input index of keys_out[i] - the stable argsort.
 * 0, or -1 if host memory could not be had.  A comparison sort again. */
int reference_sort_ordered(const uint32_t *keys, size_t n, const sort_options *opt,
                           uint32_t *keys_out, uint32_t *values_out);

/* Whether opt sorts anything but u32 keys ascending by all 32 bits. */
int options_change_order(const sort_options *opt);

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
