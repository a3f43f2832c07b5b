#!/usr/bin/env bash
# Count and facets over 1,000,000 synthetic memories (issue 20): builds the
# store with bench/recovery's benchmark (once, under <build>/recovery-bench,
# no checkpoints or kills measured), then runs count_facets_benchmark on it
# and prints its table (Markdown) on stdout.
#
#   bench/listing/run.sh                         configure + build the `bench` preset, run
#   BUILD_DIR=build/hb bench/listing/run.sh      use an already configured build directory
#   RECORDS=100000 bench/listing/run.sh          a smaller store
#   bench/listing/run.sh --iterations 500        arguments go to count_facets_benchmark
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build recovery_benchmark
bench_build count_facets_benchmark
records=${RECORDS:-1000000}
work=$BUILD_DIR/recovery-bench
"$BUILD_DIR/bench/recovery/recovery_benchmark" --work "$work" --records "$records" \
  --checkpoints 0 --kills 0 >&2
bench_machine
echo "command: $BUILD_DIR/bench/listing/count_facets_benchmark --store $work/store-$records-0-42 $*"
exec "$BUILD_DIR/bench/listing/count_facets_benchmark" --store "$work/store-$records-0-42" "$@"
