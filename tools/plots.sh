#!/usr/bin/env bash
# plots.sh [RESULTS_DIR...] - `make plots`: gnuplot charts (SVG) from the CSVs of `make bench`.
# Each chart's title names the machine and the date(s) of its rows.  It prints a line for
# each folder (how many charts, and where) and one summary line, which names the charts a
# folder has no CSV for (the course's CPU folders hold one or two CSVs, a GPU's most).
#
# Where the charts go - nothing committed changes unless asked (SAVE=1):
#   results/<machine>/ (the committed CSVs)  -> build/results/<machine>/plots/
#                                    SAVE=1 -> results/<machine>/plots/ (what the READMEs show)
#   build/bench/<machine>/ (your make bench) -> build/bench/<machine>/plots/
# Default: every folder of both kinds.  The charts name the Liberation Sans font (with a
# generic fallback), the font tools/setup-slides.sh installs, so they read the same on
# every machine; the decks show the same SVG files.
set -u
cd "$(dirname "$0")/.."
. tools/steps-lib.sh # last_stage_step
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "plots: gnuplot not found - install it (Debian/Ubuntu: apt-get install gnuplot-nox, or run tools/setup-slides.sh) and run make plots again" >&2
    exit 2
fi
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
    for d in results/*/ build/bench/*/; do [ -d "$d" ] && dirs+=("$d"); done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
made=0 missing=0 missing_list=""

# cols CSV "COLUMNS" ["col=value ..."]: the columns, tab-separated, one row per line
cols() { awk -f tools/csv.awk -f tools/csv-columns.awk -v cols="$2" -v where="${3:-}" "$1"; }

# what the rows were measured on, and when: "NVIDIA H100 80GB HBM3, 2026-11-22"
label() {
    local csv=$1 machine dates
    machine=$(cols "$csv" gpu | sed 's/_/ /g' | grep -v '^none$\|^NaN$' | sort -u | head -n 1)
    [ -n "$machine" ] || machine=$(basename "$(dirname "$csv")")
    dates=$(cols "$csv" date | sort -u | paste -sd/ -)
    echo "$machine, $dates"
}

# not_drawn NAME: the chart has no CSV in this folder
not_drawn() {
    missing=$((missing + 1))
    case $missing_list in *"$dir:"*) missing_list="$missing_list $1" ;;
                          *) missing_list="$missing_list${missing_list:+;} $dir: $1" ;; esac
}

# Drawn for a slide of 1280 x 720 at full width (1100 x 560, 18-pixel text, the size the
# decks show them at), in colours that stay apart on a projector and for colour-blind
# readers (Okabe and Ito's palette, without its yellow), with thick lines.
palette=$(i=0; for c in 0072B2 D55E00 009E73 CC79A7 E69F00 56B4E9 000000 7F7F7F; do
    i=$((i + 1)); echo "set linetype $i lc rgb '#$c' lw 3 pt 7 ps 1.3"; done
    echo "set linetype cycle 8")

# render NAME: the gnuplot commands on stdin, drawn as SVG; the font gets a generic fallback
render() {
    local name=$1 script
    script=$(cat)
    printf '%s\nset output "%s"\nset termoption noenhanced\nset grid\nset key top left\n%s\n%s\n' \
        "set terminal svg size 1100,560 dynamic font 'Liberation Sans,18' background rgb 'white'" \
        "$tmp/$name.svg" "$palette" "$script" | gnuplot || { echo "plots: gnuplot failed on $name" >&2; exit 1; }
    sed 's/font-family="Liberation Sans"/font-family="Liberation Sans, sans-serif"/g' "$tmp/$name.svg" >"$out/$name.svg"
    made=$((made + 1)) made_here=$((made_here + 1))
}

