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
}

}  // namespace
}  // namespace engram
