/*
 * one_step.c - the list of steps of a stage of one step (see STAGE_STEPS in
 * sort_stage.h): its own STAGE and functions.  Linked into the program of
 * every sort stage but those of several steps, which bring their own list.
 */
#include "sort_stage.h"

/* Only a stage that sorts pairs defines stage_sort_pairs; for the others the
 * linker leaves this weak reference NULL. */
#pragma weak stage_sort_pairs

const stage_step STAGE_STEPS[] = {
    {&STAGE, stage_check_options, stage_device_bytes, stage_step_bytes, stage_sort,
     stage_sort_pairs},
};
const int STAGE_STEP_COUNT = 1;
