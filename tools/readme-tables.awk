# readme-tables.awk - the program of tools/readme-tables.sh (with tools/csv.awk):
# copies a README, replacing what stands between each "<!-- table CSV COLUMNS... -->"
# marker and "<!-- end table -->" with a Markdown table made from the CSV.
function header_name(col,    title) {
    if (col == "gkeys_s") return "Gkeys/s"
    if (col == "vs_cub") return "vs CUB (x its time)"
    # which of CUB's calls vs_cub divides by: its count type (common/cub_baseline.h)
    if (col == "cub_call") return "CUB's count"
    if (col == "cub_i32_ms") return "CUB, int count (ms)"
    if (col == "cub_i64_ms") return "CUB, int64_t count (ms)"
    if (col == "vs_cublas") return "vs cuBLAS (x its time)"
    # results/expected_ranges.csv: a ratio on one GPU (vs_cub_h100), or the range of them
    if (col ~ /^vs_(cub|previous)_/) {
        title = col ~ /^vs_cub_/ ? "vs CUB" : "vs the step before"
        sub(/^vs_(cub|previous)_/, "", col)
        return title ", " (col == "range" ? "range" : toupper(col))
    }
    if (col == "imma_tops") return "int8 mma (T operations/s)"
    if (col == "shared_atomics_per_s") return "shared-memory atomics (/s)"
    if (col ~ /_ms$/) { sub(/_ms$/, "", col); col = col " (ms)" }
    if (col ~ /_gbs$/) { sub(/_gbs$/, "", col); col = col " (GB/s)" }
    if (col ~ /_pct$/) { sub(/_pct$/, "", col); col = col " (% of copy)" }
    gsub(/_/, " ", col)
    return col
}
function emit_table(spec,    words, nw, path, cols, nc, filt_col, filt_val, nf, i, line, hdr, nh, idx, row, nr, keep, out, body, baselines, nb, baseline, title) {
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
    nr = 0; nb = 0
    while ((getline line < path) > 0) {
        csv_split(line, row); keep = 1
        for (i = 1; i <= nf; i++) if (index("|" filt_val[i] "|", "|" row[idx[filt_col[i]]] "|") == 0) keep = 0
        if (!keep) continue
        out = "|"; for (i = 1; i <= nc; i++) out = out " " row[idx[cols[i]]] " |"; body[++nr] = out
        # which library baseline each row's vs_cublas divides by (stage 06's CSVs name it)
        if ("cublas" in idx && row[idx["cublas"]] != "" && !(row[idx["cublas"]] in baselines)) {
            baselines[row[idx["cublas"]]] = 1; nb++; baseline = row[idx["cublas"]]
        }
    }
    out = "|"
    for (i = 1; i <= nc; i++) {
        title = header_name(cols[i])
        if (cols[i] == "vs_cublas" && nb == 1) title = "vs " baseline " (x its time)"
        else if (cols[i] == "vs_cublas" && nb > 1) title = "vs cuBLAS (x the faster baseline's time)"
        out = out " " title " |"
    }
    print out
    out = "|"; for (i = 1; i <= nc; i++) out = out " --- |"; print out
    for (i = 1; i <= nr; i++) print body[i]
    close(path)
}
/^<!-- table .* -->$/ {
    print
    spec = $0; sub(/^<!-- table /, "", spec); sub(/ -->$/, "", spec)
    emit_table(spec); skipping = 1; next
}
/^<!-- end table -->$/ { skipping = 0 }
!skipping { print }
