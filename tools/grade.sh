#!/usr/bin/env bash
# grade.sh STEP WORK - `make grade STEP=01 WORK=path/to/radix_sort.c [LEVEL=write|guided]`:
# grades a student's work on one step, at the level of the handout the student got (LEVEL,
# default write: tools/handout.sh).  WORK is a file - it replaces the file of its name among
# the step's files (its stage folder, or a header of common/ with the step's holes), or the
# step's file if there is none of its name (a header of another name, .cuh or .h: the
# step's header of that kind, where its holes are in a header, as 05.1's in warp_scan.cuh)
# - or a folder of the files the student changed.
#
# Correctness counts only what the holes affect.  The step's test program (for step K of a
# stage of several steps, test_<stage>_K) runs three times, in a grading tree of the handout
# (build/grade/<step>-<level>/, built once, then rebuilt only where a file changed): with the
# handout's stubbed files, with the course's files and with the student's, each run by
# tools/grade-run.sh, group by group, so that a crash or a hang loses its group and no more.
# The checks the stubbed files fail are the holes' checks (all the checks of a group the stubs
# crash in); the student earns those of them that pass, less any other check the work breaks
# (a group the work crashes or hangs in earns nothing).  So a file with its holes still empty
# scores 0, and partial work earns partial credit.  The stubs' and the course's runs are kept with the tree.
#
# Speed: the student's file and the course's, built into one program (`make race`:
# common/race.c, stage 06's race.c), sort the same keys at the step's defaults in turn, in the
# same process: 15 runs each, in turn, the ratio of their fastest student / course - a ratio, so that
# the band holds on any GPU or CPU.  Two races, on GRADE_N uniform keys and on GRADE_N `and4`
# keys (a bit set one time in 16: crowded digits, contended counters, passes to skip), and the
# slower ratio counts; stage 06 races on its problem.  No ratio where the outputs differ.
#
# Score out of 100: 70 for correctness (in proportion), 30 for speed - all of it within the
# band (GRADE_BAND, default 1.25) times the course's time, none at twice the band or slower,
# in proportion between, and none unless every hole's check passed and no other broke.  A step
# whose lesson is speed (a correct file without it passes every check) names its race in
# races.txt: the keys, its band, and the ratio from which it earns nothing, below what a file
# without the lesson measured; such a step gives 40 for correctness and 60 for speed, so that
# a correct file without its lesson scores 40 (07.6's crowding sum shows on and4 keys).  The
# last line:
#   GRADE step=07.3 level=write correctness=344/344 speed=1.01 score=100/100
# and where a case failed, the first one: "(first failing case: group 12 'bits=8 ...': ...)".
# Exit 0 for full marks, 1 otherwise (a failed build scores 0, and the line says why), 2 for
# bad arguments (checked before the GPU), 77 where the step needs a GPU and there is none (a
# step of stage 08: 2 GPUs, which its test program and its race, 08_multi_gpu/race.c, use;
# its one test program runs every step the handout has, so only the step's own fail with
# its stubs), or where this GPU cannot run the step's holes (06.8-06.14 below 7.5; a step
# that needs Hopper, steps.txt, below 9.0).
#   GRADE_N (keys, default 16777217; stage 06: GRADE_Q queries, default 1000, of its
#   1,000,000 references), GRADE_DISTS (the races' key distributions, default "uniform and4",
#   or the step's in races.txt), GRADE_BAND (given, every step's band, races.txt's too: none at
#   twice it, 30 points for speed), GRADE_TIMEOUT (seconds one run of a program may
#   take, default 300, as make test's), GRADE_GROUP_TIMEOUT (seconds one group of checks may
#   take, default 60: a look-back that spins), GRADE_STRIKES (groups lost in a row before the
#   rest are given up, default 3), GRADE_SMALL (1: the test programs' short run, --small, for
#   the grader's own tests; the stubs' and the course's runs are kept apart for it)
set -u
cd "$(dirname "$0")/.."
# its builds choose their own -j: the jobserver of a make that called it is not theirs
# (the variables given on that make's command line still apply)
MAKEFLAGS=$(sed -E 's/ ?--jobserver-(auth|fds)=[^ ]*//g' <<<"${MAKEFLAGS:-}")
root=$PWD
. tools/steps-lib.sh
usage="usage: make grade STEP=ID WORK=FILE|FOLDER [LEVEL=write|guided] (for example STEP=01 WORK=mine/radix_sort.c)"
[ $# -eq 2 ] && [ -n "$1" ] && [ -n "$2" ] || { echo "$usage" >&2; exit 2; }
id=$(step_id "$1") && file=$(step_field "$id" 2) && [ -n "$file" ] ||
    { echo "make grade: no step '$1' (make steps lists them)" >&2; exit 2; }
level=${LEVEL:-write}
case $level in write | guided) ;; *)
    echo "make grade: LEVEL=$level: the level of the handout, write (the default) or guided" >&2; exit 2 ;;
