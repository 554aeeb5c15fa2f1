# csv.awk - the CSV reading the tools share (awk -f tools/csv.awk -f PROGRAM.awk):
#   n = csv_split(line, out)   splits one line of a CSV written by result-to-csv.awk
#                              ("..." quoting, "" inside quotes) into out[1..n]
function csv_split(line, out,    n, i, c, field, quoted) {
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field "\""; i++ }
            else if (c == "\"") quoted = 0
            else field = field c
        } else if (c == "\"") quoted = 1
        else if (c == ",") { out[++n] = field; field = "" }
        else field = field c
    }
    out[++n] = field
    return n
}
