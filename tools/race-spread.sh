#!/usr/bin/env bash
# race-spread.sh STEP ROUNDS [RACE_ARGS...] - how far the grader's race strays when the
# course's file races itself: builds the race (make race) with the step's own file on both
# sides, runs it ROUNDS times (each race as the grader runs it: 15 paired runs, the median
# of their ratios; RACE_ARGS as the grader passes them, default "-n 1048577", the size
# test_grade_01 grades at), and prints every ratio, then
#   race-spread: STEP, R rounds: ratio min 0.98, median 1.00, max 1.07 (machine)
# A correct student's file is the course's file at worst: the largest ratio seen here, on
# a machine as busy as the one that grades, is what the grader's band must stay clear of
# (tests/README.md, "Checks that involve time").  Run it beside a load (another build, the
# tests) to measure a busy machine.
set -eu
cd "$(dirname "$0")/.."
. tools/steps-lib.sh
[ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] ||
    { echo "usage: tools/race-spread.sh STEP ROUNDS [RACE_ARGS...] (for example 01 20)" >&2; exit 2; }
id=$(step_id "$1") && file=$(step_field "$id" 2) && [ -n "$file" ] ||
    { echo "race-spread: no step '$1' (make steps lists them)" >&2; exit 2; }
rounds=$2
shift 2
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(-n 1048577)
build=build cuda=()
ls "${file%%/*}"/*.cu >/dev/null 2>&1 || { build=build/cpu cuda=(CUDA=0); }
unset MAKEFLAGS MFLAGS MAKELEVEL
# the race's objects are named alike for every step: another step's must not be taken
rm -rf "$build/race"
make -s --no-print-directory "${cuda[@]}" race RACE_FILE="$file" RACE_COURSE="$PWD/$file" >/dev/null
ratios=()
for r in $(seq 1 "$rounds"); do
    line=$("$build/race/race" "${args[@]}")
    echo "$line"
    ratios+=("$(sed -nE 's/.* ratio=([0-9.]+) .*/\1/p' <<<"$line")")
done
printf '%s\n' "${ratios[@]}" | sort -g | awk -v step="$id" -v r="$rounds" -v m="$(uname -n), $(nproc) cores" '
    { v[NR] = $1 } END { printf "race-spread: %s, %d rounds: ratio min %.3f, median %.3f, max %.3f (%s)\n",
                         step, r, v[1], v[int((NR + 1) / 2)], v[NR], m }'
