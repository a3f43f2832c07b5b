// Value graphs through VectorIndex: a filter given as a cover of keys is
// answered from the keys' graphs with the recall of the exact oracle's
// filtered top-k, under filters far from the query, partial filters, and
// after replaced vectors, changed keys, removals, staging, demotion and a
// snapshot round trip.
#include "vector/value_graphs.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vector/exact/exact_search.h"
#include "vector/test_vectors.h"
#include "vector/vector_index.h"

namespace engram::vector {
namespace {
namespace value_graphs_test {

using testing::Recall;

constexpr std::size_t kDim = 16;
constexpr std::size_t kLabels = 30;
constexpr std::size_t kN = 4500;
constexpr std::size_t kQueries = 16;

// A Gaussian mixture with each record's component as its label.
struct Labelled {
  std::vector<float> rows;  // kN records, then kQueries queries
  std::vector<std::uint32_t> labels;
};

const Labelled& Data() {
  static const Labelled data = [] {
    Labelled d;
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<float> uni(-1, 1);
    std::normal_distribution<float> noise(0, 0.15f);
    std::vector<float> centres(kLabels * kDim);
    for (float& x : centres) x = uni(rng);
    for (std::size_t i = 0; i < kN + kQueries; ++i) {
      const std::uint32_t at = static_cast<std::uint32_t>(rng() % kLabels);
      if (i < kN) d.labels.push_back(at);
      for (std::size_t c = 0; c < kDim; ++c) d.rows.push_back(centres[at * kDim + c] + noise(rng));
    }
    return d;
  }();
  return data;
}

std::string Key(std::uint32_t label) {
  return "label\x1f" + std::to_string(label);
}

std::span<const float> Row(std::size_t i) {
  return std::span<const float>(Data().rows).subspan(i * kDim, kDim);
}

VectorIndex Build(Metric metric, std::size_t value_graph_min = 75, bool quantize = false) {
  VectorIndexOptions options;
  options.quantize = quantize;
  options.dim = kDim;
  options.metric = metric;
  options.hnsw.m = 12;
  options.hnsw.ef_construction = 100;
  options.value_graph_min = value_graph_min;
  VectorIndex index(options);
  std::vector<std::uint32_t> ids(kN);
  for (std::uint32_t i = 0; i < kN; ++i) {
    ids[i] = i;
    const std::string key = Key(Data().labels[i]);
    EXPECT_TRUE(index.SetKeys(i, std::span(&key, 1)).ok());
  }
  EXPECT_TRUE(index.PutBatch(ids, std::span(Data().rows).first(kN * kDim), 2).ok());
  return index;
}

// The labels farthest from query q (their records' mean distance): a filter
// anti-correlated with it, with its cover.
struct Filter {
  roaring::Roaring allowed;
  std::vector<std::string> cover;
};

Filter FarLabels(const VectorIndex& index, const std::vector<float>& q, std::size_t count) {
  std::vector<double> sum(kLabels, 0);
  std::vector<std::size_t> n(kLabels, 0);
  for (std::uint32_t l = 0; l < kLabels; ++l) {
    const roaring::Roaring* records = index.values().RecordsOf(Key(l));
    if (records == nullptr) continue;
    for (std::uint32_t id : *records& index.store().live()) {
      sum[l] += index.store().Distance(q.data(), id);
      ++n[l];
    }
  }
  std::vector<std::uint32_t> order(kLabels);
  for (std::uint32_t l = 0; l < kLabels; ++l) order[l] = l;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return sum[a] / std::max<std::size_t>(1, n[a]) > sum[b] / std::max<std::size_t>(1, n[b]);
  });
  Filter f;
  for (std::size_t i = 0; i < count; ++i) {
    f.cover.push_back(Key(order[i]));
    const roaring::Roaring* records = index.values().RecordsOf(Key(order[i]));
    if (records != nullptr) f.allowed |= *records;
  }
  return f;
}

// Mean recall@10 of the value-graph plan (forced or chosen) against the
// exact filtered top-10, over the queries; every hit allowed and live.
double CoverRecall(const VectorIndex& index, std::size_t labels, bool halve, bool forced) {
  double recall = 0;
  for (std::size_t qi = 0; qi < kQueries; ++qi) {
    const std::vector<float> query(Row(kN + qi).begin(), Row(kN + qi).end());
    const auto q = index.store().PrepareQuery(query);
    EXPECT_TRUE(q.ok());
    Filter f = FarLabels(index, *q, labels);
    if (halve) {
      roaring::Roaring half;
      for (std::uint32_t id : f.allowed)
        if (id % 2 == 0) half.add(id);
      f.allowed = half;
    }
    VectorSearchOptions options;
    options.k = 10;
    options.cover = &f.cover;
    options.planner.measured = false;  // the fitted estimates: the plan is checked
    if (forced) options.plan = VectorPlan::kValueGraphs;
    VectorExplain explain;
    const auto hits = index.Search(query, options, &f.allowed, &explain);
    EXPECT_TRUE(hits.ok());
    EXPECT_EQ(explain.plan, VectorPlan::kValueGraphs) << explain.reason;
    for (const Neighbor& h : *hits) {
      EXPECT_TRUE(f.allowed.contains(h.id));
      EXPECT_TRUE(index.store().Contains(h.id));
    }
    const auto truth = ExactSearch(index.store(), q->data(), 10, &f.allowed);
    EXPECT_EQ(hits->size(), truth.size());
    recall += Recall(*hits, truth);
  }
  return recall / kQueries;
}

TEST(ValueGraphs, EveryLabelWithEnoughRecordsHasAGraph) {
  const VectorIndex index = Build(Metric::kL2);
  EXPECT_EQ(index.values().keys(), kLabels);
  EXPECT_EQ(index.values().graphs(), kLabels);
  const VectorIndex few = Build(Metric::kL2, 100000);
  EXPECT_EQ(few.values().graphs(), 0u);
  // Without graphs a cover has nothing to walk: the other plans answer.
  const std::vector<float> query(Row(kN).begin(), Row(kN).end());
  const auto q = few.store().PrepareQuery(query);
  const Filter f = FarLabels(few, *q, 3);
  VectorSearchOptions options;
  options.k = 10;
  options.cover = &f.cover;
  VectorExplain explain;
  const auto hits = few.Search(query, options, &f.allowed, &explain);
  ASSERT_TRUE(hits.ok());
  EXPECT_NE(explain.plan, VectorPlan::kValueGraphs);
  EXPECT_EQ(Recall(*hits, ExactSearch(few.store(), q->data(), 10, &f.allowed)), 1.0);
}

TEST(ValueGraphs, FarFiltersKeepRecall) {
  for (Metric metric : {Metric::kL2, Metric::kCosine, Metric::kDot}) {
    const VectorIndex index = Build(metric);
    for (std::size_t labels : {1u, 3u, 15u}) {
      EXPECT_GE(CoverRecall(index, labels, false, true), 0.95)
          << MetricName(metric) << " " << labels << " labels";
      EXPECT_GE(CoverRecall(index, labels, true, true), 0.95)
          << MetricName(metric) << " " << labels << " labels, half kept";
    }
  }
}

// Keys too small for a graph are scanned: whole, and tested record by record
// where the filter keeps part of them.
TEST(ValueGraphs, KeysWithoutGraphsAreScanned) {
  for (Metric metric : {Metric::kL2, Metric::kCosine, Metric::kDot}) {
    const VectorIndex index = Build(metric, 150);
    std::size_t without = 0;
    for (std::uint32_t l = 0; l < kLabels; ++l) without += index.values().HasGraph(Key(l)) ? 0 : 1;
    ASSERT_GT(without, 5u);
    ASSERT_LT(without, kLabels - 5);
    EXPECT_GE(CoverRecall(index, 20, false, true), 0.95) << MetricName(metric);
    EXPECT_GE(CoverRecall(index, 20, true, true), 0.95) << MetricName(metric) << ", half kept";
  }
}

// A key's scan is the exact best of its kept records; in a quantised index
// (the graphs' 8-bit copies, re-ranked with the floats) nearly so, at the
// floats' distances.
TEST(ValueGraphs, ScanIsTheBestOfItsKey) {
  for (const bool quantize : {false, true}) {
    for (Metric metric : {Metric::kL2, Metric::kCosine}) {
      const VectorIndex index = Build(metric, 75, quantize);
      std::size_t found = 0, wanted = 0;
      for (std::uint32_t label = 0; label < 5; ++label) {
        const auto key = index.values().Find(Key(label));
        ASSERT_TRUE(key && key->has_graph());
        roaring::Roaring half;
        for (std::uint32_t id : *key->records) {
          if (id % 2 == 0) half.add(id);
        }
        const roaring::Roaring kept = *key->records & half;
        std::vector<std::uint64_t> bits;
        DocFilter filter;
        filter.words = (std::size_t{index.store().limit()} + 63) / 64;
        DenseBits(half, filter.words, bits);
        filter.bits = bits.data();
        for (std::size_t qi = 0; qi < kQueries; ++qi) {
          const std::vector<float> raw(Row(kN + qi).begin(), Row(kN + qi).end());
          const auto q = index.store().PrepareQuery(raw);
          ASSERT_TRUE(q.ok());
          for (const DocFilter* allowed :
               {static_cast<const DocFilter*>(nullptr), static_cast<const DocFilter*>(&filter)}) {
            std::size_t measured = 0;
            const auto got =
                index.values().Scan(*key, q->data(), 10, allowed, nullptr, false, &measured);
            EXPECT_EQ(measured, (allowed ? kept : *key->records).cardinality());
            const auto exact =
                ExactSearch(index.store(), q->data(), 10, allowed ? &kept : key->records);
            if (!quantize) {
              EXPECT_EQ(got, exact) << MetricName(metric);
            }
            ASSERT_EQ(got.size(), exact.size());
            for (const Neighbor& nb : got) {
              EXPECT_EQ(nb.distance, index.store().Distance(q->data(), nb.id));
              found += std::count(exact.begin(), exact.end(), nb);
            }
            wanted += exact.size();
          }
        }
      }
      // Measured: 1.000 quantised too.
      EXPECT_GE(static_cast<double>(found), 0.97 * static_cast<double>(wanted))
          << MetricName(metric) << (quantize ? " quantised" : "");
    }
  }
}

// Keys that hold exactly the allowed records are searched whole, unfiltered.
// A caller whose cover breaks its contract (an allowed record in no key)
// with a count that matches all the same gets no record it did not allow.
// Keys too small for a graph (min 150) are scanned, and checked the same.
TEST(ValueGraphs, WholeKeysNeverAnswerWithRecordsNotAllowed) {
  for (std::size_t min : {75u, 150u}) {
    const VectorIndex index = Build(Metric::kL2, min);
    for (std::size_t qi = 0; qi < kQueries; ++qi) {
      const std::vector<float> query(Row(kN + qi).begin(), Row(kN + qi).end());
      Filter f = FarLabels(index, query, 6);
      // Its nearest allowed record traded for one of another label.
      const auto truth = ExactSearch(index.store(), query.data(), 10, &f.allowed);
      ASSERT_FALSE(truth.empty());
      f.allowed.remove(truth[0].id);
      for (std::uint32_t id = 0; id < kN; ++id) {
        if (!f.allowed.contains(id) && id != truth[0].id) {
          f.allowed.add(id);
          break;
        }
      }
      VectorSearchOptions options;
      options.k = 10;
      options.cover = &f.cover;
      options.plan = VectorPlan::kValueGraphs;
      const auto hits = index.Search(query, options, &f.allowed);
      ASSERT_TRUE(hits.ok());
      EXPECT_FALSE(hits->empty());
      for (const Neighbor& h : *hits) EXPECT_TRUE(f.allowed.contains(h.id)) << h.id;
    }
  }
}

// The key estimated nearest holds one of the three nearest keys' records,
// and the estimates are in the store's distance (cosine's included).
TEST(ValueGraphs, EstimatesFollowEachKeysNearestRecord) {
  for (Metric metric : {Metric::kL2, Metric::kCosine}) {
    const VectorIndex index = Build(metric);
    double ratio = 0;
    for (std::size_t qi = 0; qi < kQueries; ++qi) {
      const std::vector<float> query(Row(kN + qi).begin(), Row(kN + qi).end());
      const auto q = index.store().PrepareQuery(query);
      ASSERT_TRUE(q.ok());
      std::vector<std::pair<double, float>> keys;  // estimate, nearest record
      for (std::uint32_t label = 0; label < kLabels; ++label) {
        const auto key = index.values().Find(Key(label));
        ASSERT_TRUE(key && key->has_graph());
        const float nearest = ExactSearch(index.store(), q->data(), 1, key->records)[0].distance;
        keys.emplace_back(index.values().Estimate(*key, q->data()), nearest);
        ratio += keys.back().first / keys.back().second;
      }
      std::vector<float> nearest;
      for (const auto& k : keys) nearest.push_back(k.second);
      std::sort(nearest.begin(), nearest.end());
      EXPECT_LE(std::min_element(keys.begin(), keys.end())->second, nearest[2])
          << MetricName(metric) << " query " << qi;
    }
    ratio /= static_cast<double>(kQueries * kLabels);
    EXPECT_GT(ratio, 0.75) << MetricName(metric);
    EXPECT_LT(ratio, 1.33) << MetricName(metric);
  }
}

TEST(ValueGraphs, SurviveReplacedVectorsChangedKeysAndRemovals) {
  VectorIndex index = Build(Metric::kL2);
  std::mt19937_64 rng(5);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 300; ++i) {
      const auto id = static_cast<std::uint32_t>(rng() % kN);
      switch (rng() % 3) {
        case 0: {  // a new vector, from another record
          const auto from = static_cast<std::uint32_t>(rng() % kN);
          ASSERT_TRUE(index.Put(id, Row(from)).ok());
          break;
        }
        case 1: {  // another label
          const std::string key = Key(static_cast<std::uint32_t>(rng() % kLabels));
          ASSERT_TRUE(index.SetKeys(id, std::span(&key, 1)).ok());
          break;
        }
        default:
          index.Remove(id);
          break;
      }
    }
    EXPECT_GE(CoverRecall(index, 3, false, true), 0.95) << "round " << round;
    EXPECT_GE(CoverRecall(index, 15, true, true), 0.95) << "round " << round;
  }
}

