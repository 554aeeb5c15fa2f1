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
# left.  The last word is the column, or arithmetic on the row's columns and numbers
# with + - * / and parentheses, no spaces: "a/b" (their ratio, in that row), "ms/1000"
# (seconds), "histogram_ms/6" (a pass of six), "100*scatter_ms/sort_ms" (a share), "67.1*4/ms"
# (MB/ms: GB/s).  "max:COLUMN" or "min:COLUMN": the largest or smallest over every row
# that matches (one or more).  Two such row sets joined by " / " give the
# ratio of the first's value to the second's, joined by " -% " the first's change against
# the second in per cent (100 (a - b) / b, its size: "7% slower" and "7% faster" alike),
# joined by " - " their difference (its size):
#   1.24x<!-- src results/.../stages.csv step=07.4 n=268435456 sort_ms / step=07.5 n=268435456 sort_ms -->
# A log source: a pattern between slashes (an awk regular expression) and K: the K-th
# number after the pattern (K < 0: the -K-th before it, counting back), on the first line
# of the log that matches it ("/pattern/ +N K": the K-th number of the line N lines below
# that one); two such joined by " / ", " -% " or " - " as above:
#   67 s<!-- src results/nvidia-h100-80gb-hbm3/make_test.log /Wall time of make test/ 1 -->
# A figure that a model computes from others: a calc marker holds the arithmetic - numbers,
# + - * / ^ and parentheses, and any source above between braces, which stands for its value -
# and the figure must be what the arithmetic gives, rounded as printed:
#   4.4 ms<!-- calc 2 * {results/.../multi08.csv step=08.2 n=268435456 gpus=1 sort_ms} * 12 / 36 -->
# so a model follows its inputs: a measurement that moves moves the figures computed from it.
# A figure quoted from elsewhere - a course report, a paper - is not measured here: it
# says so, and where from ("<!-- quoted report 001 -->", "[quoted report 001]"), and is
# not checked.  A figure that is not a measurement at all - a setting, a limit, a model's
# input - says what it is the same way: "300 s<!-- given the runner's timeout -->".
# The figure is the last number before the marker; it must equal the source's value
# rounded to the digits it prints (6.747 matches 6.7465 to 6.7475; 1,318 matches 1318).
#
# With -v fix=FILE it also writes the document to FILE with every figure that no longer
# matches its source replaced by the source's value, printed to the same decimals (and
# each such change on stdout: "FIX md:line: 6.36 -> 5.53 (SOURCE)"): the numbers follow a
# new measurement; the words around them are for a reader to check (tools/prose-fix.sh).
# Prints one line per problem, "FAIL md:line: ...", and at the end
#   SOURCED <n> QUOTED <q> GIVEN <g> COMPUTED <c> UNSOURCED <m>
# where UNSOURCED counts the figures left without a marker: a number with a unit of time,
# bandwidth or rate, an "x" ratio or a per cent sign, or a number with decimals and no unit
# (a ratio, a speed-up, a score), in prose (generated tables, code blocks and the markers
# themselves left out).  With -v list=1 it also prints each
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
# EXPR on one row (fields F, columns IDX): numbers, columns, + - * / ^ and parentheses;
# "" where a column is empty or a division is by zero
function row_expr(e, f, idx,    v) { ex_s = e; ex_bad = 0; v = ex_sum(f, idx); return (ex_bad || ex_s != "") ? "" : v }
function ex_sum(f, idx,    v, op) {
    v = ex_prod(f, idx)
    while (ex_s ~ /^[+-]/) { op = substr(ex_s, 1, 1); ex_s = substr(ex_s, 2); v = (op == "+") ? v + ex_prod(f, idx) : v - ex_prod(f, idx) }
    return v
}
function ex_prod(f, idx,    v, op, r) {
    v = ex_atom(f, idx)
    while (ex_s ~ /^[*\/]/) {
        op = substr(ex_s, 1, 1); ex_s = substr(ex_s, 2); r = ex_atom(f, idx)
        if (op == "*") v *= r; else if (r == 0) { ex_bad = 1; v = 0 } else v /= r
    }
    return v
}
function ex_atom(f, idx,    v, r) { # a power binds tighter than * and /: 0.5^8
    v = ex_base(f, idx)
    if (substr(ex_s, 1, 1) == "^") { ex_s = substr(ex_s, 2); r = ex_atom(f, idx); v = v ^ r }
    return v
}
function ex_base(f, idx,    v, name) {
    if (substr(ex_s, 1, 1) == "(") { ex_s = substr(ex_s, 2); v = ex_sum(f, idx); if (substr(ex_s, 1, 1) != ")") ex_bad = 1; ex_s = substr(ex_s, 2); return v }
    if (match(ex_s, /^[0-9]+(\.[0-9]+)?([eE][0-9]+)?/)) { v = substr(ex_s, 1, RLENGTH) + 0; ex_s = substr(ex_s, RLENGTH + 1); return v }
    if (match(ex_s, /^[a-z_][a-z0-9_]*/)) {
        name = substr(ex_s, 1, RLENGTH); ex_s = substr(ex_s, RLENGTH + 1)
        if (f[idx[name]] !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) { ex_bad = 1; return 0 }
        return f[idx[name]] + 0
    }
    ex_bad = 1; return 0
}

