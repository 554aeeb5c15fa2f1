#!/usr/bin/env bash
# test_cli_02_parallel_hist_scan.sh - stage 02's command line, on any machine: every
# bad input gets one line on stderr and exit 2 before the GPU is looked for (so never
# the 77 of "no GPU"); good options reach the GPU check (or run, where there is a GPU).
set -u
bin=${BIN_DIR:-build/bin}/02_parallel_hist_scan
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

sort_bad_input
ranges_as_help
expect_error "1..8" --bits 9
expect_error "32..1024, powers of two" --block 33
expect_error "32..1024, powers of two" --block=2048
expect_error "32..1024, powers of two" --scan-block 33
expect_error "not an option of 02_parallel_hist_scan" --kpt 3
expect_error "not an option of 02_parallel_hist_scan" --mode blocked
expect_error "--step 4: 02_parallel_hist_scan accepts 1..3" --step 4
# an option of another step: the error names the steps that take it
expect_error "^02_parallel_hist_scan: error: --scan needs one of steps 02.2 to 02.3 (--step 2 to 3)$" --step 1 --scan hs
expect_error "--scan-block needs one of steps 02.2 to 02.3" --step=1 --scan-block 64
expect_error "--hist needs one of steps 02.1 to 02.2 (--step 1 to 2)" --hist 2
expect_error "--hist needs one of steps 02.1 to 02.2" --step 3 --hist 1
expect_error "table" --step 3 --bits 8 --block 32 -n 2147483648
expect_error "--hist '4'" --step 2 --hist 4
expect_error "--scan 'sideways'" --scan sideways
expect_accepted -n 1000 --runs 1 --step 1 --bits=4 --block=64 --hist=2 --no-cub
expect_accepted -n 1000 --runs 1 --step 2 --bits=4 --block=64 --scan-block 32 --hist=2 --scan=hs --no-cub
expect_accepted -n 1000 --runs 1 --step 3 --bits 6 --block 128 --scan hs --no-cub
# 02.1 and 02.2 scan or scatter on the host between their kernels: only their steps time
# them; 02.3 runs on the GPU alone and is timed as one span
expect_timing steps -n 1000 --runs 2 --step 1 --no-cub
expect_timing steps -n 1000 --runs 2 --step 2 --no-cub
expect_timing span -n 1000 --runs 2 --step 3 --no-cub
# what is sorted: u32 keys ascending by all bits only, here
expect_error "--pairs is not an option of 02_parallel_hist_scan" --pairs
expect_error "--type is not an option of 02_parallel_hist_scan" --type f32
expect_error "--descending is not an option of 02_parallel_hist_scan" --descending
expect_error "--begin-bit is not an option of 02_parallel_hist_scan" --begin-bit 4 --end-bit 8
finish test_cli_02_parallel_hist_scan
