#!/usr/bin/env bash
# run-tests.sh - runs test programs (and tests/*.sh scripts) and counts them.
#   exit 0 -> passed, exit 77 -> skipped (e.g. no CUDA device), anything else -> failed.
# Ends with one line "N passed, N failed, N skipped"; exits non-zero if any failed.
#   TEST_ARGS      extra arguments for every test program (e.g. "--small")
#   TEST_JOBS      how many programs run at once (default 1)
#   TEST_TIMEOUT   seconds before a program counts as failed (default: none)
#   TEST_LOG_DIR   where each program's output goes (default build/test-logs)
set -u
logdir=${TEST_LOG_DIR:-build/test-logs}
jobs=${TEST_JOBS:-1}
mkdir -p "$logdir"

# run_one PROGRAM: runs it, writes its log and a status line "rc seconds".
run_one() {
    local t=$1 name log start rc
    name=$(basename "$t")
    log="$logdir/$name.log"
    start=$(date +%s.%N)
    local cmd=("$t")
    case "$t" in *.sh) cmd=(bash "$t") ;; *) cmd=("$t" ${TEST_ARGS:-}) ;; esac
    if [ -n "${TEST_TIMEOUT:-}" ]; then
        timeout "$TEST_TIMEOUT" "${cmd[@]}" >"$log" 2>&1
    else
        "${cmd[@]}" >"$log" 2>&1
    fi
    rc=$?
    echo "$rc $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" >"$log.status"
}

running=0
for t in "$@"; do
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

# the name column is as wide as the longest name
width=0
for t in "$@"; do name=$(basename "$t"); [ ${#name} -le "$width" ] || width=${#name}; done
pass=0 fail=0 skip=0
for t in "$@"; do
    name=$(basename "$t")
    log="$logdir/$name.log"
    read -r rc secs <"$log.status"
    case $rc in
        0)  pass=$((pass + 1)); printf 'PASS  %-*s %6.1f s  %s\n' "$width" "$name" "$secs" "$(tail -n 1 "$log")" ;;
        77) skip=$((skip + 1)); printf 'SKIP  %-*s %6.1f s  %s\n' "$width" "$name" "$secs" "$(grep -m1 '^SKIP' "$log")" ;;
        124) fail=$((fail + 1)); printf 'FAIL  %-*s %6.1f s  timed out after %s s; last lines of %s:\n' "$width" "$name" "$secs" "${TEST_TIMEOUT:-?}" "$log"
            tail -n 25 "$log" | sed 's/^/      /' ;;
        *)  fail=$((fail + 1)); printf 'FAIL  %-*s %6.1f s  exit %d; last lines of %s:\n' "$width" "$name" "$secs" "$rc" "$log"
            tail -n 25 "$log" | sed 's/^/      /' ;;
    esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
