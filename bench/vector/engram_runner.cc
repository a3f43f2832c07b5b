#include "engram_runner.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include <fmt/core.h>

#include "vector/distance/distance.h"
#include "vector/vector_index.h"

namespace engram::bench {

struct EngramSystem::State {
  const Dataset* d = nullptr;
  HnswParams params;
  std::unique_ptr<vector::VectorIndex> index;
  CaseView current;
  vector::VectorSearchOptions options;
  vector::VectorExplain explain;
};

std::string EngramSystem::Kernel() {
  return std::string(vector::KernelName());
}

EngramSystem::EngramSystem(const Dataset& d, const HnswParams& params)
    : s_(std::make_unique<State>()) {
  s_->d = &d;
  s_->params = params;
}

EngramSystem::~EngramSystem() = default;

BuildInfo EngramSystem::Build(std::size_t threads) {
  const Dataset& d = *s_->d;
  vector::VectorIndexOptions o;
  o.dim = d.dim;
  o.metric = d.cosine ? vector::Metric::kCosine : vector::Metric::kL2;
  o.hnsw.m = s_->params.m;
  o.hnsw.ef_construction = s_->params.ef_construction;
  std::vector<std::uint32_t> ids(d.n());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>(i);
  auto t0 = std::chrono::steady_clock::now();
  s_->index = std::make_unique<vector::VectorIndex>(o);
  std::size_t last = 0;
  Status st = s_->index->PutBatch(ids, d.base, threads, [&](std::size_t done) {
    if (done >= last + d.n() / 10 || done == d.n()) {
      last = done;
      fmt::print(stderr, "  engram build {}: {} / {}\n", d.name, done, d.n());
    }
  });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!st.ok()) throw std::runtime_error("engram PutBatch: " + st.ToString());
  return {"engram VectorIndex",
          seconds,
          threads,
          static_cast<double>(s_->index->MemoryBytes()) / static_cast<double>(d.n()),
          "VectorIndex::MemoryBytes() (vectors + graph)",
          "this tree, bench preset (RelWithDebInfo: -O2 -g), distance kernels chosen at run "
          "time: " +
              Kernel()};
}

Variant EngramSystem::Make(std::string mode, std::optional<vector::VectorPlan> plan,
                           const vector::PlannerConstants& constants) {
  State* s = s_.get();
  Variant v;
  v.system = "engram";
  v.mode = std::move(mode);
  v.prepare = [s](const CaseView& view) { s->current = view; };
  v.set_ef = [s, plan, constants](std::size_t ef) {
    s->options = vector::VectorSearchOptions{};
    s->options.k = s->params.k;
    s->options.ef = ef;
    s->options.plan = plan;
    s->options.planner = constants;
  };
  v.search = [s](std::size_t q, std::vector<std::uint32_t>* out, bool note) -> std::string_view {
    const float* query = s->d->query(q);
    auto hits = s->index->Search(std::span<const float>(query, s->d->dim), s->options,
                                 s->current.Allowed(q), note ? &s->explain : nullptr);
    if (!hits.ok()) throw std::runtime_error("engram Search: " + hits.status().ToString());
    for (const vector::Neighbor& n : *hits) out->push_back(n.id);
    return note ? vector::VectorPlanName(s->explain.plan) : std::string_view{};
  };
  return v;
}

Variant EngramSystem::Planner(std::string mode, const vector::PlannerConstants& constants) {
  Variant v = Make(std::move(mode), std::nullopt, constants);
  v.sweep = {0};
  return v;
}

std::vector<Variant> EngramSystem::Variants() {
  State* s = s_.get();
  auto make = [this](std::string mode, std::optional<vector::VectorPlan> plan) {
    return Make(std::move(mode), plan, vector::PlannerConstants{});
  };
  std::vector<Variant> out;
  Variant planner = make("planner", std::nullopt);
  planner.sweep = {0};  // 0: the planner's own ef
  planner.sweep.insert(planner.sweep.end(), s->params.efs.begin(), s->params.efs.end());
  planner.stop_at_full_recall = false;  // the plan may change with ef
  planner.stop_when_all = "exact";
  out.push_back(std::move(planner));
  Variant graph = make("graph", vector::VectorPlan::kGraph);
  graph.sweep = s->params.efs;
  out.push_back(std::move(graph));
  Variant two_hop = make("graph_two_hop", vector::VectorPlan::kGraphTwoHop);
  two_hop.sweep = s->params.efs;
  two_hop.filters_only = true;
  out.push_back(std::move(two_hop));
  out.push_back(make("exact", vector::VectorPlan::kExact));
  return out;
}

}  // namespace engram::bench
