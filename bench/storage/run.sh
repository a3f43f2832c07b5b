#!/usr/bin/env bash
# Builds and runs engram's ingest benchmark (bench/storage/ingest_benchmark.cc)
# and prints its table (Markdown) on stdout: durable batches of 1, 100 and
# 1000 synthetic memories into the SQLite store (WAL, synchronous=FULL) and
# the PostgreSQL store (a private PostgreSQL 15 with fsync=on,
# synchronous_commit=on), through Store::Apply and Engine::Upsert. Stores are
# made fresh under <build>/ingest-bench and removed after.
#
#   bench/storage/run.sh                          configure + build the `bench` preset, run
#   BUILD_DIR=build/hb bench/storage/run.sh       use an already configured build directory
#   bench/storage/run.sh --seconds 5              arguments go to ingest_benchmark
#     (--work DIR --seconds S --max-records N --batches LIST --stores LIST
#      --levels LIST --seed S)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build ingest_benchmark
bench_machine
dpkg-query -W -f '${Package} ${Version}\n' postgresql-15 libsqlite3-0 libpq5 2>/dev/null || true
echo "command: $BUILD_DIR/bench/storage/ingest_benchmark $*"
exec "$BUILD_DIR/bench/storage/ingest_benchmark" "$@"
