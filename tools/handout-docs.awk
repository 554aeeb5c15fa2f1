# handout-docs.awk - a stage's README.md or HOLES.md as a handout of one step ships it: no
# later step's section (tools/handout.sh).  -v step=07.4 (the handout's step), -v stage=07,
# -v last=07.16 (the stage's last step), -v kind=readme|holes, -v holes="name name ..." (the
# holes of the files the handout ships: HOLES.md keeps their contracts alone).
# README: a section whose heading names a step of this stage after the handout's ("## Step
# 07.5 - ...", "### 07.10 - ...", "## Steps 07.7 to 07.9"), one about the steps after one
# ("## The lessons after 07.9"), or "Reading the last step" before the last, is left out up
# to the next heading of its level or above; in the Lab, an exercise that names such a step
# (07.5, --step 5, FROM=07.4 TO=07.5) is left out.
function num(id,    p) { split(id, p, "."); return p[2] + 0 }
function later_id(id) { return substr(id, 1, 2) == stage && index(id, ".") && num(id) > num(step) }
# the step a heading is about, or "" (for "after X": the step after X)
function heading_step(h,    m) {
    if (match(h, /Steps? [0-9][0-9]\.[0-9]+/)) return substr(h, RSTART + index(substr(h, RSTART), " "), RLENGTH - index(substr(h, RSTART), " "))
    if (match(h, /^#+ [0-9][0-9]\.[0-9]+ /)) { m = substr(h, RSTART, RLENGTH); sub(/^#+ /, "", m); sub(/ $/, "", m); return m }
    if (match(h, /after [0-9][0-9]\.[0-9]+/)) { m = substr(h, RSTART + 6, RLENGTH - 6); return stage "." (num(m) + 1) }
    if (h ~ /Reading the last step/) return last
    # stage 06's versions are its steps: "from version 8 to version 14" is about 9 to 14
    if (stage == "06" && match(h, /from version [0-9]+/)) return "06." (substr(h, RSTART + 13, RLENGTH - 13) + 1)
    return ""
}
# whether an exercise's text names a later step of this stage
function names_later(t,    s, id) {
    s = t
    while (match(s, /[0-9][0-9]\.[0-9]+/)) { id = substr(s, RSTART, RLENGTH); if (later_id(id)) return 1; s = substr(s, RSTART + RLENGTH) }
    s = t
    while (match(s, /--step [0-9]+/)) { id = stage "." substr(s, RSTART + 7, RLENGTH - 7); if (later_id(id)) return 1; s = substr(s, RSTART + RLENGTH) }
    s = t # stage 06: "version 9", "versions 9 and 10", "--version 9"
    while (stage == "06" && match(s, /versions? [0-9]+/)) {
        id = substr(s, RSTART, RLENGTH); sub(/.* /, "", id); if (later_id("06." id)) return 1; s = substr(s, RSTART + RLENGTH) }
    return 0
}
function flush_exercise() { if (ex != "" && !names_later(ex)) printf "%s", ex; ex = "" }
BEGIN { n = split(holes, h, " "); for (i = 1; i <= n; i++) shipped[h[i]] = 1 }
kind == "holes" {
    if ($0 ~ /^### /) { name = $0; sub(/^### /, "", name); skip = !(name in shipped) }
    else if ($0 ~ /^## /) skip = 0
    if (!skip) print
    next
}
/^#+ / {
    flush_exercise(); in_ex = 0
    level = length($0) - length(substr($0, index($0, " ")))
    if (skip && level > skip_level) next
    skip = 0
    in_lab = $0 ~ /^## Lab/
    s = heading_step($0)
    if (s != "" && later_id(s)) { skip = 1; skip_level = level; next }
    print; next
}
skip { next }
in_lab && /^[0-9]+\. / { flush_exercise(); in_ex = 1; ex = $0 "\n"; next }
in_lab && in_ex && (/^   / || /^$/) { ex = ex $0 "\n"; next }
in_lab && in_ex { flush_exercise(); in_ex = 0 }
{ print }
END { flush_exercise() }
