#!/usr/bin/env bash
# Builds and runs engram's end-to-end engine benchmark
# (bench/engine/engine_benchmark.cc) and prints its tables (Markdown) on
# stdout. The packages are read from ../shared/data/debian; the fastText
# vectors are made by bench/vector/prepare_fasttext.sh (skipped when the file
# exists). The stores are written under <build>/engine-bench (on disk: the
# ingest is durable, an fsync per batch).
#
#   bench/engine/run.sh                        configure + build the `bench` preset, run
#   BUILD_DIR=build/hb bench/engine/run.sh     use an already configured build directory
#   VECTORS=path/fasttext-debian.tsv bench/engine/run.sh   reuse prepared vectors
#   bench/engine/run.sh --passes 5 --no-split  arguments go to engine_benchmark
#     (--data DIR --vectors FILE --work DIR --batch N --queries N --passes N
#      --explain N --seed S --threads N --limit N --no-split --no-rebuild,
#      or --reopen STORE_DIR alone to time Engine::Open of an existing store)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [[ -z "${BUILD_DIR:-}" ]]; then
  cmake --preset bench >/dev/null
  cmake --build --preset bench --target engine_benchmark
  BUILD_DIR=build/bench
else
  cmake --build "$BUILD_DIR" --target engine_benchmark
fi
if [[ -z "${VECTORS:-}" ]]; then
  bench/vector/prepare_fasttext.sh "$BUILD_DIR/vector-data"
  VECTORS=$BUILD_DIR/vector-data/fasttext-debian.tsv
fi
echo "# machine"
lscpu | grep -E '^(Model name|CPU\(s\)|L2 cache|L3 cache):' | sed 's/  */ /g'
free -g | sed -n 2p | awk '{print "Memory: " $2 " GiB"}'
uptime
echo "command: $BUILD_DIR/bench/engine/engine_benchmark --vectors $VECTORS $*"
exec "$BUILD_DIR/bench/engine/engine_benchmark" --vectors "$VECTORS" "$@"
