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

// PutMany is Put one record after another: the same rows, value buckets (in
// the same order, with the same counts), substring and range answers, over
// batches that replace live records, name a record twice, and reuse numbers
// freed between them; values that tie on their first 8 bytes, -0.0 and 0.0,
// ints in a float field.
TEST(MetadataIndex, PutManyIsPutOneAfterAnother) {
  std::mt19937_64 rng(20261128);
  const char* texts[] = {"",
                         "a",
                         "apple",
                         "apple pie!",
                         "apple pie?",
                         "appleseeds",
                         "long shared prefix one",
                         "long shared prefix two",
                         "z\\u0001",
                         "z"};
  auto record = [&]() {
    std::string row = "{\"id\":\"x\"";
    if (rng() % 4) row += ",\"i\":" + std::to_string(static_cast<int>(rng() % 1000) - 500);
    if (rng() % 3) {
      const char* floats[] = {"-0.0", "0.0", "0", "2", "2.0", "-1.5", "1e300", "3.25"};
      row += std::string(",\"f\":") + floats[rng() % 8];
    }
    if (rng() % 4) row += std::string(",\"s\":\"") + texts[rng() % 10] + "\"";
    if (rng() % 2) row += std::string(",\"b\":") + (rng() % 2 ? "true" : "false");
    if (rng() % 3) row += ",\"d\":\"2026-11-" + std::to_string(10 + rng() % 5) + "T00:00:00Z\"";
    if (rng() % 2) {
      row += ",\"tags\":[";
      const int n = static_cast<int>(rng() % 4);
      for (int t = 0; t < n; ++t) row += (t ? ",\"" : "\"") + std::string(texts[rng() % 10]) + "\"";
      row += "]";
    }
    auto parsed = ParseRecord(json::Read(row + "}").value, *filter::TestSchema());
    EXPECT_TRUE(parsed.ok()) << row << ": " << parsed.diagnostic().message;
    return parsed.value().slots;
  };
  MetadataIndex one(filter::TestSchema()), many(filter::TestSchema());
  for (int round = 0; round < 30; ++round) {
    std::vector<std::uint32_t> records;
    std::vector<std::vector<Value>> rows;
    const int n = round == 0 ? 2500 : static_cast<int>(rng() % 200);
    for (int k = 0; k < n; ++k) {
      records.push_back(static_cast<std::uint32_t>(rng() % 3000));  // some twice
      rows.push_back(record());
      one.Put(records.back(), rows.back());
    }
    many.PutMany(records, std::move(rows));
    for (int k = 0; k < 10; ++k) {
      const auto r = static_cast<std::uint32_t>(rng() % 3000);
      one.Remove(r);
      many.Remove(r);
    }
  }
  ASSERT_TRUE(one.live() == many.live());
  ASSERT_GT(one.size(), 100u);
  for (const std::uint32_t r : one.live()) {
    const std::vector<Value>& a = *one.Row(r);
    const std::vector<Value>& b = *many.Row(r);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t s = 0; s < a.size(); ++s) EXPECT_TRUE(a[s] == b[s]) << r << " slot " << s;
  }
  for (std::uint32_t slot = 0; slot < 6; ++slot) {
    const auto a = one.CountValues(slot, one.live());
    const auto b = many.CountValues(slot, many.live());
    ASSERT_EQ(a.size(), b.size()) << "slot " << slot;
    for (std::size_t v = 0; v < a.size(); ++v) {
      EXPECT_TRUE(ValuesEqual(a[v].first, b[v].first)) << "slot " << slot << " value " << v;
      EXPECT_EQ(a[v].second, b[v].second) << "slot " << slot << " value " << v;
    }
  }
  const std::pair<Dialect, const char*> filters[] = {
      {Dialect::kVectorFilter, R"({"i": {"$gte": -5, "$lt": 7}})"},
      {Dialect::kVectorFilter, R"({"i": {"$gte": -400, "$lt": 300}})"},  // the column
      {Dialect::kVectorFilter, R"({"f": 0})"},
      {Dialect::kVectorFilter, R"({"f": {"$gt": 1.9}})"},
      {Dialect::kVectorFilter, R"({"s": {"$gte": "apple pie", "$lt": "long"}})"},
      {Dialect::kVectorFilter, R"({"tags": {"$in": ["apple", "z"]}})"},
      {Dialect::kVectorFilter, R"({"d": {"$gte": "2026-11-12T00:00:00Z"}})"},
      {Dialect::kVectorFilter, R"({"b": false})"},
      {Dialect::kVectorFilter, R"({"i": {"$exists": true}})"},
      {Dialect::kExprV1,
       R"({"schema":"search_filter_expr/v1","expr":{"op":"contains","field":"s","value":"pie"}})"},
      {Dialect::kSearchMemory, R"([{"field":"s","operator":"contains","value":"SHARED"}])"}};
  for (const auto& [dialect, text] : filters) {
    auto compiled = filter::Compile(dialect, text, filter::TestSchema());
    ASSERT_TRUE(compiled.ok()) << text << ": " << compiled.diagnostic().message;
    const filter::Node& root = compiled.value().optimized.root;
    const roaring::Roaring got = many.Evaluate(root);
    EXPECT_TRUE(got == one.Evaluate(root)) << text;
    for (const std::uint32_t r : many.live()) {
      EXPECT_EQ(got.contains(r), filter::Evaluate(root, *many.Row(r))) << text << " record " << r;
    }
  }
}

}  // namespace
}  // namespace engram::index
