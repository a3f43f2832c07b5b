#include "server/requests.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace engram::bench {
namespace {

TEST(SearchBodyTest, RoundTripsThroughParseSearchBody) {
  const std::string body =
      SearchBody("network \"file\" sharing", "[0.5,-1.25,3]", R"({"section": "devel"})", 10);
  EXPECT_EQ(body.find('\n'), std::string::npos);  // one request per line
  const SearchRequest r = ParseSearchBody(body);
  ASSERT_TRUE(r.query.has_value());
  EXPECT_EQ(*r.query, "network \"file\" sharing");
  ASSERT_TRUE(r.vector.has_value());
  EXPECT_EQ(*r.vector, (std::vector<float>{0.5f, -1.25f, 3.0f}));
  EXPECT_EQ(nlohmann::json::parse(r.filter), nlohmann::json::parse(R"({"section":"devel"})"));
  ASSERT_TRUE(r.dialect.has_value());
  EXPECT_EQ(*r.dialect, FilterDialect::kVectorFilter);
  EXPECT_EQ(r.k, 10u);
  ASSERT_TRUE(r.mode.has_value());
  EXPECT_EQ(*r.mode, SearchMode::kHybrid);
}

TEST(SearchBodyTest, NoFilterLeavesDialectOut) {
  const nlohmann::json j = nlohmann::json::parse(SearchBody("q", "[1]", "", 5));
  EXPECT_FALSE(j.contains("filter"));
  EXPECT_FALSE(j.contains("dialect"));
  EXPECT_TRUE(ParseSearchBody(j.dump()).filter.empty());
}

TEST(ParseSearchBodyTest, RejectsBadMembers) {
  EXPECT_THROW(ParseSearchBody("[]"), std::runtime_error);
  EXPECT_THROW(ParseSearchBody("{"), std::runtime_error);
  EXPECT_THROW(ParseSearchBody(R"({"vector":[1,"x"]})"), std::runtime_error);
  EXPECT_THROW(ParseSearchBody(R"({"k":-1})"), std::runtime_error);
  EXPECT_THROW(ParseSearchBody(R"({"mode":"fuzzy"})"), std::runtime_error);
  EXPECT_THROW(ParseSearchBody(R"({"dialect":"sql"})"), std::runtime_error);
}

TEST(HitsJsonTest, EmbedsRecordsAsObjects) {
  SearchResponse resp;
  resp.hits.push_back({"a", 0.5, 0.9, std::nullopt, std::nullopt, R"({"id":"a","x":1})"});
  const nlohmann::json j = nlohmann::json::parse(HitsJson(resp));
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["record"]["x"], 1);
}

TEST(SummariseTest, NearestRank) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const LatencySummary s = Summarise(v);
  EXPECT_EQ(s.samples, 100u);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  std::vector<double> empty;
  EXPECT_EQ(Summarise(empty).samples, 0u);
}

TEST(WrkCorrectedTest, AddsTheSamplesWrkAdds) {
  // 4 samples on 2 connections over 1000 us: expected = 1000 / 2 = 500 us.
  const std::vector<double> in = {100.4, 999.9, 1000.0, 1700.0};
  std::vector<double> out = WrkCorrected(in, 1000, 2);
  std::sort(out.begin(), out.end());
  // 999 < 2 * 500 adds nothing; 1000 adds nothing (500 is not above 500);
  // 1700 adds 1200 and 700.
  EXPECT_EQ(out, (std::vector<double>{100, 700, 999, 1000, 1200, 1700}));
  EXPECT_EQ(WrkCorrected(in, 1000, 16).size(), in.size());  // fewer samples than connections
}

}  // namespace
}  // namespace engram::bench
