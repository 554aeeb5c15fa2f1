#!/usr/bin/env bash
# test_cli_05_warp_shuffle.sh - stage 05's command line, on any machine: every bad
# input gets one line on stderr and exit 2 before the GPU is looked for (so never the
# 77 of "no GPU"), among them the options a step cannot honour and a step that is not
# there; good options reach the GPU check (or run, where there is a GPU), for each step.
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
expect_error "--step 5: 05_warp_shuffle accepts 1..4" --step 5
expect_error "--step 'x'" --step x
expect_error "--step needs a value" --step
expect_error "picks its ranking with --step" --rank split
expect_error "a thread per digit" --block 128
expect_error "a thread per digit" --step 3 --bits 8 --block 128
expect_error "a thread per digit" --step=3 --bits 7 --block 64
expect_error "shared memory" --block 1024 --kpt 16
expect_error "shared memory" --step 1 --block 1024 --kpt 16
expect_error "not an option of 05_warp_shuffle" --hist 3
expect_error "not an option of 05_warp_shuffle" --mode blocked
expect_accepted -n 1000 --runs 1 --step 1 --kpt 1 --no-cub
expect_accepted -n 1000 --runs 1 --step 1 --bits 8 --block 128 --no-cub
expect_accepted -n 1000 --runs 1 --step=2 --kpt=3 --block 32 --no-cub
expect_accepted -n 1000 --runs 1 --step 3 --bits 7 --block 128 --scan blelloch --no-cub
expect_accepted -n 1000 --runs 1 --step 3 --no-cub
expect_accepted -n 1000 --runs 1 --bits 7 --block 128 --no-cub
# what is sorted: u32 keys ascending by all bits only, here
expect_error "--pairs is not an option of 05_warp_shuffle" --pairs
expect_error "--type is not an option of 05_warp_shuffle" --type f32
expect_error "--descending is not an option of 05_warp_shuffle" --descending
expect_error "--begin-bit is not an option of 05_warp_shuffle" --begin-bit 4 --end-bit 8
finish test_cli_05_warp_shuffle
