# lab-stub.awk - a step's file as the student gets it (tools/handout.sh).  The
# instructor marks each hole in the reference file with two comment lines:
#     /* LAB BEGIN name: what the hole must do */
#     ... the reference code ...
#     /* LAB END name */
# Here the block becomes one line, indented as the BEGIN line was:
#     /* TODO(lab name): what the hole must do */
# which compiles (the handout builds without -Werror: what the hole used is then
# unused) and does not work.  Where removing the hole would not compile - a function
# that must return a value - the hole holds one more comment line, anywhere inside it:
#     /* LAB STUB return 0; */
# whose code follows the TODO line in the handout (in the reference it is a comment).
# Everything else is copied as it is.  A BEGIN inside
# a hole, an END that closes no hole or another hole, or a hole never closed: one
# line on stderr and exit 2.  With -v list=1, only the holes: "name<TAB>task".
function fail(msg) { print FILENAME ":" FNR ": " msg > "/dev/stderr"; failed = 1; exit 2 }
/^[ \t]*\/\* LAB BEGIN [A-Za-z0-9_]+: .*\*\/[ \t]*$/ {
    if (hole != "") fail("LAB BEGIN inside hole '" hole "'")
    indent = $0; sub(/[^ \t].*$/, "", indent)
    rest = $0; sub(/^[ \t]*\/\* LAB BEGIN /, "", rest); sub(/[ \t]*\*\/[ \t]*$/, "", rest)
    hole = rest; sub(/:.*$/, "", hole)
    task = rest; sub(/^[A-Za-z0-9_]+: /, "", task)
    if (list) print hole "\t" task
    else print indent "/* TODO(lab " hole "): " task " */"
    holes++
    next
}
/^[ \t]*\/\* LAB END [A-Za-z0-9_]+ \*\/[ \t]*$/ {
    name = $0; sub(/^[ \t]*\/\* LAB END /, "", name); sub(/ \*\/[ \t]*$/, "", name)
    if (name != hole) fail("LAB END " name " closes " (hole == "" ? "no hole" : "hole '" hole "'"))
    hole = ""
    next
}
/^[ \t]*\/\* LAB STUB .*\*\/[ \t]*$/ {
    if (hole == "") fail("LAB STUB outside a hole")
    code = $0; sub(/^[ \t]*\/\* LAB STUB /, "", code); sub(/[ \t]*\*\/[ \t]*$/, "", code)
    if (!list) print indent code
    next
}
/LAB (BEGIN|END|STUB)/ { fail("a LAB marker must be a comment line of its own: /* LAB BEGIN name: task */") }
hole == "" && !list { print }
END {
    if (failed) exit 2
    if (hole != "") { print FILENAME ": hole '" hole "' is never closed (LAB END " hole ")" > "/dev/stderr"; exit 2 }
}