# lines CSV NAME TITLE XCOL YCOL GROUPCOL XLABEL YLABEL [FILTERS] [LOG] [EXTRA] [PREFIX] [KEY]:
# one line per value of GROUPCOL, y against x; LOG is "x" (base 2), "X" (base 10), "y" or
# both; EXTRA: more rows, in the same tab-separated "group x y" form, drawn as lines of
# their own; PREFIX goes before a group name that is a number ("version " + "6"); KEY
# places the legend (gnuplot's words, default "top right", where the course's falling
# curves leave room; none for a single line)
lines() {
    local csv=$1 name=$2 title=$3 x=$4 y=$5 group=$6 xl=$7 yl=$8 where=${9:-} log=${10:-}
    local extra=${11:-} prefix=${12:-} key=${13:-top right}
    [ -f "$csv" ] || { not_drawn "$name"; return; }
    { cols "$csv" "$group $x $y" "$where"; [ -z "$extra" ] || echo "$extra"; } | awk -F'\t' -v prefix="$prefix" '
        $1 ~ /^[0-9.]+$/ { $1 = prefix $1 }
        { if (!($1 in seen)) { seen[$1] = ++n; name[n] = $1 } rows[seen[$1]] = rows[seen[$1]] $2 "\t" $3 "\n" }
        END { for (i = 1; i <= n; i++) printf "%s%s\t%s\n%s", (i > 1 ? "\n\n" : ""), name[i], name[i], rows[i] }' \
        >"$tmp/$name.dat"
    local blocks; blocks=$(grep -c '^$' "$tmp/$name.dat"); blocks=$((blocks / 2 + 1))
    render "$name" <<EOF
set title "$title\n$(label "$csv")"
set xlabel "$xl"; set ylabel "$yl"; set datafile separator "\t"
$([ "$blocks" -gt 1 ] && echo "set key $key" || echo "unset key")
$([ "${log#*x}" != "$log" ] && echo "set logscale x 2; set format x '2^%L'")
$([ "${log#*X}" != "$log" ] && echo "set logscale x 10")
$([ "${log#*y}" != "$log" ] && echo "set logscale y")
plot for [i=0:$((blocks - 1))] "$tmp/$name.dat" index i using 1:2 with linespoints lt (i + 1) title columnheader(1)
EOF
}

# join_series NAME N: the series $tmp/NAME.1 .. NAME.N ("label<TAB>value" rows) joined on
# their labels, in the order of the first, into $tmp/NAME.j: a label, then a column a
# series (NaN where it has no row)
join_series() {
    awk -F'\t' -v n="$2" -v base="$tmp/$1." '
        BEGIN { for (k = 1; k <= n; k++) while ((getline line < (base k)) > 0) {
                    split(line, p, "\t"); if (!(p[1] in order)) { order[p[1]] = ++m; lab[m] = p[1] }
                    v[p[1], k] = p[2] } }
        END { for (r = 1; r <= m; r++) { printf "%s", lab[r]
                  for (k = 1; k <= n; k++) printf "\t%s", ((lab[r], k) in v) ? v[lab[r], k] : "NaN"
                  printf "\n" } }' >"$tmp/$1.j"
}

# bars CSV NAME TITLE LABELCOL YLABEL "SERIES_TITLE:FILTER:YCOL ..." : clustered bars, log y
bars() {
    local csv=$1 name=$2 title=$3 lab=$4 yl=$5 series=$6
    [ -f "$csv" ] || { not_drawn "$name"; return; }
    local i=0 plot="" s t f ycol
    for s in $series; do
        IFS=: read -r t f ycol <<<"$s"
        i=$((i + 1))
        cols "$csv" "$lab $ycol" "${f//,/ }" >"$tmp/$name.$i"
        plot="$plot${plot:+, }\"$tmp/$name.j\" using $((i + 1)):xtic(1) title \"${t//_/ }\""
    done
    join_series "$name" "$i"
    render "$name" <<EOF
set title "$title\n$(label "$csv")"
set ylabel "$yl"; set logscale y
set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1
set xtics rotate by 45 right; set key outside top center horizontal
plot $plot
EOF
}

# ratio CSV NAME TITLE LABELCOL "SERIES_TITLE:FILTER ..." : each row's time over CUB's in
# the same run (sort_ms / cub_ms: under 1 is faster than CUB), a line per series over the
# labels, and the line at 1.0 - what a log scale of milliseconds hides
ratio() {
    local csv=$1 name=$2 title=$3 lab=$4 series=$5
    [ -f "$csv" ] || { not_drawn "$name"; return; }
    local i=0 plot="" s t f
    for s in $series; do
        IFS=: read -r t f <<<"$s"
        i=$((i + 1))
        cols "$csv" "$lab sort_ms cub_ms" "${f//,/ }" |
            awk -F'\t' '$3 > 0 { printf "%s\t%.4f\n", $1, $2 / $3 }' >"$tmp/$name.$i"
        plot="$plot${plot:+, }\"$tmp/$name.j\" using 0:$((i + 1)):xtic(1) with linespoints lt $i title \"${t//_/ }\""
    done
    join_series "$name" "$i"
    render "$name" <<EOF
set title "$title\n$(label "$csv")"
set ylabel "time / CUB's time"; set datafile separator "\t"; set datafile missing "NaN"
set yrange [0:*]; set offsets 0.3, 0.3, 0, 0; set xtics rotate by 45 right
set key outside top center horizontal
plot $plot, 1 with lines lt 7 dt 2 title "CUB (1.0)"
EOF
}

