# csv-columns.awk - prints chosen columns of a results CSV, tab-separated, for gnuplot:
#   awk -f tools/csv.awk -f tools/csv-columns.awk -v cols="bits sort_ms" -v where="mode=plain" FILE
# where: space-separated col=value filters (all must hold).  A missing value prints "NaN".
NR == 1 {
    nh = csv_split($0, hdr)
    for (i = 1; i <= nh; i++) idx[hdr[i]] = i
    nc = split(cols, c, " ")
    for (i = 1; i <= nc; i++) if (!(c[i] in idx)) { print "csv-columns: no column " c[i] > "/dev/stderr"; exit 1 }
    nf = split(where, w, " ")
    for (i = 1; i <= nf; i++) { fc[i] = substr(w[i], 1, index(w[i], "=") - 1); fv[i] = substr(w[i], index(w[i], "=") + 1) }
    next
}
{
    csv_split($0, row)
    for (i = 1; i <= nf; i++) if (row[idx[fc[i]]] != fv[i]) next
    out = ""
    for (i = 1; i <= nc; i++) {
        v = row[idx[c[i]]]
        if (v == "" || v == "NA") v = "NaN"
        gsub(/ /, "_", v)
        out = out (i > 1 ? "\t" : "") v
    }
    print out
}
