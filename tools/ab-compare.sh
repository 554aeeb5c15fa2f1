#!/usr/bin/env bash
# ab-compare.sh BIN_A BIN_B ROUNDS [ARGS...] - two builds of one stage on the same input,
# measured in turns (A, B, A, B, ...) so that a drift of the GPU's clocks or temperature
# falls on both alike.  Each run is the stage's own measurement (a warm-up, then the
# median of --runs, with CUB in the same process unless ARGS say --no-cub); this script
# prints every run's RESULT line, then, for A and B, the median over the rounds of the
# stage's time and of its ratio to CUB, and B's time over A's.
#   tools/ab-compare.sh build/baseline/07_onesweep_old build/bin/07_onesweep 5 -n 268435456
# Exit status: non-zero if a run failed or did not PASS its check.
set -u
[ $# -ge 3 ] || { echo "usage: $0 BIN_A BIN_B ROUNDS [ARGS...]" >&2; exit 2; }
bin_a=$1 bin_b=$2 rounds=$3
shift 3
for bin in "$bin_a" "$bin_b"; do
    [ -x "$bin" ] || { echo "ab-compare: $bin: not an executable" >&2; exit 2; }
done
case $rounds in '' | *[!0-9]* | 0) echo "ab-compare: ROUNDS must be a positive integer, got '$rounds'" >&2; exit 2 ;; esac

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "NA"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

status=0
times_a="" times_b="" ratios_a="" ratios_b=""
for ((r = 1; r <= rounds; r++)); do
    for side in a b; do
        bin=$bin_a; [ $side = b ] && bin=$bin_b
        line=$("$bin" "$@" 2>&1 | grep '^RESULT ')
        echo "$side: $line"
        if [ -z "$line" ] || [ "$(field check <<<"$line")" != PASS ]; then
            echo "ab-compare: $bin $*: no passing RESULT line" >&2
            status=1
            continue
        fi
        t=$(field sort_ms <<<"$line") q=$(field vs_cub <<<"$line")
        if [ $side = a ]; then times_a+="$t"$'\n' ratios_a+="$q"$'\n'
        else times_b+="$t"$'\n' ratios_b+="$q"$'\n'; fi
    done
done
med_a=$(printf '%s' "$times_a" | median) med_b=$(printf '%s' "$times_b" | median)
echo "A $bin_a: median sort_ms=$med_a vs_cub=$(printf '%s' "$ratios_a" | median) over $rounds rounds"
echo "B $bin_b: median sort_ms=$med_b vs_cub=$(printf '%s' "$ratios_b" | median) over $rounds rounds"
awk -v a="$med_a" -v b="$med_b" 'BEGIN { if (a > 0 && b > 0) printf "B/A = %.4f\n", b / a }'
exit $status
