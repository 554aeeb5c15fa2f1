#!/usr/bin/env bash
# readme-tables.sh FILE.md... - `make tables`: fills the result tables of READMEs from
# the CSV files that `make bench` wrote, so that no number in a table is typed by hand.
#
# In a README's source (docs/src/) or a deck, a table is written as two markers;
# everything between them is replaced:
#   <!-- table results/nvidia-h100-80gb-hbm3/sweep04_kpt.csv scan kpt sort_ms n=16777217 -->
#   <!-- end table -->
# The words after the CSV path are the columns to show, in order; a word with "="
# keeps only the rows where that column has that value (or one of the values, "a|b").  Headers: "sort_ms" is shown
# as "sort (ms)", "scan_gbs" as "scan (GB/s)", "scan_pct" as "scan (% of copy)",
# "gkeys_s" as "Gkeys/s", the vs columns with the direction they read in, other
# underscores as spaces.
set -eu
here=$(dirname "$0")
for md in "$@"; do
    tmp=$(mktemp)
    awk -v md="$md" -f "$here/csv.awk" -f "$here/readme-tables.awk" "$md" >"$tmp"
    if cmp -s "$tmp" "$md"; then rm -f "$tmp"; else mv "$tmp" "$md"; echo "readme-tables: updated $md"; fi
done
