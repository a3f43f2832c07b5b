// Differential test (DESIGN.md "BM25 index vs a naive scorer"): random
// corpora with replacements and deletions, random ASTs and random query
// strings through ParseQuery, allowed-sets from 100 % to 0.1 %: the pruned
// Search equals the exhaustive oracle exactly (same documents, same order,
// scores within 1e-9 relative), with small ORs of terms summed whole or
// pruned like the rest, and scores fewer postings on selective top-k.
// A serialise/load round trip gives identical results.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/index/text_index.h"
#include "text/query/query.h"

namespace engram::text {
namespace {

std::string Word(std::mt19937_64& rng) {
  // Zipf-like: a few frequent words and a long tail; shared prefixes (w1, w10..).
  std::uniform_real_distribution<double> u(0, 1);
  int n = static_cast<int>(std::pow(60.0, u(rng)));
  return "w" + std::to_string(n);
}

std::string Text(std::mt19937_64& rng, int max_words) {
  std::string s;
  int n = std::uniform_int_distribution<int>(0, max_words)(rng);
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + Word(rng);
  return s;
}

Node RandomNode(std::mt19937_64& rng, int depth) {
  int kind = std::uniform_int_distribution<int>(0, depth > 0 ? 6 : 2)(rng);
  switch (kind) {
    case 0:
      return Node::Term(Word(rng));
    case 1: {
      std::string w = Word(rng);
      return Node::Prefix(
          w.substr(0, std::uniform_int_distribution<std::size_t>(1, w.size())(rng)));
    }
    case 2:
      return Node::Phrase({Word(rng), Word(rng)});
    case 3:
      return Node::Not(RandomNode(rng, depth - 1));
    default: {
      std::vector<Node> children;
      int n = std::uniform_int_distribution<int>(2, 3)(rng);
      for (int i = 0; i < n; ++i) children.push_back(RandomNode(rng, depth - 1));
      return Node::Group(kind == 6 ? Node::Kind::kOr : Node::Kind::kAnd, std::move(children));
    }
  }
}

std::string RandomQueryString(std::mt19937_64& rng) {
  static const char* kOps[] = {"AND", "OR", "NOT", "\"", "*", "w1*"};
  std::string s;
  int n = std::uniform_int_distribution<int>(1, 5)(rng);
  for (int i = 0; i < n; ++i) {
    if (i) s += ' ';
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
      s += kOps[std::uniform_int_distribution<int>(0, 5)(rng)];
    } else {
      s += Word(rng);
    }
  }
  return s;
}

TextIndex RandomIndex(std::mt19937_64& rng, int docs, Stemmer stemmer) {
  TextIndexOptions o;
  o.fields = {{"title", 2.0}, {"body", 1.0}};
  o.stemmer = stemmer;
  TextIndex index(o);
  for (int d = 0; d < docs; ++d) {
    std::string title = Text(rng, 4), body = Text(rng, 30);
    index.Put(static_cast<std::uint32_t>(d), {title, body});
  }
  // Replacements and deletions exercise the statistics' maintenance.
  for (int i = 0; i < docs / 5; ++i) {
    std::uint32_t d = std::uniform_int_distribution<std::uint32_t>(0, docs - 1)(rng);
    if (i % 2) {
      index.Remove(d);
    } else {
      std::string body = Text(rng, 30);
      index.Put(d, {Text(rng, 4), body});
    }
  }
  return index;
}

void ExpectSame(const std::vector<TextHit>& got, const std::vector<TextHit>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].doc, want[i].doc) << what << " at " << i;
    ASSERT_NEAR(got[i].score, want[i].score, 1e-9 * std::abs(want[i].score)) << what;
  }
}

struct Totals {
  std::size_t pruned = 0, exhaustive = 0, queries = 0;
};