esac
[ -r "$2" ] && { [ -f "$2" ] || [ -d "$2" ]; } ||
    { echo "make grade: WORK=$2: no such readable file or folder" >&2; exit 2; }
[ -d "$2" ] || [ -s "$2" ] ||
    { echo "make grade: WORK=$2: the file is empty (hand in the step's file with your work in it)" >&2; exit 2; }
work=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
stage=${file%%/*}
step_args="" test_program=tests/test_$stage
case $file in
*/step[0-9]*_*.cu)
    k=$(file_step_number "$file")
    step_args="--step $k" test_program=tests/test_${stage}_$k ;;
*/v[0-9]*_*.cu)
    step_args="--version $(file_step_number "$file")" test_program=tests/test_06_nn_histogram ;;
*/step[0-9]*_*.c) # stage 08: one test program runs every step the tree has
    step_args="--step $(file_step_number "$file")" ;;
esac
# the files a student may hand in: the stage's, and the headers of common/ (02's gpu_scan.cuh)
own_file() { # NAME: the path of the file of that name, or nothing
    if [ -f "$stage/$1" ]; then echo "$stage/$1"; elif [ -f "common/$1" ] && [[ $1 == *.cuh ]]; then echo "common/$1"; fi
}
if [ -d "$work" ]; then
    [ -n "$(ls -A "$work")" ] ||
        { echo "make grade: WORK=$2: the folder is empty (put the files you changed in it)" >&2; exit 2; }
    for f in "$work"/*; do
        [ -n "$(own_file "${f##*/}")" ] ||
            { echo "make grade: WORK=$2: ${f##*/} is no file of $stage" >&2; exit 2; }
    done
fi
# A header's holes are this step's where its handout holds them (the rule of
# tools/handout.sh, steps-lib.sh): 05.1's are in warp_scan.cuh.  A single file of another
# name is graded as the step's file, or, where its kind is a header's (.cuh, .h), as the
# step's header of that kind.
step_header() { # EXT: the header of that kind holding this step's holes, or nothing
    local h
    for h in "$stage"/*."$1" common/*."$1"; do
        [ -f "$h" ] && grep -qE '/\* (WRITE|LAB) BEGIN ' "$h" || continue
        case $h in
        common/*) [ "$(first_course_step_using "$h")" = "$file" ] ;;
        *) [ "$(first_stage_step_using "$h")" = "$file" ] ;;
        esac && { echo "$h"; return; }
    done
}
target=$file
if [ ! -d "$work" ] && [ -z "$(own_file "${work##*/}")" ]; then
    case ${work##*.} in
    "${file##*.}") ;;
    cuh | h) target=$(step_header "${work##*.}") ;;
    *) target="" ;;
    esac
    [ -n "$target" ] || {
        echo "make grade: WORK=$2: this step's file is $file (a .${file##*.} file)" >&2
        exit 2
    }
