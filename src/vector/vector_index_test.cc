#include "vector/vector_index.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vector/exact/exact_search.h"
#include "vector/test_vectors.h"

namespace engram::vector {
namespace {
namespace vector_index_test {

using testing::ClusteredVectors;
using testing::DistanceRankedAllowed;
using testing::RandomAllowed;
using testing::Recall;

constexpr std::size_t kDim = 16;
constexpr std::size_t kN = 6000;

// The data set and, after it, held-out queries from the same mixture.
constexpr std::size_t kQueries = 100;
const std::vector<float>& Mixture() {
  static const std::vector<float> data = ClusteredVectors(kN + kQueries, kDim, 40, 7);
  return data;
}

VectorIndex BuildIndex(Metric metric, std::size_t n = kN, std::size_t threads = 2) {
  VectorIndexOptions options;
  options.dim = kDim;
  options.metric = metric;
  options.hnsw.m = 12;
  options.hnsw.ef_construction = 100;
  VectorIndex index(options);
  std::vector<std::uint32_t> ids(n);
  for (std::uint32_t i = 0; i < n; ++i) ids[i] = i;
  EXPECT_TRUE(index.PutBatch(ids, std::span(Mixture()).first(n * kDim), threads).ok());
  return index;
}

VectorSearchOptions Top(std::size_t k, std::size_t ef = 0,
                        std::optional<VectorPlan> plan = std::nullopt) {
  VectorSearchOptions options;
  options.k = k;
  options.ef = ef;
  options.plan = plan;
  options.planner.measured = false;  // the fitted estimates: the tests check the plans chosen
  return options;
}

// Held-out query i (of kQueries).
std::vector<float> Query(std::size_t i) {
  const float* q = Mixture().data() + (kN + i % kQueries) * kDim;
  return std::vector<float>(q, q + kDim);
}

// Every allowed live record at most once, nearest first, min(k, allowed) of them.
void ExpectWellFormed(const VectorIndex& index, const std::vector<Neighbor>& hits, std::size_t k,
                      const roaring::Roaring* allowed) {
  const std::size_t allowed_live =
      allowed == nullptr ? index.size() : allowed->and_cardinality(index.store().live());
  ASSERT_EQ(hits.size(), std::min(k, allowed_live));
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_TRUE(index.store().Contains(hits[i].id));
    if (allowed != nullptr) {
      EXPECT_TRUE(allowed->contains(hits[i].id));
    }
    if (i > 0) {
      EXPECT_FALSE(hits[i] < hits[i - 1]);
    }
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(hits[i].id, hits[j].id);
  }
}

// The planner keeps recall@10 >= 0.95 against the exact oracle at every
// selectivity, whether the filter is random, near the query or far from it,
// and never returns fewer than min(k, allowed) records.
TEST(VectorIndex, PlannerRecallAtEverySelectivityAndCorrelation) {
  for (Metric metric : {Metric::kCosine, Metric::kL2, Metric::kDot}) {
    const VectorIndex index = BuildIndex(metric);
    for (double fraction : {1.0, 0.5, 0.1, 0.01, 0.001}) {
      for (int correlation = 0; correlation < 3; ++correlation) {
        double recall = 0;
        constexpr int kTried = 20;
        for (int qi = 0; qi < kTried; ++qi) {
          const auto q = index.store().PrepareQuery(Query(qi));
          ASSERT_TRUE(q.ok());
          const auto count = static_cast<std::size_t>(fraction * kN);
          roaring::Roaring allowed = correlation == 0
                                         ? RandomAllowed(kN, fraction, 1000 + qi)
                                         : DistanceRankedAllowed(index.store(), q->data(), count,
                                                                 /*near=*/correlation == 1);
          const roaring::Roaring* filter = fraction == 1.0 ? nullptr : &allowed;
          VectorExplain explain;
          const auto hits = index.Search(Query(qi), Top(10), filter, &explain);
          ASSERT_TRUE(hits.ok());
          ExpectWellFormed(index, *hits, 10, filter);
          recall += Recall(*hits, ExactSearch(index.store(), q->data(), 10, filter));
          EXPECT_FALSE(explain.reason.empty());
        }
        EXPECT_GE(recall / kTried, 0.95)
            << MetricName(metric) << " fraction " << fraction << " correlation " << correlation;
      }
    }
  }
}

TEST(VectorIndex, ExplainReportsTheNumbersBehindThePlan) {
  const VectorIndex index = BuildIndex(Metric::kL2);
  roaring::Roaring few;
  for (std::uint32_t i = 0; i < 30; ++i) few.add(i * 7);
  VectorExplain explain;
  ASSERT_TRUE(index.Search(Query(5), Top(10), &few, &explain).ok());
  EXPECT_EQ(explain.plan, VectorPlan::kExact);
  EXPECT_EQ(explain.live, kN);
  EXPECT_EQ(explain.allowed, 30u);
  EXPECT_DOUBLE_EQ(explain.selectivity, 30.0 / kN);
  EXPECT_EQ(explain.distances, 30u);

  ASSERT_TRUE(index.Search(Query(5), Top(10), nullptr, &explain).ok());
  EXPECT_EQ(explain.plan, VectorPlan::kGraph);
  EXPECT_EQ(explain.allowed, kN);
  EXPECT_GE(explain.ef, 10u);
  EXPECT_GT(explain.distances, 0u);
  EXPECT_LT(explain.distances, kN);
}

// The planner's constants are the caller's (bench/vector's --fit sets them):
// the walk cost moves the choice between the plans, the default ef the walk.
TEST(VectorIndex, PlannerConstantsAreTheCallers) {
  const VectorIndex index = BuildIndex(Metric::kL2);
  const roaring::Roaring half = RandomAllowed(kN, 0.5, 77);
  VectorSearchOptions options = Top(10);
  VectorExplain explain;
  options.planner.walk_cost = 1e6;  // no walk is worth it
  ASSERT_TRUE(index.Search(Query(1), options, &half, &explain).ok());
  EXPECT_EQ(explain.plan, VectorPlan::kExact) << explain.reason;
  options.planner.walk_cost = 0.01;  // every walk is
  ASSERT_TRUE(index.Search(Query(1), options, &half, &explain).ok());
  EXPECT_EQ(explain.plan, VectorPlan::kGraph) << explain.reason;
  options.planner.default_ef = 123;
  ASSERT_TRUE(index.Search(Query(1), options, nullptr, &explain).ok());
  EXPECT_EQ(explain.ef, 123u);
  options.k = 100;  // never below 2k
  ASSERT_TRUE(index.Search(Query(1), options, nullptr, &explain).ok());
  EXPECT_EQ(explain.ef, 200u);
  options.ef = 150;  // the caller's ef wins over the default
  ASSERT_TRUE(index.Search(Query(1), options, nullptr, &explain).ok());
  EXPECT_EQ(explain.ef, 150u);
}

// A filter keeping a third of the records costs a walk at the global share
// (18 * 64 / (1/3) = 3,456 graph distances) more than the scan (2,000), so
// only a look at the query's neighbourhood tells a filter that keeps it
// (walk) from one that does not (scan).
TEST(VectorIndex, TheNeighbourhoodDecidesWhenAWalkCouldWin) {
  const VectorIndex index = BuildIndex(Metric::kL2);
  constexpr std::size_t kKept = 2000;
  for (int qi = 0; qi < 10; ++qi) {
    const auto q = index.store().PrepareQuery(Query(qi));
    ASSERT_TRUE(q.ok());
    const roaring::Roaring near = DistanceRankedAllowed(index.store(), q->data(), kKept, true);
    const roaring::Roaring far = DistanceRankedAllowed(index.store(), q->data(), kKept, false);
    const roaring::Roaring random = RandomAllowed(kN, double{kKept} / kN, 500 + qi);
    VectorExplain explain;
    const auto hits = index.Search(Query(qi), Top(10), &near, &explain);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ(explain.plan, VectorPlan::kGraph) << explain.reason;
    EXPECT_GT(explain.local_selectivity, 0.9);
    EXPECT_GE(Recall(*hits, ExactSearch(index.store(), q->data(), 10, &near)), 0.9);
    for (const roaring::Roaring* other : {&far, &random}) {
      ASSERT_TRUE(index.Search(Query(qi), Top(10), other, &explain).ok());
      EXPECT_EQ(explain.plan, VectorPlan::kExact) << explain.reason;
      EXPECT_GE(explain.local_selectivity, 0.0);
    }
  }
}

// Half the records kept: the walk looks cheaper (18 * 64 / 0.5 = 2,304 <
// 3,000) and runs without a sample; when its first nodes hold no allowed
// record (the far half kept) it gives up and the scan answers exactly.
TEST(VectorIndex, AWalkThatMeetsNoAllowedRecordNearTheQueryGivesWayToTheScan) {
  const VectorIndex index = BuildIndex(Metric::kL2);
  for (int qi = 0; qi < 10; ++qi) {
    const auto q = index.store().PrepareQuery(Query(qi));
    ASSERT_TRUE(q.ok());
    const roaring::Roaring far = DistanceRankedAllowed(index.store(), q->data(), kN / 2, false);
    const roaring::Roaring near = DistanceRankedAllowed(index.store(), q->data(), kN / 2, true);
    VectorExplain explain;
    auto hits = index.Search(Query(qi), Top(10), &far, &explain);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ(explain.plan, VectorPlan::kExact) << explain.reason;
    EXPECT_NE(explain.reason.find("none of the walk's 32 nearest nodes is allowed"),
              std::string::npos)
        << explain.reason;
    EXPECT_EQ(explain.local_selectivity, 0.0);
    EXPECT_EQ(Recall(*hits, ExactSearch(index.store(), q->data(), 10, &far)), 1.0);

    hits = index.Search(Query(qi), Top(10), &near, &explain);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ(explain.plan, VectorPlan::kGraph) << explain.reason;
    EXPECT_GT(explain.local_selectivity, 0.9);

    // A forced walk does not give up.
    hits = index.Search(Query(qi), Top(10, 0, VectorPlan::kGraph), &far, &explain);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ(explain.plan, VectorPlan::kGraph);
    EXPECT_EQ(hits->size(), 10u);
  }
}

TEST(VectorIndex, ForcedPlansAreFollowed) {
  const VectorIndex index = BuildIndex(Metric::kCosine);
  const roaring::Roaring allowed = RandomAllowed(kN, 0.2, 3);
  for (VectorPlan plan : {VectorPlan::kExact, VectorPlan::kGraph, VectorPlan::kGraphTwoHop}) {
    VectorExplain explain;
    const auto hits = index.Search(Query(9), Top(10, 80, plan), &allowed, &explain);
    ASSERT_TRUE(hits.ok());
    EXPECT_EQ(explain.plan, plan);
    EXPECT_EQ(hits->size(), 10u);
    for (const Neighbor& n : *hits) EXPECT_TRUE(allowed.contains(n.id));
    if (plan != VectorPlan::kExact) {
      EXPECT_EQ(explain.ef, 80u);
    }
  }
}

TEST(VectorIndex, EmptyAllowedSetAndZeroK) {
  const VectorIndex index = BuildIndex(Metric::kL2, 500);
  roaring::Roaring none;
  VectorExplain explain;
  auto hits = index.Search(Query(1), Top(10), &none, &explain);
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
  EXPECT_EQ(explain.reason, "no live record is allowed");
  hits = index.Search(Query(1), Top(0));
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
}

TEST(VectorIndex, BadQueriesAreInvalidArguments) {
  const VectorIndex index = BuildIndex(Metric::kL2, 200);
  const std::vector<float> short_query(kDim - 1, 0.5f);
  EXPECT_EQ(index.Search(short_query, Top(10)).status().code(), StatusCode::kInvalidArgument);
  std::vector<float> nan_query(kDim, 0.5f);
  nan_query[3] = std::nanf("");
  EXPECT_EQ(index.Search(nan_query, Top(10)).status().code(), StatusCode::kInvalidArgument);
}

TEST(VectorIndex, ABadVectorRejectsTheWholeBatch) {
  VectorIndexOptions options;
  options.dim = 4;
  VectorIndex index(options);
  std::vector<float> data(5 * 4, 1.0f);
  for (int d = 0; d < 4; ++d) data[3 * 4 + d] = 0;  // a zero vector has no direction
  const std::vector<std::uint32_t> ids = {0, 1, 2, 3, 4};
  const Status status = index.PutBatch(ids, data, 1);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("vectors[3]"), std::string::npos) << status.message();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.PutBatch(ids, std::vector<float>(7, 1.0f), 1).code(),
            StatusCode::kInvalidArgument);
}

