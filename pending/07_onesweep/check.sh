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
root=$PWD
OUT=${OUT:-$root/build/pending-07.17}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(test race sanitize grade launch)
note() { echo "$*" | tee -a "$OUT/summary.txt"; }

# ---- the step in place, in a scratch copy ------------------------------------------------
tree=${TMPDIR:-/tmp}/pending-07.17
rm -rf "$tree"
mkdir -p "$tree"
tar -C "$root" --exclude=./build --exclude=./.git -cf - . | tar -C "$tree" -xf -
cd "$tree" || exit 1
cp pending/07_onesweep/step17_spread_bins.cu 07_onesweep/
printf '07.17\t07_onesweep/step17_spread_bins.cu\tlesson\tadvanced\thopper\t%s\n' \
    "digits spread over the banks: a warp's mask and counter words at bin_of(d) = d ^ (d >> 3), so that digits differing in their top bits alone do not queue on one bank" \
    >>steps.txt
sed -i -e 's/^STEP_DECLARE_PAIRS(16)$/STEP_DECLARE_PAIRS(16)\nSTEP_DECLARE_PAIRS(17)/' \
    -e 's/STEP_ENTRY_PAIRS(15), STEP_ENTRY_PAIRS(16)};/STEP_ENTRY_PAIRS(15), STEP_ENTRY_PAIRS(16),\n                                  STEP_ENTRY_PAIRS(17)};/' \
    -e 's/STAGE_STEP_COUNT = 16;/STAGE_STEP_COUNT = 17;/' 07_onesweep/steps.c
grep -q 'STEP_ENTRY_PAIRS(17)' 07_onesweep/steps.c && grep -q 'STAGE_STEP_COUNT = 17;' 07_onesweep/steps.c ||
    { note "check: 07_onesweep/steps.c did not take step 17's lines (has it changed?)"; exit 2; }
note "check: step 07.17 in place in $tree ($(date -u +%FT%TZ))"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
make -j"$(nproc)" build/bin/07_onesweep build/tests/test_07_onesweep_17 >"$OUT/build.log" 2>&1 ||
    { note "check: the build failed ($OUT/build.log): $(grep -m1 -i error "$OUT/build.log")"; exit 1; }
build/bin/07_onesweep --step 17 -n 1000 >"$OUT/probe.log" 2>&1
rc=$?
[ $rc -ne 77 ] || { note "check: $(tail -n 1 "$OUT/probe.log")"; exit 77; }

passed=() failed=()
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
for part in "${parts[@]}"; do
    start=$SECONDS
    case $part in
    test)
        { build/tests/test_07_onesweep_17 && build/tests/test_07_onesweep_17 --full; } >"$OUT/test.log" 2>&1
        rc=$?
        note "test: exit $rc: $(grep 'test_07_onesweep_17:' "$OUT/test.log" | tr '\n' ' ')" ;;
    race)
        races >"$OUT/race.log" 2>&1
        rc=$?
        note "race: exit $rc, $(grep -c RESULT "$OUT/race.log") runs ($OUT/race.log)" ;;
    sanitize)
        SANITIZE_ALL=1 tools/sanitize.sh build/tests/test_07_onesweep_17 >"$OUT/sanitize.log" 2>&1
        rc=$?
        note "sanitize: exit $rc: $(tail -n 1 "$OUT/sanitize.log")" ;;
    grade)
        TEST_FULL=1 GRADE_TEST_STEPS=07.17 bash tests/test_grade_gpu.sh >"$OUT/grade.log" 2>&1
        rc=$?
        note "grade: exit $rc: $(tail -n 1 "$OUT/grade.log")" ;;
    launch)
        make -j"$(nproc)" all >"$OUT/build-all.log" 2>&1 &&
            tools/launch-config.sh build/bin "$OUT/launch_config.csv" "$OUT/launch" >"$OUT/launch.log" 2>&1
        rc=$?
        note "launch: exit $rc: $(grep -c ',07.17,' "$OUT/launch_config.csv" 2>/dev/null) rows of 07.17" ;;
    *)
        note "check: no part '$part' (test race sanitize grade launch)"
        rc=2 ;;
    esac
    if [ "$rc" -eq 0 ]; then passed+=("$part"); else failed+=("$part"); fi
    note "  ($part took $((SECONDS - start)) s)"
done
note "check: passed: ${passed[*]:-none}; failed: ${failed[*]:-none}; on $(cat "$OUT/gpu.txt")"
[ ${#failed[@]} -eq 0 ]
