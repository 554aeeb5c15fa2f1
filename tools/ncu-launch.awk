# ncu-launch.awk - a row of launch_config.csv for each kernel of one ncu raw CSV page
# (ncu --csv --page raw --metrics launch__...): its first launch's configuration.
#   awk -v date=2026-11-26 -v id=07.7 -v file=07_onesweep/step7_what_users_sort.cu -f tools/csv.awk -f tools/ncu-launch.awk RAW
# The page: a line of column names ("ID", "Kernel Name", the metrics), a line of units,
# then a line a launch.
/^"ID"/ { n = csv_split($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
!("Kernel Name" in col) { next }
{ csv_split($0, f) }
f[col["ID"]] !~ /^[0-9]+$/ { next }
# a number as ncu prints it ("51,332"), without its thousands separators
function num(x) { gsub(/,/, "", x); return x }
{
    key = f[col["Kernel Name"]]
    if (key in seen) next
    seen[key] = 1
    printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", date, id, file, key,
        num(f[col["launch__block_size"]]), num(f[col["launch__registers_per_thread"]]),
        num(f[col["launch__shared_mem_per_block_static"]]), num(f[col["launch__shared_mem_per_block_dynamic"]]),
        num(f[col["launch__occupancy_limit_blocks"]]), num(f[col["launch__occupancy_limit_registers"]]),
        num(f[col["launch__occupancy_limit_shared_mem"]]), num(f[col["launch__occupancy_limit_warps"]])
}
