#!/usr/bin/env bash
# steps.sh - `make steps`: the course's path (steps.txt), one step a line: its id, its
# file, the lines `make diff` changes from the step before (counted as
# `make diff ... | grep -c '^[-+][^-+]'`), a mark where the step changes a pass's whole
# structure (its limit is 350 changed lines, not 200) or starts a new problem, and the
# lesson in one line.
set -u
cd "$(dirname "$0")/.."
. tools/steps-lib.sh
prev=""
printf '%-6s %-42s %7s  %-9s %s\n' step file changed mark lesson
while IFS=$'\t' read -r id file kind lesson from; do
    changed="-"
    [ -z "$from" ] || prev=$(step_field "$from" 2)
    [ -z "$prev" ] || changed=$(changed_lines "$prev" "$file")
    case $kind in structure) mark="structure" ;; start) mark="start" ;; *) mark="" ;; esac
    printf '%-6s %-42s %7s  %-9s %s%s\n' "$id" "$file" "$changed" "$mark" "$lesson" \
        "${from:+ (its diff: from $from)}"
    prev=$file
done < <(steps)
echo "changed: lines of make diff from the step before; limits 200 a lesson, 350 a step marked"
echo "structure (it changes a pass's whole structure); a start begins a new problem."
