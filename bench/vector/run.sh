#!/usr/bin/env bash
# Builds and runs engram's filtered vector search benchmark
# (bench/vector/vector_benchmark.cc), prepares the fastText vectors when
# missing (prepare_fasttext.sh, cached), prints the Markdown tables on stdout
# and renders the recall-vs-QPS plots into bench/vector/plots/ with gnuplot.
# Data is read from ../shared/data beside the source tree; prepared files,
# the ground-truth cache and the results (CSV, Markdown, plot data) go under
# the build directory (vector-data/, vector-results/).
#
#   bench/vector/run.sh              sift5k, fasttext, synthetic-100k (~12 min of CPU on 2
#                                    cores, plus ~7 min to prepare the fastText vectors once)
#   bench/vector/run.sh 1m           the same plus synthetic-1m (~30 min of CPU more, most of
#                                    it the FAISS and hnswlib builds; 60 min at load ~10)
#   bench/vector/run.sh sift5k synthetic-1m   just these datasets
#   bench/vector/run.sh -- --queries 100 --efs 16,64,256   arguments after -- go to
#                                    vector_benchmark (see its usage comment)
#   BUILD_DIR=build/h3 bench/vector/run.sh   use an already configured build directory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

datasets=()
extra=()
add_1m=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; extra=("$@"); break ;;
    1m) add_1m=1 ;;
    sift5k | fasttext | synthetic-100k | synthetic-1m) datasets+=("$1") ;;
    *) echo "run.sh: unknown argument $1 (datasets: sift5k fasttext synthetic-100k synthetic-1m, 1m, -- ARGS)" >&2
       exit 2 ;;
  esac
  shift
done
[[ ${#datasets[@]} -eq 0 ]] && datasets=(sift5k fasttext synthetic-100k)
[[ $add_1m -eq 1 ]] && datasets+=(synthetic-1m)

source bench/common/run_common.sh
bench_build vector_benchmark
work=$BUILD_DIR/vector-data
results=$BUILD_DIR/vector-results

for d in "${datasets[@]}"; do
  [[ $d == fasttext ]] && bench/vector/prepare_fasttext.sh "$work"
done

bench_machine
list=$(IFS=,; echo "${datasets[*]}")
"$BUILD_DIR/bench/vector/vector_benchmark" --datasets "$list" --work "$work" --out "$results" \
  ${extra[@]+"${extra[@]}"}

mkdir -p bench/vector/plots
for d in "${datasets[@]}"; do
  for sel in 100 50 10 1 0.1; do
    [[ $sel == 100 ]] && probe=none || probe=uncorrelated
    [[ -f $results/plot/$d-sel$sel-$probe.dat ]] || continue
    gnuplot -e "datadir='$results/plot'; dataset='$d'; sel='$sel'; out='bench/vector/plots/$d-sel$sel.png'" \
      bench/vector/plot.gp
  done
done
echo >&2 "run.sh: CSV and Markdown in $results, plots in bench/vector/plots"
