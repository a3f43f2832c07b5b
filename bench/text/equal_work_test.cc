// The equal-work helpers: the terms taken from engram's parser, their OR
// form round-tripping through the parser, the relaxation applied to a peer's
// lists, and the top-k agreement counts.
#include "equal_work.h"

#include <stdexcept>

#include <gtest/gtest.h>

#include "text/query/query.h"

namespace engram::bench {
namespace {

constexpr text::Stemmer kEnglish = text::Stemmer::kEnglish;

text::DefaultQuery Parse(std::string_view q) {
  text::QueryOptions o;
  o.anchor = text::Date{2026, 11, 21};
  auto parsed = text::ParseQuery(q, o);
  EXPECT_TRUE(parsed.ok());
  return parsed.value().def;
}

struct TermsCase {
  const char* query;
  std::vector<std::string> terms;
};

TEST(EqualWork, TermsAreWhatTheParserKeepsAndSurviveTheOrForm) {
  const TermsCase cases[] = {
      {"The cells of a mouse", {"cells", "mouse"}},
      {"0-dimensional biomaterials show inductive properties.",
       {"0dimensional", "biomaterials", "inductive", "properties"}},  // `show` is a stopword
      {"to do list", {"to", "do", "list"}},  // all stopwords: the filter is bypassed
      {"Hedgehog", {"hedgehog"}},
      {"cats and dogs or mice", {"cats", "dogs", "mice"}},
      // engram scores a stemmed term once: the later `cell`, `cells` go
      {"cells of mice cell lines cells", {"cells", "mice", "lines"}},
  };
  for (const TermsCase& c : cases) {
    std::vector<std::string> terms = QueryTerms(Parse(c.query), kEnglish);
    EXPECT_EQ(terms, c.terms) << c.query;
    text::DefaultQuery orq = Parse(OrQueryText(terms));
    EXPECT_EQ(QueryTerms(orq, kEnglish), terms) << c.query;
    const auto want = terms.size() > 1 ? text::Node::Kind::kOr : text::Node::Kind::kTerm;
    EXPECT_EQ(orq.root->kind, want) << c.query;
  }
  EXPECT_EQ(OrQueryText({"a", "b", "c"}), "a OR b OR c");
  EXPECT_EQ(QueryTerms(Parse("cells cell"), text::Stemmer::kNone),
            (std::vector<std::string>{"cells", "cell"}));
}

TEST(EqualWork, QueriesThatAreNotTermListsAreRefused) {
  // A phrase, a prefix, a NOT, a nested group, nothing.
  for (const char* q : {"\"gardens and parks\"", "hedge*", "a NOT b", "a OR b c", ""}) {
    EXPECT_THROW(QueryTerms(Parse(q), kEnglish), std::runtime_error) << q;
  }
}

TEST(EqualWork, FillKeepsStrictHitsFirstAndSkipsThemInThePartialList) {
  EXPECT_EQ(FillFromPartial({4, 2}, {2, 7, 4, 9, 1}, 4), (std::vector<std::uint32_t>{4, 2, 7, 9}));
  EXPECT_EQ(FillFromPartial({}, {3, 1}, 4), (std::vector<std::uint32_t>{3, 1}));
  EXPECT_EQ(FillFromPartial({1, 2, 3}, {5}, 3), (std::vector<std::uint32_t>{1, 2, 3}));
}

TEST(EqualWork, AgreementCountsSetsAndOrders) {
  Agreement a;
  EXPECT_EQ(a.Format(), "—");
  EXPECT_EQ(a.FormatShared(), "—");
  a.Add({1, 2, 3}, {1, 2, 3});
  a.Add({1, 2, 3}, {3, 2, 1});
  a.Add({1, 2, 3}, {1, 2, 4});
  a.Add({1, 2}, {1, 2, 3});
  EXPECT_EQ(a.queries, 4u);
  EXPECT_EQ(a.same_set, 2u);
  EXPECT_EQ(a.same_order, 1u);
  EXPECT_EQ(a.shared, 3u + 3u + 2u + 2u);
  EXPECT_EQ(a.Format(), "50.0 % / 25.0 %");
  EXPECT_EQ(a.FormatShared(), "2.50");
}

}  // namespace
}  // namespace engram::bench
