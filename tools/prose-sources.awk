# prose-sources.awk - the measured figures in a document's prose against their sources.
#   awk -v md=FILE [-v list=1] -f tools/csv.awk -f tools/prose-sources.awk FILE
#
# A figure in prose names its source right after it, in a comment the reader of the
# rendered page does not see (inside a slide's notes, which are a comment already, in
# square brackets instead):
#   6.747 ms<!-- src results/nvidia-h100-80gb-hbm3/stages.csv stage=03_split_k1 n=16777217 sort_ms -->
#   4.54x [src results/nvidia-h100-80gb-hbm3/sizes.csv step=05.3 n=1024 vs_cub]
# A CSV source: the words with "=" keep the rows where that column has that value (or one
# of the values, "a|b"; in double quotes where it holds spaces); exactly one row must be
# left.  The last word is the column, or
# two columns "a/b" (their ratio, in that row), or a column over a number ("ms/1000":
# seconds).  "max:COLUMN" or "min:COLUMN": the largest or smallest over every row
# that matches (one or more).  Two such row sets joined by " / " give the
# ratio of the first's column to the second's:
#   1.24x<!-- src results/.../stages.csv step=07.4 n=268435456 sort_ms / step=07.5 n=268435456 sort_ms -->
# A log source: a pattern between slashes (an awk regular expression) and K: the K-th
# number after the pattern (K < 0: the -K-th before it, counting back), on the first line
# of the log that matches it:
#   67 s<!-- src results/nvidia-h100-80gb-hbm3/make_test.log /Wall time of make test/ 1 -->
# A figure quoted from elsewhere - a course report, a paper - is not measured here: it
# says so, and where from ("<!-- quoted report 001 -->", "[quoted report 001]"), and is
# not checked.  A figure that is not a measurement at all - a setting, a limit, a model's
# input - says what it is the same way: "300 s<!-- given the runner's timeout -->".
# The figure is the last number before the marker; it must equal the source's value
# rounded to the digits it prints (6.747 matches 6.7465 to 6.7475; 1,318 matches 1318).
#
# Prints one line per problem, "FAIL md:line: ...", and at the end
#   SOURCED <n> QUOTED <q> GIVEN <g> UNSOURCED <m>
# where UNSOURCED counts the figures left without a marker: a number with a unit of time,
# bandwidth or rate, an "x" ratio or a per cent sign, in prose (generated tables, code
# blocks and the markers themselves left out).  With -v list=1 it also prints each
# unsourced figure, "md:line: figure".
function fail(msg) { printf "FAIL %s:%d: %s\n", md, NR, msg; failures++ }

# split_words SPEC W: SPEC split at spaces into W[1..n], but for spaces inside "..." (a value
# with spaces: args="-n 268435456 --pairs"; the quotes are dropped)
function split_words(spec, w,    n, i, c, cur, quoted) {
    n = 0; cur = ""; quoted = 0
    for (i = 1; i <= length(spec); i++) {
        c = substr(spec, i, 1)
        if (c == "\"") quoted = !quoted
        else if (c == " " && !quoted) { if (cur != "") w[++n] = cur; cur = "" }
        else cur = cur c
    }
    if (cur != "") w[++n] = cur
    return n
}

# the value a source gives, or "" (after a FAIL line) where it cannot
function csv_value(path, spec,    n, w, i, col, agg, nf, f, line, hdr, idx, keep, k, want, rows, v, val, num, den) {
    n = split_words(spec, w)
    if (n < 1) { fail("src " path ": no column named"); return "" }
    col = w[n]
    agg = ""
    if (col ~ /^(max|min):/) { agg = substr(col, 1, 3); col = substr(col, 5) }
    if ((getline line < path) <= 0) { fail("src " path ": no such file, or empty"); return "" }
    nf = csv_split(line, hdr)
    delete idx
    for (i = 1; i <= nf; i++) idx[hdr[i]] = i
    num = col; den = ""
    if (index(col, "/")) { num = substr(col, 1, index(col, "/") - 1); den = substr(col, index(col, "/") + 1) }
    if (!(num in idx) || (den != "" && den !~ /^[0-9.]+$/ && !(den in idx))) {
        fail("src " path ": no column " col); close(path); return ""
    }
    rows = 0
    while ((getline line < path) > 0) {
        csv_split(line, f)
        keep = 1
        for (i = 1; i < n && keep; i++) {
            k = substr(w[i], 1, index(w[i], "=") - 1); want = substr(w[i], index(w[i], "=") + 1)
            if (!(k in idx)) { fail("src " path ": no column " k); close(path); return "" }
            if (index("|" want "|", "|" f[idx[k]] "|") == 0) keep = 0
        }
        if (keep) {
            rows++
            v = f[idx[num]]
            if (den ~ /^[0-9.]+$/) v = f[idx[num]] / den
            else if (den != "") v = (f[idx[den]] + 0 == 0) ? "" : f[idx[num]] / f[idx[den]]
            if (agg == "" || rows == 1 || (agg == "max" && v + 0 > val + 0) || (agg == "min" && v + 0 < val + 0))
                val = v
        }
    }
    close(path)
    if (agg != "" && rows < 1) { fail("src " path " " spec ": no row matches"); return "" }
    if (agg == "" && rows != 1) { fail("src " path " " spec ": " rows " rows match, not one"); return "" }
    if (val == "") { fail("src " path " " spec ": the value is empty"); return "" }
    return val + 0
}

