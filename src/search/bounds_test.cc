// The search's bounds: the prefix-expansion cap (at it and one past) and the
// deadline, which either lets a search finish with exactly the answer it
// gives without one, or stops it with DeadlineExceeded: never a partial
// answer, whichever stage it passes in.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "search/search.h"
#include "search/test_collection.h"

namespace engram::search {
namespace {
namespace bounds_test {

using testing::CompileFilter;
using testing::ParseText;

const testing::TestCollection& Collection() {
  static const testing::TestCollection c(600);  // larger than search_test's: more stopping points
  return c;
}

std::vector<float> QueryVector() {
  return {1, 0.5f, -0.25f, 0, 1, 0, 0.5f, 0};
}

TEST(SearchBounds, PrefixExpansionCapAtTheBoundAndOnePast) {
  const CollectionView view = Collection().View();
  Request r;
  r.mode = Mode::kText;
  r.k = 50;
  r.query = ParseText("p* OR a*");  // papa pear plum peach, alpha apple: 6 words
  r.max_expansions = 6;
  StatusOr<Result> ok = Search(view, r);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_FALSE(ok->rejected);
  EXPECT_FALSE(ok->hits.empty());
  r.max_expansions = 5;
  StatusOr<Result> refused = Search(view, r);
  ASSERT_TRUE(refused.ok()) << refused.status().ToString();
  ASSERT_TRUE(refused->rejected);
  EXPECT_EQ(refused->rejected->kind, "query.too_many_expansions");
  EXPECT_EQ(refused->rejected->message,
            "query.too_many_expansions: the prefixes of the query match more than 5 indexed words "
            "(the limit), passed at 'a*': use longer prefixes or fewer of them");
  EXPECT_TRUE(refused->hits.empty());
  // In hybrid mode too, before any retriever runs.
  r.mode = Mode::kHybrid;
  r.vector = QueryVector();
  refused = Search(view, r);
  ASSERT_TRUE(refused.ok());
  EXPECT_TRUE(refused->rejected);
}

// The hits as (doc, score) pairs, to compare answers exactly.
std::vector<std::pair<std::uint32_t, double>> Answer(const Result& result) {
  std::vector<std::pair<std::uint32_t, double>> out;
  for (const Hit& h : result.hits) out.emplace_back(h.doc, h.score);
  return out;
}

TEST(SearchBounds, ADeadlineGivesTheFullAnswerOrDeadlineExceeded) {
  const CollectionView view = Collection().View();
  const std::unique_ptr<filter::CompiledFilter> filter =
      CompileFilter(R"({"$or":[{"section":"a"},{"bucket":{"$lt":300}},{"tag":{"$exists":true}}]})");
  std::vector<Request> requests(4);
  requests[0].mode = Mode::kText;
  requests[0].query = ParseText("alpha* OR b* OR charlie");
  requests[1].mode = Mode::kVector;
  requests[1].vector = QueryVector();
  requests[2].mode = Mode::kHybrid;
  requests[2].query = ParseText("NOT alpha");
  requests[2].vector = QueryVector();
  requests[3].mode = Mode::kHybrid;
  requests[3].query = ParseText("delta echo");
  requests[3].vector = QueryVector();
  requests[3].explain = true;
  requests[3].impact = true;
  for (Request& r : requests) {
    r.k = 20;
    r.filter = filter.get();
    StatusOr<Result> full = Search(view, r);
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    // A deadline that passes at the n-th time it is read, for every n until
    // the search finishes first.
    std::size_t stopped = 0;
    for (std::uint64_t n = 0;; ++n) {
      ASSERT_LT(n, 100000u) << "the search never finished";
      const Deadline deadline = Deadline::AfterChecks(n);
      r.deadline = &deadline;
      StatusOr<Result> got = Search(view, r);
      if (!got.ok()) {
        EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded) << got.status().ToString();
        ++stopped;
        continue;
      }
      EXPECT_EQ(Answer(*got), Answer(*full)) << "deadline after " << n << " checks";
      break;
    }
    EXPECT_GT(stopped, 0u);
    // A deadline far away changes nothing.
    const Deadline later(Deadline::Clock::now() + std::chrono::hours(1));
    r.deadline = &later;
    StatusOr<Result> in_time = Search(view, r);
    ASSERT_TRUE(in_time.ok());
    EXPECT_EQ(Answer(*in_time), Answer(*full));
    r.deadline = nullptr;
  }
}

}  // namespace bounds_test
}  // namespace
}  // namespace engram::search
