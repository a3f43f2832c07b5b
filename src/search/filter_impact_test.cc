#include "search/filter_impact.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/json.h"
#include "schema/record.h"
#include "search/test_collection.h"

namespace engram::search {
namespace {

using filter::Dialect;
using testing::CompileFilter;
using testing::TestSchema;

std::vector<Value> Row(const char* json) {
  auto record = ParseRecord(json::Read(json).value, *TestSchema());
  EXPECT_TRUE(record.ok()) << json;
  return record.value().slots;
}

// The reason `filter` (in `dialect`) gives for the record `row`.
std::string Reason(const std::string& filter, const char* row, Dialect dialect = Dialect::kExprV1) {
  std::string text = filter;
  if (dialect == Dialect::kExprV1) {
    text = R"({"schema":"search_filter_expr/v1","expr":)" + filter + "}";
  }
  auto compiled = CompileFilter(text, dialect);
  if (!compiled) return "<compile error>";
  return DropReason(compiled->checked.root, Row(row));
}

constexpr const char* kA = R"({"id":"1","section":"a","bucket":1})";
constexpr const char* kB = R"({"id":"2","section":"b","bucket":9,"tag":"x"})";

TEST(DropReason, PassingRecordHasNoReason) {
  EXPECT_EQ(Reason(R"({"op":"eq","field":"section","value":"a"})", kA), "");
}

TEST(DropReason, FailingLeafIsItsOpAndField) {
  EXPECT_EQ(Reason(R"({"op":"eq","field":"section","value":"a"})", kB), "eq:section");
  EXPECT_EQ(Reason(R"({"op":"in","field":"section","value":["c","d"]})", kB), "in:section");
  EXPECT_EQ(Reason(R"({"op":"gt","field":"bucket","value":5})", kA), "gt:bucket");
  EXPECT_EQ(Reason(R"({"op":"contains","field":"section","value":"zz"})", kA), "contains:section");
  // An absent field fails its leaf.
  EXPECT_EQ(Reason(R"({"op":"eq","field":"tag","value":"x"})", kA), "eq:tag");
}

TEST(DropReason, AndReportsItsFirstFailingChild) {
  const std::string f = R"({"op":"and","args":[{"op":"eq","field":"section","value":"a"},)"
                        R"({"op":"gt","field":"bucket","value":5}]})";
  EXPECT_EQ(Reason(f, kA), "gt:bucket") << "the first child passes";
  EXPECT_EQ(Reason(f, R"({"id":"3","section":"c","bucket":1})"), "eq:section")
      << "both fail: the first";
}

TEST(DropReason, OrReportsItsFirstChild) {
  const std::string f = R"({"op":"or","args":[{"op":"eq","field":"section","value":"z"},)"
                        R"({"op":"gt","field":"bucket","value":50}]})";
  EXPECT_EQ(Reason(f, kA), "eq:section");
  // Nested: the first child of an or is itself an and; its first failing child.
  const std::string g =
      R"({"op":"or","args":[{"op":"and","args":[{"op":"eq","field":"section","value":"a"},)"
      R"({"op":"lt","field":"bucket","value":0}]},{"op":"eq","field":"tag","value":"q"}]})";
  EXPECT_EQ(Reason(g, kA), "lt:bucket");
}

TEST(DropReason, WrittenNotWhoseChildPassedIsNotTrue) {
  EXPECT_EQ(Reason(R"({"op":"not","expr":{"op":"eq","field":"section","value":"a"}})", kA),
            "not.true");
  // Inside an and, after a passing child.
  EXPECT_EQ(Reason(R"({"op":"and","args":[{"op":"gt","field":"bucket","value":0},)"
                   R"({"op":"not","expr":{"op":"eq","field":"section","value":"a"}}]})",
                   kA),
            "not.true");
}

TEST(DropReason, LoweredNegationsKeepTheOpAsWritten) {
  // expr_v1 neq, vector_filter $ne / $nin, search_memory is_not, retrieve ne:
  // the checker lowers each to a `not`, which reports the leaf as written.
  EXPECT_EQ(Reason(R"({"op":"neq","field":"section","value":"a"})", kA), "neq:section");
  EXPECT_EQ(Reason(R"({"section":{"$ne":"a"}})", kA, Dialect::kVectorFilter), "$ne:section");
  EXPECT_EQ(Reason(R"({"section":{"$nin":["a","b"]}})", kA, Dialect::kVectorFilter),
            "$nin:section");
  EXPECT_EQ(
      Reason(R"([{"field":"tag","operator":"is_not","value":"x"}])", kB, Dialect::kSearchMemory),
      "is_not:tag");
  EXPECT_EQ(Reason(R"({"op":"ne","lhs":{"knowledge":"section"},"rhs":{"value":"a"}})", kA,
                   Dialect::kRetrieve),
            "ne:section");
  // A written not around a lowered neq whose own child passes... the not's
  // child (neq) passes when section != a: the written not reports not.true.
  EXPECT_EQ(Reason(R"({"op":"not","expr":{"op":"neq","field":"section","value":"a"}})", kB),
            "not.true");
}

TEST(DropReason, VectorFilterShorthandIsEq) {
  EXPECT_EQ(Reason(R"({"section":"z"})", kA, Dialect::kVectorFilter), "$eq:section");
  // Several fields in one object are an implicit and: the first failing one.
  EXPECT_EQ(Reason(R"({"section":"a","bucket":{"$gte":5}})", kA, Dialect::kVectorFilter),
            "$gte:bucket");
}

TEST(TopDropReasons, CountDescendingThenReasonAscendingAtMostFive) {
  const std::map<std::string, std::size_t> counts = {
      {"in:type", 15}, {"eq:scope", 20}, {"b", 3}, {"a", 3}, {"c", 3}, {"d", 1}, {"e", 9}};
  const std::vector<DropCount> top = TopDropReasons(counts);
  const std::vector<DropCount> want = {
      {"eq:scope", 20}, {"in:type", 15}, {"e", 9}, {"a", 3}, {"b", 3}};
  EXPECT_EQ(top, want);
  EXPECT_TRUE(TopDropReasons({}).empty());
}

TEST(EffectiveCandidateK, SeedFormula) {
  EXPECT_EQ(EffectiveCandidateK(10, 10), 30u);
  EXPECT_EQ(EffectiveCandidateK(10, 60), 180u);
  EXPECT_EQ(EffectiveCandidateK(10, 500), 1024u) << "capped at MAX_CANDIDATE_K";
  EXPECT_EQ(EffectiveCandidateK(2000, 500), 2000u) << "never below top_k";
  EXPECT_EQ(EffectiveCandidateK(50, 5), 50u);
  EXPECT_EQ(EffectiveCandidateK(1, SIZE_MAX), 1024u) << "no overflow";
}

TEST(FilterImpact, CountsAndJsonOnAHandComputedExample) {
  index::MetadataIndex metadata(TestSchema());
  // 0: a/1, 1: b/9 tag x, 2: c/3, 3: a/7, 4: d/2.
  const char* rows[] = {kA, kB, R"({"id":"2","section":"c","bucket":3})",
                        R"({"id":"3","section":"a","bucket":7})",
                        R"({"id":"4","section":"d","bucket":2})"};
  for (std::uint32_t i = 0; i < 5; ++i) metadata.Put(i, Row(rows[i]));
  auto f = CompileFilter(
      R"({"schema":"search_filter_expr/v1","expr":{"op":"and","args":[)"
      R"({"op":"in","field":"section","value":["a","b"]},{"op":"lt","field":"bucket","value":5}]}})",
      Dialect::kExprV1);
  ASSERT_TRUE(f);
  // Record 9 has no metadata row (consistency check); 3 is listed twice.
  const std::vector<std::uint32_t> candidates = {0, 1, 2, 3, 3, 4, 9};
  const ImpactCounts counts = CountImpact(metadata, *f, candidates);
  EXPECT_EQ(counts.pre, 5u);
  EXPECT_EQ(counts.post, 1u);  // only record 0
  const std::map<std::string, std::size_t> want = {{"in:section", 2}, {"lt:bucket", 2}};
  EXPECT_EQ(counts.reasons, want);

  const json::Value j =
      FilterImpactJson(10, EffectiveCandidateK(10, 10), counts, FilterEcho(*f, Dialect::kExprV1));
  const json::Value expected = json::Read(R"({
    "schema":"search_filter_impact/v1","requested_candidate_k":10,"effective_candidate_k":30,
    "candidate_count_pre":5,"candidate_count_post":1,"dropped_total":4,
    "top_drop_reasons":[{"reason":"in:section","count":2},{"reason":"lt:bucket","count":2}],
    "filter":{"schema":"search_filter_expr/v1","expr":{"op":"and","args":[
      {"op":"in","field":"section","value":["a","b"]},{"op":"lt","field":"bucket","value":5}]}}
  })")
                                   .value;
  EXPECT_EQ(j.dump(), expected.dump());
}

TEST(FilterEcho, SearchMemoryFallsBackToTheCheckedIr) {
  auto f =
      CompileFilter(R"([{"field":"tag","operator":"is","value":"x"}])", Dialect::kSearchMemory);
  ASSERT_TRUE(f);
  EXPECT_EQ(FilterEcho(*f, Dialect::kSearchMemory).dump(),
            R"({"op":"and","args":[{"op":"eq","field":"tag","value":"x"}]})");
}

}  // namespace
}  // namespace engram::search
