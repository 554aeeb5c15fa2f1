#!/usr/bin/env bash
# test_grade_01.sh - the lab kit on stage 01, on any machine (stage 01 is the CPU sort), at
# both levels of its handout: the handout builds and tests with gcc and make alone (nvcc
# hidden) and its tests fail while the holes are stubs; the grader gives the stubbed file 0
# (exit 1), the course's file 100/100 (exit 0), a file with one hole of two done a share in
# between, a correct but slower file its correctness without the speed points, a file that
# spins "timed out", a file that crashes "crashed" and a file that does not build 0; and a
# class of six graded into a CSV
# (make grade-class).  A grader that passed everything, or failed everything, fails here.
set -u
cd "$(dirname "$0")/.."
source tests/cli_lib.sh # check_that, check_grades, finish, and $tmp (removed at the end)
export GRADE_N=1048577 # a smaller input than the step's default: the speed part stays quick
export GRADE_SMALL=1   # and the test program's short run: the grader's logic is the same
# the course's file raced against itself must score full marks on a 2-core machine that
# runs other tests at the same time (make test, CI).  The race times a CPU step by its
# thread's CPU time and takes each file's fastest run; beside one rebuild of the course it
# raced itself within 0.98-1.03 (results/cpu-amd-epyc-2cpus/race_spread.log), but inside
# loaded CI runs the grader's speed for it reached 1.28, over the grader's band of 1.25
# (ci_loaded_runs.log).  So this test grades with a band of 2, 1.5 times the worst seen.  The
# slower file counts its histogram 64 times over: quiet, it races at about 20x on uniform keys;
# counted 16 times over it raced at 6-8x quiet but at 3.7x in a loaded CI run, under the 4 at
# which speed earns nothing, and scored 48 where 40 was due
export GRADE_BAND=2
ref=01_sequential/radix_sort.c

for level in write guided; do
    h=$tmp/h-$level
    LEVEL=$level tools/handout.sh 01 "$h" >"$tmp/handout.log" 2>&1
    check_that "make handout STEP=01 LEVEL=$level works: $(tail -n 1 "$tmp/handout.log")" test -f "$h.tar.gz"
    check_that "the $level handout has TODO holes" grep -q 'TODO(lab ' "$h/$ref"
    check_that "the $level handout holds no hole of its level" bash -c "! grep -qE '(LAB|WRITE) (BEGIN|END)' '$h/$ref'"
    check_that "the $level handout holds no answers" test ! -e "$h/01_sequential/ANSWERS.md"
    export LEVEL=$level
    check_grades 01 "$h/$ref" "$ref"
    unset LEVEL
done

# a student's laptop has no CUDA: the handout of a CPU step builds and tests with gcc and
# make alone, nvcc hidden from the PATH (its CPU build, into build/cpu/)
h=$tmp/h-write
no_nvcc_path=$(tr ':' '\n' <<<"$PATH" | while read -r d; do [ -x "$d/nvcc" ] || echo "$d"; done | paste -sd: -)
(cd "$h" && env -u CUDA -u MAKEFLAGS -u MAKELEVEL PATH="$no_nvcc_path" NVCC="$tmp/no/nvcc" make -s all) >"$tmp/build.log" 2>&1
check_that "the handout builds on its own without nvcc: $(tail -n 2 "$tmp/build.log" | tr '\n' ' ')" \
    test -x "$h/build/cpu/tests/test_01_sequential"
(cd "$h" && env -u CUDA -u MAKEFLAGS -u MAKELEVEL PATH="$no_nvcc_path" NVCC="$tmp/no/nvcc" make -s test) >"$tmp/htest.log" 2>&1
check_that "the handout's tests fail while the holes are stubs" test $? -ne 0
# where nvcc is installed (a lab machine, a laptop with the toolkit), the handout of the CPU
# step still builds with gcc alone: nvcc would build the CUB baseline for five architectures
if command -v nvcc >/dev/null 2>&1; then
    (cd "$h" && env -u CUDA -u MAKEFLAGS -u MAKELEVEL make -n all) >"$tmp/dry.log" 2>&1
    check_that "the handout of 01 runs no nvcc where nvcc is installed ($(grep -c 'nvcc' "$tmp/dry.log") lines name it: $(grep -m1 '^\[build\]' "$tmp/dry.log"))" \
        bash -c "! grep -q 'nvcc .*-c\|^[^[]*nvcc ' '$tmp/dry.log' && grep -q 'the CPU build, into build/cpu/: a handout of the CPU stage' '$tmp/dry.log'"
fi
# and it is a working repository: make steps and make diff run in it
(cd "$h" && make -s steps) >"$tmp/steps.log" 2>&1
check_that "make steps works in the handout: $(head -c 200 "$tmp/steps.log")" grep -q '^01 ' "$tmp/steps.log"
(cd "$h" && make -s diff FROM=01 TO=01) >"$tmp/diff.log" 2>&1
check_that "make diff works in the handout: $(head -c 200 "$tmp/diff.log")" test $? -eq 0

