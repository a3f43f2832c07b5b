// VectorIndex's kValueGraphs plan. A filter on values of graph fields comes
// with a cover (VectorSearchOptions::cover): keys whose records hold every
// allowed record. The plan searches the keys' value graphs (value_graphs.h),
// each only over its own records, so a filter far from the query, or one
// keeping few records, leaves nothing to walk through; keys too small for a
// graph, and records not linked yet, are scanned exactly; the parts are
// merged. A key's kept records are walked in its graph, or scanned in its
// graph's contiguous copy where that is cheaper (a small key, or a high ef;
// in a quantised index the copy's 8-bit codes, re-ranked with the floats).
// Where the keys hold more records than are allowed, each record is tested
// against the allowed set as a scan or walk reaches it (DocFilter); where
// they hold exactly the allowed ones, nothing is tested.
// A cover of many keys (a filter on many values) orders them by the
// estimated distance of their nearest record (ValueGraphs::Estimate: their
// centre and spread, one pass over a sum each) and searches them nearest
// first: the first kAlwaysSearched whatever they hold, then while a key's
// estimate, less cover_slack times the most any searched key's best came
// below its own, is within the k-th distance found.
//
// Its estimated cost, in exact-scan distances as the planner's others: the
// records scanned, kEstimateCost per key estimated, and for the keys
// searched (all, or kSearchedPerRoot times the root of their number) the
// cheaper of the scan (kCopyScanCost per kept record, kCodedScanCost on the
// codes, and kFilterTestCost per record tested) and the walk (kPartCost
// plus walk_cost per walk distance: ef over the share kept). A key is taken
// to keep the share of its records that the whole cover keeps. The plan is
// taken only when kMargin times that is below the other plans' cost.
#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "vector/exact/exact_search.h"
#include "vector/vector_index.h"

