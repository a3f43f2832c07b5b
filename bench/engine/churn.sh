#!/usr/bin/env bash
# Store/forget churn (issue 18): builds churn_benchmark, runs the churn, then
# writes the final live set into a fresh store in a second process, and
# prints both with the ratios, and a plot of RSS and store size over the
# operations (gnuplot) beside the CSV.
#   bench/engine/churn.sh [--live L] [--ops N] [--dim D] [--batch B] [--every E]
#   BUILD_DIR=build/hb bench/engine/churn.sh    use an already configured build directory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build churn_benchmark
bench_machine
work=$BUILD_DIR/churn-bench
rm -rf "$work"
mkdir -p "$work"
echo "command: $BUILD_DIR/bench/engine/churn_benchmark --work $work $*"
churned=$("$BUILD_DIR/bench/engine/churn_benchmark" --work "$work" "$@" | tee /dev/stderr | grep '^CHURNED')
dim=384
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do [[ ${args[i]} == --dim ]] && dim=${args[i + 1]}; done
fresh=$("$BUILD_DIR/bench/engine/churn_benchmark" --work "$work" --dim "$dim" --fresh "$work/live.txt" | grep '^FRESH')
echo "$fresh"
# The value of " KEY=" (the space keeps first_recall10= from matching recall10=).
value() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$2"; }
printf '| | RSS MiB | store MiB | recall@10 | p50 ms |\n|---|---:|---:|---:|---:|\n'
printf '| fresh store, same live set | %s | %s | %s | %s |\n' "$(value rss_mib "$fresh")" "$(value store_mib "$fresh")" "$(value recall10 "$fresh")" "$(value p50_ms "$fresh")"
printf '| after the churn | %s | %s | %s | %s |\n' "$(value rss_mib "$churned")" "$(value store_mib "$churned")" "$(value recall10 "$churned")" "$(value p50_ms "$churned")"
awk -v a="$(value rss_mib "$churned")" -v b="$(value rss_mib "$fresh")" -v c="$(value store_mib "$churned")" -v d="$(value store_mib "$fresh")" \
  'BEGIN { printf "| ratio churned / fresh | %.2fx | %.2fx | | |\n", a / b, c / d }'
if command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output "$work/churn.png"
set datafile separator ","
set key autotitle columnhead
set xlabel "store/forget operations"
set ylabel "MiB"
plot "$work/churn.csv" using 1:3 with linespoints title "RSS", "$work/churn.csv" using 1:4 with linespoints title "store on disk"
GP
  echo "plot: $work/churn.png"
fi
