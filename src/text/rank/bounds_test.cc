// The text search's bounds: a prefix is one scoring unit over the terms it
// expands to (scored as one term), the expansion cap (at it and one past,
// duplicates counted once), and the deadline that stops the walk.
#include <string>

#include <gtest/gtest.h>

#include "text/index/text_index.h"
#include "text/query/query.h"
#include "text/rank/bm25.h"
#include "text/rank/plan.h"
#include "text/rank/search.h"

namespace engram::text {
namespace {
namespace bounds_test {

DefaultQuery Q(std::string_view text) {
  return ParseQuery(text, QueryOptions{}).value().def;
}

// Unstemmed, one field: doc 0 "apple apply apple", doc 1 "apply", doc 2
// "banana", doc 3 "apricot apple", and docs 10..59 "word<i> common".
TextIndex Fruit() {
  TextIndexOptions o;
  o.stemmer = Stemmer::kNone;
  TextIndex index(o);
  index.Put(0, {"apple apply apple"});
  index.Put(1, {"apply"});
  index.Put(2, {"banana"});
  index.Put(3, {"apricot apple"});
  for (std::uint32_t i = 10; i < 60; ++i) index.Put(i, {"word" + std::to_string(i) + " common"});
  return index;
}

TEST(PrefixUnit, ExpandedTermsAreOneUnitScoredAsOneTerm) {
  const TextIndex index = Fruit();
  const Bm25 bm25(index.data());
  const Plan plan = CompilePlan(index.data(), bm25, *Q("ap*").root);
  ASSERT_EQ(plan.units.size(), 1u);  // apple, apply, apricot: one unit
  const PlanUnit& unit = plan.units[0];
  EXPECT_TRUE(unit.any);
  EXPECT_EQ(unit.words.size(), 3u);
  // df = the largest of the terms' (apple: 2 documents, apply: 2, apricot: 1).
  EXPECT_DOUBLE_EQ(unit.idf, bm25.Idf(2));
  // Doc 0: tf = 2 (apple) + 1 (apply) = 3 in its one field.
  const std::uint32_t tf0 = 3;
  const std::vector<TextHit> hits = index.Search(Q("ap*"), 10);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].doc, 0u);
  EXPECT_DOUBLE_EQ(hits[0].score, bm25.Score(unit.idf, &tf0, 0));
  // The bound holds for every document, and the oracle agrees.
  for (const TextHit& h : hits) EXPECT_LE(h.score, unit.bound * (1 + 1e-12));
  const std::vector<TextHit> oracle = index.SearchExhaustive(Q("ap*"), 10);
  ASSERT_EQ(oracle.size(), hits.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(oracle[i].doc, hits[i].doc);
    EXPECT_DOUBLE_EQ(oracle[i].score, hits[i].score);
  }
  // A prefix with one term is that term's unit.
  const Plan one = CompilePlan(index.data(), bm25, *Q("ban* OR banana").root);
  ASSERT_EQ(one.units.size(), 1u);
  EXPECT_FALSE(one.units[0].any);
}

TEST(PrefixUnit, ManyPrefixesAreManyUnitsNotManyWords) {
  const TextIndex index = Fruit();
  const Bm25 bm25(index.data());
  // 50 words behind `word*`: still one unit; the same prefix twice is one.
  const Plan plan = CompilePlan(index.data(), bm25, *Q("word* OR ap* OR word* OR c*").root);
  EXPECT_EQ(plan.units.size(), 3u);
  EXPECT_EQ(index.Search(Q("word* OR ap* OR c*"), 100).size(), 53u);
}

TEST(ExpansionCap, AtTheCapAndOnePast) {
  const TextIndex index = Fruit();
  const IndexData& data = index.data();
  // word10..word59: 50 words; ap*: 3 words; a*: 3 words.
  EXPECT_FALSE(CheckExpansions(data, *Q("word*").root, 50));
  std::optional<std::string> over = CheckExpansions(data, *Q("word*").root, 49);
  ASSERT_TRUE(over);
  EXPECT_EQ(*over,
            "the prefixes of the query match more than 49 indexed words (the limit), passed at "
            "'word*': use longer prefixes or fewer of them");
  // All prefixes together; a repeated prefix counts once.
  EXPECT_FALSE(CheckExpansions(data, *Q("word* OR ap* OR word*").root, 53));
  over = CheckExpansions(data, *Q("word* OR ap* OR word*").root, 52);
  ASSERT_TRUE(over);
  EXPECT_NE(over->find("passed at 'ap*'"), std::string::npos) << *over;
  // Prefixes that match nothing cost nothing; terms and phrases never count.
  EXPECT_FALSE(CheckExpansions(data, *Q("zz* apple \"apple apply\"").root, 0));
  EXPECT_TRUE(CheckExpansions(data, *Q("ban*").root, 0));
  // Search never expands past its cap, even unchecked: the last prefix is cut.
  TextSearchOptions capped;
  capped.max_expansions = 50;
  EXPECT_EQ(index.Search(Q("word* OR ap*"), 100, nullptr, nullptr, capped).size(), 50u);
}

TEST(TextDeadline, StopsTheWalkAndSaysSo) {
  const TextIndex index = Fruit();
  for (const char* query : {"common", "word* OR ap*", "NOT banana", "common apple"}) {
    TextSearchStats full;
    const std::size_t all = index.Search(Q(query), 100, nullptr, &full).size();
    EXPECT_FALSE(full.stopped) << query;
    EXPECT_GT(all, 0u) << query;
    const Deadline passed = Deadline::AfterChecks(0);
    TextSearchOptions options;
    options.deadline = &passed;
    TextSearchStats stats;
    const std::vector<TextHit> hits = index.Search(Q(query), 100, nullptr, &stats, options);
    EXPECT_TRUE(stats.stopped) << query;
    EXPECT_LT(hits.size(), all) << query;
    const Deadline later(Deadline::Clock::now() + std::chrono::hours(1));
    options.deadline = &later;
    TextSearchStats in_time;
    EXPECT_EQ(index.Search(Q(query), 100, nullptr, &in_time, options).size(), all) << query;
    EXPECT_FALSE(in_time.stopped) << query;
  }
}

}  // namespace bounds_test
}  // namespace
}  // namespace engram::text
