#!/usr/bin/env bash
# grade-class.sh STEP CLASS [CSV] - `make grade-class STEP=04 CLASS=dir [LEVEL=write|guided]`:
# grades a whole class's work on one step, one student after the other (two gradings at once
# on one GPU would time each other), with tools/grade.sh.  CLASS is a folder with one entry a
# student, named for the student: a file (the step's file, as `make grade WORK=file` takes
# it; alice.c is alice) or a folder of the files that student changed.  Each student's line is printed the
# moment that student is graded:
#   alice        100/100  correctness=183/183 speed=1.00
#   bob           37/100  correctness=52/96 speed=NA  (first failing case: ...)
# and a CSV row written to CSV (default build/grade/class-STEP-LEVEL.csv):
#   student,step,level,correctness,speed,score,status,note
# status: graded, or the reason there is no grade (the grader refused the work: its message);
# note: the grade's own note, as the GRADE line gives it - "build failed", "crashed in K of G
# groups", the first failing case.
# The grading tree, its stubs' run and the course's run are made once, for the first student;
# each student then costs one run of the step's tests and, where every hole's check passed,
# the race.  Exit 0 when every student was graded (whatever their scores), 1 when the work of
# one or more could not be graded, 2 for bad arguments, 77 for a GPU step on a machine
# without a GPU (before anyone is graded).
set -u
cd "$(dirname "$0")/.."
usage="usage: make grade-class STEP=ID CLASS=FOLDER [LEVEL=write|guided] (one file or folder a student in FOLDER)"
[ $# -ge 2 ] && [ $# -le 3 ] && [ -n "$1" ] && [ -n "$2" ] || { echo "$usage" >&2; exit 2; }
. tools/steps-lib.sh
step=$1 class=$2 level=${LEVEL:-write}
id=$(step_id "$step") && [ -n "$(step_field "$id" 2)" ] ||
    { echo "make grade-class: no step '$step' (STEP=ID; make steps lists them)" >&2; exit 2; }
step=$id
[ -d "$class" ] || { echo "make grade-class: CLASS=$class: no such folder" >&2; exit 2; }
entries=$(cd "$class" && ls -A | grep -v '^\.' | sort)
[ -n "$entries" ] || { echo "make grade-class: CLASS=$class: the folder is empty (one file or folder a student)" >&2; exit 2; }
csv=${3:-build/grade/class-$step-$level.csv}
mkdir -p "$(dirname "$csv")"

# csv_field TEXT: TEXT as one CSV field (quoted, its quotes doubled)
csv_field() { printf '"%s"' "${1//\"/\"\"}"; }
# field NAME LINE: the value of NAME=... in a GRADE line
field() { sed -nE "s/.* $1=([^ ]+).*/\1/p" <<<"$2"; }

echo "student,step,level,correctness,speed,score,status,note" >"$csv"
# the student an entry is: a file's name without its extension, a folder's name
name_of() { if [ -d "$class/$1" ]; then echo "$1"; else echo "${1%.*}"; fi; }
width=$(while read -r e; do name_of "$e"; done <<<"$entries" | awk '{ if (length($0) > w) w = length($0) } END { print w }')
count=0 ungraded=0
while read -r entry; do
    student=$(name_of "$entry")
    LEVEL=$level tools/grade.sh "$step" "$class/$entry" >"$csv.out" 2>"$csv.err"
    rc=$?
    line=$(tail -n 1 "$csv.out")
    if [ "$rc" -eq 77 ]; then # no GPU here: nobody can be graded
        echo "$line" >&2
        rm -f "$csv.out" "$csv.err"
        exit 77
    fi
    count=$((count + 1))
    if [[ $line == GRADE\ step=* ]]; then
        score=$(field score "$line") score=${score%/100}
        note=$(sed -nE 's/^GRADE [^(]*\((.*)\)$/\1/p' <<<"$line") # build failed, crashed, a failing case
        printf '%-*s  %3s/100  correctness=%s speed=%s%s\n' "$width" "$student" "$score" \
            "$(field correctness "$line")" "$(field speed "$line")" "${note:+  ($note)}"
        echo "$(csv_field "$student"),$step,$level,$(field correctness "$line"),$(field speed "$line"),$score,graded,$(csv_field "$note")" >>"$csv"
    else
        why=$(grep -m1 . "$csv.err"); why=${why:-the grader printed no grade}
        printf '%-*s  not graded: %s\n' "$width" "$student" "$why"
        echo "$(csv_field "$student"),$step,$level,,,,$(csv_field "$why")," >>"$csv"
        ungraded=$((ungraded + 1))
    fi
done <<<"$entries"
rm -f "$csv.out" "$csv.err"
echo "grade-class: $count students of step $step ($level level), $((count - ungraded)) graded, $ungraded not; $csv"
[ "$ungraded" -eq 0 ]