# phases CSV NAME TITLE: stage 08's sorts as stacked bars of their phases, beside CUB's sort
# of the same keys on one GPU, for each size (the uniform keys of multi08.csv, one process:
# the first row of each size, step and number of GPUs), and beside the library composition
# (CUB, NCCL, CUB) on as many GPUs where the CSV has it (comp_ms)
phases() {
    local csv=$1 name=$2 title=$3 where="dist=uniform"
    head -n 1 "$csv" 2>/dev/null | tr ',' '\n' | grep -qx mpi && where="dist=uniform mpi=0"
    [ -f "$csv" ] || { not_drawn "$name"; return; }
    local cmp=""
    head -n 1 "$csv" | tr ',' '\n' | grep -qx comp_ms && cmp=comp_ms
    cols "$csv" "n step gpus count_ms partition_ms split_ms exchange_ms local_sort_ms cub_ms ${cmp:-cub_ms}" "$where" |
        awk -F'\t' -v with_comp="${cmp:+1}" '
        function size(n,    k) { k = 0; while (n > 1) { n /= 2; k++ } return "2^" k }
        { key = size($1)
          if (!(key in cub) && $9 != "NaN" && $9 != "") { cub[key] = $9; order[++m] = key }
          if ($3 > 1 && !((key, $2, $3) in seen)) {
              seen[key, $2, $3] = 1
              rows[key] = rows[key] sprintf("%s %s x%d\t%s\t%s\t%s\t%s\t%s\tNaN\tNaN\n", key, $2, $3, $4, $5, $6, $7, $8) }
          if (with_comp && $3 > 1 && $10 != "NaN" && $10 != "" && !((key, $3) in comp)) {
              comp[key, $3] = 1
              rows[key] = rows[key] sprintf("%s composition x%d\tNaN\tNaN\tNaN\tNaN\tNaN\tNaN\t%s\n", key, $3, $10) } }
        END { for (i = 1; i <= m; i++) {
                  printf "%s CUB x1\tNaN\tNaN\tNaN\tNaN\tNaN\t%s\tNaN\n", order[i], cub[order[i]]
                  printf "%s", rows[order[i]] } }' >"$tmp/$name.j"
    render "$name" <<EOF
set title "$title\n$(label "$csv")"
set ylabel "time (ms)"; set datafile separator "\t"; set datafile missing "NaN"
set style data histograms; set style histogram rowstacked; set style fill solid 0.85 border -1
set boxwidth 0.7; set xtics rotate by 30 right; set key outside top center horizontal
plot "$tmp/$name.j" using 2:xtic(1) title "count", "" using 3 title "partition", \\
     "" using 4 title "split", "" using 5 title "exchange", "" using 6 title "local sort", \\
     "" using 7 title "CUB, one GPU"$([ -n "$cmp" ] && echo ', "" using 8 title "composition"')
EOF
}

