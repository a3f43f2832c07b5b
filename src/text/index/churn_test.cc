// Record numbers reused under churn (issue 18): many remove / put cycles at a
// constant live set, freed numbers taken by new documents (as a free list
// hands them out), some documents replaced in place. The churned index must
// be the same index as one built afresh from the live documents: the same
// image byte for byte and the same search results, in at most 1.2x the
// memory; and removing every document must give the memory back.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/index/text_index.h"
#include "text/query/query.h"

namespace engram::text {
namespace {
namespace churn_test {

// Documents of 5..60 words drawn with Zipf(1) frequencies from a vocabulary
// of English-looking words, so that the commonest words are in almost
// every document (long posting lists, several blocks) and most are rare.
class Corpus {
 public:
  explicit Corpus(std::uint64_t seed) : rng_(seed) {
    double sum = 0;
    for (std::size_t r = 0; r < kWords; ++r)
      cdf_.push_back(sum += 1.0 / static_cast<double>(r + 1));
  }
  std::string Document() {
    std::string d;
    const std::size_t n = 5 + rng_() % 56;
    for (std::size_t i = 0; i < n; ++i) d += Word() + (i + 1 < n ? " " : "");
    return d;
  }
  std::string Word() {
    std::uniform_real_distribution<double> u(0, cdf_.back());
    const std::size_t r = std::lower_bound(cdf_.begin(), cdf_.end(), u(rng_)) - cdf_.begin();
    static const char* const kStems[] = {"garden", "run", "hedgehog", "winter", "city", "park"};
    static const char* const kEndings[] = {"", "s", "ing", "ed", "er"};
    return std::string(kStems[r % 6]) + std::to_string(r / 30) + kEndings[r / 6 % 5];
  }
  std::mt19937_64& rng() { return rng_; }