fi
# the race's keys, band and zero (the ratio that earns nothing) and the points for speed: the
# step's own (races.txt, GRADE_RACES for the grader's tests), else the defaults
race_line=$(grep -v '^#' "${GRADE_RACES:-races.txt}" 2>/dev/null | awk -F'\t' -v id="$id" '($1 "") == (id "")') # as strings: 07.2 is not 07.20
band=${GRADE_BAND:-$(cut -f3 <<<"$race_line")}
band=${band:-1.25}
zero=$(cut -f4 <<<"$race_line")
speed_max=60
[ -n "$zero" ] && [ -z "${GRADE_BAND:-}" ] || { zero=$(awk -v b="$band" 'BEGIN { print 2 * b }'); speed_max=30; }
dists=${GRADE_DISTS:-$(cut -f2 <<<"$race_line")}
dists=${dists:-uniform and4}
awk -v b="$band" 'BEGIN { exit !(b >= 1) }' ||
    { echo "make grade: GRADE_BAND=$band: a ratio of at least 1 (1.25: within 25% of the reference)" >&2; exit 2; }
awk -v b="$band" -v z="$zero" 'BEGIN { exit !(z > b) }' ||
    { echo "make grade: races.txt, step $id: the ratio that earns nothing ($zero) must be above the band ($band)" >&2; exit 2; }

grade() { # CHECKS SPEED SCORE [WHY]
    echo "GRADE step=$id level=$level correctness=$1 speed=$2 score=$3/100${4:+ ($4)}"
    [ "$3" = 100 ]
    exit $?
}

# gpu_below MIN: true where this GPU's compute capability is known and below MIN (it is left
# in $cap; GRADE_COMPUTE_CAP stands for the GPU's, for the grader's own tests)
gpu_below() {
    cap=${GRADE_COMPUTE_CAP:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1)}
    [ -n "$cap" ] && awk -v c="$cap" -v min="$1" 'BEGIN { exit !(c + 0 < min + 0) }'
}

# Steps 06.8-06.14 have their holes in the integer tensor-core pass (mma.sync on 8-bit
# integers, from compute capability 7.5: a T4 multiplies in four m8n8k16 a tile); on an
# older GPU (a V100, 7.0) the step runs version 7's __dp4a pass instead, and no test would
# run the student's code: said in one line, before anything is built.
case $id in
06.8 | 06.9 | 06.1[0-4])
    if gpu_below 7.5; then
        echo "GRADE step=$id level=$level skipped: its holes are in the tensor-core pass, which needs compute capability 7.5 or later; this GPU's is $cap, where the step runs version 7's __dp4a pass and no test would run your code (grade it on a T4, an RTX 20 or a later GPU)"
        exit 77
    fi ;;
esac

# A step whose lesson runs on Hopper alone (steps.txt: needs hopper - 07.16's wide tiles of
# pairs want the shared memory of two such blocks a multiprocessor) runs the step before's
# code on any other GPU, and no test would run the student's: said in one line, exit 77.
if [ "$(step_field "$id" 5)" = hopper ]; then
    if gpu_below 9.0; then
        echo "GRADE step=$id level=$level skipped: its lesson runs on Hopper (compute capability 9.0) alone; this GPU's is $cap, where the step sorts pairs as the step before does and no test would run your code (grade it on an H100 or H200)"
        exit 77
    fi
fi

