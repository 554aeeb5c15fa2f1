#!/usr/bin/env bash
# test_grade_gpu.sh - the lab kit on GPU steps: for each step, the grader gives the
# stubbed handout less than full marks (exit 1) and the reference file full marks (exit
# 0).  The steps: 04 (a stage of one file) and 05.2 (a step of a stage of several, whose
# handout leaves the later steps out).  Needs a CUDA GPU; without one it says so and
# exits 77 (skipped).  GRADE_TEST_STEPS overrides the list of steps.
set -u
cd "$(dirname "$0")/.."
. tools/steps-lib.sh # step_id, step_field
bin=${BIN_DIR:-build/bin}/04_paper_local_sort
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
"$bin" -n 1000 --runs 1 --no-cub >/dev/null 2>&1
[ $? -ne 77 ] || { echo "SKIP: no CUDA device: grading the GPU steps needs one"; exit 77; }
source tests/cli_lib.sh # check_that, check_grades, finish, and $tmp (removed at the end)
export GRADE_N=4194305 # a smaller input than the steps' defaults: the speed part stays quick

for step in ${GRADE_TEST_STEPS:-04 05.2}; do
    id=$(step_id "$step") && file=$(step_field "$id" 2) || { fail "no step $step"; continue; }
    tools/handout.sh "$id" "$tmp/h$id" >"$tmp/handout.log" 2>&1
    check_that "make handout STEP=$id works: $(tail -n 1 "$tmp/handout.log")" test -f "$tmp/h$id.tar.gz"
    check_grades "$id" "$tmp/h$id/$file" "$file"
done
finish test_grade_gpu
