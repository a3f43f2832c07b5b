#include "vector/plan_costs.h"

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "vector/exact/exact_search.h"
#include "vector/test_vectors.h"
#include "vector/vector_index.h"

namespace engram::vector {
namespace {
namespace plan_costs_test {

using std::chrono::nanoseconds;

// `n` runs of `kind` at `ns_per_unit`, 1,000 units each.
void Runs(PlanCosts& costs, PlanCosts::Kind kind, std::uint64_t n, double ns_per_unit) {
  for (std::uint64_t i = 0; i < n; ++i) {
    costs.Note(kind, nanoseconds(static_cast<std::int64_t>(ns_per_unit * 1000)), 1000);
  }
}

TEST(PlanCosts, OneUntilBothAreMeasured) {
  PlanCosts costs;
  EXPECT_EQ(costs.Factor(PlanCosts::kValueGraphs), 1);
  Runs(costs, PlanCosts::kValueGraphs, PlanCosts::kEnough, 40);
  EXPECT_EQ(costs.Factor(PlanCosts::kValueGraphs), 1);  // no exact scan yet
  Runs(costs, PlanCosts::kExact, PlanCosts::kEnough - 1, 20);
  EXPECT_EQ(costs.Factor(PlanCosts::kValueGraphs), 1);
  Runs(costs, PlanCosts::kExact, 1, 20);
  EXPECT_NEAR(costs.Factor(PlanCosts::kValueGraphs), 2, 1e-9);
  EXPECT_EQ(costs.Factor(PlanCosts::kSample), 1);  // not run
  EXPECT_EQ(costs.Factor(PlanCosts::kExact), 1);
}

TEST(PlanCosts, RatesAreClampedAndSmallRunsIgnored) {
  PlanCosts costs;
  Runs(costs, PlanCosts::kExact, 8, 10);
  Runs(costs, PlanCosts::kValueGraphs, 8, 1000);  // 100x: clamped
  Runs(costs, PlanCosts::kSample, 8, 1);
  EXPECT_EQ(costs.Factor(PlanCosts::kValueGraphs), PlanCosts::kHigh);
  EXPECT_EQ(costs.Factor(PlanCosts::kSample), PlanCosts::kLow);
  // Runs below kMinUnits are not noted: the factor stays.
  for (int i = 0; i < 100; ++i) {
    costs.Note(PlanCosts::kValueGraphs, nanoseconds(10), PlanCosts::kMinUnits - 1);
  }
  EXPECT_EQ(costs.Factor(PlanCosts::kValueGraphs), PlanCosts::kHigh);
}

TEST(PlanCosts, FollowsTheRecentRunsAndForgetsOldOnes) {
  PlanCosts costs;
  Runs(costs, PlanCosts::kExact, 8, 10);
  Runs(costs, PlanCosts::kValueGraphs, 8, 30);
  EXPECT_NEAR(costs.Factor(PlanCosts::kValueGraphs), 3, 1e-9);
  // The machine changes: some windows' runs later the rate is the new one's,
  // nearly; one slow run moves it by a fraction of its factor, not more.
  Runs(costs, PlanCosts::kValueGraphs, 4 * PlanCosts::kWindow, 15);
  EXPECT_NEAR(costs.Factor(PlanCosts::kValueGraphs), 1.5, 0.05);
  Runs(costs, PlanCosts::kValueGraphs, 1, 1500);
  EXPECT_LT(costs.Factor(PlanCosts::kValueGraphs), 1.5 * 1.1);
  // Not run for kForget notes: forgotten (1) until measured again.
  Runs(costs, PlanCosts::kExact, PlanCosts::kForget, 10);
  EXPECT_NEAR(costs.Factor(PlanCosts::kValueGraphs), 1.5, 0.2);
  Runs(costs, PlanCosts::kExact, 1, 10);
  EXPECT_EQ(costs.Factor(PlanCosts::kValueGraphs), 1);
  Runs(costs, PlanCosts::kValueGraphs, PlanCosts::kEnough, 30);
  EXPECT_NEAR(costs.Factor(PlanCosts::kValueGraphs), 3, 1e-9);
}

TEST(PlanCosts, SharesAreMeansOfTheOutcomes) {
  PlanCosts costs;
  const auto saved = PlanCosts::kSampleSaved;
  EXPECT_EQ(costs.MeanShare(saved), 1);  // until measured: every sample pays
  for (std::uint32_t i = 0; i < PlanCosts::kEnough; ++i) costs.NoteShare(saved, i % 2 ? 1 : 0);
  EXPECT_NEAR(costs.MeanShare(saved), 0.5, 1e-9);
  EXPECT_EQ(costs.MeanShare(PlanCosts::kWalkKept), 1);        // each its own
  for (int i = 0; i < 1000; ++i) costs.NoteShare(saved, -3);  // clamped to 0
  EXPECT_LT(costs.MeanShare(saved), 1e-6);
  // Samples stopped (none saves anything): forgotten after kForget other
  // notes, so that they run again and are measured anew.
  Runs(costs, PlanCosts::kExact, PlanCosts::kForget + 1, 10);
  EXPECT_EQ(costs.MeanShare(saved), 1);
}

constexpr std::size_t kDim = 16, kN = 6000;

struct Planned {
  std::vector<float> data = testing::ClusteredVectors(kN + 1, kDim, 40, 7);
  std::vector<float> query{data.end() - kDim, data.end()};
  VectorIndex index{Options()};
  VectorSearchOptions options;
  VectorExplain explain;

