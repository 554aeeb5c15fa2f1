#!/usr/bin/env bash
# test_handouts.sh - every step's handout as a student gets it, on any machine, without
# building it (test_grade_01.sh builds one and test_grade_gpu.sh grades two): for each
# step of the course, the handout holds no ANSWERS.md and no step after its own (whose
# file would give the answer away), stubs every hole it lists in HANDOUT.md (a TODO line
# each, no hole left in the files it names), and, in a stage of several steps, a steps.c
# that lists exactly its steps (stage 06: its versions, NN_VERSIONS and rules.mk cut to
# them).  A version of stage 06 with no hole marked must be refused (exit 2).
set -u
cd "$(dirname "$0")/.."
source tests/cli_lib.sh # check_that, finish, and $tmp (removed at the end)
. tools/steps-lib.sh    # step_ids, step_field, file_step_number

for id in $(step_ids); do
    file=$(step_field "$id" 2) stage=${file%%/*} h=$tmp/$id
    if [ "$stage" = 06_nn_histogram ] && ! grep -q 'LAB BEGIN' "$file"; then
        tools/handout.sh "$id" "$h" >/dev/null 2>&1
        check_that "step $id: no hole marked yet, so refused (exit 2)" test $? -eq 2
        continue
    fi
    tools/handout.sh "$id" "$h" >"$tmp/log" 2>&1 ||
        { fail "step $id: make handout failed: $(tail -n 1 "$tmp/log")"; continue; }
    check_that "step $id: no ANSWERS.md" test ! -e "$h/$stage/ANSWERS.md"
    holes=$(grep -c '^| `' "$h/HANDOUT.md")
    check_that "step $id: HANDOUT.md lists at least two holes ($holes)" test "$holes" -ge 2
    todos=$(cat "$h/$stage"/* 2>/dev/null | grep -c 'TODO(lab ')
    check_that "step $id: a TODO line for each hole ($todos of $holes)" test "$todos" -eq "$holes"
    for f in $(awk -F'`' '/^[|] `/ { print $2 }' "$h/HANDOUT.md" | sort -u); do
        check_that "step $id: $f is stubbed" grep -q 'TODO(lab ' "$h/$f"
        check_that "step $id: no hole left in $f" bash -c "! grep -q 'LAB BEGIN' '$h/$f'"
    done
    case $file in
    */v[0-9]*_*.cu)
        k=$(file_step_number "$file")
        later=$(ls "$h/$stage"/v[0-9]*_*.cu | sed 's|.*/v||; s|_.*||' | awk -v k="$k" '$1 > k' | wc -l)
        check_that "step $id: no later version in the handout" test "$later" -eq 0
        check_that "step $id: NN_VERSIONS is $k" grep -q "^#define NN_VERSIONS $k " "$h/$stage/nn_histogram.h"
        check_that "step $id: rules.mk builds versions 1-$k" \
            bash -c "grep -q 'v${k}_' '$h/$stage/rules.mk' && ! grep -q 'v$((k + 1))_' '$h/$stage/rules.mk'" ;;
    */step[0-9]_*.cu)
        k=$(file_step_number "$file")
        later=$(ls "$h/$stage"/step[0-9]_*.cu | sed 's|.*/step||; s|_.*||' | awk -v k="$k" '$1 > k' | wc -l)
        check_that "step $id: no later step in the handout" test "$later" -eq 0
        check_that "step $id: its steps.c counts $k steps" grep -q "STAGE_STEP_COUNT = $k;" "$h/$stage/steps.c"
        entries=$(grep -oE 'STEP_ENTRY(_PAIRS)?\([0-9]+\)' "$h/$stage/steps.c" | wc -l)
        check_that "step $id: its steps.c lists $k entries ($entries)" test "$entries" -eq "$k" ;;
    esac
done
finish test_handouts
