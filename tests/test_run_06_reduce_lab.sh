#!/usr/bin/env bash
# test_run_06_reduce_lab.sh - the reduction lab program of stage 06 (06_reduce_lab): bad
# options get one line and exit 2 on any machine; on a GPU a short run of every variant
# checks every block's sum against the host's.  Skipped (77) without a GPU.
set -u
bin=${BIN_DIR:-build/bin}/06_reduce_lab
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

expect_error "unknown option" --frobnicate
expect_error "--repeats '0': expected a whole number from 1 to 100000" --repeats 0
expect_error "--runs 'x': expected a whole number from 1 to 1000" --runs x
expect_error "--blocks '': expected a whole number from 1 to 1000000" --blocks

checks=$((checks + 1))
"$bin" --repeats 20 --runs 1 --blocks 64 >"$tmp/log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
    grep '^SKIP: no CUDA device' "$tmp/log" || { echo "exit 77 without the SKIP line"; exit 1; }
    [ "$failures" -eq 0 ] || { finish test_run_06_reduce_lab; exit 1; } # the option checks failed: not a skip
    exit 77
elif [ "$rc" -eq 0 ]; then
    [ "$(grep -c '^RESULT stage=06_reduce_lab .*check=PASS' "$tmp/log")" -eq 7 ] ||
        fail "expected 7 passing RESULT lines, one per variant: $(grep RESULT "$tmp/log")"
else
    fail "the short run exited $rc:"; tail -n 5 "$tmp/log"
fi
finish test_run_06_reduce_lab
