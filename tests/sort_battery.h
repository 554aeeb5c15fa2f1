/*
 * sort_battery.h - the battery every sort stage runs (the "Tests" section of the README).
 *
 * Sizes 0, 1, 2, 31, 32, 33, powers of two and their neighbours, multiples of
 * the stage's tile and their neighbours, sizes up to three tiles (every one with
 * --full; by default every one up to 256 and then one in 61), and a few million;
 * every distribution of common/keys.h.  Each output is compared with the reference
 * sort, element for element; the output buffer is filled with garbage first, so
 * that a key the stage forgets to write cannot pass by luck.
 */
#ifndef TESTS_SORT_BATTERY_H
#define TESTS_SORT_BATTERY_H

#include <stddef.h>

#include "sort_stage.h"

typedef struct {
    int sorts;
    int failures;
} battery_result;

enum battery_depth {
    BATTERY_QUICK = 0, /* every distribution at 0, 1, 2, 33, the tile's neighbours, 4097, 65537:
                          for the many variants of a stage (digit widths, block sizes ...) */
    BATTERY_SIZES = 1, /* every distribution at every fixed size and the tile's neighbours */
    BATTERY_SWEEP = 2, /* also sizes from 0 to 3 tiles (every one at scale TEST_FULL), and a
                          few million keys */
};

/* Runs the battery on the linked stage with these options.  tile: keys one
 * block of the stage handles (sizes around its multiples are tested).  scale: the
 * test's test_scale() (check.h) - TEST_TINY, the shortest run (for racecheck and
 * initcheck): 3 sorts up to 4097 keys; TEST_SMALL, a short run (for memcheck and
 * synccheck): a dozen sizes up to 4097 keys, two distributions; TEST_DEFAULT; TEST_FULL,
 * the sweep's every size. */
battery_result run_sort_battery(const char *label, const sort_options *opt, size_t tile,
                                enum battery_depth depth, int scale);

/* One sort in another order than u32 ascending (opt's --type, --descending, bit
 * range), of keys alone or - pairs - of keys with their input indices as values,
 * against reference_sort_ordered: keys and values equal element for element.
 * The outputs are filled with garbage first.  0 if they are equal; -1 and one line
 * in msg (naming label) if not, or if the stage failed or defines no
 * stage_sort_pairs (pairs). */
int check_ordered_sort(const char *label, const sort_options *opt, const uint32_t *keys, size_t n,
                       int pairs, char *msg, size_t msglen);

#endif
