#!/usr/bin/env bash
# steps.sh - `make steps`: the course's path (steps.txt), one step a line: its id, its
# file, the lines `make diff` changes from the step before (counted as
# `make diff ... | grep -c '^[-+][^-+]'`), a mark where the step changes a pass's whole
# structure (its limit is 350 changed lines, not 200) or starts a new problem, its track
# (core, or advanced) and what it needs beyond a GPU of the course (hopper: its lesson runs
# on sm_90 alone; 2gpus), and the lesson in one line.
set -u
cd "$(dirname "$0")/.."
. tools/steps-lib.sh
prev=""
printf '%-6s %-42s %7s  %-9s %-8s %-6s %s\n' step file changed mark track needs lesson
while IFS=$'\t' read -r id file kind track needs lesson from; do
    changed="-"
    [ -z "$from" ] || prev=$(step_field "$from" 2)
    [ -z "$prev" ] || changed=$(changed_lines "$prev" "$file")
    case $kind in structure) mark="structure" ;; start) mark="start" ;; *) mark="" ;; esac
    printf '%-6s %-42s %7s  %-9s %-8s %-6s %s%s\n' "$id" "$file" "$changed" "$mark" "$track" \
        "$needs" "$lesson" \
        "${from:+ (its diff: from $from)}"
    prev=$file
done < <(steps)
echo "changed: lines of make diff from the step before; limits 200 a lesson, 350 a step marked"
echo "structure (it changes a pass's whole structure); a start begins a new problem.  track: core"
echo "(a semester on T4s teaches and grades it) or advanced (a project); needs: - (any GPU of the"
echo "course), hopper (the lesson runs on sm_90 alone), 2gpus."
