// TextIndex semantics: stemming, phrases, prefixes, NOT, relaxation, updates.
#include "text/index/text_index.h"

#include <gtest/gtest.h>

#include "text/query/query.h"

namespace engram::text {
namespace {
namespace text_index_test {

DefaultQuery Q(std::string_view text) {
  return ParseQuery(text, QueryOptions{}).value().def;
}

std::vector<std::uint32_t> Docs(const std::vector<TextHit>& hits) {
  std::vector<std::uint32_t> out;
  for (const TextHit& h : hits) out.push_back(h.doc);
  return out;
}

TextIndex Garden(Stemmer stemmer = Stemmer::kEnglish) {
  TextIndexOptions o;
  o.fields = {{"title", 2.0}, {"body", 1.0}};
  o.stemmer = stemmer;
  TextIndex index(o);
  index.Put(1, {"Hedgehogs in winter", "The hedgehog sleeps in the garden"});
  index.Put(2, {"Urban gardens", "Gardens and parks in the city"});
  index.Put(3, {"Running", "runners run in urban parks"});
  index.Put(4, {"Winter", "snow"});
  return index;
}

TEST(TextIndex, StemsDocumentsAndQueries) {
  TextIndex index = Garden();
  EXPECT_EQ(Docs(index.Search(Q("garden"), 10)), (std::vector<std::uint32_t>{2, 1}));
  EXPECT_EQ(Docs(index.Search(Q("running"), 10)), (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(Docs(Garden(Stemmer::kNone).Search(Q("garden"), 10)), (std::vector<std::uint32_t>{1}));
}

TEST(TextIndex, PhrasesPrefixesAndNot) {
  TextIndex index = Garden();
  EXPECT_EQ(Docs(index.Search(Q("\"urban parks\""), 10)), (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(Docs(index.Search(Q("\"parks urban\""), 10)), (std::vector<std::uint32_t>{}));
  EXPECT_EQ(Docs(index.Search(Q("hedge*"), 10)), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(Docs(index.Search(Q("urban NOT running"), 10)), (std::vector<std::uint32_t>{2}));
  // Purely negative: every document without the term, score 0, by doc.
  std::vector<TextHit> hits = index.Search(Q("NOT urban"), 10);
  EXPECT_EQ(Docs(hits), (std::vector<std::uint32_t>{1, 4}));
  EXPECT_EQ(hits[0].score, 0.0);
}

TEST(TextIndex, BareWordsRelax) {
  TextIndex index = Garden();
  TextSearchStats stats;
  std::vector<TextHit> hits = index.Search(Q("winter garden"), 10, nullptr, &stats);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].doc, 1u);  // the only one with both
  EXPECT_TRUE(stats.relaxed);
  EXPECT_EQ(hits.size(), 3u);  // 1, then 4 and 2 with one term each
  TextSearchStats strict;
  EXPECT_EQ(index.Search(Q("winter AND garden"), 10, nullptr, &strict).size(), 1u);
  EXPECT_FALSE(strict.relaxed);
}

TEST(TextIndex, AllowedSetRestricts) {
  TextIndex index = Garden();
  roaring::Roaring allowed;
  allowed.add(2);
  EXPECT_EQ(Docs(index.Search(Q("garden"), 10, &allowed)), (std::vector<std::uint32_t>{2}));
}

TEST(TextIndex, PutReplacesAndRemoveForgets) {
  TextIndex index = Garden();
  index.Put(4, {"Summer", "sun"});
  EXPECT_EQ(Docs(index.Search(Q("winter"), 10)), (std::vector<std::uint32_t>{1}));
  index.Remove(1);
  index.Remove(99);
  EXPECT_EQ(index.size(), 3u);
  EXPECT_TRUE(index.Search(Q("winter"), 10).empty());
  EXPECT_TRUE(index.Search(Q("hedge*"), 10).empty());
  EXPECT_EQ(index.data().total_len[0], 2u + 1u + 1u);
}

}  // namespace text_index_test
}  // namespace
}  // namespace engram::text
