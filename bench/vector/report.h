// The outputs of the vector benchmark: every sweep point as CSV, the data
// files plot.gp draws (recall against QPS per selectivity), and the Markdown
// summary per dataset x filter with the aims checked.
#ifndef ENGRAM_BENCH_VECTOR_REPORT_H_
#define ENGRAM_BENCH_VECTOR_REPORT_H_

#include <string>
#include <vector>

#include "common/json_out.h"
#include "data.h"
#include "peers.h"
#include "sweep.h"

namespace engram::bench {

struct AimTally {
  std::size_t cases = 0, recall_met = 0, speed_cases = 0, speed_met = 0;
  std::size_t build_cases = 0, build_met = 0;
};

// All points of one dataset, one line each (header included).
void WriteCsv(const std::string& path, const std::vector<Point>& points);

// One file per (selectivity, correlation): `<dir>/<dataset>-sel<S>-<corr>.dat`,
// one gnuplot data block per variant (recall, QPS, ef, a fixed style number
// per system; a title line first), blocks separated by two blank lines.
void WritePlotData(const std::string& dir, const Dataset& d, const std::vector<Point>& points);

// The Markdown section of one dataset: its description, the builds, and one
// row per filter. `recall` is the target (0.95). Adds to `tally`.
std::string Summary(const Dataset& d, const std::vector<BuildInfo>& builds,
                    const std::vector<Point>& points, double recall, bool with_engram,
                    AimTally* tally);

// One --json-out row per filter and system of `d`: {"dataset","filter",
// "kept","system","qps_at_095","max_recall","bytes_per_vector"}, systems
// engram-planner, engram-graph, engram-two-hop, engram-exact, faiss-hnsw,
// faiss-scan, hnswlib; qps_at_095 null when `recall` was never reached.
void WriteJsonRows(const Dataset& d, const std::vector<BuildInfo>& builds,
                   const std::vector<Point>& points, double recall, JsonOut& out);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_VECTOR_REPORT_H_
