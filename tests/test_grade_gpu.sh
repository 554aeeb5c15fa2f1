#!/usr/bin/env bash
# test_grade_gpu.sh - the lab kit on GPU steps: for each step, the grader gives the
# stubbed handout less than full marks (exit 1) and the reference file full marks (exit
# 0).  The steps: 04 (a stage of one file) and 05.2 (a step of a stage of several, whose
# handout leaves the later steps out).  Needs a CUDA GPU; without one it says so and
# exits 77 (skipped).  GRADE_TEST_STEPS overrides the list of steps; with 07.6 in it, a
# correct but slower 07.6 (without its crowding sum) must be graded slower too.
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
    if [ "$id" = 07.6 ]; then
        # 07.6 without its crowding sum: no tile counts as crowded, every tile ranks by
        # atomics as in 07.5 - still correct, slower on crowded keys, which the race's
        # and4 keys are: every check passes, and the speed shows the step's lesson lost
        # (at least 1.1x the course's time; within the default band of 1.25 it costs no
        # points - INSTRUCTOR.md says to grade 07.6 with GRADE_BAND=1.1)
        awk '/LAB END crowding/ { skip = 0 } !skip { print } /LAB BEGIN crowding/ { skip = 1 }' \
            "$file" >"$tmp/${file##*/}"
        slow=$(GRADE_N=16777217 tools/grade.sh "$id" "$tmp/${file##*/}" 2>"$tmp/slow.err")
        check_that "07.6 without its crowding sum passes every check and is 1.1x slower or more ($slow)" \
            bash -c "grep -qE '^GRADE step=07.6 correctness=([0-9]+)/\\1 speed=(1\.[1-9]|[2-9]\.)[0-9.]* ' <<<'$slow'"
        echo "  07.6 without its crowding sum: $slow"
        sed -n 's/^make grade: RACE/    RACE/p' "$tmp/slow.err"
    fi
done
finish test_grade_gpu