TEST(ValueGraphs, StagedRecordsAreScannedUntilLinked) {
  VectorIndex index = Build(Metric::kL2);
  // Records of label 0 staged under new numbers: searched at once.
  const roaring::Roaring* zero = index.values().RecordsOf(Key(0));
  ASSERT_NE(zero, nullptr);
  std::vector<std::uint32_t> ids;
  std::vector<float> rows;
  for (std::uint32_t id = 0; id < kN && ids.size() < 50; ++id) {
    if (Data().labels[id] != 0) continue;
    ids.push_back(static_cast<std::uint32_t>(kN + ids.size()));
    const std::string key = Key(0);
    ASSERT_TRUE(index.SetKeys(ids.back(), std::span(&key, 1)).ok());
    rows.insert(rows.end(), Row(id).begin(), Row(id).end());
  }
  ASSERT_TRUE(index.Stage(ids, rows, 1).ok());
  const std::vector<std::string> cover = {Key(0)};
  roaring::Roaring allowed = *index.values().RecordsOf(Key(0));
  for (std::uint32_t id : ids) {
    VectorSearchOptions options;
    options.k = 2;
    options.cover = &cover;
    options.plan = VectorPlan::kValueGraphs;
    const auto hits = index.Search(std::span<const float>(rows).subspan((id - kN) * kDim, kDim),
                                   options, &allowed);
    ASSERT_TRUE(hits.ok());
    ASSERT_FALSE(hits->empty());
    EXPECT_EQ((*hits)[0].distance, 0.0f);  // itself (or its twin), at distance 0
  }
  EXPECT_EQ(index.LinkPending(1000, 1), ids.size());
  EXPECT_GE(CoverRecall(index, 1, false, true), 0.95);
}

