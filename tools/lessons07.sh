#!/usr/bin/env bash
# lessons07.sh [PROGRAM] - each advanced lesson of stage 07 (07.12 to 07.16) on the input
# it targets, beside the step before it, in turns, one process a run: a gain of a few per
# cent is smaller than what one process differs from the next, so a lesson is read from
# the pairs of one turn (07_onesweep/README.md, "Timed alike").  Then the last step on
# every distribution at 2^24+1.  Prints one "turn=T RESULT ..." line a run (PROGRAM's own
# RESULT line: its step, input, sort_ms and CUB's fastest call beside it).
# PROGRAM defaults to build/bin/07_onesweep (make 07_onesweep).  Needs a GPU: without one
# it stops at the first run with the program's own line and exit status (77).
# Takes about 6 minutes on one H100.
set -u
cd "$(dirname "$0")/.." || exit 1
program=${1:-build/bin/07_onesweep}
[ -x "$program" ] || { echo "lessons07: $program not found (make 07_onesweep)" >&2; exit 2; }

run() { # TURN ARGS...: one sort, its RESULT line after the turn
    local turn=$1 out rc
    shift
    out=$("$program" "$@" 2>&1)
    rc=$?
    [ $rc -eq 0 ] || { echo "$out" | tail -n 1; exit $rc; }
    echo "turn=$turn $(grep '^RESULT' <<<"$out")"
}
pair() { # TURNS BEFORE AFTER ARGS...: the two steps in turns
    local turns=$1 before=$2 after=$3 t
    shift 3
    for t in $(seq "$turns"); do
        run "$t" --step "$before" "$@"
        run "$t" --step "$after" "$@"
    done
}

date -u
start=$SECONDS
pair 3 12 13 -n 1048576 --runs 31                  # the look-back table's life: fixed costs
pair 2 13 14 -n 268435456                          # the histogram at the memory's rate
for dist in few and4; do                           # crowded passes
    pair 1 14 15 --dist "$dist" -n 268435456
done
pair 2 15 16 --pairs -n 268435456                  # pairs in wide tiles (Hopper)
pair 2 15 16 --pairs -n 16777217 --runs 15
echo "lessons done at $((SECONDS - start)) s"
for dist in uniform equal sorted reversed few and2 and4 high; do
    run 1 --step 16 --dist "$dist" -n 16777217 --runs 9
done
echo "done at $((SECONDS - start)) s"
