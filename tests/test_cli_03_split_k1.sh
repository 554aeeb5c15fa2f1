#!/usr/bin/env bash
# test_cli_03_split_k1.sh - stage 03's command line, on any machine: every bad input
# gets one line on stderr and exit 2 before the GPU is looked for (so never the 77 of
# "no GPU"); good options reach the GPU check (or run, where there is a GPU).
set -u
bin=${BIN_DIR:-build/bin}/03_split_k1
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

sort_bad_input
ranges_as_help
expect_error "32..1024, powers of two" --block 33
expect_error "32..1024, powers of two" --block 16
expect_error "32..1024, powers of two" --scan-block=33
expect_error "not an option of 03_split_k1" --bits 4
expect_error "not an option of 03_split_k1" --kpt 3
expect_error "not an option of 03_split_k1" --hist 1
expect_accepted -n 1000 --runs 1 --block=1024 --scan-block 64 --scan blelloch --no-cub
# what is sorted: u32 keys ascending by all bits only, here
expect_error "--pairs is not an option of 03_split_k1" --pairs
expect_error "--type is not an option of 03_split_k1" --type f32
expect_error "--descending is not an option of 03_split_k1" --descending
expect_error "--begin-bit is not an option of 03_split_k1" --begin-bit 4 --end-bit 8
finish test_cli_03_split_k1