// As the engine replays a crash: records move to other keys with new
// vectors staged, new ones are staged, and the background links them all on
// two threads.
TEST(ValueGraphs, StagedMovesLinkedOnThreads) {
  VectorIndex built = Build(Metric::kL2);
  auto loaded = VectorIndex::Load(built.Serialize(), kN + 1000);
  ASSERT_TRUE(loaded.ok());
  VectorIndex& index = *loaded;
  std::vector<std::uint32_t> ids;
  std::vector<float> rows;
  for (std::uint32_t id = 0; id < kN; id += 20) {
    const std::uint32_t label = (Data().labels[id] + 1) % kLabels;
    const std::string key = Key(label);
    ASSERT_TRUE(index.SetKeys(id, std::span(&key, 1)).ok());
    ids.push_back(id);
    // A vector of a record of its new label.
    std::uint32_t from = 0;
    while (Data().labels[from] != label) ++from;
    rows.insert(rows.end(), Row(from).begin(), Row(from).end());
  }
  for (std::uint32_t i = 0; i < 300; ++i) {
    const std::uint32_t id = kN + i;
    const std::string key = Key(Data().labels[i]);
    ASSERT_TRUE(index.SetKeys(id, std::span(&key, 1)).ok());
    ids.push_back(id);
    rows.insert(rows.end(), Row(i).begin(), Row(i).end());
  }
  ASSERT_TRUE(index.Stage(ids, rows, 2).ok());
  EXPECT_GE(CoverRecall(index, 3, false, true), 0.95) << "staged";
  index.LinkPending(100000, 2);
  EXPECT_GE(CoverRecall(index, 3, false, true), 0.95) << "linked";
  EXPECT_GE(CoverRecall(index, 1, false, true), 0.95) << "linked";
}

