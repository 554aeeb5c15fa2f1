# lab-stub.awk - a step's file as the student gets it (tools/handout.sh), at one of the two
# levels of a handout (-v level=write, the default, or -v level=guided).  The instructor
# marks each hole in the reference file with comment lines of their own:
#     /* WRITE BEGIN name: what the hole must do */     a hole of the write level: the
#     ... the reference code ...                        lesson's core function or kernel,
#     /* WRITE END name */                              written whole
#     /* LAB BEGIN name: what the hole must do */       a hole of the guided level: a few
#     ... the reference code ...                        lines of it (it may sit inside a
#     /* LAB END name */                                write hole)
# A hole of the level handed out becomes one line, indented as its BEGIN line was:
#     /* TODO(lab name): what the hole must do */
# which compiles (the handout builds without -Werror: what the hole used is then unused)
# and does not work.  The other level's marks are dropped and its code kept.  Where removing
# the hole would not compile - a function that must return a value, or a hole that takes
# whole functions, whose signatures the rest of the file calls - the hole holds comment lines
#     /* LAB STUB return 0; */                        (in a guided hole)
#     /* WRITE STUB static void f(int x) {} */        (in a write hole; several allowed)
# whose code follows the TODO line in the handout (in the reference they are comments).
# A hole may come in parts, several BEGIN ... END of one name (the bodies of three
# functions that are one lesson): the first part's TODO line says the task, the others
# "TODO(lab name): continued".  Everything else is copied as it is.  A hole inside a hole of
# its own level, an END that closes no hole or another, a hole never closed: one line on
# stderr and exit 2.  With -v list=1, only the holes of the level: "name<TAB>task<TAB>lines"
# (lines: the reference code's lines in all its parts, blank lines, marks and stubs left out).
# With -v only=NAME, only hole NAME is stubbed, the others of the level kept as the other
# level's are (the grader's tests: a file with one hole done and one not).
function fail(msg) { print FILENAME ":" FNR ": " msg > "/dev/stderr"; failed = 1; exit 2 }
BEGIN {
    if (level == "") level = "write"
    if (level != "write" && level != "guided") { print "lab-stub.awk: level is write or guided" > "/dev/stderr"; failed = 1; exit 2 }
    mine = level == "write" ? "WRITE" : "LAB"
}
# kind_of(line): "WRITE" or "LAB" for a marker line of that kind, "" otherwise
function kind_of(line) { return line ~ /^[ \t]*\/\* WRITE (BEGIN|END|STUB) / ? "WRITE" : line ~ /^[ \t]*\/\* LAB (BEGIN|END|STUB) / ? "LAB" : "" }
/^[ \t]*\/\* (LAB|WRITE) BEGIN [A-Za-z0-9_]+: .*\*\/[ \t]*$/ {
    kind = kind_of($0)
    if (kind != mine) next # the other level's mark: dropped, its code kept
    if (hole != "") fail(kind " BEGIN inside hole '" hole "'")
    indent = $0; sub(/[^ \t].*$/, "", indent)
    rest = $0; sub(/^[ \t]*\/\* (LAB|WRITE) BEGIN /, "", rest); sub(/[ \t]*\*\/[ \t]*$/, "", rest)
    hole = rest; sub(/:.*$/, "", hole)
    if (only != "" && hole != only) { other = hole; hole = ""; next } # kept, as the other level's
    task = rest; sub(/^[A-Za-z0-9_]+: /, "", task)
    if (!(hole in lines)) { order[++holes] = hole; tasks[hole] = task; lines[hole] = 0 }
    else task = "continued"
    if (!list) print indent "/* TODO(lab " hole "): " task " */"
    next
}
/^[ \t]*\/\* (LAB|WRITE) END [A-Za-z0-9_]+ \*\/[ \t]*$/ {
    if (kind_of($0) != mine) next
    name = $0; sub(/^[ \t]*\/\* (LAB|WRITE) END /, "", name); sub(/ \*\/[ \t]*$/, "", name)
    if (other != "" && name == other) { other = ""; next }
    if (name != hole) fail(mine " END " name " closes " (hole == "" ? "no hole" : "hole '" hole "'"))
    hole = ""
    next
}
/^[ \t]*\/\* (LAB|WRITE) STUB .*\*\/[ \t]*$/ {
    if (kind_of($0) != mine || other != "") next
    if (hole == "") fail(mine " STUB outside a hole")
    code = $0; sub(/^[ \t]*\/\* (LAB|WRITE) STUB /, "", code); sub(/[ \t]*\*\/[ \t]*$/, "", code)
    if (!list) print indent code
    next
}
/(LAB|WRITE) (BEGIN|END|STUB)/ { fail("a hole's mark must be a comment line of its own: /* WRITE BEGIN name: task */") }
hole != "" { if (kind_of($0) == "" && $0 !~ /^[ \t]*$/) lines[hole]++; next }
!list { print }
END {
    if (failed) exit 2
    if (hole != "") { print FILENAME ": hole '" hole "' is never closed (" mine " END " hole ")" > "/dev/stderr"; exit 2 }
    for (i = 1; list && i <= holes; i++) print order[i] "\t" tasks[order[i]] "\t" lines[order[i]]
}
