#!/usr/bin/env bash
# The one command that produces the full-text tables of bench/RESULTS.md
# ("Full-text search"): builds and runs engram's full-text benchmark
# (bench/text/text_benchmark.cc) and prints its tables (Markdown) on stdout,
# with the machine and its load (`uptime`) before and after. The data is read
# from ../shared/data beside the source tree (see /work/shared/data/README.md).
#
# Every table compares engram with SQLite FTS5, Xapian InMemory and Xapian
# glass at equal work (bench/text/equal_work.h): each engine gets the terms
# engram's query parser keeps and the same k, once under engram's semantics
# (AND, relaxed to OR below k hits) and once under plain OR; the harness
# checks and prints that the term lists match. The peers are Debian's
# packages (libsqlite3-0, libxapian30); their versions head each table.
#
#   bench/text/run.sh                 configure + build the `bench` preset, run everything
#   bench/text/run.sh --only scifact  arguments go to text_benchmark
#                                     (--passes N --builds N --queries N --seed S
#                                      --only scifact|debian|filter|scale --data DIR;
#                                      --only scale: engram at 10k, 63,666 and 1M documents;
#                                      --full-sum-postings N: engram's ORs of three or more terms
#                                      and at most N postings summed whole, default 4096, 0 never)
#   BUILD_DIR=build/h7 bench/text/run.sh   use an already configured build directory
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh
bench_build text_benchmark
bench_machine
"$BUILD_DIR/bench/text/text_benchmark" "$@"
echo
echo "load at the end: $(uptime)"
