#!/usr/bin/env bash
# test_cli_make.sh - what the make targets say, on any machine: `make diff` takes a stage's
# number for its last step (FROM) or first step (TO); `make diff06` takes 06.N as well as
# N; `make handout` and `make grade` answer a missing or wrong argument with one line and
# exit 2 before they look for a GPU; `cd <stage> && make` names every test of its stage;
# where there is no GPU, the targets that only measure a GPU say they skipped and succeed,
# and `make run` builds and runs the CPU build of stage 01 alone; `limits` refuses a
# --csv with no value, and leaves no empty CSV behind when it skips; `make plots` ends
# with one summary line.
set -u
cd "$(dirname "$0")/.."
source tests/cli_lib.sh # check_that, fail, finish, $tmp
find_chromium_for_test() { (. tools/slides-env.sh; find_chromium); }
missing_fonts_for_test() { (. tools/slides-env.sh; missing_fonts); }
bin=${BIN_DIR:-build/bin}
m() { make -s --no-print-directory "$@"; }
have_gpu=0
nvidia-smi -L >/dev/null 2>&1 && have_gpu=1

# make diff: a stage's number alone
first_lines() { m diff FROM="$1" TO="$2" 2>/dev/null | head -n 2 | paste -sd' ' -; }
check_that "make diff FROM=04 TO=05 is 04 -> 05.1 ($(first_lines 04 05))" \
    test "$(first_lines 04 05)" = "--- 04_paper_local_sort/radix_sort.cu +++ 05_warp_shuffle/step1_shuffle_scan.cu"
check_that "make diff FROM=4 TO=5: leading zeros optional" test "$(first_lines 4 5)" = "$(first_lines 04 05)"
check_that "make diff FROM=05 TO=07 is 05.4 -> 07.1 ($(first_lines 05 07))" \
    test "$(first_lines 05 07)" = "--- 05_warp_shuffle/step4_wide_digits.cu +++ 07_onesweep/step1_onesweep.cu"
check_that "make diff FROM=06 TO=06 is 06.14 -> 06.1" \
    test "$(first_lines 06 06)" = "--- 06_nn_histogram/v14_swapped_operands.cu +++ 06_nn_histogram/v1_report.cu"
