#!/usr/bin/env bash
# test_grade_01.sh - the lab kit on stage 01, on any machine (stage 01 is the CPU sort):
# the handout builds and its tests fail while the holes are stubs; the grader gives the
# stubbed file less than full marks (exit 1), a correct but slower file its correctness
# without the speed points, and the reference file full marks (exit 0).  A grader that
# passed everything, or failed everything, fails here.
set -u
cd "$(dirname "$0")/.."
source tests/cli_lib.sh # check_that, check_grades, finish, and $tmp (removed at the end)
export GRADE_N=1048577 # a smaller input than the step's default: the speed part stays quick

tools/handout.sh 01 "$tmp/h" >"$tmp/handout.log" 2>&1
check_that "make handout STEP=01 works: $(tail -n 1 "$tmp/handout.log")" test -f "$tmp/h.tar.gz"
check_that "the handout holds no answers" test ! -e "$tmp/h/01_sequential/ANSWERS.md"
check_that "the handout's file has TODO holes" grep -q 'TODO(lab scatter)' "$tmp/h/01_sequential/radix_sort.c"
check_that "the handout's file has none of the reference's holes" \
    bash -c "! grep -q 'LAB BEGIN' '$tmp/h/01_sequential/radix_sort.c'"
# a student's laptop has no CUDA: the handout of a CPU step builds and tests with gcc and
# make alone, nvcc hidden from the PATH (its CPU build, into build/cpu/)
no_nvcc_path=$(tr ':' '\n' <<<"$PATH" | while read -r d; do [ -x "$d/nvcc" ] || echo "$d"; done | paste -sd: -)
(cd "$tmp/h" && PATH=$no_nvcc_path NVCC=$tmp/no/nvcc make -s all) >"$tmp/build.log" 2>&1
check_that "the handout builds on its own without nvcc: $(tail -n 2 "$tmp/build.log" | tr '\n' ' ')" \
    test -x "$tmp/h/build/cpu/tests/test_01_sequential"
(cd "$tmp/h" && PATH=$no_nvcc_path NVCC=$tmp/no/nvcc make -s test) >"$tmp/htest.log" 2>&1
check_that "the handout's tests fail while the holes are stubs" test $? -ne 0

check_grades 01 "$tmp/h/01_sequential/radix_sort.c" 01_sequential/radix_sort.c
# a correct file, slower than the course's (its histogram counted eight times over): every
# check passes, the speed does not
awk '/LAB END histogram/ { print "    }" } { print } /LAB BEGIN histogram/ {
    print "    for (int again = 0; again < 8; again++) {" }' 01_sequential/radix_sort.c >"$tmp/radix_sort.c"
slow=$(tools/grade.sh 01 "$tmp/radix_sort.c" 2>/dev/null)
check_that "a correct but slower file passes every check and loses speed points ($slow)" \
    bash -c "grep -qE '^GRADE step=01 correctness=([0-9]+)/\\1 speed=([2-9]|1\.[5-9])[0-9.]* score=[0-9]{1,2}/100$' <<<'$slow'"
echo "  a slower file: $slow"
tools/grade.sh 01 "$tmp/none.c" >/dev/null 2>&1
check_that "a missing file is a usage error (exit 2)" test $? -eq 2
echo 'this is not C' >"$tmp/broken.c"
broken=$(tools/grade.sh 01 "$tmp/broken.c" 2>/dev/null)
check_that "a file that does not build scores 0 ($broken)" grep -q 'score=0/100 (build failed)' <<<"$broken"
finish test_grade_01
