#!/usr/bin/env bash
# test_run_06_nn_histogram.sh - a small run of every version of stage 06 and both cuBLAS
# baselines through the command line: every check passes, version 1 (float bins) reports
# its mismatched rows, versions 7 and on and cublas-int8 run on byte data, every "vs cuBLAS"
# names the faster baseline, and --output writes the .ivecs file.  GPU: exits 77
# (skipped) where there is none.
set -u
bin=${BIN_DIR:-build/bin}/06_nn_histogram
[ -x "$bin" ] || { echo "missing $bin (run make first)"; exit 1; }
source "$(dirname "$0")/cli_lib.sh"

checks=$((checks + 1))
"$bin" -q 5 -r 3000 -d 16 --bins 10 --version all --runs 1 --output "$tmp/h.ivecs" >"$tmp/log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
    grep '^SKIP: no CUDA device' "$tmp/log" || { echo "exit 77 without the SKIP line"; exit 1; }
    exit 77
elif [ "$rc" -eq 0 ]; then
    last=$(awk '$1 == "#define" && $2 == "NN_VERSIONS" { print $3 }' 06_nn_histogram/nn_histogram.h)
    [ "$(grep -c '^RESULT stage=06_nn_histogram .*check=PASS' "$tmp/log")" -eq $((last + 2)) ] ||
        fail "expected $((last + 2)) passing RESULT lines (cublas-fp32, cublas-int8, versions 1-$last): $(grep RESULT "$tmp/log")"
    grep -q '^RESULT .* version=cublas-int8 .*exact=yes check=PASS' "$tmp/log" ||
        fail "cublas-int8 should run on byte data, exact: $(grep 'cublas-int8' "$tmp/log")"
    # every row's vs_cublas is against the faster baseline, and says which: one name on
    # every line, a baseline whose time is the least printed (two that print the same time
    # are a tie, and either may be named)
    best_ms=$(grep '^RESULT .* version=cublas-' "$tmp/log" | sed 's/.* ms=\([0-9.]*\) .*/\1/' | sort -g | head -n 1)
    named=$(grep '^RESULT ' "$tmp/log" | sed -n 's/.* cublas=\([^ ]*\) .*/\1/p' | sort -u)
    [ "$(grep -c '^RESULT ' "$tmp/log")" -eq "$(grep -c '^RESULT .* cublas=' "$tmp/log")" ] &&
        [ "$(wc -l <<<"$named")" -eq 1 ] && grep -q "^RESULT .* version=$named .* ms=$best_ms " "$tmp/log" ||
        fail "every RESULT line should name the faster baseline (${best_ms:-?} ms): it names '$(echo $named)': $(grep 'version=cublas-' "$tmp/log" | head -n 2)"
    grep -q "^RESULT .* version=$last .*exact=yes" "$tmp/log" && ! grep -q ' ran=' "$tmp/log" ||
        fail "versions 7-$last should run themselves on byte data: $(grep ' ran=' "$tmp/log")"
    grep -q '^RESULT .* version=1 .* mismatched_rows=[0-9]* checked_rows=5 ' "$tmp/log" ||
        fail "version 1 should count its mismatched rows: $(grep 'version=1' "$tmp/log")"
    [ "$(grep -c 'mismatched_rows=' "$tmp/log")" -eq 1 ] ||
        fail "only version 1 bins by the float rule: $(grep 'mismatched_rows=' "$tmp/log")"
    [ "$(stat -c %s "$tmp/h.ivecs")" -eq $((5 * 11 * 4)) ] || fail "--output: wrong .ivecs size"
else
    fail "the small run exited $rc:"; tail -n 5 "$tmp/log"
fi
finish test_run_06_nn_histogram
