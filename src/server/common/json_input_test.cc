#include "server/common/json_input.h"

#include <string>

#include <gtest/gtest.h>

namespace engram::server {
namespace {

TEST(JsonInput, ParsesObjectsArraysAndNumbers) {
  JsonInput in = ParseJsonInput(R"({"a": [1, -2, 3.5, "x", true, null], "b": {"c": {}}})");
  ASSERT_TRUE(in.ok()) << in.error;
  EXPECT_EQ(in.value["a"][0].get<int>(), 1);
  EXPECT_TRUE(in.value["a"][2].is_number_float());
  EXPECT_TRUE(in.value["b"]["c"].is_object());
}

TEST(JsonInput, RejectsDuplicateKeysWithTheirPath) {
  JsonInput in = ParseJsonInput(R"({"filter": {"x": [1, {"k": 1, "k": 2}]}})");
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.error, "duplicate key 'k' at $.filter.x[1].k");
}

TEST(JsonInput, RejectsDeepNesting) {
  std::string deep(10, '[');
  deep += std::string(10, ']');
  EXPECT_TRUE(ParseJsonInput(deep, {.max_bytes = 100, .max_depth = 10}).ok());
  JsonInput in = ParseJsonInput("[" + deep + "]", {.max_bytes = 100, .max_depth = 10});
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.error, "nesting deeper than 10 levels at $[0][0][0][0][0][0][0][0][0][0]");
}

TEST(JsonInput, RejectsOversizedSyntaxErrorsTrailingDataAndBadUtf8) {
  EXPECT_EQ(ParseJsonInput("[1,2]", {.max_bytes = 4}).error, "the JSON is 5 bytes; the limit is 4");
  JsonInput bad = ParseJsonInput("{\"a\": 1,}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error.find("line 1, column 9"), std::string::npos) << bad.error;
  EXPECT_FALSE(ParseJsonInput("{} {}").ok());
  EXPECT_FALSE(ParseJsonInput("\"\xff\"").ok());
  EXPECT_FALSE(ParseJsonInput("").ok());
}

TEST(JsonInput, PathsQuoteKeysThatAreNotIdentifiers) {
  EXPECT_EQ(JsonPathChild("$", "a_b1"), "$.a_b1");
  EXPECT_EQ(JsonPathChild("$", "a.b"), "$[\"a.b\"]");
  EXPECT_EQ(JsonPathIndex("$.x", 3), "$.x[3]");
}

}  // namespace
}  // namespace engram::server
