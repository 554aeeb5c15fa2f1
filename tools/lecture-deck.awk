# lecture-deck.awk - a deck as the lecture shows it: in its code blocks, the code of every
# write-level hole is replaced by the hole's TODO line, as the week's handout shows it.
#   awk -v deck=slides/01_sequential.md -f tools/lecture-deck.awk SOURCES... slides/01_sequential.md
# SOURCES: the course's files with holes (tools/lecture-deck.sh names them), read first for
# their holes (the lines between "WRITE BEGIN name: what" and "WRITE END"); then the deck,
# twice: once for the first step it diffs to, once to print it.
# The holes are mapped by place: a code block shows the file its marker names ("<!-- code
# FILE -->"; "<!-- diff FROM TO -->": TO's file, FROM's for its "-" lines), and only that
# file's holes are replaced - and only those of a lab not yet due: a step of the deck's own
# stage, and in a stage's later deck (NN_name_part2.md) not before the first step that deck
# diffs to (or, with no diff, the first step whose file it shows): a later lecture shows
# the code of the labs its stage's earlier lecture handed out.  A block with no marker is
# left whole.
# A run of consecutive lines of a block that are lines of such a hole (blank lines inside
# it too) becomes one comment, "TODO(lab name): what" - where the run has a line of 20
# characters or more: a lone "}" or "return 0;" is no one's answer.  In a diff block the
# lines' +/- marks are kept.  Everything else is copied as it is.
#   -v step_map="id=file=order ..."  the course's path (tools/lecture-deck.sh)
#   -v owners="file=id ..."          the step whose lab each source's holes are
#   -v list=1: print the holes' lines instead ("name<TAB>line", one a line of a hole; a line
#   two labs wrote comes once for each).
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# wraps "TODO(lab name): what" into comment lines of at most 84 characters
function todo(name, indent, mark,    text, out, line, n, w, i, words) {
    text = "TODO(lab " name "): " what[name]
    n = split(text, words, " ")
    line = "/* " words[1]
    for (i = 2; i <= n; i++) {
        if (length(indent line " " words[i]) > 80) {
            out = out mark indent line "\n"
            line = " * " words[i]
        } else
            line = line " " words[i]
    }
    return out mark indent line " */"
}

function flush_block(    i, j, k, t, run_long, name, seen, opened, keep) {
    i = 1
    while (i <= nlines) {
        if (hole_of[i] == "") { print block[i]; i++; continue }
        # a run: lines of holes, and blank lines between them
        run_long = 0
        for (j = i; j <= nlines; j++) {
            if (hole_of[j] != "") { if (long_line[j]) run_long = 1; continue }
            if (trim(code_of[j]) != "") break
            for (k = j; k <= nlines && trim(code_of[k]) == "" && hole_of[k] == ""; k++);
            if (k > nlines || hole_of[k] == "") break
        }
        if (!run_long) { for (k = i; k < j; k++) print block[k]; i = j; continue }
        # braces the run closes but did not open (the end of a function whose body is the
        # hole) stay after the comment
        opened = 0
        for (k = i; k < j; k++) opened += gsub(/[{]/, "{", code_of[k]) - gsub(/[}]/, "}", code_of[k])
        keep = j
        while (opened < 0 && keep > i && trim(code_of[keep - 1]) ~ /^}[;]?$/) { keep--; opened++ }
        name = hole_of[i]
        match(code_of[i], /^[ \t]*/)
        if (name in seen)
            print mark_of[i] substr(code_of[i], 1, RLENGTH) "/* TODO(lab " name "), continued */"
        else
            print todo(name, substr(code_of[i], 1, RLENGTH), mark_of[i])
        seen[name] = 1
        for (k = keep; k < j; k++) print block[k]
        i = j
    }
    nlines = 0
}

