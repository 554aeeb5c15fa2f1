#!/usr/bin/env bash
# nvcc-resources.sh NVCC ARGS... - compiles as `NVCC ARGS...` does, and keeps what ptxas
# reports for each kernel and each GPU architecture of the build (registers a thread,
# static shared memory, spills) in OBJECT.ptxas beside the object of `-o OBJECT`, for
# tools/fit-check.sh.  What else nvcc prints - a warning, an error - still goes to the
# terminal; the exit status is nvcc's.
set -u
nvcc=$1; shift
out="" prev=""
for arg in "$@"; do
    [ "$prev" = -o ] && out=$arg
    prev=$arg
done
[ -n "$out" ] || exec "$nvcc" "$@"
"$nvcc" --resource-usage "$@" 2>"$out.stderr"
rc=$?
grep -E '^ptxas info|^ +[0-9]+ bytes stack frame' "$out.stderr" >"$out.ptxas"
grep -vE '^ptxas info|^ +[0-9]+ bytes stack frame' "$out.stderr" >&2
rm -f "$out.stderr"
[ $rc -eq 0 ] || rm -f "$out.ptxas"
exit $rc
