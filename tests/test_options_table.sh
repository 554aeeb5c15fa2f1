#!/usr/bin/env bash
# test_options_table.sh - the README's table of the sort programs' options, against the
# programs: for each option a row names, its "taken by" cell must list exactly the stages
# and steps whose --help lists the option (a stage's number where all its steps take it,
# "07.2-07.10" for a run of steps, "all" for every sort program), and every option some
# --help lists must have a row.  --help needs no GPU, but it needs every sort program:
# the CPU build, which has stage 01 alone, skips (exit 77).
set -u
cd "$(dirname "$0")/.."
. tools/steps-lib.sh # steps, step_ids, step_field, file_step_number
bin=${BIN_DIR:-build/bin}
source tests/cli_lib.sh # check_that, fail, finish, $tmp

# the sort steps, in the course's order: id, program, its --step argument
sort_steps=$(steps | awk -F'\t' '$2 !~ /^06_/ { print $1 "\t" $2 }' | while IFS=$'\t' read -r id file; do
    k=$(file_step_number "$file")
    printf '%s\t%s\t%s\n' "$id" "${file%%/*}" "${k:+--step $k}"
done)
while IFS=$'\t' read -r id program step_arg; do
    [ -x "$bin/$program" ] || { echo "SKIP: needs every sort program, and $bin/$program is not built (the CPU build has stage 01 alone)"; exit 77; }
done <<<"$sort_steps"

# "--type" for each step that lists it: "id<TAB>option" lines
while IFS=$'\t' read -r id program step_arg; do
    # shellcheck disable=SC2086
    # an option line: "  --begin-bit B --end-bit E  order by ...": the options before the
    # two spaces that start the description
    "$bin/$program" $step_arg --help | awk '/^  -/ { sub(/^  /, ""); sub(/  .*/, "")
        for (i = 1; i <= NF; i++) if ($i ~ /^-/) { sub(/,$/, "", $i); print $i } }' | sort -u |
        sed "s/^/$id\t/"
done <<<"$sort_steps" >"$tmp/takes"

# taken_by OPTION: the steps that take it, as the table writes them
taken_by() {
    awk -F'\t' -v opt="$1" -v all_ids="$(cut -f1 <<<"$sort_steps" | paste -sd' ' -)" '
        BEGIN { n = split(all_ids, ids, " ") }
        $2 == opt { has[$1] = 1 }
        END {
            for (i = 1; i <= n; i++) { st = substr(ids[i], 1, 2); steps[st] = steps[st] " " ids[i]; total++
                                       if (ids[i] in has) { count++; taken[st]++ } ; if (!(st in seen)) { seen[st] = 1; order[++m] = st } }
            if (count == total) { print "all"; exit }
            out = ""
            for (j = 1; j <= m; j++) {
                st = order[j]; k = split(substr(steps[st], 2), list, " ")
                if (!(st in taken)) continue
                if (taken[st] == k) { out = out (out ? ", " : "") st; continue }
                for (i = 1; i <= k; i++) {
                    if (!(list[i] in has)) continue
                    first = list[i]; while (i < k && (list[i + 1] in has)) i++
                    # ids compared as strings: as numbers 07.2 and 07.20 are equal
                    out = out (out ? ", " : "") first ((list[i] "") != (first "") ? "-" list[i] : "")
                }
            }
            print out
        }' "$tmp/takes"
}

# the table: the rows under "## The sort programs" up to the next heading
awk '/^## The sort programs/ { on = 1; next } on && /^#/ { exit } on && /^\| `/' README.md >"$tmp/rows"
check_that "README.md has the options table under '## The sort programs'" test -s "$tmp/rows"
: >"$tmp/named"
while IFS= read -r row; do
    row=${row//\\|//} # "u32\|i32" is a | inside a cell
    cell_options=$(cut -d'|' -f2 <<<"$row")
    cell_taken=$(cut -d'|' -f3 <<<"$row" | sed 's/^ *//; s/ *$//')
    # every option inside the cell's code spans: `--begin-bit B --end-bit E` names two
    for opt in $(grep -oE '`[^`]*`' <<<"$cell_options" | tr -d '`' | grep -oE '(^| )--?[a-z][-a-z]*'); do
        printf '%s\n' "$opt" >>"$tmp/named"
        want=$(taken_by "$opt")
        check_that "README.md's row of $opt says '$cell_taken'; the programs' --help say '$want'" \
            test "$cell_taken" = "$want"
    done
done <"$tmp/rows"
for opt in $(cut -f2 "$tmp/takes" | sort -u); do
    case $opt in -h | -v) continue ;; esac # the short forms of --help and --verbose
    check_that "$opt (in --help) has a row in README.md's options table" grep -qxF -- "$opt" "$tmp/named"
done
# the --step row's ranges, "07: 1-16", as each program's --help gives them ("1..16")
step_cell=$(grep -F '| `--step K` |' "$tmp/rows" | cut -d'|' -f4)
for program in $(cut -f2 <<<"$sort_steps" | sort -u); do
    range=$("$bin/$program" --help | sed -n 's/^  --step K .*[ ,]\([0-9]*\)\.\.\([0-9]*\).*/\1-\2/p')
    [ -n "$range" ] || continue
    check_that "README.md's --step row gives ${program%%_*}: $range, as its --help does (the row: $step_cell)" \
        grep -qE "(\(| )${program%%_*}: $range[,;]" <<<"$step_cell"
done
# a --help that names steps of another stage ("stage 07 from step 07.7 on") names a step
# that exists, the first that takes --type; and each program lists its steps' lessons,
# one a step, no two alike
first_typed=$(awk -F'\t' '$2 == "--type" && $1 ~ /^07/ { print $1; exit }' "$tmp/takes")
while IFS=$'\t' read -r id program step_arg; do
    # shellcheck disable=SC2086
    named=$("$bin/$program" $step_arg --help | grep -o 'from step [0-9.]* on' | sort -u)
    [ -z "$named" ] || check_that "$program $step_arg --help: '$named' names the first step of 07 that takes --type ($first_typed)" \
        test "$named" = "from step $first_typed on"
done <<<"$sort_steps"
for program in $(cut -f2 <<<"$sort_steps" | sort -u); do
    titles=$("$bin/$program" --help | sed -n '/^  --step K/,$p' | sed -n 's/^  *[0-9][0-9]*  *//p')
    [ -n "$titles" ] || continue
    check_that "$program --help: each step's lesson its own ($(sort <<<"$titles" | uniq -d | head -n 1))" \
        test -z "$(sort <<<"$titles" | uniq -d)"
done
finish test_options_table
