// VectorIndex::Search: the planner. It compares
// the estimated cost of two plans, in units of one exact-scan distance (a
// sequential, prefetched read):
//   exact           = the allowed records;
//   graph, walk all = walk_cost * ef / s: a walk that keeps only allowed
//                     records visits about 1/s nodes per kept one, and a graph
//                     distance (a random read plus heap work) costs more;
// where s is the selectivity the walk meets near the query. A filter
// anti-correlated with the query leaves few allowed records there and one
// correlated with it keeps many, so the global share can mislead both ways:
//  - the walk looks cheaper at the global share: it runs, and its first
//    HnswSearchStats::kNear expansions (the query's neighbourhood, allowed or
//    not) are checked; none allowed means the allowed records lie beyond the
//    neighbourhood, where a walk that keeps ef candidates does not reach
//    (measured on 1M x 128: recall 0.2-0.3 at 10-50 % kept), so the answer
//    is the exact scan's instead;
//  - the scan looks cheaper, but a walk meeting only allowed records (s = 1)
//    plus a sample would beat it: the query's unfiltered neighbourhood is
//    sampled (kSampleEf nearest) and s is the allowed share there. At 1 %
//    kept on 1M vectors the global share always says "scan", yet a
//    correlated filter's walk is 3.5x faster.
// A walk that runs first costs no sample: on 4,800 SIFT vectors at 50 %
// kept, the sample cost a third of the graph plan's speed. walk_cost and the
// default ef (PlannerConstants) are fitted by bench/vector's --fit, where
// the vectors come from memory. On the index searched, the value graphs' and
// the sample's estimates are scaled by their time per unit over the exact
// scan's as measured there, and the sample runs only where the saving
// expected of it, from what samples saved there, exceeds its cost
// (plan_costs.h).
//
// The two-hop walk (ACORN-1) is measured there too but never chosen: on the
// clustered sets it lost recall at 1 % and under anti-correlated filters
// (0.3-0.6 at any ef) where exact scans win anyway, and it did not beat the
// walk-all plan at 10 %. It stays available as a forced plan.
//
// With a filter on graph fields the value graphs are a third plan
// (vector_index_cover.cc), planned once and compared first with the best any
// walk could do (s = 1), so that a filter they serve pays no sample, then
// with the walk once its cost is known, and run if the walk gives up.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "base/deadline.h"
#include "base/status.h"
#include "vector/exact/exact_search.h"
#include "vector/vector_index.h"

