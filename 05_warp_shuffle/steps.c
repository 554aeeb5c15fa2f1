/*
 * 05_warp_shuffle/steps.c - the stage's four steps, in one program (see
 * STAGE_STEPS in common/sort_stage.h).  build/bin/05_warp_shuffle sorts with
 * the last, or with the one --step K names:
 *   1  step1_shuffle_scan.cu   the local sort's scan by warp shuffles
 *   2  step2_ballot_split.cu   each split ranked by ballots
 *   3  step3_multisplit.cu     reduce-then-scan with a warp multisplit
 *   4  step4_wide_digits.cu    the multisplit's shape: 8-bit digits, 16 keys a thread
 */
#include "sort_stage.h"

STEP_DECLARE(1)
STEP_DECLARE(2)
STEP_DECLARE(3)
STEP_DECLARE(4)

const stage_step STAGE_STEPS[] = {STEP_ENTRY(1), STEP_ENTRY(2), STEP_ENTRY(3), STEP_ENTRY(4)};
const int STAGE_STEP_COUNT = 4;
