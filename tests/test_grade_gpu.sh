#!/usr/bin/env bash
# test_grade_gpu.sh - the lab kit on every GPU step (02.1 onwards; stage 08's where there
# are 2 GPUs, the others named as not graded), at both levels of its
# handout: the grader gives the handout's stubbed files 0/100 (exit 1) and the course's files
# 100/100 (exit 0); and where a step's lesson is speed (races.txt), a correct file without
# the lesson at most 60/100: the step before's file in the step's place, and 07.6 without its
# crowding sum.  Needs a CUDA GPU; without one it says so and exits 77 (skipped).
#   GRADE_TEST_STEPS   the steps (default: 04 and 07.6 in make test's quick run; with
#                      TEST_FULL=1, make test FULL=1, every step but 01, whose grading
#                      tests/test_grade_01.sh checks on any machine)
#   GRADE_TEST_LEVELS  the levels (default: write and guided)
#   GRADE_TEST_JOBS    how many steps are graded at once (default: one for 4 cores)
# The grades run the test programs' short runs (GRADE_SMALL=1) and race on GRADE_N=4194305
# keys (the files without their lessons on 2^24+1, where races.txt's ratios are measured):
# the grader's logic is the same as at the defaults, in minutes.
set -u
cd "$(dirname "$0")/.."
. tools/steps-lib.sh # step_ids, step_field
bin=${BIN_DIR:-build/bin}/04_paper_local_sort
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
"$bin" -n 1000 --runs 1 --no-cub >/dev/null 2>&1
[ $? -ne 77 ] || { echo "SKIP: no CUDA device: grading the GPU steps needs one"; exit 77; }
source tests/cli_lib.sh # check_that, graded, finish, and $tmp (removed at the end)
export GRADE_N=4194305 GRADE_SMALL=1 GRADE_GROUP_TIMEOUT=${GRADE_GROUP_TIMEOUT:-30}
default_steps="04 07.6"
[ "${TEST_FULL:-0}" != 1 ] || default_steps=$(step_ids | grep -v '^01$')
steps_graded=${GRADE_TEST_STEPS:-$default_steps}
levels=${GRADE_TEST_LEVELS:-write guided}
jobs=${GRADE_TEST_JOBS:-$(( $(nproc) / 4 > 0 ? $(nproc) / 4 : 1 ))}

