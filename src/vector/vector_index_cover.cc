// VectorIndex's kValueGraphs plan. A filter on values of graph fields comes
// with a cover (VectorSearchOptions::cover): keys whose records hold every
// allowed record. The plan searches the keys' value graphs (value_graphs.h),
// each walked only over its own records, so a filter far from the query, or
// one keeping few records, leaves nothing to walk through; keys too small for
// a graph, and records not linked yet, are scanned exactly; the parts are
// merged. A cover of many keys (a filter on many values) probes every graph
// first (Hnsw::Probe: a greedy descent of its upper levels) and searches them
// nearest first. A graph's nearest allowed record lies below its probe, by a
// ratio the searched graphs show: the search stops at the first graph whose
// probe, times the smallest ratio seen, lies beyond probe_slack times the
// k-th distance found. On clustered data the nearest allowed records lie in
// the few keys that come nearest; on values spread over the space (or partial
// filters) the ratios are small and more graphs are searched. The first
// kAlwaysSearched are searched whatever their probes.
//
// Its estimated cost, in exact-scan distances as the planner's others: the
// records scanned, kProbeCost per probe distance, and for every graph
// kPartCost plus walk_cost per walk distance (ef over the share of the
// graph's records the filter keeps). It is taken only when kMargin times that
// is below the other plans' cost.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "vector/exact/exact_search.h"
#include "vector/vector_index.h"

