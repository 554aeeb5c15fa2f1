#!/usr/bin/env bash
# grade.sh STEP WORK - `make grade STEP=01 WORK=path/to/radix_sort.c`: grades a student's
# work on one step.  WORK is a file - it replaces the file of its name in the step's
# folder, or the step's file if there is none of its name - or a folder of the files the
# student changed (where holes sit in more than one file): each replaces the file of its
# name.  It builds them in a scratch copy of the step's
# handout (tools/handout.sh), and measures:
#   correctness  the step's test program (the sort battery, the unit tests; for step K of a
#                stage of several steps, test_<stage>_K): checks passed of checks run;
#   speed        the student's file and the course's, built into one program (`make
#                race`: common/race.c, stage 06's race.c), sort the same keys at the
#                step's defaults in turn, in the same process: 15 paired runs, the median
#                of their ratios student / course - a ratio, so that the band holds on any
#                GPU or CPU.  Two races, on GRADE_N uniform keys and on GRADE_N `and4`
#                keys (a bit set one time in 16: crowded digits, contended counters,
#                passes to skip - what several steps are about), and the slower ratio
#                counts; stage 06 races on its problem.  No ratio where the outputs differ.
# Score out of 100: 70 for correctness (in proportion), 30 for speed - all of it within
# GRADE_BAND (default 1.25) times the reference's time, none at twice the band or
# slower, in proportion between, and none unless every check passed.  The last line:
#   GRADE step=01 correctness=977/977 speed=1.03 score=100/100
# Exit 0 for full marks, 1 otherwise (a failed build or a crash scores 0, and the line
# says why), 2 for bad arguments, 77 where the step needs a GPU and there is none.
#   GRADE_N (keys, default 16777217; stage 06: GRADE_Q queries, default 1000, of its
#   1,000,000 references), GRADE_DISTS (the races' key distributions, default "uniform
#   and4"), GRADE_BAND (1.25), GRADE_TIMEOUT (seconds a program may run, default 300, as
#   make test's: a test that spins fails, "timed out")
set -u
cd "$(dirname "$0")/.."
. tools/steps-lib.sh
usage="usage: make grade STEP=ID WORK=FILE|FOLDER (for example STEP=01 WORK=mine/radix_sort.c)"
[ $# -eq 2 ] && [ -n "$1" ] && [ -n "$2" ] || { echo "$usage" >&2; exit 2; }
id=$(step_id "$1") && file=$(step_field "$id" 2) && [ -n "$file" ] ||
    { echo "make grade: no step '$1' (make steps lists them)" >&2; exit 2; }
[ -r "$2" ] && { [ -f "$2" ] || [ -d "$2" ]; } ||
    { echo "make grade: WORK=$2: no such readable file or folder" >&2; exit 2; }
work=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
stage=${file%%/*}
step_args="" test_program=build/tests/test_$stage
case $file in
*/step[0-9]_*.cu)
    k=$(file_step_number "$file")
    step_args="--step $k" test_program=build/tests/test_${stage}_$k ;;
*/v[0-9]*_*.cu)
    step_args="--version $(file_step_number "$file")" ;;
esac
# the races' inputs (one a line), and a small run of the course's program that says whether
# there is a GPU
if [ "$stage" = 06_nn_histogram ]; then
    races="-q ${GRADE_Q:-1000}" probe_args="-q 8 -r 1000 --no-cublas"
else
    races=$(for d in ${GRADE_DISTS:-uniform and4}; do echo "-n ${GRADE_N:-16777217} --dist $d"; done)
    probe_args="-n 1000 --no-cub"
fi
if [ -d "$work" ]; then
    [ -n "$(ls -A "$work")" ] ||
        { echo "make grade: WORK=$2: the folder is empty (put the files you changed in it)" >&2; exit 2; }
    for f in "$work"/*; do
        [ -f "$stage/${f##*/}" ] ||
            { echo "make grade: WORK=$2: ${f##*/} is no file of $stage" >&2; exit 2; }
    done
elif [ ! -f "$stage/${work##*/}" ] && [ "${work##*.}" != "${file##*.}" ]; then
    echo "make grade: WORK=$2: this step's file is $file (a .${file##*.} file)" >&2
    exit 2
fi
band=${GRADE_BAND:-1.25}
limit=${GRADE_TIMEOUT:-300}
awk -v b="$band" 'BEGIN { exit !(b >= 1) }' ||
    { echo "make grade: GRADE_BAND=$band: a ratio of at least 1 (1.25: within 25% of the reference)" >&2; exit 2; }

grade() { # CHECKS SPEED SCORE [WHY]
    echo "GRADE step=$id correctness=$1 speed=$2 score=$3/100${4:+ ($4)}"
    [ "$3" = 100 ]
    exit $?
}

