#!/usr/bin/env bash
# test_cli_zero_keys.sh - rules that every program of the course follows alike, on any
# machine: zero keys (-n 0, or an empty --input) are sorted to nothing with no GPU - exit
# 0, an empty --output, a RESULT line with n=0 and check=PASS - by every sort program (01
# to 05, 07, 08); and --runs takes 1 to 1000, refusing 1001 with the same line, in every
# program (06 too).  A program the build lacks (the CPU build has 01 alone) is named as
# not checked.
set -u
cd "$(dirname "$0")/.."
source tests/cli_lib.sh # check_that, fail, finish, $tmp
bin=${BIN_DIR:-build/bin}
: >"$tmp/empty.bin"
for p in 01_sequential 02_parallel_hist_scan 03_split_k1 04_paper_local_sort 05_warp_shuffle \
         07_onesweep 08_multi_gpu 06_nn_histogram 06_reduce_lab; do
    if [ ! -x "$bin/$p" ]; then
        echo "test_cli_zero_keys: $p is not built here: not checked"
        continue
    fi
    "$bin/$p" --runs 1001 >/dev/null 2>"$tmp/err"
    rc=$?
    check_that "$p --runs 1001: exit 2, '--runs '1001': expected a whole number from 1 to 1000' (exit $rc: $(head -c 200 "$tmp/err"))" \
        bash -c "[ $rc -eq 2 ] && grep -qF -- \"--runs '1001': expected a whole number from 1 to 1000\" '$tmp/err'"
    case $p in 06_*) continue ;; esac # not a sort: it takes no keys
    "$bin/$p" -n 0 --runs 1000 >"$tmp/out" 2>&1
    rc=$?
    check_that "$p -n 0 --runs 1000: exit 0, RESULT n=0 check=PASS, with or without a GPU (exit $rc: $(grep -m1 -E 'RESULT|error|SKIP' "$tmp/out" | head -c 200))" \
        bash -c "[ $rc -eq 0 ] && grep -qE '^RESULT .* n=0 .*check=PASS' '$tmp/out'"
    rm -f "$tmp/$p.out"
    "$bin/$p" --input "$tmp/empty.bin" --output "$tmp/$p.out" >"$tmp/out" 2>&1
    rc=$?
    check_that "$p --input (an empty file): exit 0, an empty --output (exit $rc: $(grep -m1 -E 'RESULT|error|SKIP' "$tmp/out" | head -c 200))" \
        bash -c "[ $rc -eq 0 ] && [ -f '$tmp/$p.out' ] && [ ! -s '$tmp/$p.out' ]"
done
finish test_cli_zero_keys