 private:
  static constexpr std::size_t kWords = 3000;
  std::mt19937_64 rng_;
  std::vector<double> cdf_;
};

TextIndexOptions Options(Stemmer stemmer) {
  TextIndexOptions o;
  o.fields = {{"title", 2.0}, {"body", 1.0}};
  o.stemmer = stemmer;
  return o;
}

DefaultQuery Q(std::string_view text) {
  return ParseQuery(text, QueryOptions{}).value().def;
}

TEST(TextChurn, ReusedNumbersGiveTheFreshIndex) {
  constexpr std::uint32_t kLive = 600;
  constexpr std::size_t kCycles = 1800;  // three turnovers
  for (Stemmer stemmer : {Stemmer::kEnglish, Stemmer::kNone}) {
    Corpus corpus(static_cast<std::uint64_t>(stemmer) + 1);
    TextIndex churned(Options(stemmer));
    std::vector<std::pair<std::string, std::string>> docs(kLive);
    std::vector<std::uint32_t> live, free;
    for (std::uint32_t d = 0; d < kLive; ++d) {
      docs[d] = {corpus.Word(), corpus.Document()};
      churned.Put(d, {docs[d].first, docs[d].second});
      live.push_back(d);
    }
    std::mt19937_64& rng = corpus.rng();
    for (std::size_t c = 0; c < kCycles; ++c) {
      const std::size_t at = rng() % live.size();
      const std::uint32_t doc = live[at];
      if (c % 4 == 0) {  // replaced under its own number
        docs[doc] = {corpus.Word(), corpus.Document()};
        churned.Put(doc, {docs[doc].first, docs[doc].second});
        continue;
      }
      churned.Remove(doc);
      live[at] = live.back();
      live.pop_back();
      free.push_back(doc);
      if (free.size() > 3) {  // a new document under a freed number, LIFO or not
        const std::size_t k = rng() % 2 ? free.size() - 1 : rng() % free.size();
        const std::uint32_t reused = free[k];
        free.erase(free.begin() + static_cast<std::ptrdiff_t>(k));
        docs[reused] = {corpus.Word(), corpus.Document()};
        churned.Put(reused, {docs[reused].first, docs[reused].second});
        live.push_back(reused);
      }
    }
    std::sort(live.begin(), live.end());
    TextIndex fresh(Options(stemmer));
    for (std::uint32_t d : live) fresh.Put(d, {docs[d].first, docs[d].second});

    EXPECT_EQ(churned.size(), live.size());
    EXPECT_EQ(churned.Serialize(), fresh.Serialize());  // nothing of the removed documents
    std::printf("text churn (stemmer %d): memory %zu, fresh %zu (%.3fx), image %zu\n",
                static_cast<int>(stemmer), churned.MemoryBytes(), fresh.MemoryBytes(),
                static_cast<double>(churned.MemoryBytes()) / fresh.MemoryBytes(),
                fresh.Serialize().size());
    EXPECT_LE(churned.MemoryBytes(), 1.2 * static_cast<double>(fresh.MemoryBytes()));
    for (const char* text : {"garden0", "runs1 OR winter0", "\"city0 park0\"", "hedge*",
                             "garden0 -run0", "park1 city2 winter3"}) {
      const DefaultQuery q = Q(text);
      const std::vector<TextHit> a = churned.Search(q, 20), b = fresh.Search(q, 20);
      ASSERT_EQ(a.size(), b.size()) << text;
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].doc, b[i].doc) << text;
        EXPECT_DOUBLE_EQ(a[i].score, b[i].score) << text;
      }
      const std::vector<TextHit> oracle = churned.SearchExhaustive(q, 20);
      ASSERT_EQ(a.size(), oracle.size()) << text;
      for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].doc, oracle[i].doc) << text;
    }
    // Removing everything gives back what the documents held.
    for (std::uint32_t d : live) churned.Remove(d);
    EXPECT_EQ(churned.Serialize(), TextIndex(Options(stemmer)).Serialize());
    std::printf("text churn (stemmer %d): all removed: %zu bytes\n", static_cast<int>(stemmer),
                churned.MemoryBytes());
    // What stays is what ids index, for reuse: the per-number arrays (dense
    // up to the largest number) and the dictionaries' free term and word
    // slots (as many as the most words alive at once); every posting,
    // position and forward list is gone.
    EXPECT_LT(churned.MemoryBytes(), fresh.MemoryBytes() / 2 + 64 * kLive);
  }
}

// Posting lists long enough for many blocks, built out of order: inserts in
// the middle split blocks, removals merge them, and the lists stay exact.
TEST(TextChurn, BlocksSplitAndMergeInTheMiddleOfLongLists) {
  TextIndexOptions o;
  o.fields = {{"text", 1.0}};
  o.stemmer = Stemmer::kNone;
  TextIndex index(o);
  std::vector<std::uint32_t> order(2000);
  for (std::uint32_t i = 0; i < 2000; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(3));
  for (std::uint32_t d : order) index.Put(d, {d % 2 ? "common odd" : "common even"});
  const TermPostings& common = index.data().postings[index.data().terms.at("common")];
  EXPECT_EQ(common.size(), 2000u);
  EXPECT_GE(common.blocks.size(), 2000 / TermPostings::kBlockPostings);
  std::uint32_t prev = 0;
  bool first = true;
  common.ForEach([&](std::uint32_t doc, std::size_t, std::size_t) {
    EXPECT_TRUE(first || doc > prev);
    first = false;
    prev = doc;
  });
  // Remove all but every 50th: blocks merge, the survivors stay in order.
  for (std::uint32_t d : order) {
    if (d % 50 != 0) index.Remove(d);
  }
  EXPECT_EQ(common.size(), 40u);
  EXPECT_LE(common.blocks.size(), 4u);
  const std::vector<TextHit> hits = index.Search(Q("common"), 100);
  ASSERT_EQ(hits.size(), 40u);
  for (std::size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].doc, 50 * i);
}

}  // namespace churn_test
}  // namespace
}  // namespace engram::text
