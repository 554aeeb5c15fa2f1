#!/usr/bin/env bash
# grade-run.sh PROGRAM RESULT - runs a test program for the grader (tools/grade.sh) so that
# one bad case does not erase the others, and writes what it found to RESULT.
#
# A test program is a sequence of groups (tests/check.h): each test function and each
# battery, numbered from 0, the same in every run.  The program runs with --group-timeout;
# where it ends without its summary - a crash, a group that ran too long, a hang - the
# group it was in is recorded as lost, with the reason, and the program runs again from the
# next group (--from-group).  After GRADE_STRIKES groups lost in a row (default 3), the rest
# are recorded as not run: a look-back that spins in every group costs minutes, not hours.
# RESULT, one fact a line:
#   group K NAME       group K started
#   checks K N         group K ended, N checks run
#   fail K ID          check ID (line:n) of group K failed
#   msg K TEXT         group K's first failure message
#   lost K REASON      group K crashed, timed out, or was not run
#   groups G           the program has G groups
#   GRADE_TIMEOUT       seconds one run of the program may take (default 300)
#   GRADE_GROUP_TIMEOUT seconds one group may take (default 60)
#   GRADE_SMALL         1: the program's short run (--small, as under the sanitizer): for
#                       the grader's own tests, which grade many files
set -u
program=$1 result=$2
limit=${GRADE_TIMEOUT:-300}
group_limit=${GRADE_GROUP_TIMEOUT:-60}
strikes=${GRADE_STRIKES:-3}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
: >"$result"
from=0 lost_in_a_row=0
while :; do
    : >"$raw"
    small=()
    [ "${GRADE_SMALL:-0}" != 1 ] || small=(--small)
    # the braces' stderr: where the shell says a program it waited for died of a signal
    # ("Segmentation fault"), a line a crash on the grader's screen; the reason is in RESULT
    { timeout --kill-after=10 "$limit" "$program" "${small[@]}" --from-group "$from" \
        --group-timeout "$group_limit" >"$raw" 2>&1 </dev/null; } 2>/dev/null
    rc=$?
    # the facts of this run; the first failure message of each group
    awk '/^GROUP [0-9]+ / { g = $2; name = $0; sub(/^GROUP [0-9]+ /, "", name); print "group " g " " name; next }
         /^GROUPEND [0-9]+ checks=/ { n = $3; sub(/checks=/, "", n); print "checks " $2 " " n; next }
         /^CHECKFAIL / { split($2, id, ":"); print "fail " id[1] " " id[2] ":" id[3]; next }
         /^GROUPS [0-9]+$/ { print "groups " $2; next }
         / CHECK failed: / && !(g in said) { said[g] = 1; m = $0; sub(/^[^ ]*: CHECK failed: /, "", m)
                                              print "msg " g " " substr(m, 1, 200) }' "$raw" >>"$result"
    grep -q '^GROUPS [0-9]*$' "$raw" && break
    # ended early: the group it was in is lost, and the next run starts after it
    last=$(sed -n 's/^GROUP \([0-9]*\) .*/\1/p' "$raw" | tail -n 1)
    if [ -z "$last" ]; then # before any group of this run: nothing more can be learnt
        echo "lost $from the program ended before its group $from (exit $rc): $(tail -n 1 "$raw" | cut -c1-200)" >>"$result"
        break
    fi
    if grep -q "^TIMEOUT group $last " "$raw"; then
        why="timed out after $group_limit s (GRADE_GROUP_TIMEOUT)"
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        why="timed out after $limit s (GRADE_TIMEOUT)"
    elif [ "$rc" -gt 128 ]; then # killed by a signal: its name says more than the last line
        why="crashed (SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))), exit $rc)"
    else
        why="crashed (exit $rc): $(grep -v '^GROUP\|^CHECKFAIL\|^GROUPEND' "$raw" | tail -n 1 | cut -c1-200)"
    fi
    echo "lost $last $why" >>"$result"
    lost_in_a_row=$((lost_in_a_row + 1))
    # a group lost after groups that ended well starts a new count
    [ "$(sed -n 's/^GROUPEND \([0-9]*\) .*/\1/p' "$raw" | tail -n 1)" = "" ] || lost_in_a_row=1
    if [ "$lost_in_a_row" -ge "$strikes" ]; then
        echo "lost $((last + 1)) not run: $strikes groups in a row were lost (GRADE_STRIKES)" >>"$result"
        echo "rest $((last + 1))" >>"$result"
        break
    fi
    from=$((last + 1))
done
