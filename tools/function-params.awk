# function-params.awk - each function a C or CUDA file defines at column 0, and how many
# parameters it takes: a line "FILE:LINE: NAME PARAMETERS" a function.
#   awk -f tools/function-params.awk FILE...
# A definition starts at column 0 with a name followed by "(" (a return type, qualifiers and
# __launch_bounds__(...) before it are skipped), may span lines, and ends its parameter list
# with ")" and "{".  Declarations (ending in ";") and macros are not definitions.  Commas
# inside nested (), <> and [] are not parameter separators.
function flush(   s, depth, i, c, n, name, inside, rest) {
    s = buf; buf = ""; collecting = 0
    gsub(/__launch_bounds__\([^)]*\)/, "", s)
    if (!match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) return
    name = substr(s, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
    s = substr(s, RSTART + RLENGTH)
    depth = 1; n = 0; inside = ""
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "(" || c == "<" || c == "[") depth++
        else if (c == ")" || c == ">" || c == "]") depth--
        if (depth == 0) break
        if (c == "," && depth == 1) n++
        inside = inside c
    }
    rest = substr(s, i + 1)
    if (rest !~ /^[ \t]*(const[ \t]*)?\{/) return
    gsub(/[ \t]/, "", inside)
    n = (inside == "" || inside == "void") ? 0 : n + 1
    print FILENAME ":" start ": " name " " n
}
collecting { buf = buf " " $0; if ($0 ~ /[{;]/) flush(); next }
/^[A-Za-z_][^;]*\(/ && $0 !~ /^(typedef|return|if|for|while)[ (]/ {
    start = FNR; buf = $0; collecting = 1
    if ($0 ~ /[{;]/) flush()
}
