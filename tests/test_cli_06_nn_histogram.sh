#!/usr/bin/env bash
# test_cli_06_nn_histogram.sh - stage 06's command line: every kind of bad input gets one
# line on stderr and exit 2, on any machine (options, files and the output path are
# checked before the GPU is looked for).  The small run of every version on a GPU is
# tests/test_run_06_nn_histogram.sh, which is skipped where there is none.
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
expect_error "from 1 to 14, or all" --version 15
expect_error "from 1 to 14, or all" --version 0
expect_error "from 1 to 500000, or all" --check x
expect_error "--seed 'x': expected a whole number from 0 to" --seed x
for option in -q -r -d --bins --version --reduce --seed --runs --check; do
    expect_error "$option needs a value" "$option"
done
# data no GPU can hold: refused with its size before the GPU check (26 TB of floats)
expect_error "needs at least .* TB of GPU memory" -q 500000 -r 100000000 -d 65536
expect_error "from 1 to 4" --reduce 9
# an option the version does not read is refused: --reduce is version 3's
expect_error "--reduce picks version 3's reduction, and version 14 does not read it" --reduce 1
expect_error "--reduce picks version 3's reduction, and version 5 does not read it" --reduce 2 --version 5
expect_accepted -q 2 -r 100 -d 8 --version 3 --reduce 1 --runs 1 --no-cublas
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

expect_error "takes no value" --no-cublas=1
expect_error "from 1 to 8192" --bins=0
expect_error "expected a whole number from 1 to 8192" --bins "$long_word"
expect_error "cannot create output file" --output /proc/x
expect_error "it is a directory" --output "$tmp"
expect_error "cannot create output file" --output="$tmp/no/such/dir/h.ivecs"
expect_error "cannot open" --base "$long_dir/b.fvecs" --query "$tmp/base4.fvecs"
expect_accepted -q 2 -r 100 -d 8 --bins=10 --version=9 --runs=1 --no-cublas

finish test_cli_06_nn_histogram
