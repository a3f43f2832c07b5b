#include "index/metadata_index.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/json.h"
#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "filter/test_schema.h"
#include "schema/record.h"

namespace engram::index {
namespace {

using filter::Dialect;

// Records 0..5 of the filter test schema (i int, f float, s string, b bool,
// d datetime, tags set<string>, j int default 0).
MetadataIndex Index() {
  MetadataIndex index(filter::TestSchema());
  const char* rows[] = {
      R"({"id":"0","i":1,"f":1.5,"s":"Apple pie","b":true,"tags":["a","b"]})",
      R"({"id":"1","i":2,"f":2.0,"s":"banana","b":false,"tags":["b"]})",
      R"({"id":"2","i":3,"s":"cherry","d":"2024-02-29T00:00:00Z"})",
      R"({"id":"3","f":-0.0,"tags":[]})",
      R"({"id":"4","i":9007199254740993,"f":9007199254740992.0,"j":5})",
      R"({"id":"5","i":2,"f":2.5,"s":"APPLE","j":2})",
  };
  std::uint32_t n = 0;
  for (const char* row : rows) {
    auto record = ParseRecord(json::Read(row).value, *filter::TestSchema());
    EXPECT_TRUE(record.ok()) << row;
    index.Put(n++, record.value().slots);
  }
  return index;
}

std::vector<std::uint32_t> Ids(const roaring::Roaring& r) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t x : r) out.push_back(x);
  return out;
}

// Evaluates a vector_filter filter through the index, checks the evaluator
// agrees on every live record, and returns the allowed record numbers.
std::vector<std::uint32_t> Allowed(const MetadataIndex& index, const std::string& text) {
  auto compiled = filter::Compile(Dialect::kVectorFilter, text, filter::TestSchema());
  EXPECT_TRUE(compiled.ok()) << text << ": " << compiled.diagnostic().message;
  if (!compiled.ok()) return {};
  for (const filter::Filter* f : {&compiled.value().checked, &compiled.value().optimized}) {
    const roaring::Roaring got = index.Evaluate(f->root);
    for (std::uint32_t r : index.live()) {
      EXPECT_EQ(got.contains(r), filter::Evaluate(f->root, *index.Row(r)))
          << text << " record " << r;
    }
    EXPECT_EQ(got.and_cardinality(index.live()), got.cardinality()) << "only live records";
  }
  return Ids(index.Evaluate(compiled.value().checked.root));
}

using V = std::vector<std::uint32_t>;

TEST(MetadataIndex, EqualityIsExactAcrossIntAndFloat) {
  const MetadataIndex index = Index();
  EXPECT_EQ(Allowed(index, R"({"f":2})"), V({1}));
  EXPECT_EQ(Allowed(index, R"({"i":2.0})"), V({1, 5}));
  EXPECT_EQ(Allowed(index, R"({"f":0})"), V({3})) << "-0.0 equals 0";
  // 2^53 + 1 is not the float 2^53.
  EXPECT_EQ(Allowed(index, R"({"i":9007199254740993})"), V({4}));
  EXPECT_EQ(Allowed(index, R"({"f":9007199254740993})"), V({}));
  EXPECT_EQ(Allowed(index, R"({"f":{"$gt":9007199254740991}})"), V({4}));
}

TEST(MetadataIndex, AbsentFieldsAreFalseAndNotInvertsThat) {
  const MetadataIndex index = Index();
  // vector_filter's $ne is not($eq): records without the field pass.
  EXPECT_EQ(Allowed(index, R"({"i":{"$ne":2}})"), V({0, 2, 3, 4}));
  EXPECT_EQ(Allowed(index, R"({"i":{"$exists":true,"$ne":2}})"), V({0, 2, 4}));
  EXPECT_EQ(Allowed(index, R"({"s":{"$exists":false}})"), V({3, 4}));
  EXPECT_EQ(Allowed(index, R"({"j":0})"), V({0, 1, 2, 3})) << "defaults are values";
}

