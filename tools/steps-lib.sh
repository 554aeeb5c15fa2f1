# steps-lib.sh - what tools/steps.sh, tools/diff.sh and tests/test_docs.sh share about the
# course's path, steps.txt (sourced, from the repository root).

# step_id TEXT: TEXT as a step id ("4" -> "04", "5.1" -> "05.1", "06.03" -> "06.3"), or
# nothing (status 1) if it is not of that form
step_id() {
    [[ $1 =~ ^([0-9]+)(\.([0-9]+))?$ ]] || return 1
    local id; id=$(printf '%02d' $((10#${BASH_REMATCH[1]})))
    [ -z "${BASH_REMATCH[3]}" ] || id="$id.$((10#${BASH_REMATCH[3]}))"
    echo "$id"
}

# steps: the lines of steps.txt, comments left out:
# "id<TAB>file<TAB>kind<TAB>track<TAB>needs<TAB>lesson[<TAB>from]"
steps() { grep -v '^#' steps.txt | grep -v '^$'; }

# step_field ID N: field N (1 id, 2 file, 3 kind, 4 track, 5 needs, 6 lesson, 7 from) of
# step ID, or nothing
step_field() { steps | awk -F'\t' -v id="$1" -v n="$2" '($1 "") == (id "") { print $n }'; }

# step_ids: every step id, in the course's order
step_ids() { steps | cut -f1; }

# track_step_ids TRACK: the ids of the steps of one track (core, advanced), in order
track_step_ids() { steps | awk -F'\t' -v t="$1" '$4 == t { print $1 }'; }

# file_before ID: the file of the step before ID on the course's path (nothing for the first)
file_before() { steps | awk -F'\t' -v id="$1" '($1 "") == (id "") { print prev; exit } { prev = $2 }'; }

# last_stage_step NN: the id of stage NN's last step (07 -> 07.12)
last_stage_step() { step_ids | grep "^$1\." | tail -n 1; }

# Which step a header's holes belong to (tools/handout.sh hands them out with it,
# tools/grade.sh grades a header of another name as it):
# first_stage_step_using HEADER: of the step files of HEADER's stage, the first to include
# it (05_warp_shuffle/warp_scan.cuh: step1_shuffle_scan.cu), or nothing
first_stage_step_using() {
    grep -l "#include \"${1##*/}\"" "${1%/*}"/step[0-9]*_*.cu 2>/dev/null | sort -V | head -n 1
}
# first_course_step_using HEADER: the first step file of the course's path to include it
# (common/gpu_scan.cuh: 02's step2_gpu_scan.cu), or nothing
first_course_step_using() {
    steps | cut -f2 | while read -r f; do grep -q "#include \"${1##*/}\"" "$f" && { echo "$f"; break; }; done
}

# step_limit KIND: the most changed lines a step of that kind may differ from the one before
step_limit() { case $1 in lesson) echo 200 ;; structure) echo 350 ;; *) echo "" ;; esac; }

# file_step_number FILE: K of a step's file stepK_name.cu (stages 05, 07; .c: stage 08) or of a version
# of stage 06, vK_name.cu; nothing for any other file
file_step_number() {
    local f=${1##*/}
    case $f in step[0-9]*_*.cu | step[0-9]*_*.c) f=${f#step} ;; v[0-9]*_*.cu) f=${f#v} ;; *) return ;; esac
    echo "${f%%_*}"
}

# stage_step_args STAGE: how the stage's program is asked for each of its steps, one a
# line: "--step 1", "--step 2" ... for a stage of several steps (its files stepK_*.cu),
# one empty line for a stage of one step
stage_step_args() {
    local f
    ls "$1"/step[0-9]*_*.cu >/dev/null 2>&1 || { echo ""; return; }
    for f in "$1"/step[0-9]*_*.cu; do echo "$(file_step_number "$f")"; done | sort -n | sed 's/^/--step /'
}

# without_lab_marks FILE: FILE without the lines that mark the holes of its lab handouts,
# at both levels (tools/lab-stub.awk): comments for the handout, not part of any step's lesson
without_lab_marks() { grep -v -E '^[[:space:]]*/\* (LAB|WRITE) (BEGIN|END|STUB) ' "$1"; }

# step_diff FILE_A FILE_B: diff -u of two step files as make diff shows it (lab marks left out)
step_diff() { diff -u --label "$1" --label "$2" <(without_lab_marks "$1") <(without_lab_marks "$2"); }

# changed_lines FILE_A FILE_B: the changed lines of make diff, counted as the course counts them
changed_lines() { step_diff "$1" "$2" | grep -c '^[-+][^-+]'; }
