#!/usr/bin/env bash
# readme-tables.sh FILE.md... - `make tables`: fills the result tables of READMEs from
# the CSV files that `make bench` wrote, so that no number in a table is typed by hand.
#
# In a README, a table is written as two markers; everything between them is replaced:
#   <!-- table results/nvidia-h100-80gb-hbm3/sweep04_kpt.csv scan kpt sort_ms n=16777217 -->
#   <!-- end table -->
# The words after the CSV path are the columns to show, in order; a word with "="
# keeps only the rows where that column has that value.  Headers: "sort_ms" is shown
# as "sort (ms)", "scan_gbs" as "scan (GB/s)", "scan_pct" as "scan (% of copy)",
# "gkeys_s" as "Gkeys/s", the vs columns with the direction they read in, other
# underscores as spaces.
set -eu
for md in "$@"; do
    tmp=$(mktemp)
    awk -v md="$md" '
    function csv_split(line, out,    n, i, c, field, quoted) {
        n = 0; field = ""; quoted = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (quoted) {
                if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
                else if (c == "\"") quoted = 0
                else field = field c
            } else if (c == "\"") quoted = 1
            else if (c == ",") { out[++n] = field; field = "" }
            else field = field c
        }
        out[++n] = field
        return n
    }
    function header_name(col) {
        if (col == "gkeys_s") return "Gkeys/s"
        if (col == "vs_cub") return "vs CUB (x its time)"
        if (col == "vs_cublas") return "vs cuBLAS (x its time)"
        if (col ~ /_ms$/) { sub(/_ms$/, "", col); col = col " (ms)" }
        if (col ~ /_gbs$/) { sub(/_gbs$/, "", col); col = col " (GB/s)" }
        if (col ~ /_pct$/) { sub(/_pct$/, "", col); col = col " (% of copy)" }
        gsub(/_/, " ", col)
        return col
    }
    function emit_table(spec,    words, nw, path, cols, nc, filt_col, filt_val, nf, i, line, hdr, nh, idx, row, nr, keep, out) {
        nw = split(spec, words, " ")
        path = words[1]; nc = 0; nf = 0
        for (i = 2; i <= nw; i++) {
            if (index(words[i], "=")) { nf++; filt_col[nf] = substr(words[i], 1, index(words[i], "=") - 1); filt_val[nf] = substr(words[i], index(words[i], "=") + 1) }
            else cols[++nc] = words[i]
        }
        if ((getline line < path) <= 0) { print "readme-tables: " md ": cannot read " path > "/dev/stderr"; exit 1 }
        nh = csv_split(line, hdr)
        for (i = 1; i <= nh; i++) idx[hdr[i]] = i
        for (i = 1; i <= nc; i++) if (!(cols[i] in idx)) { print "readme-tables: " md ": no column " cols[i] " in " path > "/dev/stderr"; exit 1 }
        for (i = 1; i <= nf; i++) if (!(filt_col[i] in idx)) { print "readme-tables: " md ": no column " filt_col[i] " in " path > "/dev/stderr"; exit 1 }
        out = "|"; for (i = 1; i <= nc; i++) out = out " " header_name(cols[i]) " |"; print out
        out = "|"; for (i = 1; i <= nc; i++) out = out " --- |"; print out
        while ((getline line < path) > 0) {
            csv_split(line, row); keep = 1
            for (i = 1; i <= nf; i++) if (row[idx[filt_col[i]]] != filt_val[i]) keep = 0
            if (!keep) continue
            out = "|"; for (i = 1; i <= nc; i++) out = out " " row[idx[cols[i]]] " |"; print out
        }
        close(path)
    }
    /^<!-- table .* -->$/ {
        print
        spec = $0; sub(/^<!-- table /, "", spec); sub(/ -->$/, "", spec)
        emit_table(spec); skipping = 1; next
    }
    /^<!-- end table -->$/ { skipping = 0 }
    !skipping { print }
    ' "$md" >"$tmp"
    if cmp -s "$tmp" "$md"; then rm -f "$tmp"; else mv "$tmp" "$md"; echo "readme-tables: updated $md"; fi
done
