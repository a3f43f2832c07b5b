// A small in-memory collection for the search tests: a schema, metadata,
// a text index over generated documents and random vectors, all on the same
// record numbers, plus helpers to compile filters and parse queries.
#ifndef ENGRAM_SEARCH_TEST_COLLECTION_H_
#define ENGRAM_SEARCH_TEST_COLLECTION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "base/json.h"
#include "filter/compiler.h"
#include "index/metadata_index.h"
#include "schema/record.h"
#include "schema/schema.h"
#include "search/search.h"
#include "text/index/text_index.h"
#include "text/query/query.h"
#include "vector/vector_index.h"

namespace engram::search::testing {

inline std::shared_ptr<const Schema> TestSchema() {
  static const auto schema = Schema::Parse(R"({"fields":[
    {"name":"section","type":"string","required":true},
    {"name":"bucket","type":"int","required":true},
    {"name":"score","type":"float","optional":true},
    {"name":"when","type":"datetime","optional":true},
    {"name":"tag","type":"string","optional":true}]})")
                                 .value();
  return schema;
}

inline constexpr std::uint32_t kSectionSlot = 0, kBucketSlot = 1, kWhenSlot = 3;

// `n` records: section cycles a|b|c|d, bucket a random permutation of 0..n-1
// (so `bucket < m` keeps exactly m records, at random), `when` =
// 2026-01-01 .. 2026-02-28 (by i mod 56) at noon for even i, absent for odd; tag "x" every 7th.
// Text: 4-12 words from a 40-word vocabulary with a skewed distribution;
// vectors: `dim` Gaussian components.
struct TestCollection {
  explicit TestCollection(std::size_t n, std::size_t dim = 8,
                          vector::Metric metric = vector::Metric::kCosine, std::uint64_t seed = 7)
      : metadata(TestSchema()),
        text(TextOptions()),
        vectors(VectorOptions(dim, metric)),
        metric_(metric) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> perm(n);
    for (std::uint32_t i = 0; i < n; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::normal_distribution<float> g(0, 1);
    std::vector<std::uint32_t> ids;
    std::vector<float> data;
    for (std::uint32_t i = 0; i < n; ++i) {
      json::Value rec = json::Value::object();
      rec["id"] = std::to_string(i);
      rec["section"] = std::string(1, static_cast<char>('a' + i % 4));
      rec["bucket"] = perm[i];
      if (i % 3 == 0) rec["score"] = static_cast<double>(i % 10) / 2;
      if (i % 2 == 0) {
        rec["when"] =
            "2026-" + Two(1 + (i % 56) / 28) + "-" + Two(1 + (i % 56) % 28) + "T12:00:00Z";
      }
      if (i % 7 == 0) rec["tag"] = "x";
      auto record = ParseRecord(rec, *TestSchema());
      EXPECT_TRUE(record.ok());
      metadata.Put(i, record.value().slots);
      const std::string body = Words(rng, 4 + rng() % 9);
      text.Put(i, {body});
      ids.push_back(i);
      for (std::size_t d = 0; d < dim; ++d) data.push_back(g(rng));
    }
    EXPECT_TRUE(vectors.PutBatch(ids, data, 1).ok());
    vector_data = std::move(data);
  }

  CollectionView View(bool with_text = true, bool with_vectors = true) const {
    CollectionView v;
    v.metadata = &metadata;
    v.text = with_text ? &text : nullptr;
    v.vectors = with_vectors ? &vectors : nullptr;
    v.metric = metric_;
    v.time_slot = kWhenSlot;
    return v;
  }

  static std::string Two(std::size_t x) { return (x < 10 ? "0" : "") + std::to_string(x); }

  static std::string Words(std::mt19937_64& rng, std::size_t count) {
    static const char* kVocab[] = {
        "alpha",  "bravo",  "charlie", "delta", "echo",    "foxtrot",  "golf",    "hotel",
        "india",  "juliet", "kilo",    "lima",  "mike",    "november", "oscar",   "papa",
        "quebec", "romeo",  "sierra",  "tango", "uniform", "victor",   "whiskey", "xray",
        "yankee", "zulu",   "apple",   "pear",  "plum",    "cherry",   "grape",   "lemon",
        "melon",  "peach",  "berry",   "mango", "kiwi",    "lime",     "fig",     "date"};
    std::string out;
    for (std::size_t i = 0; i < count; ++i) {
      // The square of a uniform index skews towards the first words.
      const double u = std::uniform_real_distribution<double>(0, 1)(rng);
      const std::size_t w = static_cast<std::size_t>(u * u * 40) % 40;
      if (!out.empty()) out += ' ';
      out += kVocab[w];
    }
    return out;
  }

  static text::TextIndexOptions TextOptions() {
    text::TextIndexOptions o;
    o.fields = {{"body", 1.0}};
    o.stemmer = text::Stemmer::kNone;
    return o;
  }
  static vector::VectorIndexOptions VectorOptions(std::size_t dim, vector::Metric metric) {
    vector::VectorIndexOptions o;
    o.dim = dim;
    o.metric = metric;
    o.hnsw.m = 8;
    o.hnsw.ef_construction = 64;
    return o;
  }

  index::MetadataIndex metadata;
  text::TextIndex text;
  vector::VectorIndex vectors;
  std::vector<float> vector_data;
  vector::Metric metric_;
};

inline std::unique_ptr<filter::CompiledFilter> CompileFilter(
    std::string_view text, filter::Dialect dialect = filter::Dialect::kVectorFilter) {
  auto compiled = filter::Compile(dialect, text, TestSchema());
  EXPECT_TRUE(compiled.ok()) << text << ": " << compiled.diagnostic().message;
  if (!compiled.ok()) return nullptr;
  return std::make_unique<filter::CompiledFilter>(std::move(compiled).value());
}

inline text::DefaultQuery ParseText(std::string_view q, text::Date anchor = {2026, 3, 1}) {
  text::QueryOptions o;
  o.anchor = anchor;
  return text::ParseQuery(q, o).value().def;
}

inline std::vector<std::uint32_t> Docs(const std::vector<Hit>& hits) {
  std::vector<std::uint32_t> out;
  for (const Hit& h : hits) out.push_back(h.doc);
  return out;
}

}  // namespace engram::search::testing

#endif  // ENGRAM_SEARCH_TEST_COLLECTION_H_
