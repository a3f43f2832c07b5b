// VectorIndexOptions::quantize: graph walks on the 8-bit copy of the vectors
// (quantize/sq8.h), re-ranked with the floats. Every plan keeps its recall,
// the distances returned are the floats', and the copy follows every write,
// a byte image and its reload.
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "vector/exact/exact_search.h"
#include "vector/test_vectors.h"
#include "vector/vector_index.h"

namespace engram::vector {
namespace {
namespace quantized_index_test {

using testing::ClusteredVectors;
using testing::DistanceRankedAllowed;
using testing::RandomAllowed;
using testing::Recall;

constexpr std::size_t kDim = 24;
constexpr std::size_t kN = 4000;
constexpr std::size_t kQueries = 30;

const std::vector<float>& Mixture() {
  static const std::vector<float> data = ClusteredVectors(kN + kQueries, kDim, 30, 11);
  return data;
}

std::span<const float> Query(std::size_t i) {
  return std::span(Mixture()).subspan((kN + i) * kDim, kDim);
}

VectorIndex Build(Metric metric, bool quantize) {
  VectorIndexOptions options;
  options.dim = kDim;
  options.metric = metric;
  options.hnsw.m = 12;
  options.hnsw.ef_construction = 100;
  options.quantize = quantize;
  VectorIndex index(options);
  std::vector<std::uint32_t> ids(kN);
  for (std::uint32_t i = 0; i < kN; ++i) ids[i] = i;
  EXPECT_TRUE(index.PutBatch(ids, std::span(Mixture()).first(kN * kDim), 2).ok());
  return index;
}

VectorSearchOptions Plan(VectorPlan plan, std::size_t ef) {
  VectorSearchOptions o;
  o.k = 10;
  o.ef = ef;
  o.plan = plan;
  return o;
}

// Each hit's distance is the float distance of its record (the exact plan's
// figure), and the hits are in that order.
void ExpectFloatDistances(const VectorIndex& index, std::span<const float> query,
                          const std::vector<Neighbor>& hits) {
  const auto exact = index.Search(query, Plan(VectorPlan::kExact, 0));
  ASSERT_TRUE(exact.ok());
  const auto q = index.store().PrepareQuery(query);
  ASSERT_TRUE(q.ok());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (i > 0) {
      EXPECT_FALSE(hits[i] < hits[i - 1]);
    }
    if (index.store().metric() != Metric::kDot) {
      EXPECT_EQ(hits[i].distance, index.store().Distance(q->data(), hits[i].id));
    }
    for (const Neighbor& e : *exact) {
      if (e.id == hits[i].id) {
        EXPECT_EQ(e.distance, hits[i].distance);
      }
    }
  }
}

// Unfiltered, walk-all under a random filter, two-hop under a filter near
// the query: recall@10 against the exact oracle at least that of the float
// walk less 0.02, and at least 0.95, for every metric.
TEST(QuantizedIndex, EveryWalkKeepsItsRecall) {
  for (Metric metric : {Metric::kL2, Metric::kCosine, Metric::kDot}) {
    const VectorIndex floats = Build(metric, false);
    const VectorIndex coded = Build(metric, true);
    EXPECT_FALSE(floats.quantized());
    ASSERT_TRUE(coded.quantized());
    EXPECT_GT(coded.MemoryBytes(), floats.MemoryBytes() + kN * kDim);
    for (int form = 0; form < 3; ++form) {
      double recall_floats = 0, recall_coded = 0;
      for (std::size_t qi = 0; qi < kQueries; ++qi) {
        const auto q = coded.store().PrepareQuery(Query(qi));
        ASSERT_TRUE(q.ok());
        const roaring::Roaring allowed =
            form == 1 ? RandomAllowed(kN, 0.3, 50 + qi)
                      : DistanceRankedAllowed(coded.store(), q->data(), kN / 5, true);
        const roaring::Roaring* filter = form == 0 ? nullptr : &allowed;
        const VectorPlan plan = form == 2 ? VectorPlan::kGraphTwoHop : VectorPlan::kGraph;
        const auto a = floats.Search(Query(qi), Plan(plan, 48), filter);
        const auto b = coded.Search(Query(qi), Plan(plan, 48), filter);
        ASSERT_TRUE(a.ok() && b.ok());
        ASSERT_EQ(b->size(), 10u);
        const auto truth = ExactSearch(coded.store(), q->data(), 10, filter);
        recall_floats += Recall(*a, truth);
        recall_coded += Recall(*b, truth);
        ExpectFloatDistances(coded, Query(qi), *b);
      }
      recall_floats /= kQueries;
      recall_coded /= kQueries;
      EXPECT_GE(recall_coded, 0.95) << MetricName(metric) << " form " << form;
      EXPECT_GE(recall_coded, recall_floats - 0.02) << MetricName(metric) << " form " << form;
    }
  }
}

// The copy follows replaced and removed records, and a reloaded image
// quantised again searches exactly as the index it came from.
TEST(QuantizedIndex, FollowsWritesAndImages) {
  VectorIndex index = Build(Metric::kL2, true);
  const std::span<const float> q = Query(3);
  auto before = index.Search(q, Plan(VectorPlan::kGraph, 32));
  ASSERT_TRUE(before.ok());
  const std::uint32_t gone = (*before)[0].id;
  index.Remove(gone);
  auto after = index.Search(q, Plan(VectorPlan::kGraph, 32));
  ASSERT_TRUE(after.ok());
  for (const Neighbor& n : *after) EXPECT_NE(n.id, gone);
  // A record replaced by the query itself is found first, at distance 0.
  const std::uint32_t moved = (*after)[5].id;
  ASSERT_TRUE(index.Put(moved, q).ok());
  after = index.Search(q, Plan(VectorPlan::kGraph, 32));
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)[0].id, moved);
  EXPECT_EQ((*after)[0].distance, 0.0f);

  auto loaded = VectorIndex::Load(index.Serialize(), 1u << 20);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_FALSE(loaded->quantized());  // the copy is not in the image
  loaded->Quantize();
  ASSERT_TRUE(loaded->quantized());
  EXPECT_EQ(loaded->Serialize(), index.Serialize());
  for (std::size_t qi = 0; qi < kQueries; ++qi) {
    const auto a = index.Search(Query(qi), Plan(VectorPlan::kGraph, 32));
    const auto b = loaded->Search(Query(qi), Plan(VectorPlan::kGraph, 32));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b) << "query " << qi;
  }
}

}  // namespace quantized_index_test
}  // namespace
}  // namespace engram::vector
