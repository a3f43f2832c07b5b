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
  std::size_t value_graph_min = 0;
  vector::PlannerConstants constants;  // of Variants()
  // The explains of the current point's noted pass, summed: printed per
  // query when the next point starts (ReportWork).
  std::string point;  // "mode ef N"
  std::size_t noted = 0;
  double distances = 0, keys = 0;

  void ReportWork() {
    if (noted > 0) {
      fmt::print(stderr, "    engram {}: per query {:.0f} distances, {:.1f} value keys searched\n",
                 point, distances / noted, keys / noted);
    }
    noted = 0;
    distances = keys = 0;
  }
  CaseView current;
  // Per query of the current case: the labels its allowed records carry
  // (empty: the case is not a label filter).
  std::vector<std::vector<std::string>> covers;
  vector::VectorSearchOptions options;
  vector::VectorExplain explain;
};

std::string EngramSystem::Kernel() {
  return std::string(vector::KernelName());
}

EngramSystem::EngramSystem(const Dataset& d, const HnswParams& params, std::size_t value_graph_min,
                           double cover_slack)
    : s_(std::make_unique<State>()) {
  s_->d = &d;
  s_->params = params;
  s_->value_graph_min = value_graph_min;
  if (cover_slack > 0) s_->constants.cover_slack = cover_slack;
}

std::string LabelKey(std::uint32_t label) {
  return fmt::format("label={}", label);
}

EngramSystem::~EngramSystem() = default;

BuildInfo EngramSystem::Build(std::size_t threads) {
  const Dataset& d = *s_->d;
  vector::VectorIndexOptions o;
  o.dim = d.dim;
  o.metric = d.cosine ? vector::Metric::kCosine : vector::Metric::kL2;
  o.hnsw.m = s_->params.m;
  o.hnsw.ef_construction = s_->params.ef_construction;
  o.quantize = s_->params.quantize;
  std::vector<std::uint32_t> ids(d.n());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::uint32_t>(i);
  if (s_->value_graph_min > 0) o.value_graph_min = s_->value_graph_min;
  auto t0 = std::chrono::steady_clock::now();
  s_->index = std::make_unique<vector::VectorIndex>(o);
  if (s_->value_graph_min > 0) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::string key = LabelKey(d.labels[i]);
      const Status set = s_->index->SetKeys(ids[i], std::span(&key, 1));
      if (!set.ok()) throw std::runtime_error("engram SetKeys: " + set.ToString());
    }
  }
  std::size_t last = 0;
  Status st = s_->index->PutBatch(ids, d.base, threads, [&](std::size_t done) {
    if (done >= last + d.n() / 10 || done == d.n()) {
      last = done;
      fmt::print(stderr, "  engram build {}: {} / {}\n", d.name, done, d.n());
    }
  });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!st.ok()) throw std::runtime_error("engram PutBatch: " + st.ToString());
  if (s_->value_graph_min > 0) {
    fmt::print(stderr, "  engram value graphs: {} of {} labels (min {} records)\n",
               s_->index->values().graphs(), s_->index->values().keys(), s_->value_graph_min);
  }
  return {s_->value_graph_min > 0 ? fmt::format("engram VectorIndex + value graphs (labels, min "
                                                "{} records)",
                                                s_->value_graph_min)
                                  : "engram VectorIndex",
          seconds,
          threads,
          static_cast<double>(s_->index->MemoryBytes()) / static_cast<double>(d.n()),
          "VectorIndex::MemoryBytes() (vectors + graph + value graphs)",
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
  v.prepare = [s](const CaseView& view) {
    s->ReportWork();
    s->current = view;
    s->covers.clear();
    const bool labels = view.spec.correlation == Correlation::kCorrelated ||
                        view.spec.correlation == Correlation::kAnti ||
                        view.spec.correlation == Correlation::kMixed;
    if (s->value_graph_min == 0 || !labels || view.allowed == nullptr) return;
    for (const roaring::Roaring& allowed : *view.allowed) {
      std::vector<char> seen(s->d->num_labels, 0);
      std::vector<std::string> cover;
      for (std::uint32_t id : allowed) {
        const std::uint32_t l = s->d->labels[id];
        if (!seen[l]) seen[l] = 1, cover.push_back(LabelKey(l));
      }
      s->covers.push_back(std::move(cover));
    }
  };
  v.set_ef = [s, plan, constants, mode = v.mode](std::size_t ef) {
    s->ReportWork();
    s->point = fmt::format("{} ef {}", mode, ef);  // the planner's default: ef 0
    s->options = vector::VectorSearchOptions{};
    s->options.k = s->params.k;
    s->options.ef = ef;
    s->options.plan = plan;
    s->options.planner = constants;
  };
  v.search = [s](std::size_t q, std::vector<std::uint32_t>* out, bool note) -> std::string_view {
    const float* query = s->d->query(q);
    s->options.cover = s->covers.empty() ? nullptr : &s->covers[q];
    auto hits = s->index->Search(std::span<const float>(query, s->d->dim), s->options,
                                 s->current.Allowed(q), note ? &s->explain : nullptr);
    if (!hits.ok()) throw std::runtime_error("engram Search: " + hits.status().ToString());
    for (const vector::Neighbor& n : *hits) out->push_back(n.id);
    if (note) {
      ++s->noted;
      s->distances += static_cast<double>(s->explain.distances);
      s->keys += static_cast<double>(s->explain.value_graphs);
    }
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
  auto make = [this, s](std::string mode, std::optional<vector::VectorPlan> plan) {
    return Make(std::move(mode), plan, s->constants);
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
  // The same graph walked another way, unfiltered only: options set after
  // each ef's.
  auto unfiltered_graph = [&](std::string mode, void (*tweak)(vector::VectorSearchOptions&)) {
    Variant v = make(std::move(mode), vector::VectorPlan::kGraph);
    v.sweep = s->params.efs;
    v.filtered = false;
    v.set_ef = [s, set_ef = v.set_ef, tweak](std::size_t ef) {
      set_ef(ef);
      tweak(s->options);
    };
    out.push_back(std::move(v));
  };
  if (s->params.quantize) {  // on its floats
    unfiltered_graph("graph floats", [](vector::VectorSearchOptions& o) { o.quantized = false; });
  }
  // Descended greedily on level 1 (hnswlib's descent), for the default
  // width's effect side by side.
  unfiltered_graph("graph greedy", [](vector::VectorSearchOptions& o) { o.upper_beam = 1; });
  Variant two_hop = make("graph_two_hop", vector::VectorPlan::kGraphTwoHop);
  two_hop.sweep = s->params.efs;
  two_hop.filters_only = true;
  out.push_back(std::move(two_hop));
  if (s->value_graph_min > 0) {
    Variant values = make("value_graphs", vector::VectorPlan::kValueGraphs);
    values.sweep = s->params.efs;
    values.filters_only = true;
    out.push_back(std::move(values));
  }
  out.push_back(make("exact", vector::VectorPlan::kExact));
  return out;
}

}  // namespace engram::bench