# A step with no CUDA file (stage 01) runs nothing on a GPU: it is built by the CPU build
# (gcc alone, into build/cpu/), which is quicker and needs no CUDA.
build=build cuda_args=()
ls "$stage"/*.cu >/dev/null 2>&1 || { build=build/cpu cuda_args=(CUDA=0); }
test_program=$build/${test_program#build/}
# the course's own program of the step: where to learn, before building anything, whether
# the step needs a GPU that is not here
reference=$build/bin/$stage
make -s --no-print-directory "${cuda_args[@]}" "$reference" >/dev/null 2>&1 ||
    { echo "make grade: the course's own build of $stage failed (run make)" >&2; exit 2; }
"$reference" $step_args $probe_args --runs 1 >/dev/null 2>&1
if [ $? -eq 77 ]; then
    echo "GRADE step=$id skipped: the step needs a CUDA GPU and there is none here"
    exit 77
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
tools/handout.sh "$id" "$scratch/work" >/dev/null || exit 2
if [ -d "$work" ]; then
    cp "$work"/* "$scratch/work/$stage/"
elif [ -f "$stage/${work##*/}" ]; then
    cp "$work" "$scratch/work/$stage/"
else
    cp "$work" "$scratch/work/$file"
fi
if ! (cd "$scratch/work" && make -j"$(nproc)" "${cuda_args[@]}" all) >"$scratch/build.log" 2>&1; then
    why=$(grep -m1 -E 'error' "$scratch/build.log" | sed "s|$scratch/work/||g")
    echo "make grade: the student's file does not build; the build's first error:" >&2
    echo "  ${why:-see the build}" >&2
    grade 0/0 NA 0 "build failed"
fi

# correctness: the step's test program
test_out=$(cd "$scratch/work" && timeout --kill-after=10 "$limit" "$test_program" 2>&1)
rc=$?
summary=$(grep -E '^[a-z0-9_]+: [0-9]+ checks, [0-9]+ failed$' <<<"$test_out" | tail -n 1)
if [ -z "$summary" ]; then
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "make grade: the test program timed out after $limit s (GRADE_TIMEOUT); its last lines:" >&2
        why="the tests timed out after $limit s"
    else
        echo "make grade: the test program ended without its count (exit $rc); its last lines:" >&2
        why="the tests crashed (exit $rc)"
    fi
    tail -n 3 <<<"$test_out" | sed 's/^/  /' >&2
    grade 0/0 NA 0 "$why"
fi
read -r run failed < <(sed -E 's/.*: ([0-9]+) checks, ([0-9]+) failed/\1 \2/' <<<"$summary")
passed=$((run - failed))
grep -E '^ *FAIL' <<<"$test_out" | head -n 5 | sed 's/^ */  first failures: /' >&2

# speed: the student's file against the course's, in one program (make race), on each input;
# the slowest ratio counts
speed=NA speed_points=0 race_lines=""
course_file=$PWD/$file
if (cd "$scratch/work" && make -s --no-print-directory "${cuda_args[@]}" race RACE_FILE="$file" \
        RACE_COURSE="$course_file") >"$scratch/race.log" 2>&1; then
    while read -r args; do
        # shellcheck disable=SC2086
        line=$(timeout "$limit" "$scratch/work/$build/race/race" $args 2>&1 | grep '^RACE ')
        race_lines="$race_lines${line:-RACE $args: no time}"$'\n'
    done <<<"$races"
else
    echo "make grade: the race of the student's file against the course's did not build:" >&2
    grep -m1 -E 'error' "$scratch/race.log" | sed "s|$scratch/work/||g; s/^/  /" >&2
fi
if [ -z "$race_lines" ]; then
    echo "make grade: the race gave no time" >&2
elif grep -q ' same_output=0$' <<<"$race_lines"; then
    echo "make grade: the student's output differs from the course's on a race's input: no speed points" >&2
elif [ "$(grep -c ' same_output=1$' <<<"$race_lines")" -ne "$(grep -c . <<<"$races")" ]; then
    echo "make grade: a race gave no time" >&2
else
    speed=$(sed -nE 's/.* ratio=([0-9.]+) .*/\1/p' <<<"$race_lines" |
        awk 'NR == 1 || $1 > worst { worst = $1 } END { printf "%.2f", worst }')
    speed_points=$(awk -v x="$speed" -v b="$band" \
        'BEGIN { p = x <= b ? 30 : (x >= 2 * b ? 0 : 30 * (2 * b - x) / b); printf "%d", p }')
fi
[ "$failed" -eq 0 ] && [ "$run" -gt 0 ] || speed_points=0
score=$(awk -v p="$passed" -v r="$run" -v sp="$speed_points" \
    'BEGIN { printf "%d", (r > 0 ? int(70 * p / r) : 0) + sp }')
sed '/^$/d; s/^/make grade: /' <<<"$race_lines" >&2
echo "make grade: band ${band}x" >&2
grade "$passed/$run" "$speed" "$score"
