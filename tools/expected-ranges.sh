#!/usr/bin/env bash
# expected-ranges.sh [OUT] - the instructor's expected results (INSTRUCTOR.md): from the
# stages.csv of each GPU below, every step's time as a multiple of CUB's (vs_cub) and of
# the step before it on the course's path (vs_previous: 05.1 after 04, 07.1 after 05.4),
# at 2^24+1 and 2^28 keys, one column per GPU, and the range the GPUs span.  Ratios,
# not milliseconds: they are what travels from one GPU to another.  Writes OUT (default
# results/expected_ranges.csv); `make tables` runs it, tests/test_docs.sh checks it is current.
#   The GPUs: "directory-under-results:short-name" words.
set -eu
cd "$(dirname "$0")/.."
out=${1:-results/expected_ranges.csv}
gpus="nvidia-h100-80gb-hbm3:h100 nvidia-h200:h200"
files="" names=""
for g in $gpus; do
    files="$files results/${g%%:*}/stages.csv"
    names="$names ${g##*:}"
done
# shellcheck disable=SC2086
awk -v names="$names" -f tools/csv.awk -f /dev/stdin $files >"$out.tmp" <<'EOF'
function range(a, b,    t) { # "lo-hi" of two ratios (either may be missing)
    if (a == "" || b == "") return a b
    if (a + 0 > b + 0) { t = a; a = b; b = t }
    return a == b ? a : a "-" b
}
# per_gpu(TABLE, KEY): ",v1,v2,...,range" - KEY's ratio on each GPU, then their range
function per_gpu(table, key,    i, line, r) {
    for (i = 1; i <= ng; i++) { line = line "," table[key, i]; r = i == 1 ? table[key, i] : range(r, table[key, i]) }
    return line "," r
}
function header(ratio_name,    i, h) { # the columns per_gpu fills
    for (i = 1; i <= ng; i++) h = h "," ratio_name "_" g[i]
    return h "," ratio_name "_range"
}
function ratio(x, y) { return (x == "" || y == "" || y + 0 == 0) ? "" : sprintf("%.2f", x / y) }
FNR == 1 {
    file++; csv_split($0, hdr); delete idx
    for (i in hdr) idx[hdr[i]] = i
    prev_ms[16777217] = prev_ms[268435456] = ""
    next
}
{
    csv_split($0, row)
    step = row[idx["step"]]; n = row[idx["n"]]
    if (n != 16777217 && n != 268435456) next
    key = step SUBSEP n
    if (!(key in seen)) { seen[key] = 1; order[++count] = key }
    cub[key, file] = row[idx["vs_cub"]]
    prev[key, file] = ratio(row[idx["sort_ms"]], prev_ms[n])
    prev_ms[n] = row[idx["sort_ms"]]
}
END {
    ng = split(names, g, " ")
    print "step,n" header("vs_cub") header("vs_previous")
    for (k = 1; k <= count; k++) {
        split(order[k], kn, SUBSEP)
        print kn[1] "," kn[2] per_gpu(cub, order[k]) per_gpu(prev, order[k])
    }
}
EOF
# a file that would not change is left alone: make tables touches no tracked file for nothing
if cmp -s "$out.tmp" "$out"; then rm -f "$out.tmp"; else mv "$out.tmp" "$out"; fi
