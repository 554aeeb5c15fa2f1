#!/usr/bin/env bash
# first-build-times.sh [LOG] - how long a newcomer's first builds take on this machine:
# a fresh clone of the repository (its committed state), each build from an empty build/,
# timed with the shell's clock, one job per core as `make run` and `make test` build.
# Prints (and writes to LOG) one line a build:
#   make run                     no GPU: the CPU build of stage 01, and its run
#   make -jN ARCH=sm_90 stages   the stages `make run` builds on a machine with a GPU
#   make -jN ARCH=sm_90 all      everything `make test` builds there
#   make -jN all                 no GPU: the portable list of architectures, as CI builds
#   make test                    no GPU: the CPU build and what runs there, from an empty
#                                build/, then once more as it is left (a second run)
# --newcomer: make run and make test alone, what the README's first two commands cost.
set -u
newcomer=0
[ "${1:-}" != --newcomer ] || { newcomer=1; shift; }
log=${1:-/dev/null}
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/clone"
cd "$work/clone" || exit 1
say() { echo "$*" | tee -a "$log"; }
say "# first-build-times.sh, $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(nvcc --version | tail -n 1)"
status=0
timed() {
    [ "$1" = again ] && shift || rm -rf build
    local start end
    start=$(date +%s.%N)
    "$@" >"$work/out.log" 2>&1
    local rc=$?
    end=$(date +%s.%N)
    [ $rc -eq 0 ] || { status=1; tail -n 5 "$work/out.log" | tee -a "$log"; }
    say "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%6.1f s", b - a }')  exit $rc  $*"
}
jobs=-j$(nproc)
timed make run
if [ "$newcomer" = 0 ]; then
    timed make "$jobs" ARCH=sm_90 stages
    timed make "$jobs" ARCH=sm_90 all
    timed make "$jobs" all
fi
timed make test
say "        $(tail -n 1 "$work/out.log")"
timed again make test
say "        $(tail -n 1 "$work/out.log")"
exit $status