  static VectorIndexOptions Options() {
    VectorIndexOptions o;
    o.dim = kDim;
    o.metric = Metric::kL2;
    o.hnsw.m = 12;
    return o;
  }
  Planned() {
    std::vector<std::uint32_t> ids(kN);
    for (std::uint32_t i = 0; i < kN; ++i) ids[i] = i;
    EXPECT_TRUE(index.PutBatch(ids, std::span(data).first(kN * kDim), 2).ok());
  }
  // The `kept` records nearest the query, or farthest.
  roaring::Roaring Allowed(std::size_t kept, bool near) const {
    return testing::DistanceRankedAllowed(index.store(), query.data(), kept, near);
  }
  // Searches; every answer is exact.
  void Search(const roaring::Roaring& allowed) {
    const auto hits = index.Search(query, options, &allowed, &explain);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ(testing::Recall(*hits, ExactSearch(index.store(), query.data(), 10, &allowed)), 1.0);
  }
  // Far searches until one is sampled or walked again (the outcomes of the
  // last forgotten); returns how many ran.
  std::uint64_t UntilForgotten(const roaring::Roaring& far) {
    std::uint64_t searches = 0;
    do {
      Search(far);
      ++searches;
    } while (explain.local_selectivity < 0 && searches <= PlanCosts::kForget);
    EXPECT_EQ(explain.local_selectivity, 0.0);
    return searches;
  }
};

// The planner stops sampling where samples never pay (filters far from the
// query), and samples again once that is forgotten. The walk cost is set
// so that the sample's decision holds whatever the measured factors are:
// 1,200 of 6,000 kept, a walk at the global share costs 5 * 64 * 5 = 1,600
// > 1,200, and a sample at most kHigh * 5 * 32 = 640 < 1,200 - 5 * 64.
TEST(PlanCosts, ThePlannerSamplesOnlyWhereSamplesPay) {
  Planned p;
  const roaring::Roaring far = p.Allowed(1200, false), near = p.Allowed(1200, true);
  p.options.planner.walk_cost = 5;
  // The first kEnough far searches sample (and find no allowed record
  // near the query); the later ones do not.
  for (std::uint32_t i = 0; i < 2 * PlanCosts::kEnough; ++i) {
    p.Search(far);
    EXPECT_EQ(p.explain.plan, VectorPlan::kExact) << p.explain.reason;
    EXPECT_EQ(p.explain.local_selectivity, i < PlanCosts::kEnough ? 0.0 : -1.0) << i;
  }
  EXPECT_NE(p.explain.reason.find("samples saved 0 %"), std::string::npos) << p.explain.reason;
  // A near filter is not sampled either now: it is scanned, as the global
  // share says; with the fitted estimates alone it is sampled and walked.
  p.Search(near);
  EXPECT_EQ(p.explain.plan, VectorPlan::kExact) << p.explain.reason;
  EXPECT_EQ(p.explain.local_selectivity, -1.0);
  p.options.planner.measured = false;
  p.Search(near);
  EXPECT_EQ(p.explain.plan, VectorPlan::kGraph) << p.explain.reason;
  // Once the samples are forgotten (kForget runs noted since the last)
  // they run again.
  p.options.planner.measured = true;
  EXPECT_GT(p.UntilForgotten(far), PlanCosts::kForget / 2);  // each far search notes its scan
  p.Search(near);
  EXPECT_EQ(p.explain.plan, VectorPlan::kGraph) << p.explain.reason;
  EXPECT_GT(p.explain.local_selectivity, 0.9);
}

// Half the records kept: a walk looks cheaper than the scan (18 * 64 / 0.5
// = 2,304 < 3,000) and runs first, unsampled; under a far filter it gives
// up. After kEnough such walks it is held back (the scan answers at once),
// whatever the measured factors, until that is forgotten.
TEST(PlanCosts, ThePlannerWalksFirstOnlyWhereWalksKeepGoing) {
  Planned p;
  const roaring::Roaring far = p.Allowed(kN / 2, false), near = p.Allowed(kN / 2, true);
  for (std::uint32_t i = 0; i < 2 * PlanCosts::kEnough; ++i) {
    p.Search(far);
    EXPECT_EQ(p.explain.plan, VectorPlan::kExact) << p.explain.reason;
    EXPECT_EQ(p.explain.local_selectivity, i < PlanCosts::kEnough ? 0.0 : -1.0) << i;
  }
  EXPECT_NE(p.explain.reason.find("not walked"), std::string::npos) << p.explain.reason;
  EXPECT_NE(p.explain.reason.find("walks run first kept going 0 %"), std::string::npos)
      << p.explain.reason;
  p.Search(near);
  EXPECT_EQ(p.explain.plan, VectorPlan::kExact) << p.explain.reason;
  p.options.planner.measured = false;
  p.Search(near);
  EXPECT_EQ(p.explain.plan, VectorPlan::kGraph) << p.explain.reason;
  p.options.planner.measured = true;
  p.UntilForgotten(far);
  p.Search(near);
  EXPECT_EQ(p.explain.plan, VectorPlan::kGraph) << p.explain.reason;
  EXPECT_GT(p.explain.local_selectivity, 0.9);
}

}  // namespace plan_costs_test
}  // namespace
}  // namespace engram::vector
