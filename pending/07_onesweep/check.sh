#!/usr/bin/env bash
# pending/07_onesweep/check.sh [PART...] - what step 07.17 needs from a GPU before it
# becomes a step (pending/README.md), in one go: in a scratch copy of this tree, the file is
# put in 07_onesweep/ with its lines in steps.txt and steps.c, and then
#   test      its test program, as make test runs it and whole (--full)
#   race      07.16 and 07.17 in turns, one process a run, on the inputs the lesson targets
#             (and2 at 2^24+1 and 2^28), on uniform keys and pairs (what it must not slow),
#             then 07.17 on every distribution at 2^24+1 beside CUB's fastest call
#   sanitize  its test program under the four compute-sanitizer tools (tools/sanitize.sh)
#   grade     the grader on its holes at both levels (tests/test_grade_gpu.sh)
#   launch    every GPU step's launches read by Nsight Compute (tools/launch-config.sh), so
#             that the fit table gets 07.17's rows
# (default: all five, in that order).  The tree itself is not changed.  Logs go to $OUT
# (default build/pending-07.17); the last line says which parts passed.  Without a GPU it
# stops after the build with the test program's own line, exit 77.
set -u
cd "$(dirname "$0")/../.." || exit 1
. pending/lib.sh
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(test race sanitize grade launch)

# ---- the step in place, in a scratch copy ------------------------------------------------
pending_setup pending-07.17
cp pending/07_onesweep/step17_spread_bins.cu "$tree/07_onesweep/"
add_step17 07_onesweep/step17_spread_bins.cu \
    "digits spread over the banks: a warp's mask and counter words at bin_of(d) = d ^ (d >> 3), so that digits differing in their top bits alone do not queue on one bank" ||
    { note "check: 07_onesweep/steps.c did not take step 17's lines (has it changed?)"; exit 2; }
cd "$tree" || exit 1
note "check: step 07.17 in place in $tree ($(date -u +%FT%TZ))"
make -j"$(nproc)" build/bin/07_onesweep build/tests/test_07_onesweep_17 >"$OUT/build.log" 2>&1 ||
    { note "check: the build failed ($OUT/build.log): $(grep -m1 -i error "$OUT/build.log")"; exit 1; }
stop_without_gpu build/bin/07_onesweep --step 17 -n 1000

run() { # TURN ARGS...: one sort by 07_onesweep, its RESULT line after the turn
    local turn=$1 out
    shift
    out=$(build/bin/07_onesweep "$@" 2>&1) || { echo "turn=$turn FAILED $*: $(tail -n 1 <<<"$out")"; return 1; }
    echo "turn=$turn $(grep '^RESULT' <<<"$out")"
}
pair() { # TURNS ARGS...: 07.16 and 07.17 in turns
    local turns=$1 t
    shift
    for t in $(seq "$turns"); do
        run "$t" --step 16 "$@" && run "$t" --step 17 "$@" || return 1
    done
}
races() {
    pair 3 --dist and2 -n 16777217 --runs 15 && pair 2 --dist and2 -n 268435456 &&
        pair 3 -n 16777217 --runs 15 && pair 2 -n 268435456 && pair 2 --pairs -n 268435456 ||
        return 1
    local dist
    for dist in uniform equal sorted reversed few and2 and4 high; do
        run 1 --step 17 --dist "$dist" -n 16777217 --runs 9 || return 1
    done
}
part_test() {
    { build/tests/test_07_onesweep_17 && build/tests/test_07_onesweep_17 --full; } >"$OUT/test.log" 2>&1
    local rc=$?
    note "test: exit $rc: $(grep 'test_07_onesweep_17:' "$OUT/test.log" | tr '\n' ' ')"
    return $rc
}
part_race() {
    races >"$OUT/race.log" 2>&1
    local rc=$?
    note "race: exit $rc, $(grep -c RESULT "$OUT/race.log") runs ($OUT/race.log)"
    return $rc
}
part_sanitize() {
    SANITIZE_ALL=1 tools/sanitize.sh build/tests/test_07_onesweep_17 >"$OUT/sanitize.log" 2>&1
    local rc=$?
    note "sanitize: exit $rc: $(tail -n 1 "$OUT/sanitize.log")"
    return $rc
}
part_grade() {
    TEST_FULL=1 GRADE_TEST_STEPS=07.17 bash tests/test_grade_gpu.sh >"$OUT/grade.log" 2>&1
    local rc=$?
    note "grade: exit $rc: $(tail -n 1 "$OUT/grade.log")"
    return $rc
}
part_launch() {
    make -j"$(nproc)" all >"$OUT/build-all.log" 2>&1 &&
        tools/launch-config.sh build/bin "$OUT/launch_config.csv" "$OUT/launch" >"$OUT/launch.log" 2>&1
    local rc=$?
    note "launch: exit $rc: $(grep -c ',07.17,' "$OUT/launch_config.csv" 2>/dev/null) rows of 07.17"
    return $rc
}
run_parts "${parts[@]}"
