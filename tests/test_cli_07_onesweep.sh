#!/usr/bin/env bash
# test_cli_07_onesweep.sh - stage 07's command line, on any machine: every bad input
# gets one line on stderr and exit 2 before the GPU is looked for (so never the 77 of
# "no GPU"), among them the options the stage cannot honour; good options reach the GPU
# check (or run, where there is a GPU).
set -u
bin=${BIN_DIR:-build/bin}/07_onesweep
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

sort_bad_input
ranges_as_help
expect_error "1..8" --bits 9
expect_error "32..512, powers of two" --block 33
expect_error "32..512, powers of two" --block 1024
expect_error "--kpt 17" --kpt 17
expect_error "a thread per digit" --block 128
expect_error "a thread per digit" --bits 7 --block 64
expect_error "shared memory" --step 3 --block 512 --kpt 16
expect_error "30-bit" -n 1073741824
# --help states the keys the program takes: what it refuses above stands just past it
"$bin" --help | grep -q -- '-n N  .*(0\.\.1073741823)$'
check_that "--help gives -n's range as the program takes it (0..1073741823)" test $? -eq 0
expect_error "--no-skip takes no value" --no-skip=1
# the stage's last step, from steps.txt: the messages below name it
last=$(. tools/steps-lib.sh; last_stage_step 07)
last=${last#07.}
expect_error "--step $((last + 1)): 07_onesweep accepts 1..$last" --step $((last + 1))
# an option of a later step: the error names the step that takes it
expect_error "^07_onesweep: error: --pairs needs one of steps 07.9 to 07.$last (--step 9 to $last)$" --step 4 --pairs
expect_error "--pairs needs one of steps 07.9 to 07.$last" --step 8 --pairs
expect_error "^07_onesweep: error: --type needs one of steps 07.7 to 07.$last (--step 7 to $last)$" --step 1 --type f32
expect_error "--type needs one of steps 07.7 to 07.$last" --type=i32 --step 4
expect_error "--end-bit needs one of steps 07.8 to 07.$last (--step 8 to $last)" --step 7 --end-bit 16
# the Thrust baseline sorts u32 keys ascending only: other sorts are refused before any GPU work
expect_error "^07_onesweep: error: --thrust: the Thrust baseline sorts u32 keys, ascending" --thrust --pairs
expect_error "--thrust: the Thrust baseline" --thrust --descending
expect_error "--thrust: the Thrust baseline" --thrust --type f32
expect_error "--thrust: the Thrust baseline" --thrust --end-bit 16
expect_error "--no-skip needs one of steps 07.2 to 07.$last (--step 2 to $last)" --step 1 --no-skip
# an explicit --end-bit 0 is no bit at all, not the default 32
expect_error "--begin-bit 0 --end-bit 0: no bit to sort by (0 <= B < E <= 32)" --end-bit 0
expect_error "--type 'f64'" --type f64
expect_error "--begin-bit" --begin-bit 33
expect_error "not an option of 07_onesweep" --scan blelloch
expect_error "not an option of 07_onesweep" --scan-block 256
expect_accepted -n 1000 --runs 1 --kpt 1 --no-cub
expect_accepted -n 1000 --runs 1 --bits 7 --block 128 --no-cub
expect_accepted -n 1000 --runs 1 --dist equal --no-skip --no-cub
expect_accepted -n 1000 --runs 1 --step 1 --kpt 3 --no-cub
expect_accepted -n 1000 --runs 1 --step=2 --dist high --no-cub
expect_accepted -n 1000 --runs 1 --block 512 --kpt 16 --no-cub
expect_accepted -n 1000 --runs 1 --type f32 --descending --pairs --begin-bit 8 --end-bit 24 --no-cub
expect_timing span -n 100001 --runs 3 --no-cub
# with CUB (SortPairs, SortKeysDescending ...): where there is a GPU, its output must
# equal the reference's too, or the run's check fails
expect_accepted -n 100001 --runs 1 --pairs --dist few
expect_accepted -n 100001 --runs 1 --type i32 --descending --pairs
expect_accepted -n 100001 --runs 1 --type f32 --begin-bit 4 --end-bit 20 --pairs
expect_accepted -n 100001 --runs 1 --type f32 --descending
finish test_cli_07_onesweep