BEGIN {
    n = split(step_map, m, " ")
    for (i = 1; i <= n; i++) { split(m[i], f, "="); file_of[f[1]] = f[2]; step_of_file[f[2]] = f[1]; order[f[1]] = f[3] + 0 }
    n = split(owners, m, " ")
    for (i = 1; i <= n; i++) { split(m[i], f, "="); owner[f[1]] = f[2] }
    stage = deck; sub(/.*\//, "", stage); later_deck = stage ~ /_part[0-9]+\.md$/
    stage = substr(stage, 1, 2)
    first_diff = first_code = 1000000
}
# the step a diff marker's argument names: "07.3"; diff06's "3" is 06.3
function step_of(kind, arg) { return kind == "diff06" ? "06." arg : arg }
# whether the holes of FILE are a lab not yet due in this deck
function not_due(file,    id) {
    id = owner[file]
    return id != "" && id != "none" && substr(id, 1, 2) == stage && order[id] >= first
}
# the hole whose code line T is, in a block that shows FILE: FILE's own hole, else the hole
# of the latest lab up to FILE's step that wrote that line (a step's file carries the code
# of the labs before it unmarked) - of labs not yet due alone; "" for none
function hole_shown(file, t,    i, g, best, best_order) {
    if (file == "" || !(file in owner) && !(file in step_of_file)) return ""
    if (((file, t) in hole) && not_due(file)) return hole[file, t]
    best = ""; best_order = -1
    for (i = 1; i <= nsources; i++) {
        g = sources[i]
        if (!((g, t) in hole) || !not_due(g)) continue
        if (order[owner[g]] > order[shown_step(file)] || order[owner[g]] <= best_order) continue
        best = hole[g, t]; best_order = order[owner[g]]
    }
    return best
}
# the step whose file FILE is, or whose lab its holes are
function shown_step(file) { return (file in step_of_file) ? step_of_file[file] : owner[file] }

FILENAME != deck {
    if (FNR == 1) sources[++nsources] = FILENAME
    if (match($0, /WRITE BEGIN [A-Za-z0-9_]+/)) {
        on = substr($0, RSTART + 12, RLENGTH - 12)
        rest = substr($0, RSTART + RLENGTH)
        sub(/^: */, "", rest); sub(/ *\*\/ *$/, "", rest)
        if (!(on in what)) what[on] = rest
        next
    }
    if ($0 ~ /WRITE END/) { on = ""; next }
    if (on != "" && $0 !~ /LAB (BEGIN|END)|WRITE STUB/) {
        t = trim($0)
        if (t != "" && !((FILENAME, t) in hole)) {
            hole[FILENAME, t] = on
            if (list && !((on, t) in listed)) { listed[on, t] = 1; print on "\t" t }
        }
    }
    next
}
list { exit }
FNR == 1 { deck_pass++ }
# the first pass: the first step of its own stage the deck diffs to, or shows the file of
deck_pass == 1 {
    if ($0 ~ /^<!-- diff(06)? [0-9.]+ [0-9.]+ -->/) {
        split($0, w, " ")
        to = step_of(w[2], w[4])
        if (substr(to, 1, 2) == stage && (to in order) && order[to] < first_diff) first_diff = order[to]
    } else if ($0 ~ /^<!-- code [^ ]+ -->/) {
        split($0, w, " ")
        id = owner[w[3]]
        if (substr(id, 1, 2) == stage && (id in order) && order[id] < first_code) first_code = order[id]
    }
    next
}
FNR == 1 && deck_pass == 2 { first = !later_deck ? 0 : first_diff < 1000000 ? first_diff : first_code }
# the second: a marker names the file of the next code block
/^<!-- code [^ ]+ -->/ { split($0, w, " "); plus_file = minus_file = w[3] }
/^<!-- diff(06)? [0-9.]+ [0-9.]+ -->/ {
    split($0, w, " ")
    minus_file = file_of[step_of(w[2], w[3])]; plus_file = file_of[step_of(w[2], w[4])]
}

# the deck
/^[ \t]*```/ {
    if (!incode) { incode = 1; lang = $0; sub(/^[ \t]*```/, "", lang); print; next }
    flush_block(); incode = 0; plus_file = minus_file = ""; print; next
}
incode {
    nlines++
    block[nlines] = $0
    code = $0; mark = ""
    if (lang == "diff" && code ~ /^[-+ ]/) { mark = substr(code, 1, 1); code = substr(code, 2) }
    code_of[nlines] = code; mark_of[nlines] = mark
    t = trim(code)
    src = mark == "-" ? minus_file : plus_file
    hole_of[nlines] = t == "" ? "" : hole_shown(src, t)
    long_line[nlines] = length(t) >= 20
    next
}
# prose and speaker notes: a figure's source marker ([src FILE ...], [calc ...]) is for
# test_docs, not for the room or the presenter view
{ gsub(/ ?\[(src|calc|given|quoted) [^]]*\]/, ""); print }
END {
    if (list) exit
    if (incode) flush_block()
}