# one hole of the two done: a share of the correctness, no speed points
awk -v only=blocked_pass -f tools/lab-stub.awk "$ref" >"$tmp/radix_sort.c"
half=$(tools/grade.sh 01 "$tmp/radix_sort.c" 2>/dev/null)
rc=$?
check_that "a file with one of its two holes done scores a share of 70 and no speed ($half)" graded "$rc" 1 \
    "^GRADE step=01 level=write correctness=[1-9][0-9]*/[0-9]+ speed=NA score=[1-6]?[0-9]/100 \(first failing case: group [0-9]+ .mode=blocked" "$half"
echo "  one hole done: $half"
# a correct file, slower than the course's (its histogram counted 64 times over): every
# check passes, the speed does not
slower() {
    awk '/LAB END histogram/ { print "    }" } { print } /LAB BEGIN histogram/ {
        print "    for (int again = 0; again < 64; again++) {" }' "$ref"
}
slower >"$tmp/radix_sort.c"
slow=$(tools/grade.sh 01 "$tmp/radix_sort.c" 2>/dev/null)
rc=$?
check_that "a correct but slower file passes every check and loses speed points ($slow)" graded "$rc" 1 \
    '^GRADE step=01 level=write correctness=([0-9]+)/\1 speed=([2-9]|1\.[5-9]|[1-9][0-9])[0-9.]* score=[0-9]{1,2}/100$' "$slow"
echo "  a slower file: $slow"
# where the step's lesson is speed (a line of races.txt: its band and the ratio that earns
# nothing), the same file scores 40: 40 points for correctness, none of speed's 60 - and the
# course's own file still 100
# (the band this test races with, 2, as the race's own: GRADE_BAND would stand for it)
printf '01\tuniform\t2\t4\tthe grader'"'"'s test: a lesson of speed\n' >"$tmp/races.txt"
lesson=$(env -u GRADE_BAND GRADE_RACES=$tmp/races.txt tools/grade.sh 01 "$tmp/radix_sort.c" 2>/dev/null)
rc=$?
check_that "with a race of its own (races.txt), the slower file scores 40 ($lesson)" graded "$rc" 1 \
    '^GRADE step=01 level=write correctness=([0-9]+)/\1 speed=([2-9]|1\.[5-9]|[1-9][0-9])[0-9.]* score=40/100$' "$lesson"
own=$(env -u GRADE_BAND GRADE_RACES=$tmp/races.txt tools/grade.sh 01 "$ref" 2>/dev/null)
rc=$?
check_that "... and the course's file 100 ($own)" graded "$rc" 0 \
    '^GRADE step=01 level=write correctness=([0-9]+)/\1 speed=[0-9.]+ score=100/100$' "$own"
printf '01\tuniform\t1.25\t1.1\tbad\n' >"$tmp/races.txt"
env -u GRADE_BAND GRADE_RACES=$tmp/races.txt tools/grade.sh 01 "$ref" >/dev/null 2>"$tmp/err"
rc=$?
check_that "a race whose zero is not above its band is refused, exit 2 ($(cat "$tmp/err"))" \
    bash -c "[ $rc -eq 2 ] && grep -q 'must be above the band' '$tmp/err'"
# a scan that never ends: the first group that sorts times out, and the next; after two in
# a row the rest are given up (GRADE_STRIKES), and the grade names the first
awk '{ print } /LAB BEGIN scan/ { print "    for (volatile int spin = 1; spin;) {}" }' "$ref" >"$tmp/radix_sort.c"
spin=$(GRADE_GROUP_TIMEOUT=2 GRADE_STRIKES=2 tools/grade.sh 01 "$tmp/radix_sort.c" 2>/dev/null)
rc=$?
check_that "a file that spins is graded 'timed out' ($spin)" graded "$rc" 1 \
    '^GRADE step=01 level=write correctness=[0-9]+/[0-9]+ speed=NA score=[1-6]?[0-9]/100 \(first failing case: group [0-9]+ .*timed out after 2 s' "$spin"
echo "  a file that spins: $spin"
# a scatter that writes through a null pointer: the grade says it crashed, and the screen
# holds the grader's lines, not a line of the shell's a crash
awk '{ print } /LAB BEGIN scatter/ { print "    if (n > 1000) *(volatile uint32_t *)0 = 1;" }' "$ref" >"$tmp/radix_sort.c"
crash=$(GRADE_STRIKES=2 tools/grade.sh 01 "$tmp/radix_sort.c" 2>"$tmp/crash.err")
rc=$?
check_that "a file that crashes is graded 'crashed' ($crash)" graded "$rc" 1 \
    '^GRADE step=01 level=write correctness=[0-9]+/[0-9]+ speed=NA score=[0-9]+/100 \(crashed in [1-9][0-9]* of [0-9]+ groups; first failing case: group [0-9]+ .*crashed \(SIGSEGV, exit 139\)\)$' "$crash"
