#!/usr/bin/env bash
# run-tests.sh TEST... - `make test`: runs test programs (and tests/*.sh scripts), several
# at once, and prints each one's line the moment it ends:
#   PASS  test_03_split_k1     4.2 s  test_03_split_k1: 535 checks, 0 failed
#   exit 0 -> PASS, exit 77 -> SKIP (no CUDA device, a missing tool), anything else
#   -> FAIL (its first failures and last lines come again at the end, as the test wrote
#   them: the grader's lines - CHECKFAIL k:line:n - left out).  While tests run, a line
#   every TEST_HEARTBEAT seconds (default 30) without another says which are running.
# The last line is "N passed, N failed, N skipped"; the exit status is non-zero if any
# test failed.  Each test's whole output is in TEST_LOG_DIR/<name>.log.
#   TEST_JOBS      how many tests run at once (default: one per core).  Tests on a GPU
#                  share it: each needs little of its memory, and their CPU work (making
#                  keys, the reference sort) overlaps.
#   TEST_TIMEOUT   seconds before a test counts as failed, "timed out" (default 300;
#                  1200 with TEST_FULL=1): a test that spins (a look-back waiting for a
#                  tile that never comes) fails instead of holding a shared GPU
#   TEST_FULL      1: the long batteries - every test program gets --full, and the
#                  scripts see TEST_FULL=1 (make test FULL=1)
#   TEST_ARGS      more arguments for every test program (e.g. "--small")
#   TEST_NOT_BUILT names of tests this build has not made (the CPU build's GPU tests):
#                  each is counted skipped, with the reason in TEST_NOT_BUILT_WHY
#   TEST_LOG_DIR   where the logs go (default build/test-logs)
# The tests that took longest in the last run (their times are kept with the logs) start
# first, so that the run ends sooner.
set -u
logdir=${TEST_LOG_DIR:-build/test-logs}
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
full=${TEST_FULL:-}
[ "$full" = 1 ] || full=0
export TEST_FULL=$full
limit=${TEST_TIMEOUT:-$([ "$full" = 1 ] && echo 1200 || echo 300)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run-tests: TEST_JOBS=$jobs: a whole number from 1" >&2; exit 2; }
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "run-tests: TEST_TIMEOUT=$limit: seconds, a whole number from 1" >&2; exit 2; }
not_built=(${TEST_NOT_BUILT:-})
mkdir -p "$logdir"
# The test scripts run make as a student does at a shell.  Under `make -j test` they would
# inherit the parent's jobserver, which their make cannot reach ("jobserver unavailable"
# on every line): they start without it.
unset MAKEFLAGS MFLAGS MAKELEVEL

name_of() { local n=${1##*/}; echo "$n"; }
width=0
for t in "$@" "${not_built[@]+"${not_built[@]}"}"; do
    n=$(name_of "$t"); [ ${#n} -le "$width" ] || width=${#n}
done

# longest first, by the times of the last run; a test that did not run then (or skipped:
# its time says nothing of a run) starts first, in its place
order=$(for t in "$@"; do
    rc=77 secs=0
    read -r rc secs _ 2>/dev/null <"$logdir/$(name_of "$t").log.status"
    [ "$rc" != 77 ] || secs=1000000
    printf '%s\t%s\n' "$secs" "$t"
done | sort -t$'\t' -k1,1 -g -r -s | cut -f2)

# run_one TEST: runs it under the timeout, then writes "rc seconds" beside its log and
# prints its line
run_one() {
    local t=$1 name log start rc secs last
    name=$(name_of "$t")
    log="$logdir/$name.log"
    start=$(date +%s.%N)
    local cmd
    case $t in *.sh) cmd=(bash "$t") ;; *) cmd=("$t" ${TEST_ARGS:-}) ;; esac
    [ "$full" = 0 ] || case $t in *.sh) ;; *) cmd+=(--full) ;; esac
    date +%s >"$running/$name"
    timeout --kill-after=10 "$limit" "${cmd[@]}" </dev/null >"$log" 2>&1
    rc=$?
    rm -f "$running/$name"
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    echo "$rc $secs" >"$log.status"
    case $rc in
        0)  last=$(tail -n 1 "$log"); word=PASS ;;
        77) last=$(grep -m1 '^SKIP' "$log" || tail -n 1 "$log"); word=SKIP ;;
        124 | 137) last="timed out after $limit s (TEST_TIMEOUT)"; word=FAIL ;;
        *)  last="exit $rc: $(readable "$log" | tail -n 1)"; word=FAIL ;;
    esac
    printf '%-4s  %-*s %6.1f s  %s\n' "$word" "$width" "$name" "$secs" "${last:0:300}"
    touch "$running/.said"
}

# a log's lines for a reader: without the grader's (GROUP, CHECKFAIL k:line:n, ...)
readable() { grep -vE '^(GROUPS?|GROUPEND|CHECKFAIL|TIMEOUT) ' "$1"; }

# every TEST_HEARTBEAT seconds (default 30) without a line, which tests are running and
# for how long: a long test is not a hang
heartbeat() {
    local every=${TEST_HEARTBEAT:-30} now said list f since
    while sleep 5; do
        now=$(date +%s)
        said=$(stat -c %Y "$running/.said" 2>/dev/null) || continue
        [ $((now - said)) -ge "$every" ] || continue
        list=""
        for f in "$running"/*; do
            since=$(cat "$f" 2>/dev/null) || continue # a test that ended just now
            list+="${list:+, }${f##*/} ($((now - since)) s)"
        done
        [ -z "$list" ] || echo "      running: $list"
        touch "$running/.said"
    done
}

count=$#
echo "run-tests: $count tests, $jobs at a time, each stopped after $limit s;" \
     "logs in $logdir/$([ "$full" = 1 ] && echo '; the full batteries (FULL=1)')"
for t in "${not_built[@]+"${not_built[@]}"}"; do
    printf '%-4s  %-*s %6.1f s  %s\n' SKIP "$width" "$t" 0 \
        "SKIP: not built: ${TEST_NOT_BUILT_WHY:-this is the CPU build (no nvcc, or CUDA=0)}"
done
running=$(mktemp -d)
touch "$running/.said"
heartbeat &
ticker=$!
trap 'kill $ticker 2>/dev/null; rm -rf "$running"' EXIT
started=0
while IFS= read -r t; do
    [ -n "$t" ] || continue
    rm -f "$logdir/$(name_of "$t").log.status"
    run_one "$t" &
    started=$((started + 1))
    if [ "$started" -ge "$jobs" ]; then
        wait -n
        started=$((started - 1))
    fi
done <<<"$order"
while [ "$started" -gt 0 ]; do # the tests, not the heartbeat
    wait -n
    started=$((started - 1))
done
kill $ticker 2>/dev/null

pass=0 fail=0 skip=${#not_built[@]} failed=()
for t in "$@"; do
    name=$(name_of "$t")
    rc=
    read -r rc _ 2>/dev/null <"$logdir/$name.log.status"
    case ${rc:-none} in
        0) pass=$((pass + 1)) ;;
        77) skip=$((skip + 1)) ;;
        *) fail=$((fail + 1)); failed+=("$name") ;;
    esac
done
for name in "${failed[@]+"${failed[@]}"}"; do
    # what failed, as the test said it (its first failures), then how it ended
    log=$logdir/$name.log
    echo "--- $name failed; its first failures and its last lines ($log):"
    { grep -m 12 -E 'CHECK failed|^FAIL|[Ee]rror' "$log"; echo "..."; readable "$log" | tail -n 8; } 2>/dev/null |
        sed 's/^/      /'
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
