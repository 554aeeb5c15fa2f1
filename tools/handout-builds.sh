#!/usr/bin/env bash
# handout-builds.sh [ARCH [LOG]] - does every core step's handout build as a student gets it,
# stubs and all, for one architecture (default sm_75: a T4 lab)?  From a fresh clone of the
# repository's committed state, each step's write-level handout (`make handout STEP=X`) is
# built on its own, from an empty build/, with `make -jN ARCH=...` - the step's stage, its
# test program and the CUB baseline beside it.  One line a step (to LOG too):
#   handout STEP=02.1 level=write arch=sm_75 build=ok seconds=54
# and the exit status is 1 if any failed (its last lines follow its line).  Needs nvcc, no
# GPU; about a minute a step on two cores.
set -u
arch=${1:-sm_75}
log=${2:-/dev/null}
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
cd "$work/clone" || exit 1
. tools/steps-lib.sh # track_step_ids
say() { echo "$*" | tee -a "$log"; }
say "# handout-builds.sh $arch, $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), $(nproc) CPUs, $(nvcc --version | tail -n 1)"
status=0
for id in $(track_step_ids core); do
    make -s handout STEP="$id" >"$work/handout.log" 2>&1 || {
        say "handout STEP=$id level=write arch=$arch build=failed (make handout)"; status=1; continue; }
    start=$(date +%s)
    if (cd "build/handout/$id" && make -j"$(nproc)" ARCH="$arch" >"$work/build.log" 2>&1); then
        say "handout STEP=$id level=write arch=$arch build=ok seconds=$(($(date +%s) - start))"
    else
        say "handout STEP=$id level=write arch=$arch build=failed seconds=$(($(date +%s) - start))"
        tail -n 5 "$work/build.log" | tee -a "$log"
        status=1
    fi
    rm -rf "build/handout/$id"
done
exit "$status"
