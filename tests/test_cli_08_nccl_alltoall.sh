#!/usr/bin/env bash
# test_cli_08_nccl_alltoall.sh - tools/nccl_alltoall.cu, NCCL's own rate for stage 08's
# exchange: every bad option is refused with exit 2 and one line on stderr, before any GPU
# is looked for, and a good command line runs (exit 0) or says in one line that it cannot
# here (exit 77: no GPU, or fewer than 2).
set -u
bin=${BIN_DIR:-build/bin}/nccl_alltoall
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

expect_error "-n 1: a whole number from 2 to 17179869184" -n 1
expect_error "-n 17179869185: a whole number from 2" -n 17179869185
expect_error "-n x: a whole number" -n x
expect_error "-n -5: a whole number" -n -5
expect_error "-n needs a value" -n
expect_error "--gpus 1: a whole number from 2 to 8" --gpus 1
expect_error "--gpus 9: a whole number from 2 to 8" --gpus=9
expect_error "--runs 0: a whole number from 1 to 1000" --runs 0
expect_error "--runs 1001: a whole number from 1 to 1000" --runs 1001
expect_error "--bogus: unknown option" --bogus
expect_error "--shift 1025: a whole number from 0 to 1024" --shift 1025
expect_error "--shift -1: a whole number" --shift=-1
expect_error "--pad=1: unknown option" --pad=1
expect_error "--shift 63: a part of -n 1000 over 4 GPUs holds 62 keys" -n 1000 --gpus 4 --shift 63
checks=$((checks + 1))
"$bin" --help >"$tmp/help" 2>&1 && grep -q '^usage: nccl_alltoall' "$tmp/help" ||
    fail "--help: exit 0 and the usage line: $(head -c 200 "$tmp/help")"
checks=$((checks + 1))
"$bin" -n 1000 --runs 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
case $rc in
0) grep -q '^RESULT tool=nccl_alltoall n=1000 ' "$tmp/out" || fail "-n 1000: no RESULT line: $(head -c 300 "$tmp/out")" ;;
77) [ "$(grep -c '^SKIP: ' "$tmp/out")" -eq 1 ] && [ ! -s "$tmp/err" ] ||
        fail "-n 1000 exited 77 without one SKIP line: $(cat "$tmp/out" "$tmp/err")" ;;
*) fail "-n 1000 --runs 1 exited $rc: $(head -c 300 "$tmp/err")" ;;
esac
checks=$((checks + 1))
"$bin" -n 1000 --runs 1 --gpus 2 --shift 3 --pad >"$tmp/out" 2>"$tmp/err"
rc=$?
case $rc in
0) grep -q '^RESULT tool=nccl_alltoall n=1000 gpus=2 shift=3 pad=1 ' "$tmp/out" ||
       fail "--shift 3 --pad: no RESULT line with shift=3 pad=1: $(head -c 300 "$tmp/out")" ;;
77) [ "$(grep -c '^SKIP: ' "$tmp/out")" -eq 1 ] && [ ! -s "$tmp/err" ] ||
        fail "--shift 3 exited 77 without one SKIP line: $(cat "$tmp/out" "$tmp/err")" ;;
*) fail "-n 1000 --gpus 2 --shift 3 exited $rc: $(head -c 300 "$tmp/err")" ;;
esac
finish test_cli_08_nccl_alltoall
