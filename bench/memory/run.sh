#!/usr/bin/env bash
# Memory that changes (issue 20): builds and runs bench/memory/memory_benchmark.cc
# and prints its table (Markdown) on stdout. The timeline is generated from
# --seed (default 7); the store is made afresh under <build>/memory-bench.
#
#   bench/memory/run.sh                          configure + build the `bench` preset, run
#   BUILD_DIR=build/hb bench/memory/run.sh       use an already configured build directory
#   bench/memory/run.sh --subjects 2000 --decay-scale 60   arguments go to memory_benchmark
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build memory_benchmark
echo "command: $BUILD_DIR/bench/memory/memory_benchmark $*"
exec "$BUILD_DIR/bench/memory/memory_benchmark" "$@"
