# result-to-csv.awk - turns RESULT lines into CSV rows with one fixed header, so that
# every stage's rows share the columns (a column a stage does not have stays empty).
#   awk -v date=2026-11-21 -v args="--bits 4" -v header=1 -f tools/result-to-csv.awk
# -v columns="..." replaces the sort stages' columns (stage 06 has its own).
BEGIN {
    if (columns == "")
        columns = "date stage step n dist seed input mode bits hist scan block scan_block kpt " \
                  "skip runs sort_ms min_ms timing steps_ms gkeys_s local_sort_ms histogram_ms scan_ms transfer_ms " \
                  "scatter_ms local_sort_gbs histogram_gbs scan_gbs scatter_gbs " \
                  "local_sort_pct histogram_pct scan_pct scatter_pct copy_gbs " \
                  "setup_ms qsort_ms cub_ms vs_cub cub_call cub_i32_ms cub_i64_ms thrust_ms vs_thrust " \
                  "check gpu args"
    ncols = split(columns, cols, " ")
    if (header) {
        for (i = 1; i <= ncols; i++) printf "%s%s", cols[i], (i < ncols ? "," : "\n")
    }
}
/^RESULT / {
    delete v
    line = $0
    sub(/^RESULT /, "", line)
    # gpu="..." may hold spaces: take it out first
    if (match(line, /gpu="[^"]*"/)) {
        v["gpu"] = substr(line, RSTART + 5, RLENGTH - 6)
        line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
    }
    n = split(line, parts, " ")
    for (i = 1; i <= n; i++) {
        eq = index(parts[i], "=")
        if (eq) v[substr(parts[i], 1, eq - 1)] = substr(parts[i], eq + 1)
    }
    v["date"] = date
    v["args"] = args
    for (i = 1; i <= ncols; i++) {
        val = (cols[i] in v) ? v[cols[i]] : ""
        if (val ~ /[ ,"]/) { gsub(/"/, "\"\"", val); val = "\"" val "\"" }
        printf "%s%s", val, (i < ncols ? "," : "\n")
    }
}