function csv_value(path, spec,    n, w, i, col, agg, nf, f, line, hdr, idx, keep, k, want, rows, v, val, tmp_e) {
    n = split_words(spec, w)
    if (n < 1) { fail("src " path ": no column named"); return "" }
    col = w[n]
    agg = ""
    if (col ~ /^(max|min):/) { agg = substr(col, 1, 3); col = substr(col, 5) }
    if ((getline line < path) <= 0) { fail("src " path ": no such file, or empty"); return "" }
    nf = csv_split(line, hdr)
    delete idx
    for (i = 1; i <= nf; i++) idx[hdr[i]] = i
    if (col !~ /^[a-z0-9_.+*\/()-]+$/) { fail("src " path ": no column " col); close(path); return "" }
    tmp_e = col
    while (match(tmp_e, /[a-z_][a-z0-9_]*/)) { # a name, unless it is a number's exponent (1e10)
        if (!(RSTART > 1 && substr(tmp_e, RSTART - 1, 1) ~ /[0-9.]/) && !(substr(tmp_e, RSTART, RLENGTH) in idx)) { fail("src " path ": no column " substr(tmp_e, RSTART, RLENGTH)); close(path); return "" }
        tmp_e = substr(tmp_e, RSTART + RLENGTH)
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
            v = row_expr(col, f, idx)
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

function log_value(path, pattern, k, skip,    line, n, nums, v) {
    while ((getline line < path) > 0) {
        if (match(line, pattern)) {
            if (skip > 0) { # the K-th number of the line N lines below
                while (skip-- > 0)
                    if ((getline line < path) <= 0) { close(path); fail("src " path " /" pattern "/: the log ends before that line"); return "" }
                RSTART = 1; RLENGTH = 0
            }
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
            n = 0 # a number may group its thousands with commas (Nsight Compute's 459,807,592.00)
            while (match(line, /-?[0-9]+(,[0-9][0-9][0-9])*(\.[0-9]+)?/)) {
                if (++n == k) { v = substr(line, RSTART, RLENGTH); gsub(/,/, "", v); return v + 0 }
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

# "/pattern/ K": the figure of a log line
function log_spec(path, spec,    p, k, skip) {
    p = spec; sub(/^\//, "", p); k = p; sub(/\/[^\/]*$/, "", p); sub(/.*\/ */, "", k)
    skip = 0
    if (k ~ /^\+[0-9]+ /) { skip = substr(k, 2, index(k, " ") - 2) + 0; k = substr(k, index(k, " ") + 1) }
    if (k !~ /^-?[0-9]+$/ || k == 0 || (skip > 0 && k < 0)) { fail("src " path ": a log source is /pattern/ K (K > 0: after it, K < 0: before it) or /pattern/ +N K"); return "" }
    return log_value(path, p, k + 0, skip)
}

# two figures joined: "/" their ratio, "-%" the change of the first against the second in
# per cent, "-" their difference (the last two by their size)
function combine(path, va, op, vb) {
    if (va == "" || vb == "") return ""
    if (op == "-") return (va > vb) ? va - vb : vb - va
    if (vb == 0) { fail("src " path ": a ratio by zero"); return "" }
    if (op == "-%") return (va > vb) ? 100 * (va - vb) / vb : 100 * (vb - va) / vb
    return va / vb
}

# the value of one marker's words
function source_value(words,    path, rest, a, b, va, vb, op, w) {
    sub(/^ +/, "", words); sub(/ +$/, "", words)
    path = words; sub(/ .*/, "", path)
    rest = substr(words, length(path) + 2)
    if (substr(rest, 1, 1) == "/") {
        if (match(rest, / -?[0-9]+ (\/|-%|-) \//)) { # two log figures joined as two row sets are
            split(substr(rest, RSTART + 1, RLENGTH - 2), w, " ")
            a = substr(rest, 1, RSTART - 1) " " w[1]; b = substr(rest, RSTART + RLENGTH - 1)
            va = log_spec(path, a); vb = log_spec(path, b)
            return combine(path, va, w[2], vb)
        }
        return log_spec(path, rest)
    }
    if (match(rest, / (\/|-%|-) /)) {
        op = substr(rest, RSTART + 1, RLENGTH - 2)
        a = substr(rest, 1, RSTART - 1); b = substr(rest, RSTART + RLENGTH)
        return combine(path, csv_value(path, a), op, csv_value(path, b))
    }
    return csv_value(path, rest)
}

# the value of a calc marker's arithmetic: each {source} replaced by its value, then the
# expression (row_expr, with no columns) evaluated; "" (after a FAIL line) where it cannot
function calc_value(expr,    e, ref, v, head, tail) {
    e = expr
    while (match(e, /\{[^}]*\}/)) {
        ref = substr(e, RSTART + 1, RLENGTH - 2)
        head = substr(e, 1, RSTART - 1); tail = substr(e, RSTART + RLENGTH)
        v = source_value(ref) # (which runs match() of its own)
        if (v == "") return ""
        e = head "(" sprintf("%.12g", v) ")" tail
    }
    gsub(/ /, "", e)
    v = row_expr(e, calc_no_fields, calc_no_columns)
    if (v == "") fail("calc " expr ": not arithmetic of numbers and {sources}")
    return v
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

# the value printed as `printed` is: the same decimals, and thousands' commas where it had them
function reprint(printed, value,    d, s, int_part, frac, grouped) {
    d = 0
    if (index(printed, ".")) d = length(printed) - index(printed, ".")
    s = sprintf("%." d "f", value)
    if (!index(printed, ",")) return s
    int_part = s; frac = ""
    if (index(s, ".")) { int_part = substr(s, 1, index(s, ".") - 1); frac = substr(s, index(s, ".")) }
    grouped = ""
    while (length(int_part) > 3) {
        grouped = "," substr(int_part, length(int_part) - 2) grouped
        int_part = substr(int_part, 1, length(int_part) - 3)
    }
    return int_part grouped frac
}

# checks every marker of text (one line), returns the text with each marker and the
# figure before it taken out; with fix, fixed_line is the line with each stale figure
# replaced by its source's value
function check_markers(text,    out, before, body, figure, value, open_at, tail, m, kind, start) {
    out = ""; fixed_line = ""
    while (match(text, /(<!-- (src|quoted|given|calc) [^>]*-->|\[(src|quoted|given|calc) [^]]*\])/)) {
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
        if (figure == "") { fail("a " kind " marker with no number before it"); out = out before; fixed_line = fixed_line before m; continue }
        start = open_at - length(figure)
        out = out substr(before, 1, start)
        if (kind == "quoted") { quoted++; fixed_line = fixed_line before m; continue }
        if (kind == "given") { given++; fixed_line = fixed_line before m; continue }
        if (kind == "calc") { computed++; value = calc_value(body) }
        else { sourced++; value = source_value(body) }
        if (value != "" && !matches(figure, value)) {
            fail("prints " figure ", its " (kind == "calc" ? "arithmetic gives " : "source says ") value " (" body ")")
            if (fix != "") {
                printf "FIX %s:%d: %s -> %s (%s)\n", md, NR, figure, reprint(figure, value), body
                before = substr(before, 1, start) reprint(figure, value) substr(before, open_at + 1)
            }
        }
        fixed_line = fixed_line before m
    }
    fixed_line = fixed_line text
    return out text
}

function count_unsourced(text,    rest, fig, after, before, start) {
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
    # a number with decimals and no unit is a figure too (a ratio, a speed-up, a score) -
    # but a step (07.13), a version (CUDA 13.0, PCIe 5.0, compute capability 8.0), a signed
    # zero (+0.0) or a number inside a word or a path is not
    rest = text
    while (match(rest, /[0-9]+\.[0-9]+/)) {
        fig = substr(rest, RSTART, RLENGTH)
        start = RSTART
        before = substr(rest, 1, start - 1)
        after = substr(rest, start + RLENGTH, 1)
        rest = substr(rest, start + RLENGTH)
        if (start > 1 && substr(before, start - 1, 1) ~ /[A-Za-z0-9_.^\/+-]/) continue
        if (after ~ /[0-9A-Za-z_.]/ && !(after == "." && substr(rest, 2, 1) !~ /[0-9]/)) continue
        if (rest ~ /^ ?(ms|s|ns|us|GB\/s|[GM]keys\/s|[GM]Keys\/s)([^A-Za-z0-9_]|$)/) continue # with its unit: counted above
        if (fig ~ /^0[0-9]\.[0-9]+$/) continue
        if (before ~ /(CUDA|PCIe|NCCL|capability|capabilities|version|nvcc|release|driver|Hopper|sm_) *$/) continue
        unsourced++
        if (list) printf "%s:%d: %s\n", md, NR, fig
    }
}

BEGIN { in_code = 0; in_table = 0; failures = 0; sourced = 0; quoted = 0; given = 0; computed = 0; unsourced = 0 }
# with fix: the lines whose figures are not checked go to the fixed copy as they are
fix != "" && (in_code || in_table || /^```/ || /<!-- table |<!-- fit-check -->|<!-- end table -->|<!-- end fit-check -->/) { print > fix }
/^```/ { in_code = !in_code; next }
in_code { next }
/<!-- table |<!-- fit-check -->/ { in_table = 1; next }
/<!-- end table -->|<!-- end fit-check -->/ { in_table = 0; next }
in_table { next }
{
    line = check_markers($0)
    if (fix != "") print fixed_line > fix
    gsub(/`[^`]*`/, "", line)          # inline code: commands and names, not figures
    gsub(/<!-- (table|code|diff|diff06) [^>]*-->/, "", line)
    count_unsourced(line)
}
END { printf "SOURCED %d QUOTED %d GIVEN %d COMPUTED %d UNSOURCED %d\n", sourced, quoted, given, computed, unsourced; exit failures > 0 }
