#include "fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include <fmt/core.h>

#include "common/format.h"

namespace engram::bench {

std::vector<vector::PlannerConstants> FitGrid::Pairs() const {
  std::vector<vector::PlannerConstants> pairs;
  for (const double walk : walk_costs) {
    for (const std::size_t ef : efs) pairs.push_back({walk, ef});
  }
  return pairs;
}

std::string FitGrid::Label(const vector::PlannerConstants& c) {
  return fmt::format("walk {:g}, ef {}", c.walk_cost, c.default_ef);
}

namespace {

struct PairResult {
  vector::PlannerConstants constants;
  double worst_recall = 1;
  std::string worst_filter;
  double log_qps = 0;  // summed over the filters
  std::size_t filters = 0;
  double GeoMeanQps() const { return filters == 0 ? 0 : std::exp(log_qps / filters); }
};

// Whether a is the better fit (both feasible).
bool Better(const PairResult& a, const PairResult& b) {
  const vector::PlannerConstants built_in;
  const double qa = a.GeoMeanQps(), qb = b.GeoMeanQps();
  if (qa != qb) return qa > qb;
  if (a.constants.default_ef != b.constants.default_ef) {
    return a.constants.default_ef < b.constants.default_ef;
  }
  return std::abs(std::log(a.constants.walk_cost / built_in.walk_cost)) <
         std::abs(std::log(b.constants.walk_cost / built_in.walk_cost));
}

}  // namespace

std::string FitReport(const Dataset& d, std::uint64_t seed, const FitGrid& grid,
                      const std::vector<Point>& points, double recall) {
  std::vector<PairResult> results;
  for (const vector::PlannerConstants& c : grid.Pairs()) {
    PairResult r;
    r.constants = c;
    const std::string label = FitGrid::Label(c);
    for (const Point& p : points) {
      if (p.mode != label) continue;
      ++r.filters;
      r.log_qps += std::log(std::max(p.qps, 1e-9));
      if (r.worst_filter.empty() || p.recall < r.worst_recall) {
        r.worst_recall = p.recall;
        r.worst_filter = p.filter;
      }
    }
    results.push_back(r);
  }
  const PairResult* chosen = nullptr;
  for (const PairResult& r : results) {
    if (r.filters == 0 || r.worst_recall < recall) continue;
    if (chosen == nullptr || Better(r, *chosen)) chosen = &r;
  }
  const vector::PlannerConstants built_in;
  std::string s = fmt::format(
      "\n## Planner fit on {} (seed {}, {} queries)\n\nEach pair: the planner at its default ef "
      "over the {} standard filters; worst = the lowest recall@10 of a filter (mean over its "
      "queries); QPS = the geometric mean over the filters. Feasible: worst >= {}. Built-in "
      "constants: walk {:g}, ef {}.\n\n",
      d.name, seed, d.nq(), results.empty() ? 0 : results.front().filters, recall,
      built_in.walk_cost, built_in.default_ef);
  s += "| walk cost | default ef | worst recall (filter) | geometric-mean QPS | feasible |\n";
  s += "|---:|---:|---|---:|---|\n";
  for (const PairResult& r : results) {
    s += fmt::format("| {:g} | {} | {:.3f} ({}) | {} | {}{} |\n", r.constants.walk_cost,
                     r.constants.default_ef, r.worst_recall, r.worst_filter,
                     Thousands(r.GeoMeanQps()), r.worst_recall >= recall ? "yes" : "no",
                     &r == chosen ? " **chosen**" : "");
  }
  s += chosen == nullptr ? "\nNo pair reaches the recall on every filter.\n"
                         : fmt::format(
                               "\nFitted: walk_cost {:g}, default_ef {} (PlannerConstants in "
                               "src/vector/vector_index.h).\n",
                               chosen->constants.walk_cost, chosen->constants.default_ef);
  return s;
}

}  // namespace engram::bench