function log_value(path, pattern, k,    line, n, nums) {
    while ((getline line < path) > 0) {
        if (match(line, pattern)) {
            close(path)
            if (k < 0) { # the -k-th number before the pattern, counting back from it
                line = substr(line, 1, RSTART - 1)
                n = 0
                while (match(line, /-?[0-9]+(\.[0-9]+)?/)) {
                    nums[++n] = substr(line, RSTART, RLENGTH)
                    line = substr(line, RSTART + RLENGTH)
                }
                if (n + k + 1 >= 1) return nums[n + k + 1] + 0
                fail("src " path " /" pattern "/: fewer than " (0 - k) " numbers before it")
                return ""
            }
            line = substr(line, RSTART + RLENGTH)
            n = 0
            while (match(line, /-?[0-9]+(\.[0-9]+)?/)) {
                if (++n == k) return substr(line, RSTART, RLENGTH) + 0
                line = substr(line, RSTART + RLENGTH)
            }
            fail("src " path " /" pattern "/: fewer than " k " numbers after it")
            return ""
        }
    }
    close(path)
    fail("src " path ": no line matches /" pattern "/ (or no such file)")
    return ""
}

# the value of one marker's words
function source_value(words,    path, rest, p, k, a, b, va, vb) {
    sub(/^ +/, "", words); sub(/ +$/, "", words)
    path = words; sub(/ .*/, "", path)
    rest = substr(words, length(path) + 2)
    if (substr(rest, 1, 1) == "/") {
        p = rest; sub(/^\//, "", p); k = p; sub(/\/[^\/]*$/, "", p); sub(/.*\/ */, "", k)
        if (k !~ /^-?[0-9]+$/ || k == 0) { fail("src " path ": a log source is /pattern/ K (K > 0: after it, K < 0: before it)"); return "" }
        return log_value(path, p, k + 0)
    }
    if (index(rest, " / ")) {
        a = substr(rest, 1, index(rest, " / ") - 1); b = substr(rest, index(rest, " / ") + 3)
        va = csv_value(path, a); vb = csv_value(path, b)
        if (va == "" || vb == "") return ""
        if (vb == 0) { fail("src " path ": a ratio by zero"); return "" }
        return va / vb
    }
    return csv_value(path, rest)
}

# does printed (a number as the text prints it) round from value?
function matches(printed, value,    d, p) {
    gsub(/,/, "", printed)
    d = 0
    if (index(printed, ".")) d = length(printed) - index(printed, ".")
    p = printed + 0
    return (value - p <= 0.5 * 10 ^ -d + 1e-9 * (value < 0 ? -value : value) + 1e-12) && \
           (p - value <= 0.5 * 10 ^ -d + 1e-9 * (value < 0 ? -value : value) + 1e-12)
}

# checks every marker of text (one line), returns the text with each marker and the
# figure before it taken out
function check_markers(text,    out, before, body, figure, value, open_at, tail, m, kind) {
    out = ""
    while (match(text, /(<!-- (src|quoted|given) [^>]*-->|\[(src|quoted|given) [^]]*\])/)) {
        before = substr(text, 1, RSTART - 1)
        m = substr(text, RSTART, RLENGTH)
        text = substr(text, RSTART + RLENGTH)
        body = m
        kind = m; sub(/^(<!-- |\[)/, "", kind); sub(/ .*/, "", kind)
        if (substr(body, 1, 1) == "<") { sub(/^<!-- [a-z]+ /, "", body); sub(/-->$/, "", body) }
        else { sub(/^\[[a-z]+ /, "", body); sub(/\]$/, "", body) }
        # the figure: the last number before the marker
        figure = ""
        open_at = 0
        tail = before
        while (match(tail, /[0-9]+(,[0-9][0-9][0-9])*(\.[0-9]+)?/)) {
            figure = substr(tail, RSTART, RLENGTH); open_at += RSTART + RLENGTH - 1
            tail = substr(tail, RSTART + RLENGTH)
        }
        if (figure == "") { fail("a " kind " marker with no number before it"); out = out before; continue }
        out = out substr(before, 1, open_at - length(figure))
        if (kind == "quoted") { quoted++; continue }
        if (kind == "given") { given++; continue }
        sourced++
        value = source_value(body)
        if (value != "" && !matches(figure, value))
            fail("prints " figure ", its source says " value " (" body ")")
    }
    return out text
}

function count_unsourced(text,    rest, fig, after) {
    rest = text
    while (match(rest, /[0-9]+(\.[0-9]+)?( ?(ms|s|ns|us|GB\/s|[GM]keys\/s|[GM]Keys\/s)|x|%)/)) {
        fig = substr(rest, RSTART, RLENGTH)
        after = substr(rest, RSTART + RLENGTH, 1)
        if (RSTART > 1 && substr(rest, RSTART - 1, 1) ~ /[A-Za-z0-9_.^\/]/) { rest = substr(rest, RSTART + RLENGTH); continue }
        rest = substr(rest, RSTART + RLENGTH)
        if (after ~ /[A-Za-z0-9_]/) continue
        unsourced++
        if (list) printf "%s:%d: %s\n", md, NR, fig
    }
}

BEGIN { in_code = 0; in_table = 0; failures = 0; sourced = 0; quoted = 0; given = 0; unsourced = 0 }
/^```/ { in_code = !in_code; next }
in_code { next }
/<!-- table |<!-- fit-check -->/ { in_table = 1; next }
/<!-- end table -->|<!-- end fit-check -->/ { in_table = 0; next }
in_table { next }
{
    line = check_markers($0)
    gsub(/`[^`]*`/, "", line)          # inline code: commands and names, not figures
    gsub(/<!-- (table|code|diff|diff06) [^>]*-->/, "", line)
    count_unsourced(line)
}
END { printf "SOURCED %d QUOTED %d GIVEN %d UNSOURCED %d\n", sourced, quoted, given, unsourced; exit failures > 0 }
