/*
 * 07_onesweep/steps.c - the stage's sixteen steps, in one program (see
 * STAGE_STEPS in common/sort_stage.h).  build/bin/07_onesweep sorts with the
 * last, or with the one --step K names:
 *   1  step1_onesweep.cu           one histogram, then a pass a kernel with a look-back
 *   2  step2_pass_skipping.cu      a pass with one digit for every key is skipped
 *   3  step3_atomic_rank.cu        a key's rank in its warp by one shared atomicOr
 *   4  step4_large_tiles.cu        tiles of 8192 keys
 *   5  step5_counts_first.cu       the tile's counts first, a row of counters a warp
 *   6  step6_crowded_tiles.cu      crowded tiles rank by match
 *   7  step7_key_types.cu          signed and float keys, ascending or descending
 *   8  step8_bit_ranges.cu         a sort by a range of the keys' bits
 *   9  step9_pairs.cu              key-value pairs
 *  10  step10_residency.cu         three blocks of 512 a multiprocessor
 *  11  step11_shape_constants.cu   the common case compiled: the default shape as constants
 *  12  step12_returning_atomic.cu  the leader's count comes back from its atomic
 *  13  step13_lookback_table.cu    the look-back table: cleared once, flipped, read by windows
 *  14  step14_histogram_copies.cu  the histogram at the memory's rate: a copy a lane, a half a pass
 *  15  step15_crowded_passes.cu    crowded passes count and rank by match
 *  16  step16_wide_pairs.cu        pairs in wide tiles (Hopper)
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

const stage_step STAGE_STEPS[] = {STEP_ENTRY(1), STEP_ENTRY(2), STEP_ENTRY(3), STEP_ENTRY(4),
                                  STEP_ENTRY(5), STEP_ENTRY(6), STEP_ENTRY(7), STEP_ENTRY(8),
                                  STEP_ENTRY_PAIRS(9), STEP_ENTRY_PAIRS(10),
                                  STEP_ENTRY_PAIRS(11), STEP_ENTRY_PAIRS(12),
                                  STEP_ENTRY_PAIRS(13), STEP_ENTRY_PAIRS(14),
                                  STEP_ENTRY_PAIRS(15), STEP_ENTRY_PAIRS(16)};
const int STAGE_STEP_COUNT = 16;
