#!/usr/bin/env bash
# test_cli_05_warp_shuffle.sh - stage 05's command line, on any machine: every bad
# input gets one line on stderr and exit 2 before the GPU is looked for (so never the
# 77 of "no GPU"), among them the options a ranking cannot honour; good options reach
# the GPU check (or run, where there is a GPU).
set -u
bin=${BIN_DIR:-build/bin}/05_warp_shuffle
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

sort_bad_input
ranges_as_help
expect_error "1..8" --bits 9
expect_error "32..1024, powers of two" --block 33
expect_error "32..1024, powers of two" --scan-block 33
expect_error "--kpt 17" --kpt 17
expect_error "--rank 'sideways'" --rank sideways
expect_error "a thread per digit" --block 128
expect_error "a thread per digit" --rank=multisplit --bits 7 --block 64
expect_error "shared memory" --block 1024 --kpt 16
expect_error "shared memory" --rank split --block 1024 --kpt 16
expect_error "not an option of 05_warp_shuffle" --hist 3
expect_error "not an option of 05_warp_shuffle" --mode blocked
expect_accepted -n 1000 --runs 1 --rank split --kpt 1 --bits 4 --no-cub
expect_accepted -n 1000 --runs 1 --rank=ballot --kpt=3 --block 32 --no-cub
expect_accepted -n 1000 --runs 1 --rank multisplit --bits 7 --block 128 --scan blelloch --no-cub
finish test_cli_05_warp_shuffle
