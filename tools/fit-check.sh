#!/usr/bin/env bash
# fit-check.sh [--update | --check] - `make fit`: for every GPU step, whether each of its
# kernels launches on the GPU architectures of the portable build (sm_75 T4, sm_80 A100,
# sm_86 RTX 30, sm_89 L4 / RTX 40, sm_90 H100) and how many of its blocks one
# multiprocessor holds there.  It reads the build (what ptxas reported for each kernel and
# architecture, kept beside each object by tools/nvcc-resources.sh), the launch
# configuration measured on the H100 (FIT_LAUNCH, default
# results/nvidia-h100-80gb-hbm3/launch_config.csv, by tools/launch-config.sh) and the
# architectures' limits (tools/arch-limits.csv); the kernels of tools/fit-planned.txt size
# their shared memory to the GPU, and are counted at the most their plans can take.  Prints a table a step (its least
# occupancy over its kernels), then one a kernel.
#   --update  writes them into INSTRUCTOR.md (between <!-- fit-check --> and
#             <!-- end fit-check -->) and results/fit_check.md
#   --check   fails if those are stale, or if on sm_90 the arithmetic disagrees with the
#             blocks a multiprocessor the H100 reported for any kernel
# Needs a build for the portable list (make ARCH=all, what a machine without a GPU builds).
set -u
cd "$(dirname "$0")/.." || exit 1
build=${BUILD:-build}
launch=${FIT_LAUNCH:-results/nvidia-h100-80gb-hbm3/launch_config.csv}
mode=${1:-}
[ -f "$launch" ] || { echo "fit-check: $launch not found (tools/launch-config.sh writes it on a GPU)" >&2; exit 2; }
mapfile -t ptxas < <(find "$build/obj" -name '*.ptxas' 2>/dev/null | sort)
[ ${#ptxas[@]} -gt 0 ] || { echo "fit-check: no ptxas reports under $build/obj: build first (make), from a clean build (make clean) if it predates them" >&2; exit 2; }
archs_built=$(cat "${ptxas[@]}" | grep -o "for 'sm_[0-9]*'" | sort -u | tr -d "'" | sed 's/for //' | tr '\n' ' ')
table() { awk -v mode="$1" -f tools/csv.awk -f tools/fit-check.awk tools/arch-limits.csv tools/fit-planned.txt \
              tools/fit-not-launched.txt \
              "${ptxas[@]}" "$launch"; }

header="Which step launches where, from \`make fit\` (tools/fit-check.sh): registers and static shared memory as ptxas reports them for each architecture, block size and dynamic shared memory as the H100 launched them (results/$(basename "$(dirname "$launch")")/launch_config.csv); an architecture's limits from tools/arch-limits.csv."
steps_table() { echo "<!-- fit-check -->"; echo "$header"; echo; table steps; echo "<!-- end fit-check -->"; }
full_file() {
    echo "# Each GPU kernel on each architecture"
    echo
    echo "$header Each cell: blocks a multiprocessor x threads, the occupancy (resident warps of the most), registers a thread there."
    echo
    table full
}
splice() { # FILE: FILE with its fit-check block replaced by steps_table
    awk -v new="$tmp/steps.md" '
        /<!-- fit-check -->/ { while ((getline l < new) > 0) print l; skip = 1; next }
        /<!-- end fit-check -->/ { skip = 0; next }
        !skip' "$1"
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
steps_table >"$tmp/steps.md"
case $mode in
"")
    echo "fit-check: architectures in this build: $archs_built"
    table steps; echo; table full ;;
--update)
    for a in sm_75 sm_80 sm_86 sm_89 sm_90; do
        case " $archs_built " in *" $a "*) ;; *) echo "fit-check: this build has no $a: build the portable list first (make clean && make ARCH=all)" >&2; exit 2 ;; esac
    done
    splice docs/src/INSTRUCTOR.md >"$tmp/I.md" && cp "$tmp/I.md" docs/src/INSTRUCTOR.md
    tools/docs-build.sh >/dev/null
    full_file >results/fit_check.md
    echo "fit-check: INSTRUCTOR.md (docs/src/) and results/fit_check.md updated" ;;
--check)
    status=0
    table check >"$tmp/check"
    if [ -s "$tmp/check" ]; then cat "$tmp/check"; status=1; fi
    echo "fit-check: sm_90: $(grep -c . "$launch" | awk '{ print $1 - 1 }') kernels' blocks a multiprocessor against the H100's own report: $(grep -c . "$tmp/check") differ"
    portable=1
    for a in sm_75 sm_80 sm_86 sm_89 sm_90; do
        case " $archs_built " in *" $a "*) ;; *) portable=0 ;; esac
    done
    case $portable in
    1)
        splice docs/src/INSTRUCTOR.md >"$tmp/I.md"
        cmp -s "$tmp/I.md" docs/src/INSTRUCTOR.md || { echo "fit-check: INSTRUCTOR.md's table is stale (tools/fit-check.sh --update)"; status=1; }
        full_file >"$tmp/full.md"
        cmp -s "$tmp/full.md" results/fit_check.md || { echo "fit-check: results/fit_check.md is stale (tools/fit-check.sh --update)"; status=1; }
        [ $status -ne 0 ] || echo "fit-check: INSTRUCTOR.md's table and results/fit_check.md are this build's" ;;
    *) echo "fit-check: this build is for $archs_built only: the tables of the portable list were not compared (skipped)" ;;
    esac
    exit $status ;;
*) echo "usage: $0 [--update | --check]" >&2; exit 2 ;;
esac