for dir in "${dirs[@]}"; do
    dir=${dir%/}
    case $dir in
        build/*) out=$dir/plots ;;
        *) if [ "${SAVE:-0}" = 1 ]; then out=$dir/plots; else out=build/$dir/plots; fi ;;
    esac
    mkdir -p "$out"
    r=$dir made_here=0
    bars "$r/stages.csv" stages "Every step at its defaults, and CUB on the same keys" step \
        "sort (ms, log scale)" "2^24+1_keys:n=16777217:sort_ms 2^28_keys:n=268435456:sort_ms CUB,_2^24+1:n=16777217:cub_ms CUB,_2^28:n=268435456:cub_ms"
    # CUB's rate, from its time in the same runs as stage 05, is one more line
    cub_rate=""
    [ -f "$r/sizes.csv" ] && cub_rate=$(cols "$r/sizes.csv" "n cub_ms" "stage=05_warp_shuffle" |
        awk -F'\t' '{ printf "CUB (same runs as 05)\t%s\t%.4f\n", $1, $1 / $2 / 1e6 }')
    lines "$r/sizes.csv" sizes "How cost grows: keys per second against the number of keys" \
        n gkeys_s stage "keys (n)" "Gkeys/s" "" xy "$cub_rate" "" "top left"
    lines "$r/sweep01_bits.csv" sweep01_bits "Stage 01: the digit width (sequential, plain mode)" \
        bits sort_ms mode "digit width (bits)" "sort (ms)" "mode=plain"
    lines "$r/sweep02_bits.csv" sweep02_bits "Step 02.2: the digit width (host scatter, GPU histogram and scan)" \
        bits sort_ms stage "digit width (bits)" "sort (ms)"
    lines "$r/sweep03_blocks.csv" sweep03_blocks "Stage 03: block size and in-block scan" \
        block sort_ms scan "threads per block" "sort (ms)" "" x
    lines "$r/sweep04_bits.csv" sweep04_bits "Stage 04: the digit width" \
        bits sort_ms stage "digit width (bits)" "sort (ms)"
    lines "$r/sweep04_block.csv" sweep04_block "Stage 04: threads per block (8 keys per thread)" \
        block sort_ms stage "threads per block" "sort (ms)" "" x
    lines "$r/sweep04_scan_block.csv" sweep04_scan_block "Stage 04: threads per block of the table's scan" \
        scan_block sort_ms stage "threads per scan block" "sort (ms)" "" x
    lines "$r/sweep04_kpt.csv" sweep04_kpt "Stage 04: keys per thread and in-block scan" \
        kpt sort_ms scan "keys per thread" "sort (ms)" "" x
    lines "$r/sweep05_bits.csv" sweep05_bits "Stage 05: each step and the digit width" \
        bits sort_ms step "digit width (bits)" "sort (ms)" "" y "" "step "
    lines "$r/sweep05_kpt.csv" sweep05_kpt "Step 05.4 (multisplit, 8 bits): keys per thread" \
        kpt sort_ms stage "keys per thread" "sort (ms)" "" xy
    bars "$r/sweep07_steps.csv" sweep07_steps "Stage 07: each step, and CUB on the same keys" step \
        "sort (ms, log scale)" "2^24+1_keys:n=16777217:sort_ms 2^28_keys:n=268435456:sort_ms CUB,_2^24+1:n=16777217:cub_ms CUB,_2^28:n=268435456:cub_ms"
    ratio "$r/sweep07_steps.csv" sweep07_vs_cub "Stage 07: each step's time over CUB's, in the same run" step \
        "2^24+1_keys:n=16777217 2^28_keys:n=268435456"
    # the sweep runs the last step: the newest step its CSV holds (a step measured since
    # without this set keeps the chart of the one before it)
    last07=$(awk -F, 'NR > 1 { print $3 }' "$r/sweep07_dist.csv" 2>/dev/null | sort -t. -k1,1n -k2,2n | tail -n 1)
    [ -n "$last07" ] || last07=$(last_stage_step 07)
    bars "$r/sweep07_dist.csv" sweep07_dist "Step $last07 and CUB on every distribution, 2^24+1 keys" dist \
        "sort (ms, log scale)" "$last07:step=$last07:sort_ms CUB:step=$last07:cub_ms"
    bars "$r/nn06.csv" nn06 "Stage 06 at the full size: every version and both cuBLAS baselines" version \
        "time (ms, log scale)" "K_=_5:bins=5:ms K_=_5000:bins=5000:ms"
    lines "$r/nn06_k.csv" nn06_k "Stage 06 at the full size: time against the number of bins K" \
        bins ms version "bins (K)" "time (ms)" "" Xy "" "version " "outside right top"
    phases "$r/multi08.csv" multi08 "Stage 08: each step's phases on several GPUs, and CUB on one"
    phases "$r/steps08.csv" steps08 "Stage 08: each step's phases, CUB on one GPU, and the library composition"
    phases "$r/scale08.csv" scale08 "Stage 08 past 07's limit: 08.3's phases, CUB on one GPU, and the library composition"
    phases "$r/overlap08.csv" overlap08 "Stage 08: 08.4, the exchange in slices beside the sort, against 08.3; CUB on one GPU, the library composition"
    [ "$made_here" -eq 0 ] || echo "plots: $dir: $made_here chart$([ "$made_here" -eq 1 ] || echo s) in $out/"
done
[ "$made" -gt 0 ] || { echo "plots: no CSV found to draw" >&2; exit 1; }
echo "plots: $made charts drawn; $missing have no CSV in their folder, not drawn:$missing_list"
