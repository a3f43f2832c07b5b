// The hybrid searches of engine_benchmark (engine_benchmark.cc): each
// filter case's queries run through Engine::Search, the hits checked against
// the filter on the benchmark's side, the latency sampled (wall and thread
// CPU time), and explain on a sample for the plan and the per-stage times.
#ifndef ENGRAM_BENCH_ENGINE_SEARCHES_H_
#define ENGRAM_BENCH_ENGINE_SEARCHES_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "workload.h"

namespace engram::bench {

struct Latency {
  double p50 = 0, p99 = 0, mean = 0;
};

struct SearchRow {
  std::string name, filter;
  double selectivity = 0;
  std::size_t allowed = 0;
  Latency lat, cpu;  // wall and thread-CPU time per search
  std::size_t samples = 0;
  std::size_t checked_hits = 0, violations = 0, short_results = 0;
  std::map<std::string, int> plans;      // vector plan -> count (explain sample)
  std::map<std::string, double> stages;  // mean microseconds per stage (explain sample)
  std::string filter_mode;
  std::size_t explain_allowed = 0;
};

// One warm-up pass over `queries` under filter `f` (every hit checked),
// then `passes` timed passes, then explain on the first `explain` queries.
SearchRow RunSearches(const Engine& engine, const Workload& w,
                      const std::vector<BenchQuery>& queries, const FilterCase& f,
                      std::size_t passes, std::size_t explain);

// The table of the rows (latency in ms), then the mean time per stage.
void PrintSearch(const std::vector<SearchRow>& rows, std::size_t queries);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_ENGINE_SEARCHES_H_
