# cli_lib.sh - what the command-line test scripts share; source it after setting `bin`.
#   expect_error NEEDLE ARGS...   the program must exit 2 (bad usage or input; never 77,
#                                 never a crash) with exactly one line on stderr,
#                                 containing NEEDLE
#   expect_accepted ARGS...       the options pass every check: exit 0, or 77 with the
#                                 line "SKIP: no CUDA device..." where there is no GPU
#                                 (the skip comes after every check that needs none)
#   sort_bad_input              the bad input every sort program must refuse alike:
#                                 input files, output paths, numbers, unknown options
#   ranges_as_help [ARGS...]      every numeric option --help gives a range ("1..8",
#                                 "32..1024, powers of two") is refused, below and above
#                                 that range and with a word, by a line that states the
#                                 same range in the same words (ARGS go before each)
#   check_that NAME COMMAND...    one check: failed with NAME unless COMMAND succeeds
#   graded RC WANT REGEX LINE     the grader's exit RC is WANT and its line matches REGEX
#   check_grades STEP STUB REF    make grade (LEVEL, default write) on the stubbed file STUB:
#                                 0/100, exit 1; on the reference file REF: 100/100, exit 0
#   in_background JOBS OUT CMD... CMD in the background, its output in OUT, at most JOBS
#                                 such at once (then `wait` for the last of them)
#   fail MESSAGE                  count a failure
#   finish NAME                   print the count, exit non-zero if anything failed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 checks=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

check_that() {
    local name=$1; shift
    checks=$((checks + 1))
    "$@" || fail "$name"
}

in_background() {
    local jobs=$1 out=$2
    shift 2
    "$@" >"$out" 2>&1 &
    background_running=$((${background_running:-0} + 1))
    [ "$background_running" -lt "$jobs" ] || { wait -n; background_running=$((background_running - 1)); }
}

# graded RC WANT_RC REGEX LINE: the grader's exit status was WANT_RC and its line matches REGEX
graded() { [ "$1" -eq "$2" ] && grep -qE -- "$3" <<<"$4"; }

check_grades() {
    local step=$1 stub_file=$2 ref_file=$3 stub ref rc level=${LEVEL:-write}
    stub=$(tools/grade.sh "$step" "$stub_file" 2>/dev/null)
    rc=$?
    check_that "the $level stubs score 0/100, exit 1 (got exit $rc: $stub)" graded "$rc" 1 \
        "^GRADE step=$step level=$level correctness=0/[1-9][0-9]* speed=NA score=0/100( \(.*\))?$" "$stub"
    ref=$(tools/grade.sh "$step" "$ref_file" 2>/dev/null)
    rc=$?
    check_that "the reference gets full marks at the $level level, exit 0 (got exit $rc: $ref)" graded "$rc" 0 \
        "^GRADE step=$step level=$level correctness=([0-9]+)/\1 speed=[0-9.]+ score=100/100$" "$ref"
    echo "  the $level stubs: $stub"
    echo "  the reference:  $ref"
}

expect_error() {
    local needle=$1; shift
    checks=$((checks + 1))
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne 2 ]; then
        fail "'$(head -c 200 <<<"$*")' exited $rc, not 2: $(head -c 300 "$tmp/err") $(head -c 200 "$tmp/out")"
        return
    fi
    if [ "$lines" -ne 1 ]; then fail "'$*' printed $lines lines on stderr:"; cat "$tmp/err"; return; fi
    grep -q -- "$needle" "$tmp/err" || fail "'$(head -c 200 <<<"$*")': stderr lacks '$needle': $(cat "$tmp/err")"
}

expect_accepted() {
    checks=$((checks + 1))
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    case $rc in
    0) ;;
    77) [ "$(grep -c '^SKIP: no CUDA device' "$tmp/out")" -eq 1 ] && [ ! -s "$tmp/err" ] ||
            fail "'$*' exited 77 without one SKIP line: $(cat "$tmp/out" "$tmp/err")" ;;
    *) fail "'$*' exited $rc: $(tail -n 2 "$tmp/err")" ;;
    esac
}

# Where there is a GPU, the run's RESULT line says how its sort_ms was taken: "span" (one
# event before the sort, one after, as CUB is timed) or "steps" (the sum of the steps,
# where the host works between them). Without a GPU the run skips (77) and so does the
# check, saying so.
expect_timing() {
    local want=$1
    shift
    checks=$((checks + 1))
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    case $rc in
    0) grep -qE "^RESULT .* timing=$want steps_ms=[0-9.]+ .*check=PASS" "$tmp/out" ||
           fail "'$*': no passing RESULT line with timing=$want: $(grep '^RESULT' "$tmp/out" | head -c 300)" ;;
    77) echo "skipped: the timing=$want check of '$*' (no CUDA device)" ;;
    *) fail "'$*' exited $rc: $(tail -n 2 "$tmp/err")" ;;
    esac
}

# The long-argument checks: an error line keeps its explanation, whatever the
# length of what it echoes (the echoed text is clipped, never the reason).
long_word=$(printf 'x%.0s' $(seq 3000))
long_dir="$tmp/$(printf 'd%.0s' $(seq 200))"

sort_bad_input() {
    expect_error "cannot open input file" --input "$tmp/missing.bin"
    expect_error "not a regular file" --input "$tmp"
    expect_error "not a regular file" --input /dev/null
    printf 'abcde' >"$tmp/five.bin"
    expect_error "not a multiple of 4" --input "$tmp/five.bin"
    expect_error "No such file or directory" --input "$long_dir/keys.bin"
    expect_error "cannot create output file" -n 10 --output /proc/x
    expect_error "it is a directory" -n 10 --output "$tmp"
    expect_error "cannot create output file" -n 10 --output "$tmp/no/such/dir/out.bin"
    expect_error "cannot create output file" -n 10 --output="$tmp/no/such/dir/out.bin"
    expect_error "whole number" -n abc
    expect_error "expected a whole number of keys" -n "$long_word"
    expect_error "unknown option" "--$long_word"
    expect_error "unknown option" --frobnicate
    expect_error "needs a value" -n
    expect_error "--runs" --runs 0
    expect_error "--runs" --runs=0
    expect_error "unknown distribution" --dist gaussian
    expect_error "takes no value" --no-cub=yes
    expect_error "takes no value" --thrust=yes
}

ranges_as_help() {
    local option range lo hi
    "$bin" --help >"$tmp/help" 2>&1
    for option in --bits --block --scan-block --kpt; do
        range=$(grep -E "^  $option " "$tmp/help" | grep -oE '[0-9]+\.\.[0-9]+(, powers of two)?' | head -n 1)
        [ -n "$range" ] || continue
        lo=${range%%..*}; hi=${range#*..}; hi=${hi%%,*}
        expect_error "$option $((lo - 1)): .* accepts $range (see --help)" "$@" "$option" $((lo - 1))
        expect_error "$option $((hi + 1)): .* accepts $range (see --help)" "$@" "$option" $((hi + 1))
        expect_error "$option 'x': .* accepts $range (see --help)" "$@" "$option" x
        case $range in *powers*) [ $((lo + 1)) -ge "$hi" ] ||
            expect_error "$option $((lo + 1)): .* accepts $range (see --help)" "$@" "$option" $((lo + 1)) ;; esac
    done
}

finish() {
    echo "$1: $checks checks, $failures failed"
    [ "$failures" -eq 0 ]
}