TEST(ValueGraphs, ShrinkingKeysLoseTheirGraphs) {
  VectorIndex index = Build(Metric::kL2, 75);
  const roaring::Roaring records = *index.values().RecordsOf(Key(0));
  std::size_t left = records.cardinality();
  for (std::uint32_t id : records) {
    if (left < 35) break;
    index.Remove(id);
    --left;
  }
  EXPECT_FALSE(index.values().HasGraph(Key(0)));
  EXPECT_TRUE(index.values().HasGraph(Key(1)));
  const roaring::Roaring rest = *index.values().RecordsOf(Key(0));
  for (std::uint32_t id : rest) index.Remove(id);
  EXPECT_EQ(index.values().RecordsOf(Key(0)), nullptr);
  EXPECT_EQ(index.values().keys(), kLabels - 1);
}

TEST(ValueGraphs, SnapshotsRoundTrip) {
  for (Metric metric : {Metric::kL2, Metric::kDot}) {
    VectorIndex index = Build(metric);
    for (std::uint32_t id = 0; id < kN; id += 7) index.Remove(id);
    const std::string image = index.Serialize();
    auto loaded = VectorIndex::Load(image, kN + 100);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ(loaded->values().graphs(), index.values().graphs());
    EXPECT_EQ(loaded->Serialize(), image);
    for (std::size_t qi = 0; qi < 10; ++qi) {
      const std::vector<float> query(Row(kN + qi).begin(), Row(kN + qi).end());
      const auto q = index.store().PrepareQuery(query);
      const Filter f = FarLabels(index, *q, 3);
      VectorSearchOptions options;
      options.k = 10;
      options.cover = &f.cover;
      options.plan = VectorPlan::kValueGraphs;
      const auto a = index.Search(query, options, &f.allowed);
      const auto b = loaded->Search(query, options, &f.allowed);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(*a, *b);
    }
    EXPECT_GE(CoverRecall(*loaded, 15, false, true), 0.95);
  }
}