namespace engram::vector {
namespace {

constexpr std::size_t kAlwaysSearched = 4;
constexpr double kProbeDistances = 24;  // a probe of a graph, in graph distances
// A probe's distance, in exact-scan distances: a greedy step over a short
// list on the small, cached upper levels, without the walk's heaps.
constexpr double kProbeCost = 2;
// The fixed cost of searching one graph (a context, its allowed test set
// up, the merge), in exact-scan distances: measured on fastText (bench/
// RESULTS.md), where without it the plan was chosen at 10 %-anti and ran
// 1.7x slower than the scan.
constexpr double kPartCost = 300;
// The estimate must beat the other plans' by this factor: on fastText's
// 10 %-anti filters an estimate below the scan's still ran slower than it.
constexpr double kMargin = 2;

// Merges `more` into `best` (nearest first, at most k, each record once at
// its distance: a record of a set field may come from two keys).
void Merge(std::vector<Neighbor>& best, const std::vector<Neighbor>& more, std::size_t k) {
  best.insert(best.end(), more.begin(), more.end());
  std::sort(best.begin(), best.end(), [](const Neighbor& a, const Neighbor& b) {
    return a.id != b.id ? a.id < b.id : a < b;
  });
  best.erase(std::unique(best.begin(), best.end(),
                         [](const Neighbor& a, const Neighbor& b) { return a.id == b.id; }),
             best.end());
  std::sort(best.begin(), best.end());
  if (best.size() > k) best.resize(k);
}

}  // namespace

std::optional<std::vector<Neighbor>> VectorIndex::CoverSearch(
    const std::vector<float>& q, std::size_t k, std::size_t ef, const VectorSearchOptions& options,
    const roaring::Roaring& allowed, double other_cost, VectorExplain& ex, const char* why) const {
  const double walk = options.planner.walk_cost;
  // The cheapest such plan searches one graph: rule it out without a lookup.
  if (kMargin * (kPartCost + walk * static_cast<double>(ef)) >= other_cost) return std::nullopt;
  struct Part {
    ValueGraphs::KeyView key;
    bool filtered;  // the filter keeps only some of the key's records
    double share;   // the share it keeps
    float probe = 0;
  };
  std::vector<Part> parts;
  // Scanned exactly: records not linked, keys without a graph, records a
  // graph does not hold. Counted first, gathered only for the plan taken.
  std::vector<const roaring::Roaring*> scan_sets = {&pending_, &side_};
  double scan_count = 0;
  auto scan = [&](const roaring::Roaring* set) {
    if (set->isEmpty()) return;
    scan_sets.push_back(set);
    scan_count += static_cast<double>(set->and_cardinality(allowed));
  };
  scan_count +=
      static_cast<double>(pending_.and_cardinality(allowed) + side_.and_cardinality(allowed));
  for (const std::string& name : *options.cover) {
    const std::optional<ValueGraphs::KeyView> key = values_.Find(name);
    if (!key) continue;
    if (!key->has_graph()) {
      scan(key->records);
    } else {
      scan(key->outside);
      const std::uint64_t kept = key->records->and_cardinality(allowed);
      const std::uint64_t all = key->records->cardinality();
      if (kept > 0) {
        parts.push_back({*key, kept < all, static_cast<double>(kept) / static_cast<double>(all)});
      }
    }
    if (kMargin * scan_count >= other_cost) return std::nullopt;
  }
  if (parts.empty()) return std::nullopt;  // nothing to walk: the other plans serve
  double cost = scan_count;
  if (parts.size() > kAlwaysSearched) {
    cost += kProbeCost * kProbeDistances * static_cast<double>(parts.size());
  }
  // Every graph is counted as searched: the probes may stop early, but on
  // values spread over the space they do not (synthetic-1m, 50 %-anti: 250
  // graphs, the plan ran at 0.8x the scan when only 4 were counted).
  for (const Part& p : parts) cost += kPartCost + walk * static_cast<double>(ef) / p.share;
  if (kMargin * cost >= other_cost) return std::nullopt;
  roaring::Roaring scanned;
  for (const roaring::Roaring* set : scan_sets) scanned |= *set & allowed;

  ex.plan = VectorPlan::kValueGraphs;
  ex.ef = ef;
  const std::vector<float> wq = WalkQuery(q);
  HnswSearchStats stats;
  if (parts.size() > kAlwaysSearched) {
    for (Part& p : parts) p.probe = values_.Probe(p.key, wq.data(), &stats);
    std::sort(parts.begin(), parts.end(),
              [](const Part& a, const Part& b) { return a.probe < b.probe; });
  }
  std::vector<std::uint64_t> bits;
  HnswDocFilter filter;
  for (const Part& p : parts) {
    if (!p.filtered) continue;
    filter.words = (std::size_t{store_->limit()} + 63) / 64;
    DenseBits(allowed, filter.words, bits);
    filter.bits = bits.data();
    break;
  }
  HnswSearchParams params{ef};
  params.deadline = options.deadline;
  std::vector<Neighbor> best;  // walk distances (dot: the copy's; same order)
  // The smallest ratio seen between a searched graph's nearest allowed
  // record and its probe: how far below its probe a graph's best may lie.
  double ratio = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Part& p = parts[i];
    if (i >= kAlwaysSearched && best.size() >= k &&
        p.probe * ratio > options.planner.probe_slack * best.back().distance) {
      break;
    }
    if (options.deadline != nullptr && options.deadline->Passed()) break;
    const std::vector<Neighbor> found =
        values_.Search(p.key, wq.data(), k, params, p.filtered ? &filter : nullptr, &stats);
    if (!found.empty() && p.probe > 0) {
      ratio = std::min(ratio, static_cast<double>(found[0].distance) / p.probe);
    }
    Merge(best, found, k);
    ++ex.value_graphs;
  }
  ex.distances += stats.distances;
  if (nav_) {
    for (Neighbor& n : best) n.distance = store_->Distance(q.data(), n.id);
  }
  if (!scanned.isEmpty()) {
    Merge(best, ExactSearch(*store_, q.data(), k, &scanned, options.deadline), k);
    ex.distances += scanned.cardinality();
  }
  ex.value_scanned = scanned.cardinality();
  if (why != nullptr) {
    ex.reason +=
        fmt::format("{}: {} searched, {} records scanned", why, ex.value_graphs, ex.value_scanned);
  }
  return best;
}

}  // namespace engram::vector