# A step with no CUDA file (stage 01) runs nothing on a GPU: it is built and graded by the
# CPU build (gcc alone, into build/cpu/), which is quicker and needs no CUDA.
build=build cuda_args=()
ls "$stage"/*.cu >/dev/null 2>&1 || { build=build/cpu cuda_args=(CUDA=0); }
# the course's own program of the step: where to learn, before building anything, whether
# the step needs a GPU that is not here
reference=$build/bin/$stage
make -s --no-print-directory "${cuda_args[@]}" "$reference" >/dev/null 2>&1 ||
    { echo "make grade: the course's own build of $stage failed (run make)" >&2; exit 2; }
if [ "$stage" = 06_nn_histogram ]; then
    races="-q ${GRADE_Q:-1000}" probe_args="-q 8 -r 1000 --no-cublas"
elif [ "$stage" = 08_multi_gpu ]; then # its lesson needs two GPUs
    races=$(for d in $dists; do echo "-n ${GRADE_N:-16777217} --dist $d"; done)
    probe_args="-n 1000 --no-cub --gpus 1"
else
    races=$(for d in $dists; do echo "-n ${GRADE_N:-16777217} --dist $d"; done)
    probe_args="-n 1000 --no-cub"
fi
"$reference" $step_args $probe_args --runs 1 >/dev/null 2>&1
if [ $? -eq 77 ]; then
    echo "GRADE step=$id level=$level skipped: the step needs a CUDA GPU and there is none here"
    exit 77
fi
if [ "$stage" = 08_multi_gpu ] && [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt 2 ]; then
    echo "GRADE step=$id level=$level skipped: the step needs 2 GPUs, and there are fewer here"
    exit 77
fi

# ---- the grading tree: the handout, its stubs' and the course's runs -----------------------
tree=build/grade/$id-$level$([ "${GRADE_SMALL:-0}" = 1 ] && echo -small)
mkdir -p build/grade
exec 9>"$tree.lock"
flock 9 # one grading of a step and level at a time
# the tree is made again when the course's files it comes from change
stamp=$(cat tools/handout.sh tools/lab-stub.awk tools/grade-run.sh tools/grade.sh Makefile "$stage"/* common/* tests/* \
        2>/dev/null | md5sum | cut -d' ' -f1)
if [ "$(cat "$tree/.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$tree" "$tree.stubs"
    LEVEL=$level tools/handout.sh "$id" "$tree" >/dev/null || exit 2
    rm -f "$tree.tar.gz"
    # the stubbed files, kept to put back before each student's work
    stubbed=$(cd "$tree" && grep -rl --include='*.c' --include='*.cu' --include='*.cuh' --include='*.h' \
              'TODO(lab ' -- "$stage" common | sort)
    mkdir -p "$tree.stubs"
    for f in $stubbed; do mkdir -p "$tree.stubs/$(dirname "$f")"; cp "$tree/$f" "$tree.stubs/$f"; done
fi
stubbed=$(cd "$tree.stubs" && find . -type f | sed 's|^\./||' | sort)
# run_as NAME FILES...: the tree with the stubs, then FILES (paths of the tree: course or
# student copies already in place) built, and the test program run group by group into
# $tree.NAME.result; 0, or 1 with the build's first error in $tree.NAME.error
run_as() {
    local name=$1
    # the test program alone (its objects and the harness): a grade builds no more
    if ! (cd "$tree" && make -j"$(nproc)" "${cuda_args[@]}" "$build/$test_program") >"$tree.$name.build" 2>&1; then
        grep -m1 -E 'error' "$tree.$name.build" | sed "s|$root/$tree/||g" >"$tree.$name.error"
        return 1
    fi
    (cd "$tree" && GRADE_TIMEOUT=${GRADE_TIMEOUT:-300} "$root/tools/grade-run.sh" "$build/$test_program" \
        "$root/$tree.$name.result")
}
put_stubs() { for f in $stubbed; do cp "$tree.stubs/$f" "$tree/$f"; done; }
if [ ! -s "$tree.stub.result" ] || [ ! -s "$tree.course.result" ] || [ "$(cat "$tree/.stamp" 2>/dev/null)" != "$stamp" ]; then
    put_stubs
    run_as stub || { echo "make grade: the handout of step $id does not build: $(cat "$tree.stub.error")" >&2; exit 2; }
    for f in $stubbed; do cp "$f" "$tree/$f"; done
    run_as course || { echo "make grade: the course's files of step $id do not build in its handout" >&2; exit 2; }
    echo "$stamp" >"$tree/.stamp"
fi

# ---- the student's work ----------------------------------------------------------------------
put_stubs
if [ -d "$work" ]; then
    for f in "$work"/*; do cp "$f" "$tree/$(own_file "${f##*/}")"; done