# grade_step ID LEVEL: the stubs and the course's files of the step graded; "CHECK" and
# "FAIL: ..." lines, and the GRADE lines, on stdout
grade_step() {
    local id=$1 level=$2 h=$tmp/h-$1-$2 f stub ref rc
    check() { local name=$1; shift; echo CHECK; "$@" || echo "FAIL: $name"; }
    HANDOUT_TAR=0 LEVEL=$level tools/handout.sh "$id" "$h" >"$h.log" 2>&1 ||
        { echo CHECK; echo "FAIL: step $id ($level): make handout failed: $(tail -n 1 "$h.log")"; return; }
    mkdir -p "$tmp/stub-$id-$level" "$tmp/ref-$id-$level"
    for f in $(awk -F'|' '/^[|] `/ { print $2 }' "$h/HANDOUT.md" | grep -o '`[^`]*`' | tr -d '`' | sort -u); do
        cp "$h/$f" "$tmp/stub-$id-$level/"
        cp "$f" "$tmp/ref-$id-$level/"
    done
    stub=$(LEVEL=$level tools/grade.sh "$id" "$tmp/stub-$id-$level" 2>"$h.stub.err")
    rc=$?
    check "step $id ($level): the stubs score 0/100, exit 1 (got exit $rc: $stub $(tail -n 1 "$h.stub.err"))" graded "$rc" 1 \
        "^GRADE step=$id level=$level correctness=0/[1-9][0-9]* speed=NA score=0/100( \\(.*\\))?$" "$stub"
    ref=$(LEVEL=$level tools/grade.sh "$id" "$tmp/ref-$id-$level" 2>"$h.ref.err")
    rc=$?
    check "step $id ($level): the course's files score 100/100, exit 0 (got exit $rc: $ref $(tail -n 1 "$h.ref.err"))" graded "$rc" 0 \
        "^GRADE step=$id level=$level correctness=([0-9]+)/\\1 speed=[0-9.]+ score=100/100$" "$ref"
    echo "  $id $level, the stubs:    $stub"
    echo "  $id $level, the course's: $ref"
    sed -n 's/^make grade: RACE/    RACE/p' "$h.ref.err"
    files=$(ls "$tmp/ref-$id-$level")
    if [ "$level" = write ] && [ "$(wc -w <<<"$files")" -gt 1 ]; then
        # the course's copy of one file of several: the others are still the stubs, which
        # no result of a run of the course's files may stand for
        f=$(head -n 1 <<<"$files")
        part=$(LEVEL=$level tools/grade.sh "$id" "$tmp/ref-$id-$level/$f" 2>"$h.part.err")
        rc=$?
        check "step $id ($level): the course's $f alone, the other files stubs, scores less than 100 ($part)" \
            graded "$rc" 1 "^GRADE step=$id level=$level correctness=[0-9]+/[0-9]+ speed=NA score=[0-9]{1,2}/100 \\(.*\\)$" "$part"
        echo "  $id $level, the course's $f alone: $part"
    fi
    if [ "$id" = 07.6 ] && [ "$level" = write ]; then
        # 07.6 without its crowding sum: no tile counts as crowded, every tile ranks by
        # atomics as in 07.5 - still correct, slower on crowded keys, which the race's and4
        # keys are: every check passes, and races.txt's band of 1.1 costs it speed points
        f=$(step_field 07.6 2)
        awk '/LAB END crowding/ { skip = 0 } !skip { print } /LAB BEGIN crowding/ { skip = 1 }' "$f" \
            >"$tmp/${f##*/}"
        slow=$(GRADE_N=16777217 LEVEL=$level tools/grade.sh 07.6 "$tmp/${f##*/}" 2>"$h.slow.err")
        rc=$?
        check "07.6 without its crowding sum passes every check and scores at most 60 ($slow)" graded "$rc" 1 \
            '^GRADE step=07.6 level=write correctness=([0-9]+)/\1 speed=(1\.[1-9]|[2-9]\.)[0-9.]* score=([0-5]?[0-9]|60)/100$' "$slow"
        echo "  07.6 without its crowding sum: $slow"
        sed -n 's/^make grade: RACE/    RACE/p' "$h.slow.err"
    fi
    local before own
    before=$(file_before "$id") own=$(step_field "$id" 2)
    if [ "$level" = write ] && grep -q "^$id	" races.txt && [ "${before%%/*}" = "${own%%/*}" ]; then
        # a speed lesson: the step before's file in the step's place is a file without the
        # lesson (correct, or not built where the step's test program asks for the lesson's
        # own functions): at most 60 either way
        mkdir -p "$tmp/before-$id"
        cp "$before" "$tmp/before-$id/${own##*/}"
        slow=$(GRADE_N=16777217 LEVEL=$level tools/grade.sh "$id" "$tmp/before-$id/${own##*/}" 2>"$h.before.err")
        rc=$?
        check "step $id: the step before's file in its place scores at most 60 ($slow)" graded "$rc" 1 \
            "^GRADE step=$id level=write .* score=([0-5]?[0-9]|60)/100( \\(.*\\))?$" "$slow"
        echo "  $id with the step before's file: $slow"
        sed -n 's/^make grade: RACE/    RACE/p' "$h.before.err"
    fi
}

gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -lt 2 ]; then # stage 08's lesson crosses between GPUs: its grader needs two
    for id in $steps_graded; do
        case $id in 08.*) echo "test_grade_gpu: step $id not graded: stage 08 needs 2 GPUs, found $gpus" ;; esac
    done
    steps_graded=$(tr ' ' '\n' <<<"$steps_graded" | grep -v '^08\.' | paste -sd' ' -)
fi
for id in $steps_graded; do
    for level in $levels; do
        in_background "$jobs" "$tmp/out-$id-$level" grade_step "$id" "$level"
    done
done
wait
for id in $steps_graded; do
    for level in $levels; do
        checks=$((checks + $(grep -c '^CHECK$' "$tmp/out-$id-$level")))
        while IFS= read -r line; do fail "${line#FAIL: }"; done \
            < <(grep '^FAIL: ' "$tmp/out-$id-$level")
        grep -v '^CHECK$\|^FAIL: ' "$tmp/out-$id-$level"
    done
done
finish test_grade_gpu
