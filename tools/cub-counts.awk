# cub-counts.awk - the program of tools/cub-counts.sh (with tools/csv.awk and fit-check.awk's fit()).
FNR == 1 { file++ }
file == 1 {
    if (FNR == 1) { nh = csv_split($0, hdr); next }
    csv_split($0, f)
    for (i = 2; i <= nh; i++) L[f[1], hdr[i]] = (hdr[i] == "gpus") ? f[i] : f[i] + 0
    next
}
/^ptxas info *: Compiling entry function/ {
    kernel = ""
    if ($0 ~ /DeviceRadixSortOnesweepKernel/ && $0 ~ "for ." arch ".") kernel = $0
    next
}
kernel != "" && /^ptxas info *: Used [0-9]+ registers/ {
    match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15) + 0
    smem = 0
    if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH - 11) + 0
    # policy_hub<Key, Value, Offset> in the mangled name: one letter a type (j unsigned, i
    # int, f float, y unsigned 64-bit), the value cub::NullType where there is none
    match(kernel, /policy_hubI/); hub = substr(kernel, RSTART + RLENGTH)
    key = substr(hub, 1, 1); hub = substr(hub, 2)
    pairs = hub !~ /^NS0_8NullTypeE/
    hub = pairs ? substr(hub, 2) : substr(hub, 15)
    offset = substr(hub, 1, 1)
    match(kernel, /SortOrderE[01]/); descending = substr(kernel, RSTART + 10, 1) == "1"
    wide = offset == "y"
    items = pairs ? (wide ? 17 : 23) : 20 - wide - (key == "f")
    keyname = key == "j" ? "u32" : key == "i" ? "i32" : key == "f" ? "f32" : key
    row = sprintf("| %s | %s | %s | `%s` | %d | %d | %d | %d |", keyname, pairs ? "u32 values" : "none",
                  descending ? "descending" : "ascending", wide ? "int64_t" : "int", items, regs, smem,
                  fit(arch, regs, smem, 384))
    rows[++n] = row
    kernel = ""
}
END {
    print "| keys | values | order | count | keys a thread | registers a thread | shared memory (B) | blocks of 384 a multiprocessor |"
    print "| --- | --- | --- | --- | --- | --- | --- | --- |"
    # sorted: keys, values, order, then the count
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (rows[j] < rows[i]) { t = rows[i]; rows[i] = rows[j]; rows[j] = t }
    for (i = 1; i <= n; i++) print rows[i]
}