elif [ -n "$(own_file "${work##*/}")" ]; then
    cp "$work" "$tree/$(own_file "${work##*/}")"
else
    cp "$work" "$tree/$target"
fi
# a tree whose stubbed files are all the stubs or all the course's, byte for byte (what was
# handed in and what was not), has their run already
same_as() { local f; for f in $stubbed; do cmp -s "$tree/$f" "$1/$f" || return 1; done; }
if same_as "$tree.stubs"; then
    cp "$tree.stub.result" "$tree.work.result"
elif same_as .; then
    cp "$tree.course.result" "$tree.work.result"
elif ! run_as work; then
    echo "make grade: the student's work does not build; the build's first error:" >&2
    echo "  $(cat "$tree.work.error")" >&2
    put_stubs
    grade 0/0 NA 0 "build failed"
fi

# ---- correctness: the holes' checks -------------------------------------------------------------
# Per group: n (the course's checks), the stubs' failed checks S or "lost", the work's W or
# lost.  The holes' checks: S (all n where the stubs lost the group).  Earned: those of them
# the work passes; broken: the work's other failures.  A group the work loses (a crash, a
# hang) earns none of its holes' checks, and costs nothing more.
read -r holes earned broken crashed groups first < <(awk '
    FNR == 1 { run++ }
    $1 == "checks" { n[run, $2] = $3; if (run == 1) groups[$2] = 1 }
    $1 == "group"  { name[run, $2] = substr($0, length($1 " " $2 " ") + 1) }
    $1 == "fail"   { if (!((run, $2, $3) in failed)) { failed[run, $2, $3] = 1; nfail[run, $2]++ } }
    $1 == "msg"    { if (!((run, $2) in msg)) msg[run, $2] = substr($0, length($1 " " $2 " ") + 1) }
    $1 == "lost"   { lost[run, $2] = substr($0, length($1 " " $2 " ") + 1) }
    $1 == "rest"   { rest[run] = $2 }
    function gone(r, g) { return ((r, g) in lost) || ((r in rest) && g + 0 >= rest[r] + 0) || !((r, g) in n) }
    END {
        # run 1: the course, 2: the stubs, 3: the work
        for (g in groups) order[++m] = g + 0
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (order[j] < order[i]) { t = order[i]; order[i] = order[j]; order[j] = t }
        for (i = 1; i <= m; i++) {
            g = order[i]; all = n[1, g]
            stub_lost = gone(2, g); work_lost = gone(3, g)
            h = stub_lost ? all : nfail[2, g] + 0
            if (work_lost) { e = 0; b = 0 } # lost: none of its holes checks, and no more
            else if (stub_lost) { e = all - nfail[3, g]; b = 0 }
            else {
                e = 0; b = 0
                for (k in failed) { split(k, p, SUBSEP); if (p[1] == 2 && p[2] == g && !((3, g, p[3]) in failed)) e++ }
                for (k in failed) { split(k, p, SUBSEP); if (p[1] == 3 && p[2] == g && !((2, g, p[3]) in failed)) b++ }
            }
            H += h; E += e; B += b
            if (((3, g) in lost) && lost[3, g] ~ /^crashed/) C++
            if (first == "" && (e < h || b > 0)) {
                why = work_lost ? (((3, g) in lost) ? lost[3, g] : "not run") : (((3, g) in msg) ? msg[3, g] : "a check failed")
                first = "group " g " \x27" name[1, g] "\x27: " why
            }
        }
        gsub(/[\t\n]/, " ", first)
        printf "%d %d %d %d %d %s\n", H, E, B, C, m, (first == "" ? "-" : first)
    }' "$tree.course.result" "$tree.stub.result" "$tree.work.result")
course_lost=$(grep -c '^lost \|^fail ' "$tree.course.result")
[ "$course_lost" -eq 0 ] ||
    { echo "make grade: the course's own files fail their tests in the handout of step $id ($tree.course.result)" >&2; put_stubs; exit 2; }
[ "$holes" -gt 0 ] ||
    { echo "make grade: the tests of step $id see none of its holes at the $level level (the stubs pass every check)" >&2; put_stubs; exit 2; }
net=$((earned - broken))
[ "$net" -ge 0 ] || net=0
[ "$first" = "-" ] || echo "make grade: first failing case: $first" >&2
[ "$broken" -eq 0 ] || echo "make grade: $broken checks outside the holes fail with this work (they pass with the handout)" >&2

# ---- speed: the student's file against the course's, in one program (make race) -----------------
# only for a work whose holes' checks all pass: speed earns nothing before that, and a file
# that spins or crashes would only hang or break the race
speed=NA speed_points=0 race_lines=""
course_file=$root/$file
if [ "$net" -lt "$holes" ] || [ "$broken" -gt 0 ]; then
    echo "make grade: no race: the speed points need every check of the holes to pass" >&2
elif (cd "$tree" && make -s --no-print-directory "${cuda_args[@]}" race RACE_FILE="$file" \
        RACE_COURSE="$course_file") >"$tree.race.log" 2>&1; then
    while read -r args; do
        # shellcheck disable=SC2086
        line=$(timeout "${GRADE_TIMEOUT:-300}" "$tree/$build/race/race" $args 2>&1 | grep '^RACE ')
        race_lines="$race_lines${line:-RACE $args: no time}"$'\n'
    done <<<"$races"
else
    echo "make grade: the race of the student's file against the course's did not build:" >&2
    grep -m1 -E 'error' "$tree.race.log" | sed "s|$root/$tree/||g; s/^/  /" >&2
fi
put_stubs
if [ "$net" -lt "$holes" ] || [ "$broken" -gt 0 ]; then
    :
elif [ -z "$race_lines" ]; then
    echo "make grade: the race gave no time" >&2
elif grep -q ' same_output=0$' <<<"$race_lines"; then
    echo "make grade: the student's output differs from the course's on a race's input: no speed points" >&2
elif [ "$(grep -c ' same_output=1$' <<<"$race_lines")" -ne "$(grep -c . <<<"$races")" ]; then
    echo "make grade: a race gave no time" >&2
else
    speed=$(sed -nE 's/.* ratio=([0-9.]+) .*/\1/p' <<<"$race_lines" |
        awk 'NR == 1 || $1 > worst { worst = $1 } END { printf "%.2f", worst }')
    speed_points=$(awk -v x="$speed" -v b="$band" -v z="$zero" -v m="$speed_max" \
        'BEGIN { p = x <= b ? m : (x >= z ? 0 : m * (z - x) / (z - b)); printf "%d", p }')
fi
[ "$net" -eq "$holes" ] && [ "$broken" -eq 0 ] || speed_points=0
score=$(awk -v p="$net" -v r="$holes" -v sp="$speed_points" -v m="$speed_max" \
    'BEGIN { printf "%d", int((100 - m) * p / r) + sp }')
[ -z "$race_lines" ] || sed '/^$/d; s/^/make grade: /' <<<"$race_lines" >&2
echo "make grade: band ${band}x, nothing from ${zero}x, $speed_max points for speed, races on: $dists" >&2
why=""
[ "$crashed" -eq 0 ] || why="crashed in $crashed of $groups groups"
[ "$first" = "-" ] || why="${why:+$why; }first failing case: $first"
grade "$net/$holes" "$speed" "$score" "$why"
