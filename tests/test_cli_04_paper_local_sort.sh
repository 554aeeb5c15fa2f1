#!/usr/bin/env bash
# test_cli_04_paper_local_sort.sh - stage 04's command line, on any machine: every bad
# input gets one line on stderr and exit 2 before the GPU is looked for (so never the
# 77 of "no GPU"), a tile too large for shared memory too; good options reach the GPU
# check (or run, where there is a GPU).
set -u
bin=${BIN_DIR:-build/bin}/04_paper_local_sort
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

sort_bad_input
ranges_as_help
expect_error "1..8" --bits 9
expect_error "32..1024, powers of two" --block 33
expect_error "32..1024, powers of two" --scan-block 33
expect_error "--kpt 17" --kpt 17
expect_error "shared memory" --block 1024 --kpt 16
expect_error "not an option of 04_paper_local_sort" --hist 3
expect_error "04_paper_local_sort is a stage of one step" --step 2
expect_error "04_paper_local_sort is a stage of one step" --step=1
expect_accepted -n 1000 --runs 1 --kpt 3 --bits=2 --block 64 --scan=blelloch --no-cub
# what is sorted: u32 keys ascending by all bits only, here
expect_error "--pairs is not an option of 04_paper_local_sort" --pairs
expect_error "--type is not an option of 04_paper_local_sort" --type f32
expect_error "--descending is not an option of 04_paper_local_sort" --descending
expect_error "--begin-bit is not an option of 04_paper_local_sort" --begin-bit 4 --end-bit 8
finish test_cli_04_paper_local_sort
