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
source tests/cli_lib.sh # fail, finish, and $tmp (removed at the end)
export GRADE_N=4194305 # a smaller input than the step's default: the speed part stays quick

check_that() { # NAME COMMAND...: one check, failed with NAME unless COMMAND succeeds
    local name=$1; shift
    checks=$((checks + 1))
    "$@" || fail "$name"
}

tools/handout.sh 04 "$tmp/h" >"$tmp/handout.log" 2>&1
check_that "make handout STEP=04 works: $(tail -n 1 "$tmp/handout.log")" test -f "$tmp/h.tar.gz"
stub=$(tools/grade.sh 04 "$tmp/h/04_paper_local_sort/radix_sort.cu" 2>/dev/null)
rc=$?
check_that "the stubs are graded below full marks, exit 1 (got exit $rc: $stub)" \
    bash -c "[ $rc -eq 1 ] && grep -qE '^GRADE step=04 .* score=[0-9]+/100$' <<<'$stub' && ! grep -q 'score=100/100' <<<'$stub'"
ref=$(tools/grade.sh 04 04_paper_local_sort/radix_sort.cu 2>/dev/null)
rc=$?
check_that "the reference gets full marks, exit 0 (got exit $rc: $ref)" \
    bash -c "[ $rc -eq 0 ] && grep -qE '^GRADE step=04 correctness=([0-9]+)/\\1 speed=[0-9.]+ score=100/100$' <<<'$ref'"
finish test_grade_04
