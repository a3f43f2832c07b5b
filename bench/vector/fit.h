// Fitting the planner's constants (vector::PlannerConstants: the walk cost
// and the default ef) on one dataset and seed, so that the other datasets
// and seeds report on constants they did not shape (issue 21). Every pair of
// the grid runs the planner at its default ef over the standard filters; a
// pair is feasible when each filter's recall@k (mean over its queries)
// reaches the target, and the fit is the feasible pair with the highest
// geometric mean of QPS over the filters (ties: the smaller ef, then the
// walk cost nearer the built-in one).
#ifndef ENGRAM_BENCH_VECTOR_FIT_H_
#define ENGRAM_BENCH_VECTOR_FIT_H_

#include <string>
#include <vector>

#include "data.h"
#include "sweep.h"
#include "vector/vector_index.h"

namespace engram::bench {

struct FitGrid {
  std::vector<double> walk_costs = {6, 9, 12, 18, 27, 40};
  std::vector<std::size_t> efs = {32, 48, 64, 96};
  // Every (walk_cost, default_ef) pair.
  std::vector<vector::PlannerConstants> Pairs() const;
  // The variant mode naming a pair: "walk 18, ef 64".
  static std::string Label(const vector::PlannerConstants& c);
};

// The Markdown report of a fit over `points` (one planner variant per pair,
// labelled by FitGrid::Label): the grid with each pair's worst recall and
// mean QPS, and the pair chosen.
std::string FitReport(const Dataset& d, std::uint64_t seed, const FitGrid& grid,
                      const std::vector<Point>& points, double recall);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_VECTOR_FIT_H_
