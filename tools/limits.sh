#!/usr/bin/env bash
# limits.sh BIN - `make limits`: runs the limits program (tools/limits.cu) on the GPU at
# hand and appends its row to build/limits/<gpu>/limits.csv, or, with SAVE=1, to
# results/<gpu>/limits.csv, where the READMEs' "% of floor" figures read it.
#   limits.sh --check: only what comes before the build: is there a GPU?  Exit 77 and one
#   line if not (make limits then ends there, with success: nothing to measure here).
set -u
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
if [ -z "$gpu" ]; then
    echo "limits: skipped - it measures a CUDA GPU, and nvidia-smi lists none; nothing was measured"
    exit 77
fi
[ "${1:-}" != --check ] || exit 0
bin=$1
slug=$(tr 'A-Z' 'a-z' <<<"$gpu" | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
if [ "${SAVE:-0}" = 1 ]; then dir=results/$slug; else dir=build/limits/$slug; fi
mkdir -p "$dir"
"$bin" --csv "$dir/limits.csv" || exit
echo "limits: appended to $dir/limits.csv"