namespace engram::vector {
namespace {

// The cost model's walk cost and default ef are PlannerConstants (fitted).
// Sampling the neighbourhood costs one small unfiltered search.
constexpr std::size_t kSampleEf = 32;
constexpr double kPrior = 8;

std::size_t PlanEf(std::size_t k, const VectorSearchOptions& options) {
  return options.ef != 0 ? std::max(options.ef, k) : std::max(options.planner.default_ef, 2 * k);
}

// Notes a run that started at `start` and cost `units` by the estimate,
// unless the deadline cut it short.
void NoteRun(PlanCosts& costs, PlanCosts::Kind kind, PlanCosts::Clock::time_point start,
             double units, const Deadline* deadline) {
  if (deadline != nullptr && deadline->Passed()) return;
  costs.Note(kind, PlanCosts::Clock::now() - start, units);
}

}  // namespace

std::string_view VectorPlanName(VectorPlan plan) {
  switch (plan) {
    case VectorPlan::kExact:
      return "exact";
    case VectorPlan::kGraph:
      return "graph";
    case VectorPlan::kGraphTwoHop:
      return "graph_two_hop";
    case VectorPlan::kValueGraphs:
      return "value_graphs";
  }
  return "exact";
}

StatusOr<std::vector<Neighbor>> VectorIndex::Search(std::span<const float> query,
                                                    const VectorSearchOptions& options,
                                                    const roaring::Roaring* allowed,
                                                    VectorExplain* explain) const {
  ASSIGN_OR_RETURN(std::vector<float> q, store_->PrepareQuery(query));
  VectorExplain local;
  VectorExplain& ex = explain != nullptr ? *explain : local;
  ex = VectorExplain{};
  ex.live = store_->size();
  ex.quantized = quantized() && options.quantized;
  ex.allowed = allowed == nullptr ? ex.live : allowed->and_cardinality(store_->live());
  ex.selectivity = ex.live == 0 ? 0 : static_cast<double>(ex.allowed) / ex.live;
  const std::size_t k = std::min(options.k, ex.allowed);
  if (k == 0) {
    ex.reason = ex.allowed == 0 ? "no live record is allowed" : "k is 0";
    return std::vector<Neighbor>{};
  }

  const bool may_cover = options.cover != nullptr && allowed != nullptr;
  // The value graphs' plan, kept for a walk that finds its records beyond it.
  std::optional<CoverPlan> walk_fallback;
  // The planner's walk runs first, unsampled: noted whether it kept going.
  bool walk_first = false;
  if (options.plan) {
    ex.plan = *options.plan;
    ex.reason = "plan forced by the caller";
    if (ex.plan == VectorPlan::kValueGraphs) {
      std::optional<CoverPlan> cover;
      if (may_cover) {
        cover = PlanCover(PlanEf(k, options), options, *allowed,
                          std::numeric_limits<double>::infinity());
      }
      if (cover) return RunCover(*cover, q, k, options, *allowed, ex, nullptr);
      ex.plan = VectorPlan::kExact;  // no value graph to walk
    }
  } else {
    // Estimated costs (file comment), in exact-scan distances; the value
    // graphs' and the sample's scaled by their time per unit over the exact
    // scan's, as measured on this index (plan_costs.h).
    const bool measured = options.planner.measured;
    auto factor = [&](PlanCosts::Kind kind) { return measured ? costs_->Factor(kind) : 1.0; };
    const double exact_cost = static_cast<double>(ex.allowed);
    const double ef = static_cast<double>(PlanEf(k, options));
    const double walk = options.planner.walk_cost;
    // A graph plan also scans the records not in the graph (staged, or
    // outside the dot copy's range).
    const double unlinked = static_cast<double>(pending_.cardinality() + side_.cardinality());
    double walk_cost = walk * ef / ex.selectivity + unlinked;
    // A walk meeting only allowed records near the query, and the sample
    // that would tell.
    const double best_walk = walk * ef + unlinked;
    const double sample_units = walk * kSampleEf;
    const double sample_cost = sample_units * factor(PlanCosts::kSample);
    // Planned once: the value graphs' cost is compared with the others' as
    // each becomes known, and none exceeds the exact scan's.
    const double cover_factor = factor(PlanCosts::kValueGraphs);
    std::optional<CoverPlan> cover;
    if (may_cover) {
      cover = PlanCover(PlanEf(k, options), options, *allowed, exact_cost / cover_factor);
      if (cover) cover->cost *= cover_factor;
    }
    // Runs the value graphs' plan, timed.
    auto run_cover = [&](const char* why) {
      const auto start = PlanCosts::Clock::now();
      std::vector<Neighbor> hits = RunCover(*cover, q, k, options, *allowed, ex, why);
      NoteRun(*costs_, PlanCosts::kValueGraphs, start, cover->units, options.deadline);
      return hits;
    };
    // What was measured, for explain.
    auto measured_note = [&] {
      return !measured ? std::string()
                       : fmt::format(
                             "; as measured here (against the scan's), the value graphs cost "
                             "{:.2f}x their estimates, the sample {:.2f}x; samples saved {:.0f} "
                             "% of what they could, walks run first kept going {:.0f} %",
                             cover_factor, sample_cost / sample_units,
                             100 * costs_->MeanShare(PlanCosts::kSampleSaved),
                             100 * costs_->MeanShare(PlanCosts::kWalkKept));
    };
    if (cover && ex.selectivity < 1) {
      // Value graphs cheaper than any walk could be (at the global share
      // unsampled, or sampled and meeting only allowed records) are taken
      // before the sample.
      const double least_walk = std::min(walk_cost, best_walk + sample_cost);
      if (explain != nullptr) {
        ex.reason = fmt::format("estimated cost: exact {:.0f}, a graph walk at least {:.0f}{}",
                                exact_cost, least_walk, measured_note());
      }
      if (cover->cost < std::min(exact_cost, least_walk)) {
        return run_cover(explain ? "; the filter's value graphs are cheaper" : nullptr);
      }
    }
    // The sample runs where the walk at the global share costs more than
    // the other plans and the saving expected of it (what it could save,
    // times the share of that samples saved here) exceeds its cost.
    const double to_beat = cover ? std::min(exact_cost, cover->cost) : exact_cost;
    const double may_save = to_beat - best_walk;
    auto share = [&](PlanCosts::Share s) { return measured ? costs_->MeanShare(s) : 1.0; };
    bool sampled = false, far = false;  // far: the sample met no allowed record
    if (ex.selectivity < 1 && walk_cost >= exact_cost &&
        share(PlanCosts::kSampleSaved) * may_save > sample_cost) {
      sampled = true;
      // Whether the filter keeps more near the query than overall.
      HnswSearchStats sample_stats;
      HnswSearchParams sample_params{kSampleEf};
      sample_params.codes = options.quantized;
      sample_params.upper_beam = options.upper_beam;
      const auto start = PlanCosts::Clock::now();
      const auto sample = GraphSearch(q, kSampleEf, sample_params, nullptr, &sample_stats);
      NoteRun(*costs_, PlanCosts::kSample, start, sample_units, options.deadline);
      ex.distances += sample_stats.distances;
      if (!sample.empty()) {
        std::size_t in = 0;
        for (const Neighbor& n : sample) in += allowed->contains(n.id) ? 1 : 0;
        ex.local_selectivity = static_cast<double>(in) / sample.size();
        // The share near the query, with the global share as a prior worth
        // kPrior samples (so that 0 of 32 at 5 % is not read as "none").
        const double near = (static_cast<double>(in) + kPrior * ex.selectivity) /
                            (static_cast<double>(sample.size()) + kPrior);
        walk_cost = walk * ef / near + unlinked;
        far = in == 0 && sample.size() >= kSampleEf / 2;
      }
      if (measured) {
        costs_->NoteShare(PlanCosts::kSampleSaved,
                          far ? 0 : std::max(0.0, to_beat - walk_cost) / may_save);
      }
    }
    const double graph_cost = far ? exact_cost : walk_cost;
    // An unsampled walk gives up where the query's neighbourhood holds no
    // allowed record, at about a sample's cost: it runs first only where
    // the saving expected of it (times the share of such walks that kept
    // going here) exceeds that.
    bool held_back = false;
    if (!sampled && ex.selectivity < 1 && graph_cost < to_beat) {
      const double kept = share(PlanCosts::kWalkKept);
      walk_first = kept * (to_beat - graph_cost) > (1 - kept) * sample_cost;
      held_back = !walk_first;
    }
    const double walk_plan = held_back ? std::numeric_limits<double>::infinity() : graph_cost;
    ex.plan = walk_plan < exact_cost ? VectorPlan::kGraph : VectorPlan::kExact;
    // Formatting costs as much as a small exact scan: only when asked.
    if (explain != nullptr) {
      ex.reason = fmt::format(
          "estimated cost: exact {:.0f}, graph {:.0f} (selectivity {:.4g}{}){}{}", exact_cost,
          graph_cost, ex.selectivity,
          ex.local_selectivity < 0 ? ""
                                   : fmt::format(", near the query {:.4g}", ex.local_selectivity),
          held_back ? ", not walked: walks run first here gave up too often" : "", measured_note());
    }
    if (cover && cover->cost < std::min(exact_cost, walk_plan)) {
      return run_cover(explain ? "; the filter's value graphs are cheaper" : nullptr);
    }
    if (cover && ex.plan == VectorPlan::kGraph) walk_fallback = std::move(cover);
  }

  if (ex.plan != VectorPlan::kExact) {
    ex.ef = PlanEf(k, options);
    HnswSearchParams params{
        ex.ef, ex.plan == VectorPlan::kGraphTwoHop ? HnswFilter::kTwoHop : HnswFilter::kWalkAll};
    params.give_up_beyond = !options.plan && allowed != nullptr;
    params.deadline = options.deadline;
    params.codes = options.quantized;
    params.upper_beam = options.upper_beam;
    HnswSearchStats stats;
    auto hits = GraphSearch(q, k, params, allowed, &stats);
    ex.distances += stats.distances;
    if (ex.local_selectivity < 0 && stats.near_expanded > 0) {
      ex.local_selectivity = static_cast<double>(stats.near_allowed) / stats.near_expanded;
    }
    // The walk met no allowed record near the query (file comment).
    const bool beyond = stats.gave_up;
    if (walk_first && options.planner.measured) {
      costs_->NoteShare(PlanCosts::kWalkKept, beyond ? 0 : 1);
    }
    if (!beyond) {
      if (!pending_.isEmpty() || !side_.isEmpty()) {
        // Records not in the graph (staged, or outside the dot copy's
        // range): scan those allowed, merge.
        roaring::Roaring unlinked = pending_ | side_;
        if (allowed != nullptr) unlinked &= *allowed;
        std::vector<Neighbor> extra =
            ExactSearch(*store_, q.data(), k, &unlinked, options.deadline);
        ex.distances += unlinked.cardinality();
        hits.insert(hits.end(), extra.begin(), extra.end());
        std::sort(hits.begin(), hits.end());
        if (hits.size() > k) hits.resize(k);
      }
      // Never fewer than k: a walk that could not reach k allowed records
      // (a disconnected allowed subgraph) falls back to the exact scan.
      if (hits.size() >= k || options.plan) return hits;
    }
    if (explain != nullptr) {
      ex.reason += beyond ? fmt::format("; none of the walk's {} nearest nodes is allowed",
                                        HnswSearchStats::kNear)
                          : fmt::format("; the graph found {} of {}", hits.size(), k);
    }
    if (walk_fallback) {
      // The allowed records lie beyond the walk: their values' graphs may
      // still be cheaper than the scan (the plan was costed against it).
      return RunCover(*walk_fallback, q, k, options, *allowed, ex,
                      explain ? ", so the filter's value graphs" : nullptr);
    }
    if (explain != nullptr) ex.reason += ", so exact";
    ex.plan = VectorPlan::kExact;
  }
  ex.distances += ex.allowed;
  const auto start = PlanCosts::Clock::now();
  std::vector<Neighbor> hits = ExactSearch(*store_, q.data(), k, allowed, options.deadline);
  NoteRun(*costs_, PlanCosts::kExact, start, static_cast<double>(ex.allowed), options.deadline);
  return hits;
}

std::vector<float> VectorIndex::WalkQuery(const std::vector<float>& query) const {
  if (!nav_) return query;
  // [q / |q|, 0]: the same order as [q, 0], and on the unit sphere where the
  // copies are, which the graph walks better than from far away.
  double norm2 = 0;
  for (const float x : query) norm2 += double{x} * x;
  const double norm = std::sqrt(norm2);
  std::vector<float> q(query.size() + 1, 0.0f);
  if (norm > 0) {
    for (std::size_t i = 0; i < query.size(); ++i) q[i] = static_cast<float>(query[i] / norm);
  }
  return q;
}

std::vector<Neighbor> VectorIndex::GraphSearch(const std::vector<float>& query, std::size_t k,
                                               const HnswSearchParams& params,
                                               const roaring::Roaring* allowed,
                                               HnswSearchStats* stats) const {
  if (!nav_) return graph_.Search(query.data(), k, params, allowed, stats);
  const std::vector<float> q = WalkQuery(query);
  std::vector<Neighbor> hits = graph_.Search(q.data(), k, params, allowed, stats);
  // Same order; report the metric's own distance (-dot).
  for (Neighbor& h : hits) h.distance = store_->Distance(query.data(), h.id);
  std::sort(hits.begin(), hits.end());
  return hits;
}

}  // namespace engram::vector
