// The metadata index's allowed-sets agree with the reference evaluator on
// random schemas, records (some replaced, some removed) and filters (random
// IR, and the same optimised): zero disagreement.
#include <gtest/gtest.h>

#include "base/unicode.h"
#include "filter/eval/evaluator.h"
#include "filter/ir/printer.h"
#include "filter/optimize/optimize.h"
#include "index/metadata_index.h"
#include "tests/support/random_filter.h"
#include "tests/support/random_util.h"

namespace engram {
namespace {

TEST(IndexDifferential, AgreesWithTheReferenceEvaluator) {
  std::size_t evaluations = 0;
  for (int s = 0; s < 40; ++s) {
    testing::Rng rng(5100 + s);
    std::shared_ptr<const Schema> schema = testing::RandomSchema(rng);
    index::MetadataIndex index(schema);
    constexpr std::uint32_t kRecords = 80;
    for (std::uint32_t r = 0; r < kRecords; ++r) {
      index.Put(r, testing::RandomRecord(rng, *schema, "r").slots);
    }
    // Replace some records and remove others, so stale entries would show.
    for (std::uint32_t r = 0; r < kRecords; r += 7) {
      index.Put(r, testing::RandomRecord(rng, *schema, "r").slots);
    }
    for (std::uint32_t r = 3; r < kRecords; r += 11) index.Remove(r);
    for (int i = 0; i < 100; ++i) {
      filter::Node ir = testing::RandomIr(rng, *schema, 5);
      for (const filter::Node& n : {ir, filter::Optimize(ir, *schema)}) {
        const roaring::Roaring allowed = index.Evaluate(n);
        ASSERT_EQ(allowed.and_cardinality(index.live()), allowed.cardinality())
            << "dead records allowed by " << filter::ToSexpr(n, *schema);
        for (std::uint32_t r : index.live()) {
          ++evaluations;
          ASSERT_EQ(allowed.contains(r), filter::Evaluate(n, *index.Row(r)))
              << filter::ToSexpr(n, *schema) << " on record " << r;
        }
        const double estimate = index.Estimate(n);
        ASSERT_GE(estimate, 0);
        ASSERT_LE(estimate, static_cast<double>(index.size()) + 1e-9);
      }
    }
  }
  std::printf("index differential: %zu evaluations\n", evaluations);
}

// contains / icontains through the trigram index (index/substring_index.h)
// against the evaluator, with values and needles of every length, Unicode
// case pairs, foldings that change byte lengths (KELVIN SIGN to 'k', U+1E9E
// to U+00DF), inside `and` (the row scan of small candidate sets) and alone,
// while values come and go.
TEST(IndexDifferential, SubstringTestsAgreeWithTheEvaluator) {
  const auto schema = Schema::Parse(R"({"fields":[{"name":"s","type":"string","optional":true},
                                  {"name":"n","type":"int","optional":true}]})")
                          .value();
  const std::vector<std::string> pieces = {
      "a",        "b",        "ab", "Ab",           "AB",           "x", " ", "\xc3\xa9",
      "\xc3\x89", "\xc3\x9f", "SS", "\xe1\xba\x9e", "\xe2\x84\xaa", "k", "K", "str",
      "STR",      "-",        "0"};
  testing::Rng rng(7300);
  auto random_text = [&](int max_pieces) {
    std::string out;
    for (int i = testing::detail::Between(rng, 0, max_pieces); i > 0; --i) {
      out += testing::detail::Pick(rng, pieces);
    }
    return out;
  };
  index::MetadataIndex index(schema);
  std::vector<std::vector<Value>> rows(300);
  std::size_t evaluations = 0;
  for (int round = 0; round < 6; ++round) {
    for (std::uint32_t r = 0; r < rows.size(); ++r) {
      if (round > 0 && !testing::detail::Chance(rng, 0.3)) continue;
      if (testing::detail::Chance(rng, 0.1)) {
        index.Remove(r);
        continue;
      }
      std::vector<Value> row(2);
      if (!testing::detail::Chance(rng, 0.1)) row[0] = Value(random_text(6));
      row[1] = Value(std::int64_t{testing::detail::Between(rng, 0, 9)});
      index.Put(r, row);
    }
    for (int q = 0; q < 150; ++q) {
      std::string needle = random_text(4);
      filter::Node leaf;
      leaf.op = testing::detail::Chance(rng, 0.5) ? filter::Op::kContains : filter::Op::kIContains;
      leaf.slot = 0;
      leaf.values.emplace_back(leaf.op == filter::Op::kIContains ? FoldCase(needle) : needle);
      filter::Node narrow;  // keeps few records: the `and` reads their rows
      narrow.op = filter::Op::kCmp;
      narrow.slot = 1;
      narrow.values.emplace_back(std::int64_t{testing::detail::Between(rng, 0, 9)});
      const filter::Node both = filter::MakeJunction(filter::Op::kAnd, {narrow, leaf});
      for (const filter::Node* n : {static_cast<const filter::Node*>(&leaf), &both}) {
        const roaring::Roaring allowed = index.Evaluate(*n);
        for (std::uint32_t r : index.live()) {
          ++evaluations;
          ASSERT_EQ(allowed.contains(r), filter::Evaluate(*n, *index.Row(r)))
              << filter::ToSexpr(*n, *schema) << " on record " << r;
        }
        ASSERT_EQ(allowed.and_cardinality(index.live()), allowed.cardinality());
      }
    }
  }
  std::printf("substring differential: %zu evaluations\n", evaluations);
}

}  // namespace
}  // namespace engram