void Compare(const TextIndex& index, const DefaultQuery& q, std::mt19937_64& rng, Totals& t,
             const std::string& what) {
  static const double kSelectivity[] = {1.0, 0.5, 0.1, 0.01, 0.001};
  static const std::size_t kK[] = {1, 5, 10, 100};
  for (double sel : kSelectivity) {
    roaring::Roaring allowed;
    std::bernoulli_distribution keep(sel);
    for (std::uint32_t d = 0; d < 1100; ++d) {
      if (keep(rng)) allowed.add(d);
    }
    for (std::size_t k : kK) {
      const roaring::Roaring* choices[] = {nullptr, &allowed};
      for (const roaring::Roaring* a : choices) {
        if (a == nullptr && sel != 1.0) continue;
        // Pruned throughout, and with small ORs of terms summed whole (the
        // default): both equal the oracle.
        TextSearchOptions pruning, summing;
        pruning.full_sum_postings = 0;
        TextSearchStats ps, ss, es;
        std::vector<TextHit> want = index.SearchExhaustive(q, k, a, &es);
        const std::string where = what + " k=" + std::to_string(k) + " sel=" + std::to_string(sel);
        ExpectSame(index.Search(q, k, a, &ps, pruning), want, where + " pruned");
        ExpectSame(index.Search(q, k, a, &ss, summing), want, where + " summed");
        EXPECT_EQ(ps.relaxed, es.relaxed) << what;
        EXPECT_EQ(ss.relaxed, es.relaxed) << what;
        if (k <= 10) {
          t.pruned += ps.postings_scored;
          t.exhaustive += es.postings_scored;
          ++t.queries;
        }
      }
    }
  }
}

TEST(SearchDiff, RandomAstsEqualTheOracle) {
  Totals t;
  for (int seed = 0; seed < 4; ++seed) {
    std::mt19937_64 rng(seed);
    TextIndex index = RandomIndex(rng, 1000, seed % 2 == 0 ? Stemmer::kEnglish : Stemmer::kNone);
    for (int i = 0; i < 30; ++i) {
      DefaultQuery q;
      q.has_operators = std::uniform_int_distribution<int>(0, 3)(rng) != 0;
      q.root = RandomNode(rng, 3);
      Compare(index, q, rng, t, "seed " + std::to_string(seed) + " " + Explain(q));
      if (HasFatalFailure()) return;
    }
  }
  RecordProperty("postings_pruned", std::to_string(t.pruned));
  RecordProperty("postings_exhaustive", std::to_string(t.exhaustive));
  std::printf("random ASTs: %zu searches, postings scored %zu pruned vs %zu exhaustive\n",
              t.queries, t.pruned, t.exhaustive);
  EXPECT_LT(t.pruned, t.exhaustive);
}

TEST(SearchDiff, RandomQueryStringsEqualTheOracle) {
  Totals t;
  for (int seed = 10; seed < 12; ++seed) {
    std::mt19937_64 rng(seed);
    TextIndex index = RandomIndex(rng, 1000, Stemmer::kNone);
    for (int i = 0; i < 50; ++i) {
      std::string text = RandomQueryString(rng);
      Checked<Query> q = ParseQuery(text, QueryOptions{});
      ASSERT_TRUE(q.ok()) << text;
      Compare(index, q.value().def, rng, t, "query `" + text + "`");
      if (HasFatalFailure()) return;
    }
  }
  std::printf("query strings: %zu searches, postings scored %zu pruned vs %zu exhaustive\n",
              t.queries, t.pruned, t.exhaustive);
  EXPECT_LT(t.pruned, t.exhaustive);
}

TEST(SearchDiff, RoundTripGivesIdenticalResults) {
  std::mt19937_64 rng(99);
  TextIndex index = RandomIndex(rng, 500, Stemmer::kEnglish);
  std::string bytes = index.Serialize();
  StatusOr<TextIndex> loaded = TextIndex::Load(bytes, 500);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->size(), index.size());
  EXPECT_EQ(loaded->Serialize(), bytes);
  // Removes left the original's pruning bounds loose; loaded ones are exact,
  // and loading again changes nothing, down to the work done.
  StatusOr<TextIndex> again = TextIndex::Load(loaded->Serialize(), 500);
  ASSERT_TRUE(again.ok()) << again.status().message();
  for (int i = 0; i < 100; ++i) {
    DefaultQuery q;
    q.has_operators = i % 2 == 0;
    q.root = RandomNode(rng, 3);
    TextSearchStats a, b;
    ExpectSame(loaded->Search(q, 10, nullptr, &a), index.Search(q, 10), Explain(q));
    ExpectSame(again->Search(q, 10, nullptr, &b), index.Search(q, 10), Explain(q));
    EXPECT_EQ(a.postings_scored, b.postings_scored);
  }
}

}  // namespace
}  // namespace engram::text
