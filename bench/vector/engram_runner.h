// engram in the vector benchmark: a VectorIndex (HNSW with the planner) built
// with PutBatch on the benchmark's threads, searched through
// VectorIndex::Search with the planner and with each plan forced, so the
// tables show what the planner chose against the alternatives.
#ifndef ENGRAM_BENCH_VECTOR_ENGRAM_RUNNER_H_
#define ENGRAM_BENCH_VECTOR_ENGRAM_RUNNER_H_

#include <memory>
#include <vector>

#include "data.h"
#include "peers.h"
#include "sweep.h"
#include "vector/vector_index.h"

namespace engram::bench {

class EngramSystem {
 public:
  // value_graph_min > 0: every record carries its label as a key, labels
  // with at least that many records get value graphs, and the correlated
  // and anti-correlated filters (unions of labels) come with their labels
  // as the cover, as a filter `label in [...]` gives one in the engine.
  // cover_slack > 0 replaces PlannerConstants::cover_slack in Variants().
  EngramSystem(const Dataset& d, const HnswParams& params, std::size_t value_graph_min = 0,
               double cover_slack = 0);
  ~EngramSystem();
  // PutBatch of every record (ids = record numbers) on `threads` threads.
  BuildInfo Build(std::size_t threads);
  // "engram planner" (ef sweep with 0 = the planner's default first), forced
  // "graph" and "graph_two_hop" (ef sweeps; two-hop on filtered cases only),
  // with value graphs forced "value_graphs" (label filters only), and
  // forced "exact".
  std::vector<Variant> Variants();
  // The planner at its default ef (one point) with `constants` in place of
  // the built-in ones, for --fit.
  Variant Planner(std::string mode, const vector::PlannerConstants& constants);
  // "avx2" or "portable" (the distance kernels in use).
  static std::string Kernel();

 private:
  struct State;
  Variant Make(std::string mode, std::optional<vector::VectorPlan> plan,
               const vector::PlannerConstants& constants);
  std::unique_ptr<State> s_;
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_VECTOR_ENGRAM_RUNNER_H_