TEST(MetadataIndex, RangesSetsAndSubstrings) {
  const MetadataIndex index = Index();
  EXPECT_EQ(Allowed(index, R"({"i":{"$gte":2,"$lt":3}})"), V({1, 5}));
  EXPECT_EQ(Allowed(index, R"({"i":{"$gt":3,"$lt":2}})"), V({}));
  EXPECT_EQ(Allowed(index, R"({"f":{"$lte":2}})"), V({0, 1, 3}));
  EXPECT_EQ(Allowed(index, R"({"s":{"$gte":"b"}})"), V({1, 2}));
  EXPECT_EQ(Allowed(index, R"({"d":{"$gte":"2024-02-29T00:00:00Z"}})"), V({2}));
  EXPECT_EQ(Allowed(index, R"({"tags":{"$in":["b","z"]}})"), V({0, 1}));
  EXPECT_EQ(Allowed(index, R"({"tags":{"$nin":["b"]}})"), V({2, 3, 4, 5}));
  EXPECT_EQ(Allowed(index, R"({"s":{"$in":["banana","cherry","nope"]}})"), V({1, 2}));
  EXPECT_EQ(Allowed(index, R"({"$or":[{"b":true},{"i":3}]})"), V({0, 2}));
  EXPECT_EQ(Allowed(index, R"({"$and":[{"b":{"$exists":true}},{"i":{"$lte":2}}]})"), V({0, 1}));
}

TEST(MetadataIndex, ReplacingAndRemovingRecords) {
  MetadataIndex index = Index();
  auto moved =
      ParseRecord(json::Read(R"({"id":"1","i":7,"s":"zebra"})").value, *filter::TestSchema());
  ASSERT_TRUE(moved.ok());
  index.Put(1, moved.value().slots);
  EXPECT_EQ(Allowed(index, R"({"i":2})"), V({5}));
  EXPECT_EQ(Allowed(index, R"({"i":7})"), V({1}));
  EXPECT_EQ(Allowed(index, R"({"tags":{"$in":["b"]}})"), V({0}));
  index.Remove(0);
  index.Remove(0);
  EXPECT_EQ(index.size(), 5u);
  EXPECT_EQ(index.Row(0), nullptr);
  EXPECT_EQ(Allowed(index, R"({"tags":{"$in":["a","b"]}})"), V({}));
  EXPECT_EQ(Allowed(index, R"({"b":{"$ne":true}})"), V({1, 2, 3, 4, 5}));
}

TEST(MetadataIndex, EstimatesAreExactForLeavesAndIndependentForJunctions) {
  const MetadataIndex index = Index();
  auto estimate = [&](const std::string& text) {
    auto c = filter::Compile(Dialect::kVectorFilter, text, filter::TestSchema());
    EXPECT_TRUE(c.ok());
    return index.Estimate(c.value().checked.root);
  };
  EXPECT_DOUBLE_EQ(estimate(R"({"i":2})"), 2);
  EXPECT_DOUBLE_EQ(estimate(R"({"i":{"$gte":2}})"), 4);
  EXPECT_DOUBLE_EQ(estimate(R"({"tags":{"$in":["a","b","z"]}})"), 2);
  // P(i = 2) = 2/6, P(b exists) = 2/6: independence gives 6 * 4/36.
  EXPECT_NEAR(estimate(R"({"i":2,"b":{"$exists":true}})"), 6 * 4.0 / 36, 1e-9);
  EXPECT_NEAR(estimate(R"({"i":{"$ne":2}})"), 4, 1e-9);
}

