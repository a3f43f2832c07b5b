#include "base/path.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(Path, Renders) {
  Path p = Path().Key("args").Index(1).Key("rhs");
  EXPECT_EQ(p.Dotted(), "args[1].rhs");
  EXPECT_EQ(p.JsonPath("$.filter.expr"), "$.filter.expr.args[1].rhs");
  EXPECT_EQ(p.Pointer(), "/args/1/rhs");
  EXPECT_EQ(Path().Dotted(), "<root>");
  EXPECT_EQ(Path().Pointer(), "<root>");
  EXPECT_EQ(Path().JsonPath("$.filter"), "$.filter");
  EXPECT_EQ(Path().Index(2).Key("value").Dotted(), "[2].value");
  EXPECT_EQ(Path().Key("a/b~c").Key("$in").Index(2).Pointer(), "/a~1b~0c/$in/2");
  // Keys that are not plain names are quoted, so no path renders empty or
  // ambiguous.
  EXPECT_EQ(Path().Key("").Dotted(), "[\"\"]");
  EXPECT_EQ(Path().Key("args").Key("a.b").Key("x y").Dotted(), "args[\"a.b\"][\"x y\"]");
  EXPECT_EQ(Path().Key("q\"\n").JsonPath("$.filter"), "$.filter[\"q\\\"\\u000a\"]");
  EXPECT_EQ(Path().Key("").Pointer(), "/");
  EXPECT_EQ(Path().Key("\xc3\xa9t\xc3\xa9").Dotted(), "\xc3\xa9t\xc3\xa9");
}

}  // namespace
}  // namespace engram