TEST(VectorIndex, ARepeatedIdInABatchKeepsItsLastVector) {
  VectorIndexOptions options;
  options.dim = 2;
  options.metric = Metric::kL2;
  VectorIndex index(options);
  const std::vector<std::uint32_t> ids = {7, 8, 7};
  const std::vector<float> data = {0, 0, 5, 5, 10, 10};
  ASSERT_TRUE(index.PutBatch(ids, data, 2).ok());
  EXPECT_EQ(index.size(), 2u);
  const auto hits = index.Search(std::vector<float>{10, 10}, Top(1));
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].id, 7u);
  EXPECT_FLOAT_EQ((*hits)[0].distance, 0);
}

TEST(VectorIndex, RemovedAndReplacedRecords) {
  VectorIndex index = BuildIndex(Metric::kL2, 1000, 1);
  const auto q = Query(11);
  auto before = index.Search(q, Top(5));
  ASSERT_TRUE(before.ok());
  const std::uint32_t gone = (*before)[0].id;
  index.Remove(gone);
  auto after = index.Search(q, Top(5));
  ASSERT_TRUE(after.ok());
  for (const Neighbor& n : *after) EXPECT_NE(n.id, gone);
  // Re-putting a record under a new vector moves it: it is now the query itself.
  ASSERT_TRUE(index.Put(gone, q).ok());
  after = index.Search(q, Top(1));
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)[0].id, gone);
}

