// The measuring loop of the vector benchmark: every system is a set of
// Variants (a system in one mode, e.g. engram's planner or FAISS HNSW with an
// IDSelector), each swept over ef on every filter case; a sweep point gives
// recall@k against the exact filtered answer and single-thread QPS.
#ifndef ENGRAM_BENCH_VECTOR_SWEEP_H_
#define ENGRAM_BENCH_VECTOR_SWEEP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/roaring.h"
#include "data.h"
#include "filters.h"

namespace engram::bench {

// One filter case as the systems see it.
struct CaseView {
  const Dataset* data = nullptr;
  FilterSpec spec;
  const std::vector<roaring::Roaring>* allowed = nullptr;  // per query; empty for 100 %
  // The allowed-set of query q; nullptr when the case has no filter.
  const roaring::Roaring* Allowed(std::size_t q) const {
    return allowed == nullptr || allowed->empty() ? nullptr : &(*allowed)[q];
  }
};

struct Variant {
  std::string system;                    // e.g. "engram", "FAISS HNSW + IDSelector"
  std::string mode;                      // e.g. "planner", "graph", "exact"
  std::vector<std::size_t> sweep = {0};  // ef values (one point: {0})
  bool filtered = true;                  // false: runs on the 100 % case only
  bool filters_only = false;             // true: skipped on the 100 % case
  // Stop the sweep once recall reaches 1 (a larger ef only costs time).
  bool stop_at_full_recall = true;
  // Stop the sweep after two points (ef > 0) where every query's note was
  // this one (engram's planner: "exact"; a larger ef only makes the graph
  // plans look dearer, so the plan and the work stay the same).
  std::string stop_when_all;
  // Untimed, before each case (e.g. FAISS selectors from the allowed-sets).
  std::function<void(const CaseView&)> prepare;
  // Untimed, before each sweep point.
  std::function<void(std::size_t ef)> set_ef;
  // One query: the ids of the top k into *out. With `note` (the recall pass,
  // not the timed ones) returns how it was answered (engram: the plan, from
  // VectorExplain); otherwise, and when there is nothing to say, "".
  std::function<std::string_view(std::size_t q, std::vector<std::uint32_t>* out, bool note)> search;

  std::string Label() const { return mode.empty() ? system : system + " " + mode; }
};

struct Point {
  std::string dataset, filter, system, mode;
  FilterSpec spec;
  std::size_t ef = 0;
  double mean_allowed = 0;
  std::size_t queries = 0;
  double recall = 0;           // mean recall@k
  double min_recall = 0;       // worst query
  double qps = 0;              // single thread, by the clock SweepOptions names
  double qps_wall = 0;         // single thread, by wall time
  std::size_t disallowed = 0;  // returned records outside the allowed-set (should be 0)
  std::string notes;           // e.g. "graph 180, exact 20" (plans chosen)
};

struct SweepOptions {
  std::size_t k = 10;
  double min_seconds = 0.15;      // timed passes repeat until this much time is measured
  std::size_t max_passes = 1000;  // ... or this many timed passes
  double max_ms_per_query = 25;   // a slower point ends its sweep
  // QPS from the query thread's CPU time (CLOCK_THREAD_CPUTIME_ID) rather
  // than wall time: on a shared machine other processes' load then does not
  // count against a system (every system searches on the calling thread).
  bool cpu_clock = true;
};

// Runs every applicable variant over `view` and returns its points. Each
// point: one pass collecting the answers (recall, notes; also the warm-up),
// then timed passes over all queries (QPS). Progress goes to stderr.
std::vector<Point> RunCase(const CaseView& view, const std::vector<std::vector<Hit>>& truth,
                           std::vector<Variant>& variants, const SweepOptions& options);

// Interleaved rounds (--interleave R): after a case's sweeps, every variant
// at its fastest point reaching `recall` (BestAtRecall) is timed again for R
// rounds, each round timing one run of passes (SweepOptions::min_seconds)
// per variant, the variants' order rotating from round to round. A drift in
// the machine's speed, which on a shared VM can exceed the differences
// between systems within one sweep, then falls on every variant alike, and
// each round gives a ratio of two variants measured side by side.
struct Interleaved {
  Point point;              // the sweep point (its ef, recall) timed again
  std::vector<double> qps;  // one per round, by the clock SweepOptions names
};
std::vector<Interleaved> RunInterleaved(const CaseView& view, std::vector<Variant>& variants,
                                        const std::vector<Point>& points, double recall,
                                        std::size_t rounds, const SweepOptions& options);
// A markdown table of the rounds: each variant's ef, recall and median QPS,
// and its ratio to the variant labelled `reference` (median and range over
// the rounds), when that one reached the recall.
std::string InterleavedTable(const std::vector<Interleaved>& rows, const std::string& reference);

// The best QPS among `points` of one variant reaching `recall`; 0 if none.
const Point* BestAtRecall(const std::vector<Point>& points, const std::string& system,
                          const std::string& mode, double recall);
// The point of the variant with the highest recall (ties: the faster).
const Point* BestRecall(const std::vector<Point>& points, const std::string& system,
                        const std::string& mode);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_VECTOR_SWEEP_H_
