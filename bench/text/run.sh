#!/usr/bin/env bash
# Builds and runs engram's full-text benchmark (bench/text/text_benchmark.cc)
# and prints its tables (Markdown) on stdout. The data is read from
# ../shared/data beside the source tree (see /work/shared/data/README.md).
#
#   bench/text/run.sh                 configure + build the `bench` preset, run everything
#   bench/text/run.sh --only scifact  arguments go to text_benchmark
#                                     (--passes N --builds N --queries N --seed S
#                                      --only scifact|debian|filter --data DIR)
#   BUILD_DIR=build/h7 bench/text/run.sh   use an already configured build directory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build text_benchmark
bench_machine
exec "$BUILD_DIR/bench/text/text_benchmark" "$@"