TEST(VectorIndex, SerializeRoundTripSearchesAlike) {
  const VectorIndex index = BuildIndex(Metric::kCosine, 2000);
  const std::string image = index.Serialize();
  auto loaded = VectorIndex::Load(image, 1u << 20);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->size(), index.size());
  const roaring::Roaring allowed = RandomAllowed(2000, 0.3, 4);
  for (int qi = 0; qi < 10; ++qi) {
    const auto a = index.Search(Query(qi), Top(10), &allowed);
    const auto b = loaded->Search(Query(qi), Top(10), &allowed);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
  }
  EXPECT_EQ(loaded->Serialize(), image);
  // Truncated or flipped images are refused, never trusted.
  for (std::size_t cut : {std::size_t{0}, std::size_t{7}, image.size() / 2, image.size() - 1}) {
    EXPECT_EQ(VectorIndex::Load(image.substr(0, cut), 1u << 20).status().code(),
              StatusCode::kCorruption);
  }
  std::string flipped = image;
  flipped[flipped.size() / 3] ^= 0x20;
  EXPECT_EQ(VectorIndex::Load(flipped, 1u << 20).status().code(), StatusCode::kCorruption);
}

// Staged records (stored, not yet linked) are found by every plan, survive a
// byte image, and are linked by LinkPending; every metric, dot included
// (whose Euclidean copy may have to grow when they are linked).
TEST(VectorIndex, StagedRecordsAreSearchedUntilLinked) {
  for (Metric metric : {Metric::kL2, Metric::kCosine, Metric::kDot}) {
    SCOPED_TRACE(std::string(MetricName(metric)));
    VectorIndex index = BuildIndex(metric, 2000, 1);
    // Stage the next 300 vectors of the mixture.
    std::vector<std::uint32_t> ids(300);
    std::vector<float> staged(Mixture().begin() + 2000 * kDim, Mixture().begin() + 2300 * kDim);
    for (std::uint32_t i = 0; i < 300; ++i) ids[i] = 2000 + i;
    ASSERT_TRUE(index.Stage(ids, staged, 1).ok());
    EXPECT_EQ(index.pending(), 300u);
    EXPECT_EQ(index.size(), 2300u);
    const roaring::Roaring allowed = RandomAllowed(2300, 0.5, 9);
    auto expect_matches_exact = [&](const VectorIndex& idx) {
      for (std::uint32_t i : {0u, 150u, 299u}) {
        const std::vector<float> q(staged.begin() + i * kDim, staged.begin() + (i + 1) * kDim);
        for (VectorPlan plan : {VectorPlan::kGraph, VectorPlan::kExact}) {
          auto hits = idx.Search(q, Top(10, 200, plan), &allowed);
          ASSERT_TRUE(hits.ok());
          ExpectWellFormed(idx, *hits, 10, &allowed);
          const std::vector<Neighbor> truth =
              ExactSearch(idx.store(), idx.store().PrepareQuery(q)->data(), 10, &allowed);
          EXPECT_GE(Recall(*hits, truth), 0.9) << VectorPlanName(plan);
        }
      }
    };
    expect_matches_exact(index);
    // An image taken now keeps them staged.
    auto loaded = VectorIndex::Load(index.Serialize(), 1u << 20);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ(loaded->pending(), 300u);
    expect_matches_exact(*loaded);
    // Removing a staged record forgets it; linking the rest empties the stage.
    index.Remove(2000);
    EXPECT_EQ(index.pending(), 299u);
    EXPECT_EQ(index.LinkPending(100, 2), 100u);
    EXPECT_EQ(index.pending(), 199u);
    EXPECT_EQ(index.LinkPending(1000, 2), 199u);
    EXPECT_EQ(index.pending(), 0u);
    EXPECT_EQ(index.graph().size(), 2299u);
    expect_matches_exact(index);
    // A staged vector much longer than any before: for dot it is linked
    // outside the copy's range (searched exactly), nothing else relinked.
    std::vector<float> far(staged.begin(), staged.begin() + kDim);
    for (float& x : far) x *= 8;
    const std::uint32_t far_id = 5000;
    ASSERT_TRUE(index.Stage(std::span(&far_id, 1), far, 1).ok());
    EXPECT_EQ(index.pending(), 1u);
    EXPECT_EQ(index.LinkPending(10, 1), 1u);
    EXPECT_EQ(index.pending(), 0u);
    EXPECT_EQ(index.graph().size() + index.outside(), index.size());
    EXPECT_EQ(index.outside(), metric == Metric::kDot ? 1u : 0u);
    EXPECT_EQ(index.relinked(), 0u);
    auto hit = index.Search(far, Top(1, 0, VectorPlan::kGraph));
    ASSERT_TRUE(hit.ok() && hit->size() == 1);
    if (metric != Metric::kCosine) {
      EXPECT_EQ((*hit)[0].id, far_id);
    }
  }
}

}  // namespace vector_index_test
}  // namespace
}  // namespace engram::vector
