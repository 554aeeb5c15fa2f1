#!/usr/bin/env bash
# test_cli_08_multi_gpu.sh - stage 08's command line: every bad option or input is refused
# with exit 2 and one line on stderr, before any GPU is looked for (so on a machine
# without one too), and a good command line passes every check (exit 0, or 77 with the
# SKIP line where there is no GPU).
set -u
bin=${BIN_DIR:-build/bin}/08_multi_gpu
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"
# the steps this tree has (a handout has its step and those before), and the last one's file
steps=$(ls "$(dirname "$0")"/../08_multi_gpu/step[0-9]*_*.c | wc -l)
last=$(ls "$(dirname "$0")"/../08_multi_gpu/step"$steps"_*.c)

printf 'abc' >"$tmp/three_bytes.bin"
expect_error "-n 68719476737: a number of keys from 0 to 2^36" -n 68719476737
expect_error "-n x: a number of keys" -n x
expect_error "-n -5: a number of keys" -n -5
expect_error "-n: needs a value" -n
expect_error "--dist zipf: one of uniform" --dist zipf
expect_error "--gpus 0: from 1 to 8" --gpus 0
expect_error "--gpus 9: from 1 to 8" --gpus 9
expect_error "--runs '1001': expected a whole number from 1 to 1000" --runs 1001
expect_error "--step 0: from 1 to $steps" --step 0
expect_error "--step $((steps + 1)): from 1 to $steps" --step $((steps + 1))
expect_error "--check exact: ref, hash or auto" --check exact
expect_error "--seed -1: a non-negative integer" --seed -1
expect_error "--bits: unknown option" --bits 4
expect_error "stray: unknown argument" stray
expect_error "cannot open --input" --input "$tmp/missing.bin"
expect_error "not a multiple of 4" --input "$tmp/three_bytes.bin"
expect_error "-n and --input" -n 8 --input "$tmp/three_bytes.bin"
expect_error "cannot create output file" -n 8 --output "$tmp/no/such/dir/out.bin"
# the step's name: the string of MG_STEP_NAME, on its line or the next
name=$(awk '/^const char \*const MG_STEP_NAME =/ { line = $0; if (line !~ /;$/) { getline more; line = line more }
                                                   if (match(line, /"08\.[0-9]+: [^"]*"/)) print substr(line, RSTART + 1, RLENGTH - 2) }' "$last")
check_that "the last step's file names it (MG_STEP_NAME = \"08.K: ...\")" test -n "$name"
check_that "--help names the last step ($name)" sh -c "'$bin' --help | grep -qF '$name'"
expect_accepted -n 1000 --runs 1 --no-cub
# --option=value, as every program of the course takes it
expect_error "--runs '0': expected a whole number from 1 to 1000" --runs=0
expect_error "--dist zipf: one of uniform" --dist=zipf
expect_error "--no-cub=yes: takes no value" --no-cub=yes
expect_error "--no-composition=yes: takes no value" --no-composition=yes
expect_accepted -n 1000 --runs 1 --no-cub --no-composition
expect_error "--frob=1: unknown option" --frob=1
expect_accepted -n 1000 --runs=1 --gpus=1 --check=ref --no-cub
finish test_cli_08_multi_gpu
