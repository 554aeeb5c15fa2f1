# fit-check.awk - does each kernel of each GPU step launch on each architecture, and how
# many of its blocks fit on one multiprocessor there.  tools/fit-check.sh runs it:
#   awk -v mode=full|steps|check -f tools/csv.awk -f tools/fit-check.awk \
#       tools/arch-limits.csv tools/fit-planned.txt tools/fit-not-launched.txt PTXAS_FILES... LAUNCH_CONFIG_CSV
# Three kinds of input, told apart by their names:
#   arch-limits.csv    each architecture's limits (CUDA C++ Programming Guide, "Compute
#                      Capabilities": threads, warps, blocks, registers and shared
#                      memory a multiprocessor; the opt-in shared memory of a block; what
#                      the driver reserves per block)
#   *.ptxas            what ptxas reported when the build compiled each object, per
#                      kernel and per architecture: registers a thread, static shared
#                      memory (tools/nvcc-resources.sh writes them)
#   launch_config.csv  what each step launches, read by Nsight Compute on a real GPU
#                      (tools/launch-config.sh): block size and dynamic shared memory,
#                      which the host code chooses, the same on every architecture but
#                      for the kernels of fit-planned.txt, whose plans size their shared
#                      memory to the GPU: counted at the most its plan can take there
# The occupancy arithmetic is the occupancy calculator's: registers are given to a warp
# in units of 256, from one of the multiprocessor's four register files (a quarter each),
# shared memory in units of 128 bytes, plus what the driver reserves for each block; the blocks on one multiprocessor are the fewest that any one of
# threads, blocks, registers and shared memory allows.
# mode=full: one markdown row a step and kernel; mode=steps: one row a step, the least
# occupancy over its kernels (or, where the step does not launch one of its kernels on an
# architecture, what runs instead: tools/fit-not-launched.txt); mode=check: for sm_90, the
# blocks this arithmetic gives against the limits the GPU reported, one line a kernel that
# differs ("MISMATCH ...").
function ceil_to(x, unit) { return int((x + unit - 1) / unit) * unit }
# a kernel as its source names it: the declared name, and a template instance's integer
# arguments (_Z13onesweep_passILi512ELi24ELi0ELi2EEv9pass_args: onesweep_pass<512,24,0,2>)
function short_name(mangled,    len, name, rest, args) {
    if (!match(mangled, /^_Z[0-9]+/)) return mangled
    len = substr(mangled, 3, RLENGTH - 2) + 0
    name = substr(mangled, RLENGTH + 1, len)
    rest = substr(mangled, RLENGTH + 1 + len)
    if (substr(rest, 1, 1) != "I") return name
    rest = substr(rest, 2); args = ""
    while (match(rest, /^Li-?[0-9]+E/)) {
        args = args (args == "" ? "" : ",") substr(rest, 3, RLENGTH - 3)
        rest = substr(rest, RLENGTH + 1)
    }
    return (args != "" && substr(rest, 1, 1) == "E") ? name "<" args ">" : name
}
# the entry of a list (fit-planned.txt, fit-not-launched.txt) for a kernel: its own name, or
# for a template instance its template's where the list does not name the instance
function entry(name, list) { if (!(name in list)) sub(/<.*/, "", name); return name }
# fit ARCH KERNEL_ROW: "blocks" a multiprocessor holds, 0 and why in fit_why if none
function fit(a, regs, smem, threads,    warps, by_warps, by_regs, by_smem, by_blocks, per_block, regs_warp, best) {
    fit_why = ""
    if (regs == "") { fit_why = "not built for " a; return -1 }
    if (regs > L[a, "max_regs_thread"]) { fit_why = regs " registers"; return 0 }
    if (smem > L[a, "smem_block_optin"]) { fit_why = smem " B of shared memory > " L[a, "smem_block_optin"]; return 0 }
    if (threads * regs > L[a, "regs_sm"]) { fit_why = "registers"; return 0 }
    warps = int((threads + 31) / 32)
    by_warps = int(L[a, "max_warps_sm"] / warps)
    by_blocks = L[a, "max_blocks_sm"]
    regs_warp = ceil_to(regs * 32, 256)
    # the register file is four files, one for each of the SM's four schedulers, and a
    # warp's registers come from one of them
    by_regs = regs_warp ? int(4 * int(L[a, "regs_sm"] / 4 / regs_warp) / warps) : by_blocks
    per_block = ceil_to(smem + L[a, "smem_reserved_block"], 128)
    by_smem = per_block ? int(L[a, "smem_sm"] / per_block) : by_blocks
    best = by_warps
    if (by_blocks < best) best = by_blocks
    if (by_regs < best) best = by_regs
    if (by_smem < best) best = by_smem
    if (best == 0) fit_why = "no block fits"
    return best
}
FNR == 1 { input = FILENAME }
input ~ /fit-planned\.txt$/ { if ($0 !~ /^#/ && NF) planned[$1] = 1; next }
input ~ /fit-not-launched\.txt$/ { # kernel, first architecture that launches it, what runs instead
    if ($0 !~ /^#/ && NF) { split($0, nl, "\t"); launched_from[nl[1]] = nl[2]; instead[nl[1]] = nl[3] }
    next
}
input ~ /arch-limits\.csv$/ {
    if (FNR == 1) { nh = csv_split($0, hdr); next }
    csv_split($0, f)
    archs[++narch] = f[1]
    for (i = 2; i <= nh; i++) L[f[1], hdr[i]] = (hdr[i] == "gpus") ? f[i] : f[i] + 0
    next
}
input ~ /\.ptxas$/ {
    if (match($0, /Compiling entry function '[^']+' for 'sm_[0-9]+a?'/)) {
        s = substr($0, RSTART, RLENGTH)
        sub(/^Compiling entry function '/, "", s)
        kernel = s; sub(/'.*/, "", kernel)
        arch = s; sub(/.* for '/, "", arch); sub(/'$/, "", arch)
        next
    }
    if (kernel != "" && match($0, /Used [0-9]+ registers/)) {
        regs = substr($0, RSTART + 5, RLENGTH - 15) + 0
        smem = 0
        if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH) + 0
        obj = input; sub(/\.ptxas$/, "", obj)
        R[obj, kernel, arch] = regs; S[obj, kernel, arch] = smem
        anywhere_R[kernel, arch] = regs; anywhere_S[kernel, arch] = smem
        kernel = ""
    }
    next
}
{   # launch_config.csv
    if (FNR == 1) { nh2 = csv_split($0, h2); for (i = 1; i <= nh2; i++) C[h2[i]] = i; next }
    csv_split($0, f)
    n++
    step[n] = f[C["step"]]; file[n] = f[C["file"]]; kern[n] = f[C["kernel"]]
    block[n] = f[C["block"]] + 0; dyn[n] = f[C["dynamic_smem"]] + 0
    lim[n] = f[C["limit_blocks"]] + 0
    split("limit_registers limit_shared_mem limit_warps", more, " ")
    for (j = 1; j <= 3; j++) if (f[C[more[j]]] + 0 < lim[n]) lim[n] = f[C[more[j]]] + 0
}
# the object a step's file was compiled into: build/obj/<dir>/<name>.o or .step.o
function object_of(path,    base, i, o) {
    base = path; sub(/\.cu$/, "", base)
    for (i = 1; i in objs; i++) {
        o = objs[i]
        if (o ~ ("/" base "\\.o$") || o ~ ("/" base "\\.step\\.o$")) return o
    }
    return ""
}
END {
    for (k in R) { split(k, parts, SUBSEP); if (!(parts[1] in seen_obj)) { seen_obj[parts[1]] = 1; objs[++nobj] = parts[1] } }
    if (mode == "full") {
        printf "| step | kernel | threads | shared memory (B) |"
        for (a = 1; a <= narch; a++) printf " %s |", archs[a]
        printf "\n| --- | --- | --- | --- |"
        for (a = 1; a <= narch; a++) printf " --- |"
        printf "\n"
    } else if (mode == "steps") {
        printf "| step |"
        for (a = 1; a <= narch; a++) printf " %s (%s) |", archs[a], L[archs[a], "gpus"]
        printf "\n| --- |"
        for (a = 1; a <= narch; a++) printf " --- |"
        printf "\n"
    }
    for (i = 1; i <= n; i++) {
        obj = object_of(file[i])
        cells = ""; smem_shown = ""
        for (a = 1; a <= narch; a++) {
            ar = archs[a]
            regs = ""; st = 0
            if ((obj, kern[i], ar) in R) { regs = R[obj, kern[i], ar]; st = S[obj, kern[i], ar] }
            else if ((kern[i], ar) in anywhere_R) { regs = anywhere_R[kern[i], ar]; st = anywhere_S[kern[i], ar] }
            total = st + dyn[i]
            if (smem_shown == "" && regs != "") smem_shown = total
            name = short_name(kern[i])
            # a kernel the step does not launch on this architecture: what runs instead
            # (fit-not-launched.txt names a kernel, or one instance of a template)
            nl_key = entry(name, launched_from)
            if ((nl_key in launched_from) && substr(ar, 4) + 0 < substr(launched_from[nl_key], 4) + 0) {
                cells = cells " not launched: " instead[nl_key] " |"
                not_here[step[i], ar] = instead[nl_key]
                continue
            }
            # a planned kernel takes at most what this GPU allows a block, less the room
            # its plan keeps for the static arrays (2 KB)
            smaller = 0
            if ((entry(name, planned) in planned) && total > L[ar, "smem_block_optin"] - 2048) {
                total = L[ar, "smem_block_optin"] - 2048; smaller = 1
            }
            b = fit(ar, regs, total, block[i])
            warps = int((block[i] + 31) / 32)
            if (b < 0) cell = "?"
            else if (b == 0) cell = "**does not launch** (" fit_why ")"
            else cell = sprintf("%d x %d, %d%% (%d regs%s)", b, block[i], 100 * b * warps / L[ar, "max_warps_sm"], regs,
                                smaller ? "; a smaller plan: at most " total " B" : "")
            cells = cells " " cell " |"
            # the step's least occupancy on this architecture (-1: unknown)
            occ = (b > 0) ? 100 * b * warps / L[ar, "max_warps_sm"] : (b == 0 ? 0 : -1)
            if (!((step[i], ar) in worst) || occ < worst[step[i], ar]) { worst[step[i], ar] = occ; worst_k[step[i], ar] = short_name(kern[i]) }
            if (mode == "check" && ar == "sm_90" && b >= 0 && lim[i] != "" && b != lim[i] + 0)
                printf "MISMATCH %s %s: the arithmetic gives %d blocks a multiprocessor, the GPU reported %d\n", step[i], short_name(kern[i]), b, lim[i]
            if (mode == "check" && ar == "sm_90" && b < 0)
                printf "MISSING %s %s: no ptxas report for sm_90 (rebuild: make clean all)\n", step[i], short_name(kern[i])
        }
        if (mode == "full") printf "| %s | `%s` | %d | %s |%s\n", step[i], short_name(kern[i]), block[i], smem_shown, cells
        if (!(step[i] in step_seen)) { step_seen[step[i]] = 1; order[++nsteps] = step[i] }
    }
    if (mode == "steps") {
        for (s = 1; s <= nsteps; s++) {
            printf "| %s |", order[s]
            for (a = 1; a <= narch; a++) {
                o = worst[order[s], archs[a]]
                if ((order[s], archs[a]) in not_here) printf " %s |", not_here[order[s], archs[a]]
                else if (o < 0) printf " ? |"
                else if (o == 0) printf " **does not launch** (`%s`) |", worst_k[order[s], archs[a]]
                else printf " %d%% |", o
            }
            printf "\n"
        }
    }
}
