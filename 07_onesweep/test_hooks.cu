/*
 * 07_onesweep/test_hooks.cu - one step of the stage, for its test program:
 * the Makefile builds it once per step around that step's file (STEP_FILE),
 * and step K's test program links it in place of the step.
 */
#include STEP_FILE
