#!/usr/bin/env bash
# test_cli_01_sequential.sh - the command line of a sort program, through stage 01
# (it runs everywhere): every kind of bad input gets exactly one line on stderr and
# a non-zero exit; --input / --output round-trip a file; the RESULT line is there.
set -u
bin=${BIN_DIR:-build/bin}/01_sequential
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

sort_bad_input
ranges_as_help --mode blocked
expect_error "-n '-1'" -n -1
expect_error "from 0 to" -n 4294967296
expect_error "1..16" --bits 0
expect_error "--thrust: this stage runs on the CPU" --thrust
expect_error "1..16" --bits 17
expect_error "1..16" --bits=17
expect_error "not an option of 01_sequential" --kpt 2
expect_error "not an option of 01_sequential" --kpt 3
expect_error "not an option of 01_sequential" --scan blelloch
expect_error "not an option of 01_sequential" --scan-block 33
expect_error "01_sequential is a stage of one step" --step 2
expect_error "01_sequential is a stage of one step" --step 1
check_that "01's --help lists no --thrust, which it refuses" sh -c "! '$bin' --help | grep -q -- --thrust"
expect_error "read only in blocked mode" --block 33
expect_error "plain or blocked" --mode sideways
expect_error "--block" --mode blocked --block 0
expect_error "table" --mode blocked --bits 16 --block 1 -n 1000000
expect_error "cannot be combined" --input "$tmp/five.bin" -n 10
expect_accepted -n 100 --runs=1 --bits=4 --mode=blocked --block=33 --no-cub

# A file of random keys, sorted through --input/--output, equals sort -n of the same numbers.
checks=$((checks + 1))
head -c 40000 /dev/urandom >"$tmp/in.bin"
if "$bin" --input "$tmp/in.bin" --output "$tmp/out.bin" --runs 1 >"$tmp/log" 2>&1; then
    od -An -v -tu4 -w4 "$tmp/in.bin" | tr -d ' ' | sort -n >"$tmp/expect.txt"
    od -An -v -tu4 -w4 "$tmp/out.bin" | tr -d ' ' >"$tmp/got.txt"
    cmp -s "$tmp/expect.txt" "$tmp/got.txt" || fail "--output does not hold the sorted --input keys"
    [ "$(wc -l <"$tmp/got.txt")" -eq 10000 ] || fail "--output does not hold 10000 keys"
    grep -q '^RESULT stage=01_sequential step=01 n=10000 input=.* check=PASS' "$tmp/log" || fail "no passing RESULT line"
else
    fail "sorting a file failed:"; cat "$tmp/log"
fi

# An empty file is zero keys.
checks=$((checks + 1))
: >"$tmp/empty.bin"
"$bin" --input "$tmp/empty.bin" --output "$tmp/empty.out" --runs 1 >"$tmp/log" 2>&1 ||
    fail "sorting an empty file failed: $(cat "$tmp/log")"
[ -f "$tmp/empty.out" ] && [ ! -s "$tmp/empty.out" ] || fail "empty input did not give an empty output"

# Both modes, generated input, every distribution: a passing RESULT line with qsort_ms.
for mode in plain blocked; do
    for dist in uniform equal sorted reversed few and2 and4 high low; do
        checks=$((checks + 1))
        "$bin" -n 5000 --dist "$dist" --mode "$mode" --bits 4 --runs 1 --no-cub >"$tmp/log" 2>&1 ||
            fail "$mode $dist exited non-zero"
        grep -q "^RESULT stage=01_sequential step=01 n=5000 dist=$dist .*mode=$mode .*timing=steps .*qsort_ms=.* check=PASS" "$tmp/log" ||
            fail "$mode $dist: no passing RESULT line: $(tail -n 1 "$tmp/log")"
    done
done

# what is sorted: types, order, bit ranges, pairs
expect_error "--type 'f64': expected u32, i32 or f32" --type f64
expect_error "no bit to sort by" --begin-bit 8 --end-bit 8
expect_error "no bit to sort by" --begin-bit 20 --end-bit 4
expect_error "--end-bit '33'" --end-bit 33
# an explicit --end-bit 0 is no bit at all; only an absent --end-bit means 32
expect_error "--begin-bit 0 --end-bit 0: no bit to sort by (0 <= B < E <= 32)" --end-bit 0
expect_error "--begin-bit 0 --end-bit 0: no bit to sort by" --end-bit=0 --type i32
expect_error "add --pairs" --output-values "$tmp/values"
expect_accepted -n 1000 --runs 1 --type f32 --descending --pairs --begin-bit 4 --end-bit 20
expect_accepted -n 1000 --runs 1 --type i32 --mode blocked --bits 4 --pairs
finish test_cli_01_sequential
