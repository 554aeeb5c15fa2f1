/*
 * 07_onesweep/steps.c - the stage's twenty-three steps, in one program (see
 * STAGE_STEPS in common/sort_stage.h).  build/bin/07_onesweep sorts with the
 * last, or with the one --step K names:
 *   1  step1_onesweep.cu        one histogram, then a pass a kernel with a look-back
 *   2  step2_pass_skipping.cu   a pass with one digit for every key is skipped
 *   3  step3_atomic_rank.cu     a key's rank in its warp by one shared atomicOr
 *   4  step4_large_tiles.cu     tiles of 8192 keys
 *   5  step5_counts_first.cu    the tile's counts first, a row of counters a warp
 *   6  step6_crowded_tiles.cu   crowded tiles rank by match
 *   7  step7_key_types.cu       signed and float keys, ascending or descending
 *   8  step8_bit_ranges.cu      a sort by a range of the keys' bits
 *   9  step9_pairs.cu           key-value pairs
 *  10  step10_residency.cu      three blocks of 512 a multiprocessor
 *  11  step11_shape_constants.cu  the default tile's shape compiled in
 *  12  step12_lookback_window.cu  the look-back reads four tiles at once
 *  13  step13_crowded_counts.cu  crowded passes count by match
 *  14  step14_histogram_clears.cu  the histogram kernel clears the first look-back table
 *  15  step15_returning_atomic.cu  the leader's count comes back from its atomic
 *  16  step16_ranks_from_counts.cu  a crowded pass ranks its keys as it counts them
 *  17  step17_lane_copies.cu    the histogram's counters, a copy per lane
 *  18  step18_rows_once.cu      the warps' rows become places in one sweep
 *  19  step19_flipped_words.cu  one look-back table, a bit flipped instead of the words cleared
 *  20  step20_pair_tiles.cu     pairs in tiles of 24 keys a thread, each slot in shared memory
 *  21  step21_values_early.cu   each value loaded as its key is ranked, written beside its key
 *  22  step22_whole_tiles.cu    a whole tile of keys loaded without a bound check
 *  23  step23_pass_halves.cu    the histogram's counters a half a pass: a constant to add
 */
#include "sort_stage.h"

STEP_DECLARE(1)
STEP_DECLARE(2)
STEP_DECLARE(3)
STEP_DECLARE(4)
STEP_DECLARE(5)
STEP_DECLARE(6)
STEP_DECLARE(7)
STEP_DECLARE(8)
STEP_DECLARE_PAIRS(9)
STEP_DECLARE_PAIRS(10)
STEP_DECLARE_PAIRS(11)
STEP_DECLARE_PAIRS(12)
STEP_DECLARE_PAIRS(13)
STEP_DECLARE_PAIRS(14)
STEP_DECLARE_PAIRS(15)
STEP_DECLARE_PAIRS(16)
STEP_DECLARE_PAIRS(17)
STEP_DECLARE_PAIRS(18)
STEP_DECLARE_PAIRS(19)
STEP_DECLARE_PAIRS(20)
STEP_DECLARE_PAIRS(21)
STEP_DECLARE_PAIRS(22)
STEP_DECLARE_PAIRS(23)

const stage_step STAGE_STEPS[] = {STEP_ENTRY(1), STEP_ENTRY(2), STEP_ENTRY(3), STEP_ENTRY(4),
                                  STEP_ENTRY(5), STEP_ENTRY(6), STEP_ENTRY(7), STEP_ENTRY(8),
                                  STEP_ENTRY_PAIRS(9), STEP_ENTRY_PAIRS(10),
                                  STEP_ENTRY_PAIRS(11), STEP_ENTRY_PAIRS(12),
                                  STEP_ENTRY_PAIRS(13), STEP_ENTRY_PAIRS(14),
                                  STEP_ENTRY_PAIRS(15), STEP_ENTRY_PAIRS(16),
                                  STEP_ENTRY_PAIRS(17), STEP_ENTRY_PAIRS(18),
                                  STEP_ENTRY_PAIRS(19), STEP_ENTRY_PAIRS(20),
                                  STEP_ENTRY_PAIRS(21), STEP_ENTRY_PAIRS(22),
                                  STEP_ENTRY_PAIRS(23)};
const int STAGE_STEP_COUNT = 23;
