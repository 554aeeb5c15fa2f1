#!/usr/bin/env bash
# run-tests.sh - runs test programs (and tests/*.sh scripts) and counts them.
#   exit 0 -> passed, exit 77 -> skipped (e.g. no CUDA device), anything else -> failed.
# Ends with one line "N passed, N failed, N skipped"; exits non-zero if any failed.
# Extra arguments for every test program can be given in TEST_ARGS (e.g. "--small").
set -u
pass=0 fail=0 skip=0
logdir=${TEST_LOG_DIR:-build/test-logs}
mkdir -p "$logdir"
for t in "$@"; do
    name=$(basename "$t")
    log="$logdir/$name.log"
    start=$(date +%s.%N)
    case "$t" in
        *.sh) bash "$t" >"$log" 2>&1 ;;
        *) "$t" ${TEST_ARGS:-} >"$log" 2>&1 ;;
    esac
    rc=$?
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    case $rc in
        0)  pass=$((pass + 1)); printf 'PASS  %-28s %6.1f s  %s\n' "$name" "$secs" "$(tail -n 1 "$log")" ;;
        77) skip=$((skip + 1)); printf 'SKIP  %-28s %6.1f s  %s\n' "$name" "$secs" "$(grep -m1 '^SKIP' "$log")" ;;
        *)  fail=$((fail + 1)); printf 'FAIL  %-28s %6.1f s  exit %d; last lines of %s:\n' "$name" "$secs" "$rc" "$log"
            tail -n 25 "$log" | sed 's/^/      /' ;;
    esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