// Record numbers reused under churn (issue 18): remove / put cycles at a
// constant live set, freed numbers taken by new records. The index answers
// as one built afresh from the live records, in at most 1.2x its memory.
// Ranges over many distinct values go through the field's column
// (range_column.h): the same answers as the evaluator, before and after
// records are replaced and removed (their stale cells must not answer).
TEST(MetadataIndex, RangesOverManyDistinctValues) {
  std::mt19937_64 rng(5);
  MetadataIndex index(filter::TestSchema());
  // Every fifth time a record is put it has no f and no d: its cells are
  // stale (or never set) and must not answer.
  auto put = [&](std::uint32_t n) {
    std::string row = "{\"id\":\"" + std::to_string(n) + "\",\"i\":" + std::to_string(rng() % 5000);
    if (rng() % 5 != 0) {
      row += ",\"f\":" + std::to_string(static_cast<double>(rng() % 20000) / 4) +
             ",\"d\":\"2024-01-01T00:" + std::to_string(10 + rng() % 50) + ":" +
             std::to_string(10 + rng() % 50) + "Z\"";
    }
    index.Put(n, ParseRecord(json::Read(row + "}").value, *filter::TestSchema()).value().slots);
  };
  for (std::uint32_t n = 0; n < 3000; ++n) put(n);
  const char* filters[] = {
      R"({"i":{"$gte":100,"$lt":4000}})",
      R"({"i":{"$gt":2500.5}})",
      R"({"i":{"$lte":4999.0}})",
      R"({"f":{"$gt":10,"$lte":4000}})",
      R"({"f":{"$lt":2500}})",
      R"({"d":{"$gte":"2024-01-01T00:15:00Z"}})",
      R"({"$and":[{"i":{"$gte":1000}},{"f":{"$lt":3000.25}},{"i":{"$ne":1500}}]})",
      // Few records left after the first range: the others read their cells.
      R"({"$and":[{"i":{"$lt":400}},{"f":{"$gte":100}},{"d":{"$lt":"2024-01-01T00:50:00Z"}}]})",
  };
  for (int round = 0; round < 2; ++round) {
    for (const char* f : filters) EXPECT_GT(Allowed(index, f).size(), 50u) << f;
    for (std::uint32_t n = 0; n < 3000; n += 3) put(n);  // replaced
    for (std::uint32_t n = 1; n < 3000; n += 7) index.Remove(n);
  }
}

TEST(MetadataIndex, ReusedNumbersUnderChurnKeepItSmall) {
  constexpr std::uint32_t kLive = 500;
  std::mt19937_64 rng(12);
  auto record = [&](std::uint32_t n) {
    const std::string row = "{\"id\":\"" + std::to_string(n) +
                            "\",\"i\":" + std::to_string(rng() % 50) + ",\"s\":\"value " +
                            std::to_string(rng() % 2000) + " with a long tail to pass SSO\"" +
                            ",\"tags\":[\"t" + std::to_string(rng() % 30) + "\",\"u" +
                            std::to_string(rng() % 300) + "\"]}";
    return ParseRecord(json::Read(row).value, *filter::TestSchema()).value().slots;
  };
  MetadataIndex churned(filter::TestSchema());
  std::vector<std::vector<Value>> rows(kLive);
  std::vector<std::uint32_t> live, free;
  for (std::uint32_t r = 0; r < kLive; ++r) {
    rows[r] = record(r);
    churned.Put(r, rows[r]);
    live.push_back(r);
  }
  for (std::uint32_t c = 0; c < 3 * kLive; ++c) {
    const std::size_t at = rng() % live.size();
    churned.Remove(live[at]);
    free.push_back(live[at]);
    live[at] = live.back();
    live.pop_back();
    if (free.size() > 3) {
      const std::size_t k = rng() % free.size();
      const std::uint32_t reused = free[k];
      free.erase(free.begin() + static_cast<std::ptrdiff_t>(k));
      rows[reused] = record(kLive + c);
      churned.Put(reused, rows[reused]);
      live.push_back(reused);
    }
  }
  std::sort(live.begin(), live.end());
  MetadataIndex fresh(filter::TestSchema());
  for (std::uint32_t r : live) fresh.Put(r, rows[r]);
  std::printf("metadata churn: memory %zu, fresh %zu (%.3fx)\n", churned.MemoryBytes(),
              fresh.MemoryBytes(),
              static_cast<double>(churned.MemoryBytes()) / fresh.MemoryBytes());
  EXPECT_LE(churned.MemoryBytes(), 1.2 * static_cast<double>(fresh.MemoryBytes()));
  EXPECT_TRUE(churned.live() == fresh.live());
  for (const char* text :
       {R"({"i": {"$gte": 10, "$lt": 20}})", R"({"tags": {"$in": ["t3", "u7"]}})",
        R"({"s": {"$gte": "value 1", "$lt": "value 5"}})"}) {
    auto compiled = filter::Compile(Dialect::kVectorFilter, text, filter::TestSchema());
    ASSERT_TRUE(compiled.ok()) << text;
    EXPECT_TRUE(churned.Evaluate(compiled.value().optimized.root) ==
                fresh.Evaluate(compiled.value().optimized.root))
        << text;
  }
}

}  // namespace
}  // namespace engram::index