tools/diff.sh 09 04 >/dev/null 2>"$tmp/err" # make adds a line of its own, "Error 1"
check_that "make diff FROM=09 fails with one line naming the steps ($(cat "$tmp/err"))" \
    bash -c "[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"no step '09' (make steps lists them: 01 02\" '$tmp/err'"
# a name that is no number at all gets the same one line (never a shell error)
for bad in abc x 1a 04x -1 .5 7.9.1; do
    tools/diff.sh "$bad" 04 >/dev/null 2>"$tmp/err"
    rc=$?
    check_that "make diff FROM=$bad: exit 2 and the one line an unknown step gets (exit $rc: $(head -c 120 "$tmp/err"))" \
        bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -qF \"no step '$bad' (make steps lists them: 01 02\" '$tmp/err'"
done
tools/diff.sh --nn06 x 3 >/dev/null 2>"$tmp/err"
check_that "make diff06 FROM=x: exit 2, one line ($(head -c 120 "$tmp/err"))" \
    bash -c "[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"no version 'x'\" '$tmp/err'"
diff06() { m diff06 FROM="$1" TO="$2" 2>/dev/null | head -n 2 | paste -sd' ' -; }
check_that "make diff06 FROM=06.3 TO=06.10 is versions 3 -> 10" \
    test "$(diff06 06.3 06.10)" = "--- 06_nn_histogram/v3_privatised.cu +++ 06_nn_histogram/v10_copies.cu"
check_that "make diff06 FROM=3 TO=10 the same" test "$(diff06 3 10)" = "$(diff06 06.3 06.10)"
m diff06 FROM=3 TO=15 >/dev/null 2>"$tmp/err"
check_that "make diff06 TO=15 names the versions ($(cat "$tmp/err"))" \
    grep -q "no version '15' (the versions: 1 2 3 4 5 6 7 8 9 10 11 12 13 14, or 06.N)" "$tmp/err"

# make handout at both levels into the default folders: one folder a level, so that one
# never overwrites the other
rm -rf build/handout/01 build/handout/01-guided
LEVEL=write tools/handout.sh 01 >/dev/null 2>&1 && LEVEL=guided tools/handout.sh 01 >/dev/null 2>&1
check_that "make handout STEP=01, then LEVEL=guided: build/handout/01 keeps the write level, 01-guided the guided" \
    bash -c "grep -q 'Level: \*\*write\*\*' build/handout/01/HANDOUT.md && grep -q 'Level: \*\*guided\*\*' build/handout/01-guided/HANDOUT.md"

# make handout, make grade: the usage before anything else
m handout >/dev/null 2>"$tmp/err"
check_that "make handout with no STEP prints the usage ($(cat "$tmp/err"))" grep -q '^usage: make handout STEP=ID' "$tmp/err"
mkdir "$tmp/empty"
tools/grade.sh 01 "$tmp/empty" >/dev/null 2>"$tmp/err"
rc=$?
check_that "make grade with an empty WORK folder: exit 2, 'the folder is empty' (exit $rc: $(cat "$tmp/err"))" \
    bash -c "[ $rc -eq 2 ] && grep -q 'the folder is empty' '$tmp/err'"
echo 'int x;' >"$tmp/mine.c"
tools/grade.sh 04 "$tmp/mine.c" >/dev/null 2>"$tmp/err"
rc=$?
check_that "make grade STEP=04 with a .c file: exit 2, the step's file named, before any GPU check (exit $rc: $(cat "$tmp/err"))" \
    bash -c "[ $rc -eq 2 ] && grep -q \"this step's file is 04_paper_local_sort/radix_sort.cu\" '$tmp/err'"
tools/grade.sh 07.3 "$tmp/mine.c" >/dev/null 2>"$tmp/err"
check_that "make grade STEP=07.3 with a .c file names step3_atomic_rank.cu ($(cat "$tmp/err"))" \
    grep -q "this step's file is 07_onesweep/step3_atomic_rank.cu" "$tmp/err"
# 05.1's holes are in a header (warp_scan.cuh): a .cuh of any name is graded as that header,
# a .c file is refused naming the step's file
tools/grade.sh 05.1 "$tmp/mine.c" >/dev/null 2>"$tmp/err"
check_that "make grade STEP=05.1 with a .c file names step1_shuffle_scan.cu ($(cat "$tmp/err"))" \
    grep -q "this step's file is 05_warp_shuffle/step1_shuffle_scan.cu" "$tmp/err"
if [ ! -x "$bin/05_warp_shuffle" ]; then
    echo "test_cli_make: this build has no 05_warp_shuffle (the CPU build): grading 05.1 under another header name is not checked"
elif [ "$have_gpu" = 0 ]; then
    echo '/* mine */' >"$tmp/warp_scan_mine.cuh"
    tools/grade.sh 05.1 "$tmp/warp_scan_mine.cuh" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check_that "make grade STEP=05.1 takes warp_scan_mine.cuh as the step's header: no refusal, skipped for want of a GPU (exit $rc: $(cat "$tmp/err" "$tmp/out"))" \
        bash -c "[ $rc -eq 77 ] && grep -q 'skipped: the step needs a CUDA GPU' '$tmp/out'"
else
    echo "test_cli_make: with a GPU here, grading 05.1 under another header name would run a whole grade: that check is skipped"
fi

# a stage's own make test runs every test named with its number
tests01=$(make -s --no-print-directory -C 01_sequential print-tests | sed 's|.*/||' | paste -sd' ' -)
check_that "cd 01_sequential && make test runs its program and its three scripts ($tests01)" \
    test "$tests01" = "test_01_sequential test_cli_01_sequential.sh test_grade_01.sh test_run_01_keys.sh"

# make tables on a tree whose tables are current rewrites no tracked file (not even with the
# same content: a new time is a change to make and to an editor)
stamp=$(date +%s)
sleep 1
m tables >"$tmp/out" 2>&1
touched=$(git ls-files -z | xargs -0 stat -c '%Y %n' 2>/dev/null | awk -v t="$stamp" '$1 > t { print $2 }' | head -n 3 | paste -sd' ' -)
check_that "make tables touches no tracked file where nothing changed (touched: $touched)" test -z "$touched"

# make test's runner: a failing test is quoted by what it said failed, not by the grader's
# CHECKFAIL lines at the end of its log; while a test runs, a line every TEST_HEARTBEAT s
printf '%s\n' 'echo "GROUP 0 fake"' 'echo "x.c:1: CHECK failed: out[0] <= out[1]: not sorted"' 'sleep 5' \
    'for i in $(seq 40); do echo "CHECKFAIL 0:1:$i"; done' 'exit 1' >"$tmp/test_fails.sh"
TEST_LOG_DIR=$tmp/logs TEST_HEARTBEAT=2 tools/run-tests.sh "$tmp/test_fails.sh" >"$tmp/out" 2>&1
check_that "make test quotes a failed test's own failure line ($(grep -m1 '^FAIL' "$tmp/out"))" \
    grep -q '^FAIL  test_fails.sh .*exit 1: x.c:1: CHECK failed: out\[0\] <= out\[1\]: not sorted$' "$tmp/out"
check_that "make test's account of a failure holds no CHECKFAIL line" bash -c "! grep -q CHECKFAIL '$tmp/out'"
check_that "make test says which tests are running while one runs long ($(grep -m1 running: "$tmp/out"))" \
    grep -qE '^ +running: test_fails.sh \([0-9]+ s\)$' "$tmp/out"

# without a GPU: the measuring targets skip and succeed; make run runs stage 01 alone
if [ "$have_gpu" = 0 ]; then
    for target in limits sanitize "profile STAGE=04" device-check; do
        started=$(date +%s%N)
        # shellcheck disable=SC2086
        m $target >"$tmp/out" 2>&1
        rc=$? ms=$(( ($(date +%s%N) - started) / 1000000 ))
        check_that "make $target without a GPU: one 'skipped' line, exit 0 (exit $rc: $(head -c 300 "$tmp/out"))" \
            bash -c "[ $rc -eq 0 ] && [ \$(wc -l <'$tmp/out') -eq 1 ] && grep -q skipped '$tmp/out'"
        # before anything is built: a build of every architecture takes minutes here
        check_that "make $target without a GPU refuses in under a second (${ms} ms)" test "$ms" -lt 1000
    done
    # each line as the program prints it: stage 01's first line comes seconds before its
    # RESULT line, not with it at the end
    m run RUN_ARGS="-n 4000000 --runs 5" 2>&1 | while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >"$tmp/out"
    gap=$(awk '/ 01_sequential - / { a = $1 } / RESULT stage=01_sequential / { b = $1 } END { printf "%.1f", b - a }' "$tmp/out")
    check_that "make run shows stage 01's lines as it prints them (its first line ${gap} s before its RESULT line)" \
        awk -v g="$gap" 'BEGIN { exit !(g >= 1) }'
    sed -i 's/^[0-9.]* //' "$tmp/out"
    m run RUN_ARGS="-n 100000 --runs 1" >"$tmp/out" 2>&1
    rc=$?
    check_that "make run without a GPU: stage 01 passes, exit 0 (exit $rc)" \
        bash -c "[ $rc -eq 0 ] && grep -q '^RESULT stage=01_sequential .* check=PASS' '$tmp/out'"
    check_that "make run without a GPU names the stages it did not run" \
        grep -q '^not run: 02_parallel_hist_scan .*07_onesweep 08_multi_gpu - they need a CUDA GPU' "$tmp/out"
    check_that "make run without a GPU runs the CPU build of stage 01" \
        grep -q 'the CPU build, into build/cpu/' "$tmp/out"
fi
if [ -x "$bin/limits" ]; then
    "$bin/limits" --csv >/dev/null 2>"$tmp/err"
    rc=$?
    check_that "limits --csv with no value: exit 2, 'needs a value' (exit $rc: $(cat "$tmp/err"))" \
        bash -c "[ $rc -eq 2 ] && grep -q -- '--csv needs a value' '$tmp/err'"
    if [ "$have_gpu" = 0 ]; then
        "$bin/limits" --csv "$tmp/new.csv" >/dev/null 2>&1
        rc=$?
        check_that "limits --csv FILE without a GPU: exit 77, and no FILE left behind (exit $rc)" \
            bash -c "[ $rc -eq 77 ] && [ ! -e '$tmp/new.csv' ]"
    fi
fi

# make plots: one summary line, not a line for each chart a folder has no CSV for
if command -v gnuplot >/dev/null 2>&1; then
    m plots >"$tmp/out" 2>&1
    rc=$?
    check_that "make plots: exit 0 and a summary line (exit $rc: $(tail -n 1 "$tmp/out"))" \
        bash -c "[ $rc -eq 0 ] && tail -n 1 '$tmp/out' | grep -qE '^plots: [0-9]+ charts drawn; [0-9]+ have no CSV in their folder'"
    check_that "make plots: no line for each chart not drawn" bash -c "! grep -q 'not drawn)' '$tmp/out'"
fi
# make slides without the decks' fonts (here hidden from fontconfig): the HTML, no PDF, and
# a line that says so; and a deck rendered leaves no Chromium profile (/tmp/marp-cli-*) behind
if [ -x slides/node_modules/.bin/marp ]; then
    printf '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>%s</dir></fontconfig>\n' \
        "$tmp/empty" >"$tmp/no-fonts.conf"
    rm -f build/slides/00_intro.html build/slides/00_intro.pdf
    FONTCONFIG_FILE=$tmp/no-fonts.conf tools/slides.sh slides/00_intro.md >"$tmp/out" 2>&1
    rc=$?
    check_that "make slides without the fonts: exit 0, the HTML made, no PDF (exit $rc: $(head -c 300 "$tmp/out"))" \
        bash -c "[ $rc -eq 0 ] && [ -s build/slides/00_intro.html ] && [ ! -e build/slides/00_intro.pdf ]"
    check_that "make slides without the fonts names them and the command that installs them" \
        grep -q "the decks' fonts are not installed here (Liberation Sans,Liberation Mono): the HTML only, no PDF - run tools/setup-slides.sh" "$tmp/out"
    if [ -n "$(find_chromium_for_test)" ] && [ -z "$(missing_fonts_for_test)" ]; then
        before=$(ls -d /tmp/marp-cli-* 2>/dev/null | wc -l)
        tools/slides.sh slides/00_intro.md >"$tmp/out" 2>&1
        after=$(ls -d /tmp/marp-cli-* 2>/dev/null | wc -l)
        check_that "make slides leaves no Chromium profile in /tmp ($before before, $after after: $(tail -n 1 "$tmp/out"))" \
            test "$after" -le "$before"
    fi
fi
# make test without a GPU builds what runs here: the CPU build (CUDA=0), unless CUDA is
# given; CI gives CUDA=1 (.ci/run)
if [ "$have_gpu" = 0 ] && command -v nvcc >/dev/null 2>&1 && [ -z "${CUDA:-}" ]; then
    MAKEFLAGS= MAKELEVEL= make -n --no-print-directory test >"$tmp/dry" 2>&1 # not the CI run's CUDA=1
    check_that "make test without a GPU builds the CPU build ($(grep -m1 '^\[build\]' "$tmp/dry"))" \
        grep -q '^\[build\] the CPU build, into build/cpu/: no GPU here' "$tmp/dry"
    check_that "CI's .ci/run asks for every GPU stage (make test CUDA=1)" grep -q '^make .*test CUDA=1$' .ci/run
fi

# make clean removes build/ alone; make distclean also slides/node_modules, the one folder
# outside build/ that a target's tools write (a dry run: nothing is removed here)
make -n --no-print-directory clean >"$tmp/clean" 2>&1
make -n --no-print-directory distclean >"$tmp/distclean" 2>&1
check_that "make clean removes build/ and nothing else ($(paste -sd';' "$tmp/clean"))" \
    test "$(grep -c '^rm ' "$tmp/clean")" -eq 1 -a "$(grep -c 'node_modules' "$tmp/clean")" -eq 0
check_that "make distclean removes build/ and slides/node_modules ($(paste -sd';' "$tmp/distclean"))" \
    bash -c "grep -qx 'rm -rf build' '$tmp/distclean' && grep -qx 'rm -rf slides/node_modules' '$tmp/distclean'"

# make run's table compares like with like: a stage that ran at another number of keys
# (08, at its default 2^28) gets its n beside its name and no "vs previous" or
# "cumulative" - stub programs stand in for the stages, so that this runs without a GPU
mkdir -p "$tmp/stub"
stub() { # NAME N MS
    printf '#!/bin/sh\necho "RESULT stage=%s step=%s n=%s sort_ms=%s min_ms=%s cub_ms=0.500 vs_cub=1 check=PASS gpu=\\"stub\\""\n' \
        "$1" "${1:0:2}" "$2" "$3" "$3" >"$tmp/stub/$1"
    chmod +x "$tmp/stub/$1"
}
stub 03_split_k1 16777217 6.000
stub 04_paper_local_sort 16777217 2.000
stub 08_multi_gpu 268435456 9.000
tools/run-stages.sh "$tmp/stub" 03_split_k1 04_paper_local_sort 08_multi_gpu >"$tmp/run" 2>&1
row04=$(grep '^04_paper_local_sort ' "$tmp/run") row08=$(grep '^08_multi_gpu ' "$tmp/run")
check_that "make run's table: 04 after 03 at the same n is 3.00x the row above ($row04)" \
    bash -c "awk '{ exit !(\$5 == \"3.00x\") }' <<<'$row04'"
check_that "make run's table: 08 at 2^28 keys is marked with its n and not compared with the rows above ($row08)" \
    bash -c "awk '{ exit !(\$2 == \"(n=268435456)\" && \$6 == \"-\" && \$7 == \"-\" && \$8 == \"18.00x\") }' <<<'$row08'"
check_that "make run's table says what a row marked (n=...) is" grep -q 'A row marked (n=...) sorted another number of keys' "$tmp/run"

finish test_cli_make