check_that "a crash puts no line of the shell's on the screen ($(grep -m1 -i 'fault\|line [0-9]' "$tmp/crash.err"))" \
    bash -c "! grep -qi 'segmentation fault\|grade-run.sh: line' '$tmp/crash.err'"
echo "  a file that crashes: $crash"
tools/grade.sh 01 "$tmp/none.c" >/dev/null 2>&1
check_that "a missing file is a usage error (exit 2)" test $? -eq 2
: >"$tmp/empty.c"
tools/grade.sh 01 "$tmp/empty.c" >/dev/null 2>"$tmp/empty.err"
rc=$?
check_that "an empty file is a usage error, exit 2 and one line (exit $rc: $(cat "$tmp/empty.err"))" \
    bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$tmp/empty.err') -eq 1 ] && grep -q 'the file is empty' '$tmp/empty.err'"
LEVEL=hard tools/grade.sh 01 "$ref" >/dev/null 2>&1
check_that "an unknown level is a usage error (exit 2)" test $? -eq 2
echo 'this is not C' >"$tmp/broken.c"
broken=$(tools/grade.sh 01 "$tmp/broken.c" 2>/dev/null)
check_that "a file that does not build scores 0 ($broken)" grep -q 'score=0/100 (build failed)' <<<"$broken"

# a class: one entry a student - the stubs, the course's file, the slower file, a folder
# holding the course's file, a file of another kind - graded one after the other into a CSV
class=$tmp/class
mkdir -p "$class/dana"
cp "$h/$ref" "$class/alice.c"
cp "$ref" "$class/bob.c"
slower >"$class/carol.c"
cp "$ref" "$class/dana/radix_sort.c"
echo 'not C' >"$class/erin.txt"
echo 'this is not C' >"$class/fay.c"
tools/grade-class.sh 01 "$class" "$tmp/class.csv" >"$tmp/class.out" 2>&1
rc=$?
sed 's/^/  class: /' "$tmp/class.out"
check_that "make grade-class: exit 1 where one student's work could not be graded (got $rc)" test "$rc" -eq 1
check_that "make grade-class: a line a student, and the summary" \
    test "$(grep -cE '^(alice|bob|carol|dana|erin|fay) ' "$tmp/class.out")" -eq 6
score_of() { awk -F, -v who="\"$1\"" '$1 == who { print $6 "," $7 }' "$tmp/class.csv"; }
check_that "the class CSV: the stubs 0 ($(score_of alice))" test "$(score_of alice)" = "0,graded"
check_that "the class CSV: the course's file 100 ($(score_of bob))" test "$(score_of bob)" = "100,graded"
check_that "the class CSV: the slower file 70 ($(score_of carol))" test "$(score_of carol)" = "70,graded"
check_that "the class CSV: a folder of files 100 ($(score_of dana))" test "$(score_of dana)" = "100,graded"
check_that "the class CSV: a file that does not build 0, its note says so ($(grep '^"fay' "$tmp/class.csv"))" \
    grep -q '^"fay",01,write,0/0,NA,0,graded,"build failed"$' "$tmp/class.csv"
check_that "the class CSV: a file of the wrong kind is not graded, and says why ($(grep '^"erin' "$tmp/class.csv"))" \
    grep -q '^"erin",01,write,,,,"make grade: WORK=.*erin.txt: this step.s file is' "$tmp/class.csv"
tools/grade-class.sh 01 "$tmp/no-class" >/dev/null 2>&1
check_that "make grade-class: a missing folder is a usage error (exit 2)" test $? -eq 2
tools/grade-class.sh 99 "$class" >/dev/null 2>&1
check_that "make grade-class: an unknown step is a usage error (exit 2)" test $? -eq 2
# a GPU that cannot run a step's holes: 06.8-06.14's are in the tensor-core pass (compute
# capability 7.5 on); on a V100 the grader says so in one line and builds nothing (exit 77)
out=$(GRADE_COMPUTE_CAP=7.0 tools/grade.sh 06.8 06_nn_histogram/v8_tensor_cores.cu 2>&1)
rc=$?
lines=$(printf '%s\n' "$out" | wc -l)
check_that "06.8 on compute capability 7.0: exit 77 ($rc) and one line ($lines): $out" \
    test "$rc" -eq 77 -a "$lines" -eq 1
check_that "06.8 on compute capability 7.0: the line says why: $out" grep -q 'needs compute capability 7.5' <<<"$out"
out=$(GRADE_COMPUTE_CAP=7.0 tools/grade.sh 06.14 06_nn_histogram/v14_swapped_operands.cu 2>&1)
check_that "06.14 on compute capability 7.0: exit 77 and the line: $out" grep -q 'needs compute capability 7.5' <<<"$out"
finish test_grade_01
