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
source bench/common/run_common.sh
bench_build engine_benchmark
if [[ -z "${VECTORS:-}" ]]; then
  bench/vector/prepare_fasttext.sh "$BUILD_DIR/vector-data"
  VECTORS=$BUILD_DIR/vector-data/fasttext-debian.tsv
fi
bench_machine
echo "command: $BUILD_DIR/bench/engine/engine_benchmark --vectors $VECTORS $*"
exec "$BUILD_DIR/bench/engine/engine_benchmark" --vectors "$VECTORS" "$@"
