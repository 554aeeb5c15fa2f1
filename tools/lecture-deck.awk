# lecture-deck.awk - a deck as the lecture shows it: in its code blocks, the code of every
# write-level hole is replaced by the hole's TODO line, as the week's handout shows it.
#   awk -v deck=slides/01_sequential.md -f tools/lecture-deck.awk SOURCES... slides/01_sequential.md
# SOURCES: the course's files with holes (tools/lecture-deck.sh names them), read first for
# their holes (the lines between "WRITE BEGIN name: what" and "WRITE END"); then the deck.
# A run of consecutive lines of a code block that are lines of a hole (blank lines inside
# it too) becomes one comment, "TODO(lab name): what" - where the run has a line of 20
# characters or more: a lone "}" or "return 0;" is no one's answer.  In a diff block the
# lines' +/- marks are kept.  Everything else is copied as it is.
#   -v list=1: print the holes' lines instead ("name<TAB>line", one a line of a hole).
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

FILENAME != deck {
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
        if (t != "" && !(t in hole)) { hole[t] = on; if (list) print on "\t" t }
    }
    next
}
list { exit }

# the deck
/^[ \t]*```/ {
    if (!incode) { incode = 1; lang = $0; sub(/^[ \t]*```/, "", lang); print; next }
    flush_block(); incode = 0; print; next
}
incode {
    nlines++
    block[nlines] = $0
    code = $0; mark = ""
    if (lang == "diff" && code ~ /^[-+ ]/) { mark = substr(code, 1, 1); code = substr(code, 2) }
    code_of[nlines] = code; mark_of[nlines] = mark
    t = trim(code)
    hole_of[nlines] = (t != "" && (t in hole)) ? hole[t] : ""
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
