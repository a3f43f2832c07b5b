#!/usr/bin/env bash
# Builds and runs engram's recovery benchmark (bench/recovery/recovery_benchmark.cc)
# and prints its tables (Markdown) on stdout: a store of 1,000,000 synthetic
# memories, checkpoints under a write load, and Engine::Open after kill -9 at
# random moments of that load. The store is built once under
# <build>/recovery-bench (on disk: every write is durable) and reused.
#
#   bench/recovery/run.sh                          configure + build the `bench` preset, run
#   BUILD_DIR=build/hb bench/recovery/run.sh       use an already configured build directory
#   bench/recovery/run.sh --kills 20 --dim 384     arguments go to recovery_benchmark
#     (--work DIR --records N --dim D --seed S --batch N --new-share F
#      --checkpoints N --kills N --kill-min S --kill-max S --checkpoint-records N
#      --checkpoint-interval-ms N --threads N --keep-killed,
#      or --reopen STORE_DIR alone to time Engine::Open of a store, for profiling)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build recovery_benchmark
bench_machine
echo "command: $BUILD_DIR/bench/recovery/recovery_benchmark $*"
exec "$BUILD_DIR/bench/recovery/recovery_benchmark" "$@"
