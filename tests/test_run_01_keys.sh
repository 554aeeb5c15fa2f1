#!/usr/bin/env bash
# test_run_01_keys.sh - stage 01 sorts files of f32 and i32 keys and writes the sorted
# keys and their values (--output, --output-values), compared with orders written out
# by hand here, not computed by any function of the course: the IEEE order of floats
# with both zeros, both infinities, NaNs of both signs and denormals; i32 with INT_MIN
# and INT_MAX, descending; and the values of equal keys in their input order (stable).
# CPU only.
set -u
bin=${BIN_DIR:-build/bin}/01_sequential
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

# words FILE: the file's 32-bit little-endian words, one a line, as 8 hex digits
words() { od -An -v -tx4 -w4 "$1" | tr -d ' '; }

# write_words FILE WORD...: the words (8 hex digits each) as raw little-endian uint32
write_words() {
    local f=$1 w; shift
    : >"$f"
    for w in "$@"; do
        printf "\\x${w:6:2}\\x${w:4:2}\\x${w:2:2}\\x${w:0:2}" >>"$f"
    done
}

# sort_and_compare NAME OPTIONS IN_WORDS EXPECTED_KEYS EXPECTED_VALUES: sort the file of
# IN_WORDS with OPTIONS and compare the keys and values written with the expected ones
sort_and_compare() {
    local name=$1 options=$2 in=$3 keys=$4 values=$5
    checks=$((checks + 1))
    write_words "$tmp/$name.in" $in
    # shellcheck disable=SC2086 # options are words
    if ! "$bin" --input "$tmp/$name.in" $options --pairs --runs 1 --no-cub \
        --output "$tmp/$name.keys" --output-values "$tmp/$name.values" >"$tmp/$name.log" 2>&1; then
        fail "$name: the sort failed: $(tail -n 2 "$tmp/$name.log")"
        return
    fi
    [ "$(words "$tmp/$name.keys" | paste -sd' ')" = "$keys" ] ||
        fail "$name: keys $(words "$tmp/$name.keys" | paste -sd' '), expected $keys"
    local v expected_values=""
    for v in $values; do expected_values="$expected_values${expected_values:+ }$(printf '%08x' "$v")"; done
    [ "$(words "$tmp/$name.values" | paste -sd' ')" = "$expected_values" ] ||
        fail "$name: values $(words "$tmp/$name.values" | paste -sd' '), expected $expected_values"
}

# f32, ascending. Input, by index:
#  0 +1.0  1 -NaN  2 +0.0  3 -inf  4 +NaN  5 -0.0  6 -1.0  7 +inf  8 +denormal  9 -denormal
# 10 +1.0 (equal to 0: after it)  11 -2.0
sort_and_compare f32 "--type f32" \
    "3f800000 ffc00000 00000000 ff800000 7fc00000 80000000 bf800000 7f800000 00000001 80000001 3f800000 c0000000" \
    "ffc00000 ff800000 c0000000 bf800000 80000001 80000000 00000000 00000001 3f800000 3f800000 7f800000 7fc00000" \
    "1 3 11 6 9 5 2 8 0 10 7 4"

# f32, descending: the reverse order, but equal keys (0 and 10) still in input order
sort_and_compare f32_descending "--type f32 --descending" \
    "3f800000 ffc00000 00000000 ff800000 7fc00000 80000000 bf800000 7f800000 00000001 80000001 3f800000 c0000000" \
    "7fc00000 7f800000 3f800000 3f800000 00000001 00000000 80000000 80000001 bf800000 c0000000 ff800000 ffc00000" \
    "4 7 0 10 8 2 5 9 6 11 3 1"

# i32, descending. Input: 0 INT_MIN  1 5  2 -1  3 INT_MAX  4 0  5 5  6 -7
sort_and_compare i32_descending "--type i32 --descending" \
    "80000000 00000005 ffffffff 7fffffff 00000000 00000005 fffffff9" \
    "7fffffff 00000005 00000005 00000000 ffffffff fffffff9 80000000" \
    "3 1 5 4 2 6 0"

# u32 by bits [8, 16) only: keys equal on them keep their input order
# input: 0 0x0000ff00  1 0x00000100  2 0xffff0100  3 0x00000000  4 0x12340000
sort_and_compare u32_bits "--begin-bit 8 --end-bit 16" \
    "0000ff00 00000100 ffff0100 00000000 12340000" \
    "00000000 12340000 00000100 ffff0100 0000ff00" \
    "3 4 1 2 0"

finish test_run_01_keys