TEST(ValueGraphs, DamagedImagesAreRefused) {
  VectorIndex index = Build(Metric::kL2);
  const std::string image = index.values().Serialize();
  const VectorStore& walk = index.store();
  auto linked = [&](std::uint32_t id) { return index.graph().Contains(id) && walk.Contains(id); };
  ASSERT_TRUE(ValueGraphs::Load(image, &walk, HnswOptions{12, 100}, kN, linked).ok());
  for (std::size_t cut : {std::size_t{0}, std::size_t{10}, image.size() / 2, image.size() - 1}) {
    EXPECT_FALSE(
        ValueGraphs::Load(image.substr(0, cut), &walk, HnswOptions{12, 100}, kN, linked).ok());
  }
  // Well-formed, but naming records that are not linked.
  auto none = [](std::uint32_t) { return false; };
  const auto refused = ValueGraphs::Load(image, &walk, HnswOptions{12, 100}, kN, none);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().ToString().find("not linked"), std::string::npos);
  // Or records past the caller's bound.
  EXPECT_FALSE(ValueGraphs::Load(image, &walk, HnswOptions{12, 100}, 100, linked).ok());
  // Too many keys on a record.
  std::vector<std::string> keys(kMaxKeysPerRecord + 1, "k");
  EXPECT_FALSE(index.SetKeys(1, keys).ok());
}

// Images from before value graphs (version 2) load, with none.
TEST(ValueGraphs, Version2ImagesLoadWithoutThem) {
  std::ifstream in("tests/fuzz/seeds/vector_index/l2_version2", std::ios::binary);
  ASSERT_TRUE(in.good());
  const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto loaded = VectorIndex::Load(image, 64);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_GT(loaded->size(), 0u);
  EXPECT_EQ(loaded->values().keys(), 0u);
}

}  // namespace value_graphs_test
}  // namespace
}  // namespace engram::vector
