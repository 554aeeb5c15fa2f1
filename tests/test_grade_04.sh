#!/usr/bin/env bash
# test_grade_04.sh - the lab kit on a GPU step, stage 04: the grader gives the stubbed
# handout less than full marks (exit 1) and the reference file full marks (exit 0).
# Needs a CUDA GPU; without one it says so and exits 77 (skipped).
set -u
cd "$(dirname "$0")/.."
bin=${BIN_DIR:-build/bin}/04_paper_local_sort
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
"$bin" -n 1000 --runs 1 --no-cub >/dev/null 2>&1
[ $? -ne 77 ] || { echo "SKIP: no CUDA device: grading stage 04 needs one"; exit 77; }
source tests/cli_lib.sh # check_that, check_grades, finish, and $tmp (removed at the end)
export GRADE_N=4194305 # a smaller input than the step's default: the speed part stays quick

tools/handout.sh 04 "$tmp/h" >"$tmp/handout.log" 2>&1
check_that "make handout STEP=04 works: $(tail -n 1 "$tmp/handout.log")" test -f "$tmp/h.tar.gz"
check_grades 04 "$tmp/h/04_paper_local_sort/radix_sort.cu" 04_paper_local_sort/radix_sort.cu
finish test_grade_04