namespace engram::vector {
namespace {

constexpr std::size_t kAlwaysSearched = 4;
// A key's estimate, in exact-scan distances: one pass over its sums.
constexpr double kEstimateCost = 2;
// A many-key cover of n keys searches about kSearchedPerRoot * sqrt(n) of
// them, for the plan's cost (fitted on synthetic-1m of seed 1 under
// anti-correlated filters, cover_slack 2: 8 of 10, 66 of 100 and 257 of 500
// keys).
constexpr double kSearchedPerRoot = 8;
// The fixed cost of searching one graph (a context, its allowed test set
// up, the merge), in exact-scan distances: measured on fastText (bench/
// RESULTS.md), where without it the plan was chosen at 10 %-anti and ran
// 1.7x slower than the scan.
constexpr double kPartCost = 300;
// A record scanned in a key's copy, in exact-scan distances: the exact scan
// reads the records scattered over the store, a key's scan its copy's
// contiguous rows, of floats or (in a quantised index, CodedSearch) of
// 8-bit codes. Fitted on synthetic-1m of seed 1 (bench/RESULTS.md: 0.61-0.72
// on the floats and 0.35-0.42 on the codes at 1 and 10 % kept, the keys'
// estimates and merges included).
constexpr double kCopyScanCost = 0.65;
constexpr double kCodedScanCost = 0.4;
// A record of a key tested against the allowed set in a scan (DocFilter: a
// load and a bit), in exact-scan distances; estimated, not fitted.
constexpr double kFilterTestCost = 0.1;
// The estimate must beat the other plans' by this factor (the searched
// keys' count is an estimate): 2 when every key was walked (on fastText's
// 10 %-anti filters an estimate below the scan's still ran slower than it),
// 1.25 since small keys are scanned (synthetic-1m of seed 1: at 50 %-anti
// the plan, estimated at 0.36 of the scan, ran 2.3x faster than it).
constexpr double kMargin = 1.25;

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

std::optional<VectorIndex::CoverPlan> VectorIndex::PlanCover(std::size_t ef,
                                                             const VectorSearchOptions& options,
                                                             const roaring::Roaring& allowed,
                                                             double bound) const {
  const double walk = options.planner.walk_cost;
  // Rule it out without a lookup: the cheapest such plan walks one graph
  // (one that only scans keys costs what the exact plan does).
  if (kMargin * (kPartCost + walk * static_cast<double>(ef)) >= bound) return std::nullopt;
  std::vector<ValueGraphs::KeyView> keys;
  double held = 0;  // their records, summed
  for (const std::string& name : *options.cover) {
    if (const std::optional<ValueGraphs::KeyView> key = values_.Find(name)) {
      keys.push_back(*key);
      held += static_cast<double>(key->records->cardinality());
    }
  }
  // The cover holds every allowed record, so when its keys hold no more
  // records than are allowed they hold exactly the allowed ones: every key
  // is kept whole (a filter on the values alone), searched unfiltered; its
  // answers are checked against `allowed` all the same. Otherwise each key
  // is taken to keep the same share of its records, and its scan or walk
  // tests each record against the allowed set.
  const double allowed_count = static_cast<double>(allowed.cardinality());
  CoverPlan plan;
  plan.whole = held == allowed_count;
  plan.ef = ef;
  const double share = held > 0 ? allowed_count / held : 0;
  if (share == 0) return std::nullopt;
  const double per_scanned = quantized() && options.quantized ? kCodedScanCost : kCopyScanCost;

  // Scanned exactly: records not linked, and of the keys, those without a
  // graph and those a graph does not hold, whose records are taken to be
  // kept at the same share and tested one by one as the scan reaches them.
  double scan_count = 0;
  auto scan = [&](const roaring::Roaring* set) {
    if (set->isEmpty()) return;
    plan.scan_sets.push_back(set);
    scan_count +=
        static_cast<double>(set->cardinality()) * (share + (plan.whole ? 0 : kFilterTestCost));
  };
  const double unlinked =
      static_cast<double>(pending_.and_cardinality(allowed) + side_.and_cardinality(allowed));
  double part_costs = 0;  // of searching every part
  for (const ValueGraphs::KeyView& key : keys) {
    if (!key.has_graph()) {
      scan(key.records);
    } else {
      scan(key.outside);
      const double records = static_cast<double>(key.records->cardinality());
      const double walk_part = kPartCost + walk * static_cast<double>(ef) / share;
      const double scan_part = records * (share * per_scanned + (plan.whole ? 0 : kFilterTestCost));
      plan.parts.push_back({key, scan_part <= walk_part});
      part_costs += std::min(walk_part, scan_part);
    }
    if (kMargin * (unlinked + scan_count) >= bound) return std::nullopt;
  }
  if (plan.parts.empty()) return std::nullopt;  // nothing to walk: the other plans serve
  double cost = unlinked + scan_count + part_costs;
  if (plan.parts.size() > kAlwaysSearched) {
    // Estimated, then searched nearest first while they may hold nearer.
    const double count = static_cast<double>(plan.parts.size());
    const double searched = std::min(
        count, std::max(static_cast<double>(kAlwaysSearched), kSearchedPerRoot * std::sqrt(count)));
    cost = unlinked + scan_count + part_costs * searched / count + kEstimateCost * count;
  }
  plan.units = cost;
  plan.cost = kMargin * cost;
  if (plan.cost >= bound) return std::nullopt;
  return plan;
}

std::vector<Neighbor> VectorIndex::RunCover(CoverPlan& plan, const std::vector<float>& q,
                                            std::size_t k, const VectorSearchOptions& options,
                                            const roaring::Roaring& allowed, VectorExplain& ex,
                                            const char* why) const {
  ex.plan = VectorPlan::kValueGraphs;
  ex.ef = plan.ef;
  const bool whole = plan.whole;
  std::vector<CoverPlan::Part>& parts = plan.parts;
  const std::vector<float> wq = WalkQuery(q);
  HnswSearchStats stats;
  if (parts.size() > kAlwaysSearched) {
    for (CoverPlan::Part& p : parts) p.estimate = values_.Estimate(p.key, wq.data());
    std::sort(parts.begin(), parts.end(), [](const CoverPlan::Part& a, const CoverPlan::Part& b) {
      return a.estimate < b.estimate;
    });
  }
  std::vector<std::uint64_t> bits;
  DocFilter filter;
  if (!whole) {
    filter.words = (std::size_t{store_->limit()} + 63) / 64;
    DenseBits(allowed, filter.words, bits);
    filter.bits = bits.data();
  }
  HnswSearchParams params{plan.ef};
  params.deadline = options.deadline;
  params.codes = options.quantized;
  std::vector<Neighbor> best;  // walk distances (dot: the copy's; same order)
  // How far below its estimate a searched key's best came, at most: a key
  // not searched yet is given cover_slack times that.
  double below = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const CoverPlan::Part& p = parts[i];
    if (i >= kAlwaysSearched && best.size() >= k &&
        p.estimate - options.planner.cover_slack * below > best.back().distance) {
      break;
    }
    if (options.deadline != nullptr && options.deadline->Passed()) break;
    std::vector<Neighbor> found;
    if (p.scan) {
      std::size_t measured = 0;
      found = values_.Scan(p.key, wq.data(), k, whole ? nullptr : &filter, options.deadline,
                           !options.quantized, &measured);
      ex.distances += measured;
      ex.value_scanned += measured;
    } else {
      // A walk needs to know whether the key keeps anything: one that
      // keeps nothing would visit every node.
      bool filtered = false;
      if (!whole) {
        const std::uint64_t kept = p.key.records->and_cardinality(allowed);
        if (kept == 0) continue;
        filtered = kept < p.key.records->cardinality();
      }
      found = values_.Search(p.key, wq.data(), k, params, filtered ? &filter : nullptr, &stats);
    }
    if (whole) {
      std::erase_if(found, [&](const Neighbor& n) { return !allowed.contains(n.id); });
    }
    if (!found.empty()) below = std::max(below, p.estimate - found[0].distance);
    Merge(best, found, k);
    ++ex.value_graphs;
  }
  ex.distances += stats.distances;
  if (nav_) {
    for (Neighbor& n : best) n.distance = store_->Distance(q.data(), n.id);
  }
  // The records scanned exactly: those not linked that are allowed, and the
  // scan sets' (when not whole, tested as the scan reaches them; when whole,
  // the answers checked as the keys' are).
  roaring::Roaring scanned;
  if (!plan.scan_sets.empty()) {
    scanned = roaring::Roaring::fastunion(plan.scan_sets.size(), plan.scan_sets.data());
  }
  if (!pending_.isEmpty() || !side_.isEmpty()) scanned |= (pending_ | side_) & allowed;
  if (!scanned.isEmpty()) {
    std::size_t measured = 0;
    std::vector<Neighbor> found = ExactSearch(*store_, q.data(), k, &scanned, options.deadline,
                                              whole ? nullptr : &filter, &measured);
    if (whole) {
      std::erase_if(found, [&](const Neighbor& n) { return !allowed.contains(n.id); });
    }
    Merge(best, found, k);
    ex.distances += measured;
    ex.value_scanned += measured;
  }
  if (why != nullptr) {
    ex.reason +=
        fmt::format("{}: {} searched, {} records scanned", why, ex.value_graphs, ex.value_scanned);
  }
  return best;
}

}  // namespace engram::vector
