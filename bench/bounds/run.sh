#!/usr/bin/env bash
# Builds and runs the bounds benchmark (bench/bounds/bounds_benchmark.cc) and
# prints its tables (Markdown) on stdout. The store is written under
# <build>/bounds-bench (on disk: the ingest is durable).
#
#   bench/bounds/run.sh                        configure + build the `bench` preset, run
#   BUILD_DIR=build/release bench/bounds/run.sh   use an already configured build directory
#   bench/bounds/run.sh --keep --records 1000000  arguments go to bounds_benchmark
#     (--records N --vocabulary N --seed S --work DIR --timeout SECONDS --passes N
#      --big N --contend SECONDS --keep)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build bounds_benchmark
bench_machine
echo "command: $BUILD_DIR/bench/bounds/bounds_benchmark --work $BUILD_DIR/bounds-bench $*"
exec "$BUILD_DIR/bench/bounds/bounds_benchmark" --work "$BUILD_DIR/bounds-bench" "$@"
