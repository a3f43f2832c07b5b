#!/usr/bin/env bash
# Builds and runs the embedder benchmark (bench/embed/embed_benchmark.cc) and
# prints its tables (Markdown) on stdout; trains the SciFact fastText model
# first when it is missing (bench/embed/prepare_scifact.sh).
#
#   bench/embed/run.sh                     everything
#   bench/embed/run.sh --only quality      arguments go to embed_benchmark
#                                          (--only quality|speed --passes N --records N
#                                           --model2vec DIR --fasttext FILE --data DIR)
#   BUILD_DIR=build/h7 bench/embed/run.sh  use an already configured build directory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build embed_benchmark
bench/embed/prepare_scifact.sh "$BUILD_DIR/embed-data"
bench_machine
exec "$BUILD_DIR/bench/embed/embed_benchmark" "$@"
