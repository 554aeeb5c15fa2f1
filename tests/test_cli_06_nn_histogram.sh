#!/usr/bin/env bash
# test_cli_06_nn_histogram.sh - stage 06's command line: every kind of bad input gets one
# line on stderr and a non-zero exit, on any machine (the data are read before the GPU is
# looked for).  Where there is a GPU, a small run of every version passes its checks and
# --output writes the .ivecs file.
set -u
bin=${BIN_DIR:-build/bin}/06_nn_histogram
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

# .fvecs files: 3 vectors of 4 dimensions, 2 of 5, and a truncated one
printf '\x04\x00\x00\x00' >"$tmp/rec4"; head -c 16 /dev/zero >>"$tmp/rec4"
cat "$tmp/rec4" "$tmp/rec4" "$tmp/rec4" >"$tmp/base4.fvecs"
printf '\x05\x00\x00\x00' >"$tmp/rec5"; head -c 20 /dev/zero >>"$tmp/rec5"
cat "$tmp/rec5" "$tmp/rec5" >"$tmp/query5.fvecs"
head -c 30 "$tmp/base4.fvecs" >"$tmp/truncated.fvecs"

expect_error "from 1 to 8192" --bins 0
expect_error "--bins '-3'" --bins -3
expect_error "whole number" --bins abc
expect_error "from 1 to 8192" --bins 9000
expect_error "from 1 to 6" --version 7
expect_error "from 1 to 4" --reduce 9
expect_error "-q '0'" -q 0
expect_error "-d '0'" -d 0
expect_error "--runs" --runs 0
expect_error "unknown option" --frobnicate
expect_error "needs a file name" --output
expect_error "go together" --base "$tmp/base4.fvecs"
expect_error "cannot be combined" --base "$tmp/base4.fvecs" --query "$tmp/base4.fvecs" -q 5
expect_error "cannot open" --base "$tmp/missing.fvecs" --query "$tmp/base4.fvecs"
expect_error "not a whole number" --base "$tmp/truncated.fvecs" --query "$tmp/base4.fvecs"
expect_error "queries have 5 dimensions, the references 4" --base "$tmp/base4.fvecs" --query "$tmp/query5.fvecs"

# a small run of every version: passes where there is a GPU, skips (77) where there is none
checks=$((checks + 1))
"$bin" -q 5 -r 3000 -d 16 --bins 10 --version all --runs 1 --output "$tmp/h.ivecs" >"$tmp/log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
    grep -q '^SKIP: 06_nn_histogram needs a CUDA device' "$tmp/log" || fail "exit 77 without the SKIP line"
    echo "(no CUDA device: the small run was skipped, as it should be)"
elif [ "$rc" -eq 0 ]; then
    [ "$(grep -c '^RESULT stage=06_nn_histogram .*check=PASS' "$tmp/log")" -eq 7 ] ||
        fail "expected 7 passing RESULT lines (cuBLAS and versions 1-6): $(grep RESULT "$tmp/log")"
    grep -q '^RESULT .* version=6 .*exact=yes' "$tmp/log" && ! grep -q ' ran=' "$tmp/log" ||
        fail "version 6 should run itself on byte data: $(grep 'version=6' "$tmp/log")"
    [ "$(stat -c %s "$tmp/h.ivecs")" -eq $((5 * 11 * 4)) ] || fail "--output: wrong .ivecs size"
else
    fail "the small run exited $rc:"; tail -n 5 "$tmp/log"
fi

finish test_cli_06_nn_histogram
