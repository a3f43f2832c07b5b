#include "ndcg.h"

#include <cmath>

#include <gtest/gtest.h>

namespace engram::bench {
namespace {

TEST(Ndcg, PerfectAndEmpty) {
  std::map<std::string, int> judged{{"a", 1}, {"b", 1}};
  EXPECT_DOUBLE_EQ(NdcgAtK({"a", "b", "c"}, judged, 10), 1.0);
  EXPECT_DOUBLE_EQ(NdcgAtK({"b", "a"}, judged, 10), 1.0);
  EXPECT_DOUBLE_EQ(NdcgAtK({}, judged, 10), 0.0);
  EXPECT_DOUBLE_EQ(NdcgAtK({"x"}, {}, 10), 0.0);
}

TEST(Ndcg, HandComputed) {
  // One relevant document at rank 3: 1 / log2(4) = 0.5; ideal 1.
  EXPECT_DOUBLE_EQ(NdcgAtK({"x", "y", "a"}, {{"a", 1}}, 10), 0.5);
  // Graded: rel 2 at rank 2, rel 1 at rank 1; ideal puts 2 first.
  double dcg = 1.0 / std::log2(2.0) + 2.0 / std::log2(3.0);
  double idcg = 2.0 / std::log2(2.0) + 1.0 / std::log2(3.0);
  EXPECT_DOUBLE_EQ(NdcgAtK({"b", "a"}, {{"a", 2}, {"b", 1}}, 10), dcg / idcg);
  // The cut: a relevant document at rank 11 does not count.
  std::vector<std::string> r(10, "");
  for (int i = 0; i < 10; ++i) r[static_cast<std::size_t>(i)] = "n" + std::to_string(i);
  r.push_back("a");
  EXPECT_DOUBLE_EQ(NdcgAtK(r, {{"a", 1}}, 10), 0.0);
  // The ideal is cut at k too: 12 relevant, 10 found.
  std::map<std::string, int> many;
  std::vector<std::string> top;
  for (int i = 0; i < 12; ++i) many["d" + std::to_string(i)] = 1;
  for (int i = 0; i < 10; ++i) top.push_back("d" + std::to_string(i));
  EXPECT_DOUBLE_EQ(NdcgAtK(top, many, 10), 1.0);
}

TEST(Ndcg, MeanSkipsUnjudgedQueries) {
  std::map<std::string, std::map<std::string, int>> qrels{
      {"q1", {{"a", 1}}}, {"q2", {{"b", 1}}}, {"q3", {{"c", 0}}}};
  std::map<std::string, std::vector<std::string>> runs{{"q1", {"a"}}, {"q3", {"c"}}};
  EXPECT_DOUBLE_EQ(MeanNdcgAtK(runs, qrels, 10), 0.5);  // q2 missing scores 0; q3 skipped
}

}  // namespace
}  // namespace engram::bench
