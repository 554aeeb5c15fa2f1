/*
 * 02_parallel_hist_scan/steps.c - the stage's three steps, in one program (see
 * STAGE_STEPS in common/sort_stage.h).  build/bin/02_parallel_hist_scan sorts
 * with the last, or with the one --step K names:
 *   1  step1_gpu_histogram.cu  the histogram on the GPU; scan and scatter on the CPU
 *   2  step2_gpu_scan.cu       the scan on the GPU too
 *   3  step3_block_table.cu    a [digit][block] table: the scatter on the GPU
 */
#include "sort_stage.h"

STEP_DECLARE(1)
STEP_DECLARE(2)
STEP_DECLARE(3)

const stage_step STAGE_STEPS[] = {STEP_ENTRY(1), STEP_ENTRY(2), STEP_ENTRY(3)};
const int STAGE_STEP_COUNT = 3;
