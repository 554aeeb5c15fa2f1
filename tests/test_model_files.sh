#!/usr/bin/env bash
# test_model_files.sh - the step files in the form of a model file, which a student reads
# as the way such code is written (07_onesweep/README.md, "Reading the last step"):
# checked on the sources, so on any machine.
#   every step:        no line over 120 characters (a hole's marker says its task short;
#                      the stage's HOLES.md says it whole)
#   every step of 07:  no function of more than 8 parameters
#                      (a struct carries the rest: pass_args, tile_view, pass_shared), but
#                      stage_sort_pairs, the interface every stage implements
#                      (common/sort_stage.h)
#   each stage's last: no measured figure in a comment (times, rates, ratios to CUB: the
#                      README and results/ hold them)
#   07's last step:    each test hook (TEST_*) it defines
#                      expands to nothing, so that only the test program, which defines
#                      the hook first (test_hooks.cu), compiles one into the timed kernels
# The checks first run on made-up lines, so that each is seen to fail where it should.
set -u
cd "$(dirname "$0")/.."
source tests/cli_lib.sh # check_that, fail, finish, $tmp
. tools/steps-lib.sh    # steps, step_ids, step_field, last_stage_step

max_params=8 max_line=120
measured='[0-9][0-9.]* ?(ms|us|µs|GB/s|GiB/s|Gkeys/s)([^A-Za-z]|$)|[0-9][0-9.]*x (CUB|SortPairs|SortKeys|the step|faster|slower)|[0-9] ?%|[Mm]easured|[0-9] percent'
# long_lines FILE: its lines over max_line characters, as FILE:LINE
long_lines() { awk -v max=$max_line 'length > max { print FILENAME ":" FNR }' "$1"; }
# wide_functions FILE: its functions of more than max_params parameters, but the interface
wide_functions() { awk -f tools/function-params.awk "$1" | awk -v max=$max_params '$3 > max && $2 != "stage_sort_pairs"'; }
# measured_comments FILE: lines of its comments that state a measured figure
measured_comments() {
    awk '{ line = $0; text = "" }
         in_comment { e = index(line, "*/"); if (e) { text = substr(line, 1, e); in_comment = 0 } else text = line }
         !in_comment && (s = index(line, "/*")) && !text { rest = substr(line, s); e = index(substr(rest, 3), "*/")
             text = e ? substr(rest, 1, e + 3) : rest; in_comment = !e }
         !text && (s = index(line, "//")) { text = substr(line, s) }
         text { print FILENAME ":" FNR ": " text }' "$1" | grep -E -- "$measured"
}
# loud_hooks FILE: the test hooks it defines with a body
loud_hooks() { grep -nE '^#define TEST_[A-Z_]+(\([^)]*\))?[ \t]+[^ \t]' "$1"; }

# ---- the checks on made-up files: each must find what it is for ----------------------------------
cat >"$tmp/bad.cu" <<'CU'
/* this pass took 1.13 ms on the H100, 0.91x CUB */
/* a second loop, measured slower */
__device__ void wide(int a, int b, int c, int d, int e, int f, int g, int h,
                     int i)
{
}
static int fine(int (*cb)(int, int), const char *s) { return cb(s[0], 1); }
#define TEST_HOLD(tile) __nanosleep(tile)
CU
printf 'int x = 1; /* %0120d */\n' 0 >>"$tmp/bad.cu"
check_that "wide_functions finds a function of 9 parameters over two lines" \
    grep -q ' wide 9$' <(wide_functions "$tmp/bad.cu")
check_that "the count takes a parameter that is a pointer to a function as one" \
    grep -q ' fine 2$' <(awk -f tools/function-params.awk "$tmp/bad.cu")
check_that "measured_comments finds a time and a ratio to CUB in a comment, and a measured loss" \
    test "$(measured_comments "$tmp/bad.cu" | grep -c 'bad.cu:[12]:')" -eq 2
check_that "loud_hooks finds a hook defined with a body" grep -q 'TEST_HOLD' <(loud_hooks "$tmp/bad.cu")
check_that "long_lines finds a line over $max_line characters" grep -q 'bad.cu:9$' <(long_lines "$tmp/bad.cu")

# ---- every step ------------------------------------------------------------------------------------
found=$(for f in $(steps | cut -f2); do long_lines "$f"; done)
check_that "steps.txt lists the steps" test -n "$(step_ids)"
check_that "lines over $max_line characters: $(echo $found)" test -z "$found"

# ---- each stage's last step -------------------------------------------------------------------------
stages=$(steps | cut -f1 | cut -d. -f1 | sort -u)
check_that "steps.txt lists the stages" test "$(wc -w <<<"$stages")" -ge 8
for stage in $stages; do
    f=$(step_field "$(last_stage_step "$stage")" 2)
    found=$(measured_comments "$f")
    check_that "$f (stage $stage's last): comments with a measured figure (they belong in the README and results/): $found" \
        test -z "$found"
done

# ---- stage 07 --------------------------------------------------------------------------------------
files=$(steps | awk -F'\t' '$1 ~ /^07\./ { print $2 }')
last=$(step_field "$(last_stage_step 07)" 2)
check_that "steps.txt lists stage 07's steps" test -n "$files"
for f in $files; do
    found=$(wide_functions "$f")
    check_that "$f: functions of more than $max_params parameters: $(echo $found)" test -z "$found"
done
found=$(awk -f tools/function-params.awk "$last" | wc -l)
check_that "$last: the parameter count sees its functions (found $found)" test "$found" -ge 20
found=$(loud_hooks "$last")
check_that "$last: test hooks defined with a body (the test program defines them): $found" test -z "$found"
found=$(for h in $(grep -o '^#define TEST_[A-Z_]*' "$last" | cut -d' ' -f2); do
            grep -q "^#define $h" 07_onesweep/test_hooks.cu || echo "$h"; done)
check_that "$last: its test hooks are defined by the test program first (test_hooks.cu; not: $found)" test -z "$found"
finish test_model_files
